//! Float16 graphs on the fast backend: MobileNetV2-1.0-224 built in float32 (seeded weights)
//! and the same graph converted to float16 (inputs, weights, outputs), as a page loading a
//! float16 model builds it:
//!
//!     cargo run --release -p webnn-fast --example float16 [runs]
//!
//! Prints the median latency of `runs` dispatches (default 20, after a warm-up) of each graph
//! on the fast backend at 1 and 2 threads, the float16/float32 ratio (the goal: about 1, as
//! the float16 graph computes in float32 inside), the reference interpreter on the float16
//! graph (float16 arithmetic per element: what every float16 node ran before the widening),
//! and the largest difference of the float16 logits from the float32 ones.

use half::f16;
use webnn_core::passes::{retype_float, Edges};
use webnn_core::{Backend, DataType, Executable, HostTensor, OperandDescriptor};
use webnn_fast::FastBackend;

#[path = "support/mod.rs"]
mod support;

/// The output's values as f32, whichever float type it has.
fn values(t: &HostTensor) -> Vec<f32> {
    match t.desc.data_type {
        DataType::Float16 => t.bytes.chunks_exact(2).map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32()).collect(),
        _ => t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
    }
}

/// Median milliseconds of `runs` dispatches of the image, and the first output's values.
fn time(exe: &mut dyn Executable, image: &HostTensor, runs: usize) -> (f64, Vec<f32>) {
    let (ms, out) = support::time(exe, &[("input", image)], runs);
    (ms, values(&out))
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20).max(1);
    let g32 = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
    let g16 = retype_float(&g32, DataType::Float32, DataType::Float16, Edges::Retype).expect("float16 graph");
    let image32 = webnn_models::sample_image(11);
    let image16 = HostTensor {
        desc: OperandDescriptor { data_type: DataType::Float16, shape: image32.desc.shape.clone() },
        bytes: values(&image32).iter().flat_map(|v| f16::from_f32(*v).to_le_bytes()).collect(),
    };
    println!("MobileNetV2-1.0-224, NCHW input, {} WebNN ops; median of {runs} runs", g32.nodes.len());

    let mut reference = webnn_cpu::CpuBackend.compile(&g16).expect("cpu compile");
    let (ref_ms, _) = time(reference.as_mut(), &image16, 1);
    println!();
    println!("| graph   | backend          | threads | median ms | fast / reference steps |");
    println!("|---------|------------------|--------:|----------:|-----------------------:|");
    println!("| float16 | cpu (reference)  |       1 | {ref_ms:>9.1} |                        |");
    let mut lines = Vec::new();
    for threads in [1, 2] {
        let fast = FastBackend::new(threads);
        let mut ms = [0.0; 2];
        let mut logits = [Vec::new(), Vec::new()];
        for (k, (name, graph, image)) in [("float32", &g32, &image32), ("float16", &g16, &image16)].into_iter().enumerate() {
            let compiled = fast.compile_graph(graph).expect("fast compile");
            let (f, r) = compiled.step_counts();
            let mut exe: Box<dyn Executable> = Box::new(compiled);
            (ms[k], logits[k]) = time(exe.as_mut(), image, runs);
            println!("| {name} | fast             | {threads:>7} | {:>9.2} | {:>22} |", ms[k], format!("{f} / {r}"));
        }
        let diff = logits[0].iter().zip(&logits[1]).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        lines.push(format!(
            "{threads} thread(s): float16 / float32 {:.2}; float16 reference / fast {:.1}x; max |logit diff| float16 vs float32 {diff:.3e}",
            ms[1] / ms[0],
            ref_ms / ms[1]
        ));
    }
    println!();
    lines.iter().for_each(|l| println!("{l}"));
}
