//! Writes MobileNetV2 (seeded weights, `webnn_models::mobilenet_v2(7)`) in float16 as an ONNX
//! file, for the loadOnnx page (`www/onnx/`), which runs it on the polyfill and on ONNX Runtime
//! Web: `cargo run --release -p webnn-onnx --example mobilenet_f16 -- DIR` writes
//! `DIR/model.onnx`. The exporter keeps float16 semantics for runtimes without float16
//! kernels: each op computes in float32 between casts that round to float16.

use webnn_core::passes::{retype_float, Edges};
use webnn_core::DataType;

fn main() {
    let dir = std::env::args_os().nth(1).map(std::path::PathBuf::from).expect("usage: mobilenet_f16 DIR");
    let f32_graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
    let graph = retype_float(&f32_graph, DataType::Float32, DataType::Float16, Edges::Retype).expect("float16 graph");
    let model = webnn_onnx::convert(&graph).expect("converts to ONNX");
    let bytes = model.to_self_contained_bytes();
    std::fs::create_dir_all(&dir).expect("creates the output folder");
    std::fs::write(dir.join("model.onnx"), &bytes).expect("writes model.onnx");
    println!("MobileNetV2 float16: {} WebNN ops, {} bytes, written to {}", graph.nodes.len(), bytes.len(), dir.display());
}
