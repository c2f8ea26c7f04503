//! A BERT-base-sized encoder layer stack (`webnn_models::bert_encoder`: seq 128, hidden 768,
//! 12 heads, ffn 3072, 2 layers, seeded weights) on the fast backend, against ONNX Runtime on
//! the same WebNN graph and the reference interpreter:
//!
//!     cargo run --release -p webnn-fast --example encoder [runs]
//!
//! Prints the median latency of `runs` dispatches (default 10, after a warm-up) at 1 and 2
//! threads with the plan's fast/reference step counts, the fast/ONNX Runtime ratio, and the
//! largest output difference from the reference. ONNX Runtime needs `ORT_DYLIB_PATH`
//! (scripts/env.sh sets it); without it those rows are skipped.

use webnn_core::{Backend, DataType, Executable, HostTensor, OperandDescriptor};
use webnn_fast::FastBackend;
use webnn_models::{EncoderConfig, ENCODER_INPUTS};
use webnn_ort::OrtBackend;

#[path = "support/mod.rs"]
mod support;

/// Median milliseconds of `runs` dispatches, and the first output's values.
fn time(exe: &mut dyn Executable, feeds: &[(&str, &HostTensor)], runs: usize) -> (f64, Vec<f32>) {
    let (ms, out) = support::time(exe, feeds, runs);
    (ms, support::floats(&out))
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10).max(1);
    let config = EncoderConfig { vocab: 1000, seq: 128, hidden: 768, heads: 12, ffn: 3072, layers: 2 };
    let graph = webnn_models::bert_encoder(&config, 3).expect("encoder builds");
    let (ids, mask) = webnn_models::encoder_sample(&config, 100, 5);
    let ids = HostTensor {
        desc: OperandDescriptor::new(DataType::Int32, &[1, config.seq]),
        bytes: ids.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let mask = HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[1, config.seq]),
        bytes: mask.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let feeds = [(ENCODER_INPUTS[0], &ids), (ENCODER_INPUTS[1], &mask)];
    println!("encoder {config:?}: {} WebNN ops; median of {runs} runs", graph.nodes.len());
    let mut reference = webnn_cpu::CpuBackend.compile(&graph).expect("cpu compile");
    let (ref_ms, want) = time(reference.as_mut(), &feeds, 1);
    let diff = |got: &[f32]| want.iter().zip(got).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
    println!();
    println!("| backend         | threads | median ms | fast / reference steps | max diff vs reference |");
    println!("|-----------------|--------:|----------:|-----------------------:|----------------------:|");
    println!("| cpu (reference) |       1 | {ref_ms:>9.1} |                        |                       |");
    let mut ratios = Vec::new();
    for threads in [1, 2] {
        let compiled = FastBackend::new(threads).compile_graph(&graph).expect("fast compile");
        let (f, r) = compiled.step_counts();
        let mut exe: Box<dyn Executable> = Box::new(compiled);
        let (fast_ms, got) = time(exe.as_mut(), &feeds, runs);
        println!("| fast            | {threads:>7} | {fast_ms:>9.2} | {:>22} | {:>21.2e} |", format!("{f} / {r}"), diff(&got));
        match OrtBackend::new().map(|b| b.with_threads(threads)) {
            Ok(ort) => {
                let mut exe = ort.compile(&graph).expect("ort compile");
                let (ort_ms, got) = time(exe.as_mut(), &feeds, runs);
                println!("| onnxruntime     | {threads:>7} | {ort_ms:>9.2} |                        | {:>21.2e} |", diff(&got));
                ratios.push((threads, fast_ms / ort_ms));
            }
            Err(e) => println!("onnxruntime unavailable: {e}"),
        }
    }
    println!();
    for (threads, ratio) in ratios {
        println!("fast / onnxruntime at {threads} thread(s): {ratio:.2}");
    }
}
