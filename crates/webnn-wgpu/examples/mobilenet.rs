//! The MobileNetV2 benchmark: `cargo run --release -p webnn-wgpu --example mobilenet [runs]`.
//! Builds MobileNetV2-1.0-224 (NCHW, float32, seeded weights) with the WebNN builder and
//! prints, from one run: build times, the median latency of dispatch plus readback on wgpu and
//! on the cpu backend (their ratio is the figure to compare across machines), the outputs'
//! agreement, and the GPU time per op family from timestamp queries.

use std::collections::BTreeMap;
use std::time::Instant;
use webnn_core::{Backend, Executable, HostTensor};

fn ms(seconds: f64) -> String {
    format!("{:.1}", seconds * 1e3)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median seconds of `runs` dispatches (after one warm-up) and the last outputs.
fn time_dispatch(
    exe: &mut dyn Executable,
    input: &HostTensor,
    runs: usize,
) -> (f64, Vec<(String, HostTensor)>) {
    let feeds = [("input", input)];
    let mut out = exe.dispatch(&feeds).expect("dispatch");
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        out = exe.dispatch(&feeds).expect("dispatch");
        times.push(start.elapsed().as_secs_f64());
    }
    (median(times), out)
}

fn floats(t: &HostTensor) -> Vec<f32> {
    t.bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10)
        .max(1);
    let start = Instant::now();
    let graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
    let built = start.elapsed().as_secs_f64();
    let image = webnn_models::sample_image(11);
    let wgpu = webnn_wgpu::WgpuBackend::new().expect("a WebGPU adapter");
    let gpu = wgpu.gpu();
    println!(
        "adapter: {} ({:?}, {:?}), shader-f16 {}, timestamp-query {}",
        gpu.info.name, gpu.info.device_type, gpu.info.backend, gpu.shader_f16, gpu.timestamps
    );
    let params: u64 = graph
        .operands
        .iter()
        .filter(|o| matches!(o.source, webnn_core::Source::Constant(_)))
        .map(|o| o.desc.max_elements())
        .sum();
    println!(
        "MobileNetV2-1.0-224, NCHW float32, seeded weights: {:.2} M parameters, {} ops; builder {} ms; {runs} timed runs each",
        params as f64 / 1e6,
        graph.nodes.len(),
        ms(built)
    );

    let start = Instant::now();
    let mut gexe = wgpu.compile_graph(&graph).expect("wgpu compile");
    let wgpu_compile = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut cexe = webnn_cpu::CpuBackend.compile(&graph).expect("cpu compile");
    let cpu_compile = start.elapsed().as_secs_f64();
    let (wgpu_time, wgpu_out) = time_dispatch(&mut gexe, &image, runs);
    let (cpu_time, cpu_out) = time_dispatch(cexe.as_mut(), &image, runs.min(5));

    println!();
    println!("| | wgpu | cpu |");
    println!("|---|---|---|");
    println!(
        "| compile (ms) | {} | {} |",
        ms(wgpu_compile),
        ms(cpu_compile)
    );
    println!(
        "| dispatch + readback, median (ms) | {} | {} |",
        ms(wgpu_time),
        ms(cpu_time)
    );
    println!(
        "| cpu / wgpu latency | {:.2}x | 1.00x |",
        cpu_time / wgpu_time
    );
    println!(
        "wgpu: {} kernel dispatches, {} pooled intermediate buffers, {} pipelines (created on {} threads)",
        gexe.dispatch_count(),
        gexe.slot_count(),
        wgpu.pipelines(),
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(16)
    );
    for ((name, g), (_, c)) in wgpu_out.iter().zip(&cpu_out) {
        let worst = floats(g)
            .iter()
            .zip(floats(c))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        println!("output {name}: max |wgpu - cpu| = {worst:.2e}");
    }

    match gexe.profile(&[("input", &image)]).expect("profile") {
        None => println!("\nthe adapter has no timestamp queries: no per-family GPU times"),
        Some(steps) => {
            let mut families: BTreeMap<String, (usize, f64)> = BTreeMap::new();
            for s in &steps {
                let e = families.entry(format!("{:?}", s.family)).or_default();
                e.0 += 1;
                e.1 += s.nanos;
            }
            let total: f64 = steps.iter().map(|s| s.nanos).sum();
            println!("\nGPU time per op family (timestamp queries, one pass per kernel):");
            println!("| family | kernels | GPU ms | share |");
            println!("|---|---|---|---|");
            let mut rows: Vec<_> = families.into_iter().collect();
            rows.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1));
            for (family, (n, nanos)) in rows {
                println!(
                    "| {family} | {n} | {:.2} | {:.1}% |",
                    nanos / 1e6,
                    100.0 * nanos / total
                );
            }
            println!("| total | {} | {:.2} | 100% |", steps.len(), total / 1e6);
        }
    }
}
