//! Writes two more networks of the webnn-samples pages as ONNX files for the loadOnnx page
//! (`www/onnx/`), which runs each on the polyfill and on ONNX Runtime Web:
//! `cargo run --release -p webnn-onnx --example page_exports -- DIR` writes
//! - `DIR/efficientnet-lite0-onnx/model.onnx`: EfficientNet-Lite0 with its ImageNet weights,
//!   from the files `scripts/models.sh` puts in `DIR/efficientnet-lite0/`;
//! - `DIR/style-transfer/model.onnx`: the fast-style-transfer network of the samples' style
//!   transfer page (`webnn_models::style_transfer`, seeded weights) at 256 x 256 (the page
//!   uses 540 x 540; a quarter of the pixels keeps twenty runs of each runtime short).

use std::path::Path;
use webnn_core::Graph;

fn write(dir: &Path, name: &str, graph: &Graph) {
    // Normalizations as ONNX's own ops, as framework exports write them.
    let options = webnn_onnx::ConvertOptions { normalization_ops: true, ..Default::default() };
    let model = webnn_onnx::convert_with(graph, options).expect("converts to ONNX");
    let bytes = model.to_self_contained_bytes();
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("creates the output folder");
    std::fs::write(folder.join("model.onnx"), &bytes).expect("writes model.onnx");
    println!("{name}: {} WebNN ops, {} bytes, written to {}", graph.nodes.len(), bytes.len(), folder.display());
}

fn main() {
    let dir = std::env::args_os().nth(1).map(std::path::PathBuf::from).expect("usage: page_exports DIR");
    let weights = webnn_models::EfficientNetWeights::load(&dir.join("efficientnet-lite0"))
        .expect("EfficientNet-Lite0's weights (scripts/models.sh writes them)");
    let efficientnet = webnn_models::efficientnet_lite0(&weights, webnn_models::InputLayout::Nchw).expect("EfficientNet-Lite0 builds");
    write(&dir, "efficientnet-lite0-onnx", &efficientnet);
    let style = webnn_models::style_transfer(256, 5).expect("the style transfer network builds");
    write(&dir, "style-transfer", &style);
}
