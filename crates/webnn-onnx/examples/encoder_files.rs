//! Writes the BERT-style encoder (`webnn_models::bert_encoder`, seeded weights) as ONNX for
//! the page that runs ONNX Runtime Web's WebNN execution provider on the polyfill
//! (`www/ort-webnn/`): `cargo run -p webnn-onnx --example encoder_files -- DIR`.
//! - `model.onnx`: the graph converted by webnn-onnx, one self-contained file;
//! - `manifest.json`: the inputs (with sample values: 11 tokens, 5 of padding), the outputs,
//!   and the WebNN ops of the source graph (`ops`), which the page compares with the ops ONNX
//!   Runtime's WebNN execution provider builds from the file.

use serde_json::json;
use std::collections::BTreeMap;

fn main() {
    let dir = std::env::args_os().nth(1).map(std::path::PathBuf::from).expect("usage: encoder_files DIR");
    std::fs::create_dir_all(&dir).expect("creates the output folder");
    let config = webnn_models::EncoderConfig::default();
    let graph = webnn_models::bert_encoder(&config, 11).expect("the encoder builds");
    // layerNormalization as ONNX's LayerNormalization, as framework exports write it.
    let options = webnn_onnx::ConvertOptions { normalization_ops: true, ..Default::default() };
    let model = webnn_onnx::convert_with(&graph, options).expect("converts to ONNX");
    let (ids, mask) = webnn_models::encoder_sample(&config, 11, 5);
    let onnx_name = |name: &str| model.inputs.iter().find(|b| b.name == name).map(|b| b.onnx_name.clone()).expect("a bound input");
    let mut ops = BTreeMap::<&str, u32>::new();
    for node in &graph.nodes {
        *ops.entry(node.op.name()).or_default() += 1;
    }
    let manifest = json!({
        "model": format!("BERT-style encoder, {} layers, hidden {}, {} heads, seq {}, seeded weights (webnn_models::bert_encoder(11))",
            config.layers, config.hidden, config.heads, config.seq),
        "inputs": [
            { "name": "input_ids", "onnxName": onnx_name("input_ids"), "dataType": "int32", "shape": [1, config.seq], "data": ids },
            { "name": "attention_mask", "onnxName": onnx_name("attention_mask"), "dataType": "float32", "shape": [1, config.seq], "data": mask },
        ],
        "outputs": model.outputs.iter().map(|b| json!({ "name": b.name, "onnxName": b.onnx_name })).collect::<Vec<_>>(),
        "ops": ops,
    });
    std::fs::write(dir.join("model.onnx"), model.to_self_contained_bytes()).expect("writes model.onnx");
    std::fs::write(dir.join("manifest.json"), serde_json::to_string_pretty(&manifest).unwrap()).expect("writes manifest.json");
    println!("encoder: {} WebNN ops, written to {}", graph.nodes.len(), dir.display());
}
