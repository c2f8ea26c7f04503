//! EfficientNet-Lite0 built in NCHW and in NHWC (its ImageNet weights; the graph a page
//! builds for each `preferredInputLayout`) on the fast backend, alternating, at 1 and 2
//! threads:
//!
//!     cargo run --release -p webnn-fast --example layouts [runs]
//!
//! The backend stores convolutions' values NHWC inside whatever the graph's layout, so the
//! two graphs should run the same kernels in the same time; this prints the median of each
//! and their ratio, and the largest difference between their probabilities. Needs the
//! weights in `www/models/efficientnet-lite0/` (`scripts/efficientnet-setup.sh`).

use webnn_core::ops::InputLayout;
use webnn_core::Executable;
use webnn_fast::FastBackend;

#[path = "support/mod.rs"]
mod support;

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(40).max(1);
    let weights = webnn_models::EfficientNetWeights::load_default().expect("EfficientNet-Lite0 weights (scripts/efficientnet-setup.sh)");
    let rgb = vec![96u8; 224 * 224 * 3];
    println!("EfficientNet-Lite0 on the fast backend, median of {runs} runs, NCHW and NHWC alternating");
    println!();
    println!("| threads | NCHW | NHWC | NHWC / NCHW | fast steps (NCHW, NHWC) |");
    println!("|---:|---:|---:|---:|---|");
    let mut diff = 0.0f32;
    for threads in [1, 2] {
        let fast = FastBackend::new(threads);
        let mut exes = Vec::new();
        for layout in [InputLayout::Nchw, InputLayout::Nhwc] {
            let graph = webnn_models::efficientnet_lite0(&weights, layout).expect("graph");
            let compiled = fast.compile_graph(&graph).expect("compile");
            let steps = compiled.step_counts();
            let exe: Box<dyn Executable> = Box::new(compiled);
            exes.push((exe, webnn_models::preprocess(&rgb, layout), steps));
        }
        let (mut times, mut outs) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
        // Rounds alternating between the layouts, so that the machine's drift hits both.
        for _ in 0..4 {
            for (k, (exe, image, _)) in exes.iter_mut().enumerate() {
                let (ms, out) = support::time(exe.as_mut(), &[(webnn_models::EFFICIENTNET_INPUT, &*image)], runs.div_ceil(4));
                times[k].push(ms);
                outs[k] = support::floats(&out);
            }
        }
        let [a, b] = times.map(support::median);
        diff = outs[0].iter().zip(&outs[1]).map(|(x, y)| (x - y).abs()).fold(diff, f32::max);
        let steps = |k: usize| format!("{} / {}", exes[k].2 .0, exes[k].2 .1);
        println!("| {threads} | {a:.2} ms | {b:.2} ms | {:.2} | {}, {} |", b / a, steps(0), steps(1));
    }
    println!();
    println!("largest difference between the layouts' first outputs: {diff:.2e}");
}

