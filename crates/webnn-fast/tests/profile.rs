//! The style transfer network (reflection pads, 9x9 and strided convolutions, instance
//! normalizations, transposed convolutions, tanh) runs on fast kernels only, and its step
//! profile accounts for its time. Natively at 64 x 64; in a page, where the wasm builds'
//! kernels are timed with `performance.now()`, at the samples' working size of 256 x 256:
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

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn style_transfer_runs_on_fast_kernels_and_its_profile_adds_up() {
    let size = if cfg!(target_arch = "wasm32") { 256 } else { 64 };
    let graph = webnn_models::style_transfer(size, 5).unwrap();
    let compiled = FastBackend::new(1).compile_graph(&graph).unwrap();
    let (fast, reference) = compiled.step_counts();
    let desc = graph.input_desc(webnn_models::STYLE_INPUT).unwrap();
    let values: Vec<u8> = (0..3 * size * size).flat_map(|i| ((i * 7919 % 1000) as f32 / 500.0 - 1.0).to_le_bytes()).collect();
    let input = webnn_cpu::Tensor::from_bytes(desc, &values).unwrap();
    let inputs = HashMap::from([(webnn_models::STYLE_INPUT.to_owned(), input)]);
    #[cfg(target_arch = "wasm32")]
    let clock = || now() / 1e3;
    #[cfg(not(target_arch = "wasm32"))]
    let clock = {
        let origin = std::time::Instant::now();
        move || origin.elapsed().as_secs_f64()
    };
    let start = clock();
    compiled.run(&inputs).unwrap();
    let whole = clock() - start;
    let mut steps = compiled.profile_with_clock(&inputs, 1, &clock).unwrap();
    let on_reference: Vec<&String> = steps.iter().map(|(s, _)| s).filter(|s| s.starts_with("reference")).collect();
    assert_eq!(reference, 0, "every op on a fast kernel: {on_reference:?}");
    assert_eq!(steps.len(), fast);
    let total: f64 = steps.iter().map(|(_, t)| t).sum();
    assert!(steps.iter().all(|(_, t)| *t >= 0.0) && total > 0.0);
    steps.sort_by(|a, b| b.1.total_cmp(&a.1));
    say!("style transfer {size}x{size}, one run {:.1} ms, steps {:.1} ms; the slowest:", whole * 1e3, total * 1e3);
    for (name, t) in steps.iter().take(15) {
        say!("  {:9.1} us {:5.1}%  {name}", t * 1e6, 100.0 * t / total);
    }
}
