//! A QDQ-quantized MobileNetV2-1.0-224 (int8 weights per output channel and uint8
//! activations through quantizeLinear/dequantizeLinear pairs, the form ONNX Runtime's static
//! quantizer writes; `webnn_models::qdq`) on the fast backend, against the float32 graph:
//!
//!     cargo run --release -p webnn-fast --example qdq [runs]
//!
//! Prints the median latency of `runs` dispatches (default 20, after a warm-up) of each graph
//! at 1 and 2 threads with the plan's fast/reference step counts, the reference interpreter
//! on the QDQ graph, and the largest logit difference between the fast backend and the
//! reference on the QDQ graph.

use webnn_core::{Backend, Executable, HostTensor};
use webnn_fast::FastBackend;

#[path = "support/mod.rs"]
mod support;

/// Median milliseconds of `runs` dispatches of the image, and the first output's values.
fn time(exe: &mut dyn Executable, image: &HostTensor, runs: usize) -> (f64, Vec<f32>) {
    let (ms, out) = support::time(exe, &[("input", image)], runs);
    (ms, support::floats(&out))
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20).max(1);
    let f32_graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
    let qdq_graph = webnn_models::qdq(&f32_graph).expect("QDQ graph");
    let image = webnn_models::sample_image(11);
    println!("MobileNetV2-1.0-224 QDQ ({} WebNN ops; float32: {}), median of {runs} runs", qdq_graph.nodes.len(), f32_graph.nodes.len());
    let mut reference = webnn_cpu::CpuBackend.compile(&qdq_graph).expect("cpu compile");
    let (ref_ms, want) = time(reference.as_mut(), &image, 1);
    println!();
    println!("| graph   | backend         | threads | median ms | fast / reference steps |");
    println!("|---------|-----------------|--------:|----------:|-----------------------:|");
    println!("| QDQ     | cpu (reference) |       1 | {ref_ms:>9.1} |                        |");
    let mut lines = Vec::new();
    for threads in [1, 2] {
        let fast = FastBackend::new(threads);
        let mut ms = [0.0; 2];
        for (k, (name, graph)) in [("float32", &f32_graph), ("QDQ    ", &qdq_graph)].into_iter().enumerate() {
            let compiled = fast.compile_graph(graph).expect("fast compile");
            let (f, r) = compiled.step_counts();
            let mut exe: Box<dyn Executable> = Box::new(compiled);
            let (t, logits) = time(exe.as_mut(), &image, runs);
            ms[k] = t;
            println!("| {name} | fast            | {threads:>7} | {t:>9.2} | {:>22} |", format!("{f} / {r}"));
            if k == 1 {
                let diff = want.iter().zip(&logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                lines.push(format!("{threads} thread(s): QDQ / float32 {:.2}; max |logit diff| fast vs reference on QDQ {diff:.3e}", ms[1] / ms[0]));
            }
        }
    }
    println!();
    lines.iter().for_each(|l| println!("{l}"));
}
