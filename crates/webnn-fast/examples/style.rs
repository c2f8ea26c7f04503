//! A fast-style-transfer network (`webnn_models::style_transfer`: reflection pads, 9x9 and
//! stride-2 convolutions, instance normalization, five residual blocks, stride-2 transposed
//! convolutions, tanh; seeded weights) on the fast backend and on ONNX Runtime (the same
//! WebNN graph through webnn-ort):
//!
//!     cargo run --release -p webnn-fast --example style [size] [runs]
//!
//! `size` defaults to 256 (the webnn-samples page uses 540), `runs` to 5. Prints the median
//! latency at 1 and 2 threads, the fast/ONNX Runtime ratio, the plan's fast/reference step
//! counts and the largest output difference between the two. ONNX Runtime needs
//! `ORT_DYLIB_PATH` (scripts/env.sh sets it).

use webnn_core::{Backend, DataType, Executable, HostTensor, OperandDescriptor};
use webnn_fast::FastBackend;
use webnn_ort::OrtBackend;

#[path = "support/mod.rs"]
mod support;

/// Median milliseconds of `runs` dispatches of the image, and the first output's values.
fn time(exe: &mut dyn Executable, image: &HostTensor, runs: usize) -> (f64, Vec<f32>) {
    let (ms, out) = support::time(exe, &[(webnn_models::STYLE_INPUT, image)], runs);
    (ms, support::floats(&out))
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let size = args.next().flatten().unwrap_or(256);
    let runs = args.next().flatten().unwrap_or(5).max(1);
    let graph = webnn_models::style_transfer(size as u32, 3).expect("style transfer builds");
    let n = 3 * size * size;
    let image = HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[1, 3, size as u32, size as u32]),
        bytes: webnn_models::Rng::new(9).fill(n, 0.0, 255.0).iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    println!("style transfer {size}x{size}, {} WebNN ops; median of {runs} runs", graph.nodes.len());
    println!();
    println!("| threads | fast ms | onnxruntime ms | fast / ort | fast / reference steps | max |diff| |");
    println!("|--------:|--------:|---------------:|-----------:|-----------------------:|-----------:|");
    for threads in [1, 2] {
        let compiled = FastBackend::new(threads).compile_graph(&graph).expect("fast compile");
        let (f, r) = compiled.step_counts();
        let mut fast: Box<dyn Executable> = Box::new(compiled);
        let (fast_ms, ours) = time(fast.as_mut(), &image, runs);
        match OrtBackend::new().map(|b| b.with_threads(threads)) {
            Ok(ort) => {
                let mut exe = ort.compile(&graph).expect("ort compile");
                let (ort_ms, theirs) = time(exe.as_mut(), &image, runs);
                let diff = ours.iter().zip(&theirs).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                println!("| {threads:>7} | {fast_ms:>7.1} | {ort_ms:>14.1} | {:>10.2} | {:>22} | {diff:>10.2e} |", fast_ms / ort_ms, format!("{f} / {r}"));
            }
            Err(e) => println!("| {threads:>7} | {fast_ms:>7.1} | ({e}) | | {f} / {r} | |"),
        }
    }
}
