//! MobileNetV2 (seeded weights) on the GPU against the cpu backend: logits within 1e-3.

mod common;

use common::{gpu, run_both};

fn floats(t: &webnn_core::HostTensor) -> Vec<f32> {
    t.bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn mobilenet_v2_matches_the_cpu_backend() {
    let _ = gpu();
    let graph = webnn_models::mobilenet_v2(7).expect("mobilenet");
    let image = webnn_models::sample_image(11);
    let outputs = run_both(&graph, &[("input", &image)]);
    let (logits, probabilities) = (&outputs[0], &outputs[1]);
    let (got, want) = (floats(&logits.0), floats(&logits.1));
    let worst = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    let scale = want.iter().map(|v| v.abs()).fold(0.0f32, f32::max);
    println!("logits: max |wgpu - cpu| = {worst:e}, max |cpu| = {scale}");
    assert!(scale > 0.1, "the logits should not vanish ({scale})");
    assert!(worst <= 1e-3, "logits differ by {worst}");
    let (got, want) = (floats(&probabilities.0), floats(&probabilities.1));
    let worst = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst <= 1e-3, "probabilities differ by {worst}");
}
