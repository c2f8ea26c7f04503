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

/// One sample's outputs.
struct Outputs {
    sample: &'static str,
    logits: Vec<f32>,
    probabilities: Vec<f32>,
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max)
}

/// Runs both samples through `layout` on `backend`.
fn run(backend: &dyn Backend, name: &str, layout: InputLayout) -> Vec<Outputs> {
    let f = files();
    let graph = efficientnet_lite0(&f.weights, layout).expect("EfficientNet-Lite0 builds");
    let mut exe = backend
        .compile(&graph)
        .unwrap_or_else(|e| panic!("{name} compile: {e}"));
    f.samples
        .iter()
        .map(|(sample, rgb)| {
            let input = preprocess(rgb, layout);
            let out = exe
                .dispatch(&[(EFFICIENTNET_INPUT, &input)])
                .unwrap_or_else(|e| panic!("{name} dispatch: {e}"));
            let get = |n: &str| floats(&out.iter().find(|(o, _)| o == n).unwrap().1);
            let p = &out.iter().find(|(n, _)| n == "probabilities").unwrap().1;
            let top: Vec<String> = top_k(p, 3)
                .iter()
                .map(|&(i, v)| format!("{} {v:.3}", f.labels[i]))
                .collect();
            println!("{name} {layout:?} {sample}: {}", top.join(" | "));
            Outputs {
                sample,
                logits: get("logits"),
                probabilities: get("probabilities"),
            }
        })
        .collect()
}

/// The cpu backend's outputs in NCHW and NHWC, computed once for both tests.
fn cpu_outputs() -> &'static [Vec<Outputs>; 2] {
    static C: OnceLock<[Vec<Outputs>; 2]> = OnceLock::new();
    C.get_or_init(|| {
        let cpu = webnn_cpu::CpuBackend;
        [
            run(&cpu, "cpu", InputLayout::Nchw),
            run(&cpu, "cpu", InputLayout::Nhwc),
        ]
    })
}

/// The expected classes and probabilities, and agreement of the two layouts.
fn check(name: &str, layouts: &[Vec<Outputs>; 2]) {
    let f = files();
    assert_eq!(f.labels[TIGER_CAT], "tiger cat");
    assert_eq!(f.labels[EGYPTIAN_CAT], "Egyptian cat");
    assert_eq!(f.labels[ESPRESSO], "espresso");
    for (layout, outputs) in [InputLayout::Nchw, InputLayout::Nhwc].iter().zip(layouts) {
        for (sample, want) in EXPECTED {
            let o = outputs.iter().find(|o| o.sample == sample).unwrap();
            let p = &o.probabilities;
            let top1 = (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap();
            assert!(
                want.iter().any(|&(class, _)| class == top1),
                "{name} {layout:?} {sample}: top-1 is {}",
                f.labels[top1]
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
    }
    for (nchw, nhwc) in layouts[0].iter().zip(&layouts[1]) {
        let worst = max_diff(&nchw.logits, &nhwc.logits);
        assert!(
            worst <= 1e-3,
            "{name} {}: NCHW and NHWC logits differ by {worst}",
            nchw.sample
        );
    }
}

#[test]
fn efficientnet_lite0_on_cpu() {
    check("cpu", cpu_outputs());
}

#[test]
fn efficientnet_lite0_on_wgpu_matches_the_cpu_backend() {
    let wgpu = webnn_wgpu::WgpuBackend::new().unwrap_or_else(|e| {
        panic!("this test needs a WebGPU adapter (on Linux: apt install mesa-vulkan-drivers): {e}")
    });
    let got = [
        run(&wgpu, "wgpu", InputLayout::Nchw),
        run(&wgpu, "wgpu", InputLayout::Nhwc),
    ];
    check("wgpu", &got);
    for (g, c) in got.iter().flatten().zip(cpu_outputs().iter().flatten()) {
        let worst = max_diff(&g.logits, &c.logits);
        let scale = c.logits.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        println!(
            "wgpu {}: max |wgpu - cpu| logit {worst:e} (max |logit| {scale})",
            g.sample
        );
        assert!(
            worst <= 1e-3,
            "{}: wgpu and cpu logits differ by {worst}",
            g.sample
        );
    }
}
