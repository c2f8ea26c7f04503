//! EfficientNet-Lite0 (ImageNet weights) on the two sample pictures:
//! `cargo run --release -p webnn-models --example efficientnet [runs]`.
//! Needs the files `bash scripts/models.sh` converts. Prints, for each layout (NCHW, NHWC)
//! and backend (cpu, wgpu), the build and compile times, the median dispatch + readback
//! time, and the top-5 classes of each picture.

use std::time::Instant;
use webnn_core::{Backend, Executable, Graph, HostTensor};
use webnn_models::*;

fn ms(seconds: f64) -> String {
    format!("{:.1}", seconds * 1e3)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run(
    name: &str,
    graph: &Graph,
    compile: &dyn Fn(&Graph) -> Box<dyn Executable>,
    inputs: &[(&str, HostTensor)],
    runs: usize,
    labels: &[String],
) {
    let start = Instant::now();
    let mut exe = compile(graph);
    let compiled = start.elapsed().as_secs_f64();
    let mut times = Vec::new();
    let mut results = Vec::new();
    for (picture, input) in inputs {
        let feeds = [(EFFICIENTNET_INPUT, input)];
        let mut out = exe.dispatch(&feeds).expect("dispatch");
        for _ in 0..runs {
            let start = Instant::now();
            out = exe.dispatch(&feeds).expect("dispatch");
            times.push(start.elapsed().as_secs_f64());
        }
        let probabilities = &out.iter().find(|(n, _)| n == "probabilities").unwrap().1;
        results.push((picture, top_k(probabilities, 5)));
    }
    println!(
        "{name}: compile {} ms, dispatch + readback {} ms (median of {})",
        ms(compiled),
        ms(median(times.clone())),
        times.len()
    );
    for (picture, top) in results {
        let line: Vec<String> = top
            .iter()
            .map(|&(i, p)| format!("{} {:.3}", labels[i].split(',').next().unwrap(), p))
            .collect();
        println!("  {picture:8} {}", line.join(" | "));
    }
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let dir = efficientnet_dir();
    let start = Instant::now();
    let weights = EfficientNetWeights::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let loaded = start.elapsed().as_secs_f64();
    let labels = imagenet_labels(&dir).unwrap_or_else(|e| panic!("{e}"));
    let wgpu = webnn_wgpu::WgpuBackend::new().expect("a WebGPU adapter");
    let info = &wgpu.gpu().info;
    println!(
        "EfficientNet-Lite0, ImageNet weights ({:.2} M parameters, batch norm folded), loaded in {} ms",
        weights.parameters() as f64 / 1e6,
        ms(loaded)
    );
    println!(
        "wgpu adapter: {} ({:?}, {:?})",
        info.name, info.device_type, info.backend
    );
    for layout in [InputLayout::Nchw, InputLayout::Nhwc] {
        let start = Instant::now();
        let graph = efficientnet_lite0(&weights, layout).expect("EfficientNet-Lite0 builds");
        let built = start.elapsed().as_secs_f64();
        println!(
            "\n{layout:?}: {} ops, builder {} ms",
            graph.nodes.len(),
            ms(built)
        );
        let inputs: Vec<(&str, HostTensor)> = EFFICIENTNET_SAMPLES
            .iter()
            .map(|&s| {
                let rgb = sample_rgb(&dir, s).unwrap_or_else(|e| panic!("{e}"));
                (s, preprocess(&rgb, layout))
            })
            .collect();
        run(
            "  cpu ",
            &graph,
            &|g| webnn_cpu::CpuBackend.compile(g).expect("cpu compile"),
            &inputs,
            runs.min(3),
            &labels,
        );
        run(
            "  wgpu",
            &graph,
            &|g| Box::new(wgpu.compile_graph(g).expect("wgpu compile")),
            &inputs,
            runs,
            &labels,
        );
    }
}
