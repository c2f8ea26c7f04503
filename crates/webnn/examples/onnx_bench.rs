//! Imported ONNX models on the fast CPU backend against ONNX Runtime running the same files,
//! both on one thread and then both on two, in the same process, their runs alternating:
//! median latency and the ratio.
//!
//!   bash scripts/onnx-setup.sh
//!   cargo run --release -p webnn --features ort --example onnx_bench
//!
//! The models are the PyPI packages' (magika, RapidOCR) and, where the test command has
//! written them into `www/models/`, this project's MobileNetV2 export, its float16 export
//! and its QDQ form by ONNX Runtime's quantizer (`scripts/quantize-onnx.py`), and its
//! EfficientNet-Lite0 and style transfer exports (the `page_exports` example of webnn-onnx);
//! inputs are deterministic values.
//! `PROFILE=<part of a model's name>` prints that model's slowest fast-backend steps first.

use std::path::PathBuf;
use std::time::Instant;
use webnn::onnx::{self, ImportOptions};
use webnn_core::{Backend, Executable, HostTensor};

/// The median latencies of `a` and `b` on the same inputs, run in alternating blocks of
/// `BLOCK` timed runs, each after an untimed one, so that the machine's slower and faster
/// moments fall on both alike: timed one after the other, a model's ratio moved by 20%
/// between runs on a noisy machine. (Alternating single runs is no fairer: each runtime's
/// threads then wake, or spin, through the other's runs.)
fn medians_ms(a: &mut dyn Executable, b: &mut dyn Executable, feeds: &[(&str, &HostTensor)], runs: usize) -> (f64, f64) {
    const BLOCK: usize = 10;
    let time = |e: &mut dyn Executable, into: &mut Vec<f64>| {
        for _ in 0..3 {
            e.dispatch(feeds).expect("warm-up run");
        }
        for _ in 0..BLOCK {
            let s = Instant::now();
            e.dispatch(feeds).expect("run");
            into.push(s.elapsed().as_secs_f64() * 1e3);
        }
    };
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..runs.div_ceil(BLOCK) {
        time(a, &mut ta);
        time(b, &mut tb);
    }
    ta.sort_by(f64::total_cmp);
    tb.sort_by(f64::total_cmp);
    (ta[ta.len() / 2], tb[tb.len() / 2])
}

fn main() {
    let dir = std::env::var_os("WEBNN_ONNX_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/webnn-rs/onnx"));
    let models = [
        ("magika content type", "magika/models/standard_v3_3/model.onnx", "unk__214=1", 30),
        ("PP-OCRv4 detection 320x320", "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx", "x=1x3x320x320", 10),
        ("PP-OCRv4 recognition 48x320", "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx", "x=1x3x48x320", 10),
        ("PP-OCR direction 48x192", "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx", "x=1x3x48x192", 30),
    ];
    // The repository (scripts/env.sh names it; else this crate's checkout).
    let root = std::env::var_os("WEBNN_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .join("www/models");
    let exports = [
        ("MobileNetV2 (this project's export)", "mobilenetv2/model.onnx", "", 20),
        ("MobileNetV2 float16 export (casts around float32 ops)", "mobilenetv2-f16/model.onnx", "", 20),
        ("MobileNetV2 QDQ (ONNX Runtime's quantizer)", "mobilenetv2-qdq/model.onnx", "", 20),
        ("EfficientNet-Lite0 (this project's export)", "efficientnet-lite0-onnx/model.onnx", "", 20),
        ("style transfer 256x256 (this project's export)", "style-transfer/model.onnx", "", 5),
    ];
    let mut all: Vec<(&str, PathBuf, &str, usize)> = models.iter().map(|&(n, f, d, r)| (n, dir.join(f), d, r)).collect();
    for (name, file, dims, runs) in exports {
        match root.join(file) {
            path if path.exists() => all.push((name, path, dims, runs)),
            path => println!("({name} skipped: {} is written by scripts/test.sh)", path.display()),
        }
    }
    println!("| model | WebNN ops | 1 thread: fast cpu / ONNX Runtime | ratio | 2 threads: fast cpu / ONNX Runtime | ratio |");
    println!("|---|---|---|---|---|---|");
    for (name, path, dims, runs) in all {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (run scripts/onnx-setup.sh)", path.display()));
        let model = onnx::decode_model(&bytes).expect("model");
        let options = ImportOptions::default().with_dims(dims).expect("dims");
        let graph = onnx::import_model(&model, &options).expect("import").graph;
        let feeds: Vec<(String, HostTensor)> = graph
            .inputs
            .iter()
            .map(|(n, o)| {
                let d = graph.desc(*o);
                let count = d.max_elements() as usize;
                let bytes = match d.data_type {
                    webnn::DataType::Int32 => (0..count).flat_map(|i| ((i * 31 % 257) as i32).to_le_bytes()).collect(),
                    webnn::DataType::Float16 => {
                        (0..count).flat_map(|i| half::f16::from_f32((i * 7919 % 1000) as f32 / 500.0 - 1.0).to_le_bytes()).collect()
                    }
                    _ => (0..count).flat_map(|i| ((i * 7919 % 1000) as f32 / 500.0 - 1.0).to_le_bytes()).collect(),
                };
                (n.clone(), HostTensor { desc: d.clone(), bytes })
            })
            .collect();
        let refs: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
        if std::env::var("PROFILE").is_ok_and(|p| name.contains(&p)) {
            profile(&graph, &feeds);
        }
        let reference = onnx::reference_model(&model, &graph);
        let mut cells = Vec::new();
        for threads in [1, 2] {
            let mut fast = webnn::FastBackend::new(threads).compile(&graph).expect("compile");
            let ort = webnn_ort::OrtBackend::new().expect("ONNX Runtime").standard_onnx().with_threads(threads);
            let mut original = ort.compile_model(&reference).expect("session");
            let (ours, theirs) = medians_ms(fast.as_mut(), original.as_mut(), &refs, runs);
            cells.push(format!("{ours:.2} / {theirs:.2} ms | {:.2}x", ours / theirs));
        }
        println!("| {name} | {} | {} |", graph.nodes.len(), cells.join(" | "));
    }
}

/// The fast backend's slowest steps on one model, with the step counts.
fn profile(graph: &webnn_core::Graph, feeds: &[(String, HostTensor)]) {
    let compiled = webnn::FastBackend::new(1).compile_graph(graph).expect("compile");
    let inputs = feeds
        .iter()
        .map(|(n, t)| (n.clone(), webnn_cpu::Tensor::from_bytes(&t.desc, &t.bytes).expect("input")))
        .collect();
    let mut steps = compiled.profile(&inputs, 5).expect("profile");
    let (fast, reference) = compiled.step_counts();
    let total: f64 = steps.iter().map(|(_, t)| t).sum();
    steps.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!("{fast} fast steps + {reference} reference steps, {:.2} ms in all; the slowest:", total * 1e3);
    for (name, t) in steps.iter().take(12) {
        println!("  {:8.1} us {:5.1}%  {name}", t * 1e6, 100.0 * t / total);
    }
}
