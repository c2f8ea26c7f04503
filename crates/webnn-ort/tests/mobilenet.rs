//! MobileNetV2 (seeded weights, its 14 MB of weights as external data) on ONNX Runtime
//! against the cpu backend: logits within 1e-3, twice through one compiled graph.

mod common;

use common::run_both;

fn floats(t: &webnn_core::HostTensor) -> Vec<f32> {
    t.bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn mobilenet_v2_matches_the_cpu_backend() {
    let graph = webnn_models::mobilenet_v2(7).expect("mobilenet");
    let model = webnn_onnx::convert(&graph).expect("converts");
    assert!(
        model.external_data.len() > 13_000_000,
        "the weights are external data"
    );
    let image = webnn_models::sample_image(11);
    let outputs = run_both(&graph, &[("input", &image)]);
    for (name, (got, want)) in ["logits", "probabilities"].iter().zip(&outputs) {
        let worst = floats(got)
            .iter()
            .zip(floats(want))
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(worst < 1e-3, "{name}: worst difference {worst}");
    }
}
