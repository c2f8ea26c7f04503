//! Writes MobileNetV2-1.0-224 (seeded weights, `webnn_models::mobilenet_v2(7)`) for the
//! browser benchmark page (`www/bench/`): `cargo run --release -p webnn-onnx --example
//! mobilenet_files -- DIR`.
//! - `model.onnx`: the graph converted by webnn-onnx, as one self-contained file, which
//!   ONNX Runtime Web runs;
//! - `weights.bin` + `manifest.json`: the graph's constants (float32) in the order the
//!   builder created them, with their shapes, from which the page builds the same network
//!   through `MLGraphBuilder`, and the graph's WebNN ops (`ops`).

use serde_json::json;
use webnn_core::{DataType, Source};

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .expect("usage: mobilenet_files DIR");
    std::fs::create_dir_all(&dir).expect("creates the output folder");
    let graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");

    let mut weights = Vec::new();
    let mut constants = Vec::new();
    for info in &graph.operands {
        let Source::Constant(data) = &info.source else {
            continue;
        };
        assert_eq!(info.desc.data_type, DataType::Float32, "MobileNetV2's constants are float32");
        let shape: Vec<u32> = info.desc.shape.iter().map(|d| d.max_size()).collect();
        constants.push(json!({ "shape": shape, "offset": weights.len() }));
        weights.extend_from_slice(data);
    }
    let model = webnn_onnx::convert(&graph).expect("converts to ONNX");
    // The WebNN ops of the graph, which the ONNX Runtime Web page (`www/ort-webnn/`) compares
    // with those ONNX Runtime's WebNN execution provider builds from model.onnx.
    let mut ops = std::collections::BTreeMap::<&str, u32>::new();
    for node in &graph.nodes {
        *ops.entry(node.op.name()).or_default() += 1;
    }
    let (name, shape) = webnn_models::MOBILENET_INPUT;
    let manifest = json!({
        "model": "MobileNetV2-1.0-224, float32, NCHW, seeded weights (webnn_models::mobilenet_v2(7))",
        "input": { "name": name, "shape": shape, "onnxName": model.inputs[0].onnx_name },
        "outputs": model.outputs.iter().map(|b| json!({ "name": b.name, "onnxName": b.onnx_name })).collect::<Vec<_>>(),
        "weights": "weights.bin",
        "constants": constants,
        "ops": ops,
    });
    let write = |file: &str, bytes: &[u8]| {
        std::fs::write(dir.join(file), bytes).unwrap_or_else(|e| panic!("writing {file}: {e}"))
    };
    write("model.onnx", &model.to_self_contained_bytes());
    write("weights.bin", &weights);
    write("manifest.json", serde_json::to_string_pretty(&manifest).unwrap().as_bytes());
    println!(
        "MobileNetV2: {} constants, {} bytes of weights, written to {}",
        constants.len(),
        weights.len(),
        dir.display()
    );
}
