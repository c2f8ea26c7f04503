//! The style transfer network (reflection pads, 9x9 and strided convolutions, instance
//! normalizations, transposed convolutions, tanh) runs on fast kernels only, and its step
//! profile accounts for its time: natively at 64 x 64; in a page, where the wasm builds'
//! kernels are timed with `performance.now()`, at 256 x 256, and MobileNetV2 in float32,
//! float16 and QDQ form beside it (a 32-bit `usize` once sent convolutions whose sizes'
//! product wrapped to zero to the reference kernel there):
//!
//!   cargo test -p webnn-fast --target wasm32-unknown-unknown --release --test profile -- --nocapture
//!
//! (with `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner`, as
//! scripts/test.sh sets it) prints the slowest steps of the simd128 build, the profile the
//! page cannot show.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use std::collections::HashMap;
use webnn_fast::FastBackend;

/// A line of the report: the page's console in wasm (which `--nocapture` shows), stdout
/// natively.
macro_rules! say {
    ($($t:tt)*) => {{
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_test::console_log!($($t)*);
        #[cfg(not(target_arch = "wasm32"))]
        println!($($t)*);
    }};
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

/// Seconds from an arbitrary origin: `performance.now()` in a page.
fn clock() -> impl Fn() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return || now() / 1e3;
    #[cfg(not(target_arch = "wasm32"))]
    {
        let origin = std::time::Instant::now();
        move || origin.elapsed().as_secs_f64()
    }
}

/// `graph` on one thread: every step a fast kernel; the step times add up; the slowest
/// printed.
fn profile(name: &str, graph: &webnn_core::Graph, input: (&str, &[u8])) {
    let compiled = FastBackend::new(1).compile_graph(graph).unwrap();
    let (fast, reference) = compiled.step_counts();
    let desc = graph.input_desc(input.0).unwrap();
    let inputs = HashMap::from([(input.0.to_owned(), webnn_cpu::Tensor::from_bytes(desc, input.1).unwrap())]);
    let clock = clock();
    let start = clock();
    compiled.run(&inputs).unwrap();
    let whole = clock() - start;
    let mut steps = compiled.profile_with_clock(&inputs, 1, &clock).unwrap();
    let on_reference: Vec<&String> = steps.iter().map(|(s, _)| s).filter(|s| s.starts_with("reference")).collect();
    assert_eq!(reference, 0, "{name}: every op on a fast kernel: {on_reference:?}");
    assert_eq!(steps.len(), fast);
    let total: f64 = steps.iter().map(|(_, t)| t).sum();
    assert!(steps.iter().all(|(_, t)| *t >= 0.0) && total > 0.0);
    steps.sort_by(|a, b| b.1.total_cmp(&a.1));
    say!("{name}: one run {:.1} ms, steps {:.1} ms; the slowest:", whole * 1e3, total * 1e3);
    for (step, t) in steps.iter().take(12) {
        say!("  {:9.1} us {:5.1}%  {step}", t * 1e6, 100.0 * t / total);
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn style_transfer_runs_on_fast_kernels() {
    let size = if cfg!(target_arch = "wasm32") { 256 } else { 64 };
    let graph = webnn_models::style_transfer(size, 5).unwrap();
    let values: Vec<u8> = (0..3 * size * size).flat_map(|i| ((i * 7919 % 1000) as f32 / 500.0 - 1.0).to_le_bytes()).collect();
    profile(&format!("style transfer {size}x{size}"), &graph, (webnn_models::STYLE_INPUT, &values));
}

/// MobileNetV2 as the page's float32, float16 and QDQ models are built (natively, the
/// mobilenet, float16 and qdq tests cover them).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test::wasm_bindgen_test]
fn mobilenet_v2_in_each_form_runs_on_fast_kernels() {
    use webnn_core::passes::{retype_float, Edges};
    use webnn_core::DataType;
    let graph = webnn_models::mobilenet_v2(7).unwrap();
    let image = webnn_models::sample_image(3);
    profile("MobileNetV2", &graph, (webnn_models::MOBILENET_INPUT.0, &image.bytes));
    let qdq = webnn_models::qdq(&graph).unwrap();
    profile("MobileNetV2 QDQ", &qdq, (webnn_models::MOBILENET_INPUT.0, &image.bytes));
    let half = retype_float(&graph, DataType::Float32, DataType::Float16, Edges::Retype).unwrap();
    let bytes: Vec<u8> = image.bytes.chunks_exact(4).flat_map(|c| half::f16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_le_bytes()).collect();
    profile("MobileNetV2 float16", &half, (webnn_models::MOBILENET_INPUT.0, &bytes));
}
