//! EfficientNet-Lite0 with its ImageNet weights classifies scikit-image's two sample
//! pictures as the reference forward pass does, in NCHW and NHWC, on the cpu backend and on
//! the wgpu backend. Needs the files `bash scripts/models.sh` converts (`scripts/test.sh`
//! runs it first); without them the tests fail and say so.

use std::sync::OnceLock;
use webnn_core::{Backend, HostTensor};
use webnn_models::*;

struct Files {
    weights: EfficientNetWeights,
    labels: Vec<String>,
    samples: Vec<(&'static str, Vec<u8>)>,
}

fn files() -> &'static Files {
    static F: OnceLock<Files> = OnceLock::new();
    F.get_or_init(|| {
        let dir = efficientnet_dir();
        // The message says how to produce the files.
        let need = |e: ModelError| -> ! { panic!("EfficientNet-Lite0 files: {e}") };
        Files {
            weights: EfficientNetWeights::load(&dir).unwrap_or_else(|e| need(e)),
            labels: imagenet_labels(&dir).unwrap_or_else(|e| need(e)),
            samples: EFFICIENTNET_SAMPLES
                .iter()
                .map(|&s| (s, sample_rgb(&dir, s).unwrap_or_else(|e| need(e))))
                .collect(),
        }
    })
}

// ImageNet class indices.
const TABBY: usize = 281;
const TIGER_CAT: usize = 282;
const EGYPTIAN_CAT: usize = 285;
const ESPRESSO: usize = 967;

/// Probabilities of the reference forward pass (same weights and preprocessing).
const EXPECTED: [(&str, &[(usize, f32)]); 2] = [
    (
        "chelsea",
        &[(TIGER_CAT, 0.38), (EGYPTIAN_CAT, 0.37), (TABBY, 0.16)],
    ),
    ("coffee", &[(ESPRESSO, 0.957)]),
];
/// Resampling the picture differently moves these by about 0.01.
const TOLERANCE: f32 = 0.03;

fn floats(t: &HostTensor) -> Vec<f32> {
    t.bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs both layouts on `backend`, checks the expected classes and that the layouts agree.
fn classify(backend: &dyn Backend, name: &str) {
    let f = files();
    assert_eq!(f.labels[TIGER_CAT], "tiger cat");
    assert_eq!(f.labels[EGYPTIAN_CAT], "Egyptian cat");
    assert_eq!(f.labels[ESPRESSO], "espresso");
    let mut per_layout = Vec::new();
    for layout in [InputLayout::Nchw, InputLayout::Nhwc] {
        let graph = efficientnet_lite0(&f.weights, layout).expect("EfficientNet-Lite0 builds");
        let mut exe = backend
            .compile(&graph)
            .unwrap_or_else(|e| panic!("{name} compile: {e}"));
        let mut probabilities = Vec::new();
        for (sample, rgb) in &f.samples {
            let input = preprocess(rgb, layout);
            let out = exe
                .dispatch(&[(EFFICIENTNET_INPUT, &input)])
                .unwrap_or_else(|e| panic!("{name} dispatch: {e}"));
            let p = &out.iter().find(|(n, _)| n == "probabilities").unwrap().1;
            let top: Vec<String> = top_k(p, 3)
                .iter()
                .map(|&(i, v)| format!("{} {v:.3}", f.labels[i]))
                .collect();
            println!("{name} {layout:?} {sample}: {}", top.join(" | "));
            probabilities.push((*sample, floats(p), top_k(p, 1)[0].0));
        }
        for (sample, want) in EXPECTED {
            let (_, p, top1) = probabilities.iter().find(|(s, ..)| *s == sample).unwrap();
            assert!(
                want.iter().any(|&(class, _)| class == *top1),
                "{name} {layout:?} {sample}: top-1 is {}",
                f.labels[*top1]
            );
            for &(class, expected) in want {
                assert!(
                    (p[class] - expected).abs() <= TOLERANCE,
                    "{name} {layout:?} {sample}: {} has probability {}, expected {expected}",
                    f.labels[class],
                    p[class]
                );
            }
        }
        per_layout.push(probabilities);
    }
    for ((sample, nchw, _), (_, nhwc, _)) in per_layout[0].iter().zip(&per_layout[1]) {
        let worst = nchw
            .iter()
            .zip(nhwc)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            worst <= 1e-4,
            "{name} {sample}: NCHW and NHWC differ by {worst}"
        );
    }
}

#[test]
fn efficientnet_lite0_on_cpu() {
    classify(&webnn_cpu::CpuBackend, "cpu");
}

#[test]
fn efficientnet_lite0_on_wgpu() {
    let wgpu = webnn_wgpu::WgpuBackend::new().unwrap_or_else(|e| {
        panic!("this test needs a WebGPU adapter (on Linux: apt install mesa-vulkan-drivers): {e}")
    });
    classify(&wgpu, "wgpu");
}
