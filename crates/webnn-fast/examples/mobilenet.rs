//! MobileNetV2-1.0-224 (float32, NCHW as the WebNN graph is built, seeded weights) on the fast
//! backend, the reference interpreter and ONNX Runtime, one graph for all:
//!
//!     cargo run --release -p webnn-fast --example mobilenet [runs]
//!
//! Prints the median latency of `runs` dispatches (default 100, in rounds alternating between
//! the fast backend and ONNX Runtime, each after a warm-up) for 1 and 2 threads, and the fast/ORT ratio at each thread count (the pass mark: at most 1.5,
//! goal 1.0). ONNX Runtime needs `ORT_DYLIB_PATH` (scripts/env.sh sets it); without it those
//! rows are skipped.

use std::time::{Duration, Instant};
use webnn_core::{Backend, Executable, HostTensor};
use webnn_fast::FastBackend;
use webnn_ort::OrtBackend;

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Rounds the timed runs are split into.
const ROUNDS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Milliseconds of each of `runs` dispatches after `warm` untimed ones, and the logits.
fn time(
    exe: &mut dyn Executable,
    image: &HostTensor,
    warm: usize,
    runs: usize,
) -> (Vec<f64>, Vec<f32>) {
    let feeds = [("input", image)];
    let mut out = Vec::new();
    for _ in 0..warm {
        out = exe.dispatch(&feeds).expect("dispatch");
    }
    let times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            out = exe.dispatch(&feeds).expect("dispatch");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    (times, floats(&out[0].1.bytes))
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100)
        .max(1);
    let graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
    let image = webnn_models::sample_image(11);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("MobileNetV2-1.0-224 float32, NCHW input, {} WebNN ops; median of {runs} runs in {ROUNDS} alternating rounds; {cores} cores", graph.nodes.len());

    let mut cpu = webnn_cpu::CpuBackend.compile(&graph).expect("cpu compile");
    let (cpu_times, reference) = time(cpu.as_mut(), &image, 0, 1);
    let cpu_ms = median(cpu_times);

    let mut rows: Vec<(String, usize, f64, f32)> = vec![("cpu (reference)".into(), 1, cpu_ms, 0.0)];
    let mut ratios = Vec::new();
    for threads in [1, 2] {
        let fast = FastBackend::new(threads);
        let t = Instant::now();
        let compiled = fast.compile_graph(&graph).expect("fast compile");
        let compile_ms = t.elapsed().as_secs_f64() * 1e3;
        let (f, r) = compiled.step_counts();
        if threads == 1 {
            println!(
                "fast backend plan on {}: {f} fast steps + {r} reference steps, compiled in {compile_ms:.1} ms",
                webnn_gemm::Isa::detect()
            );
        }
        let mut ours: Box<dyn Executable> = Box::new(compiled);
        let mut theirs = match OrtBackend::new().map(|b| b.with_threads(threads)) {
            Ok(ort) => Some(ort.compile(&graph).expect("ort compile")),
            Err(e) => {
                println!("onnxruntime unavailable: {e}");
                None
            }
        };
        // Rounds of `runs / ROUNDS` each, alternating, so that load from other processes
        // falls on both alike; a pause lets the other runtime's spinning threads settle.
        let (mut t_ours, mut t_theirs) = (Vec::new(), Vec::new());
        let (mut l_ours, mut l_theirs) = (Vec::new(), Vec::new());
        let per = runs.div_ceil(ROUNDS);
        for _ in 0..ROUNDS {
            let (times, logits) = time(ours.as_mut(), &image, 2, per);
            t_ours.extend(times);
            l_ours = logits;
            std::thread::sleep(Duration::from_millis(50));
            if let Some(exe) = theirs.as_mut() {
                let (times, logits) = time(exe.as_mut(), &image, 2, per);
                t_theirs.extend(times);
                l_theirs = logits;
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let fast_ms = median(t_ours);
        rows.push((
            "fast".to_string(),
            threads,
            fast_ms,
            max_diff(&reference, &l_ours),
        ));
        if theirs.is_some() {
            let ort_ms = median(t_theirs);
            rows.push((
                "onnxruntime".to_string(),
                threads,
                ort_ms,
                max_diff(&reference, &l_theirs),
            ));
            ratios.push((threads, fast_ms / ort_ms));
        }
    }

    println!();
    println!("| backend          | threads | median ms | max |logit diff| vs cpu |");
    println!("|------------------|--------:|----------:|-----------------------:|");
    for (name, threads, ms, diff) in &rows {
        println!("| {name:<16} | {threads:>7} | {ms:>9.2} | {diff:>22.2e} |");
    }
    println!();
    for (threads, ratio) in ratios {
        let verdict = if ratio <= 1.0 {
            "meets the goal (<= 1.0)"
        } else if ratio <= 1.5 {
            "passes (<= 1.5)"
        } else {
            "FAILS (> 1.5)"
        };
        println!("fast / onnxruntime at {threads} thread(s): {ratio:.2}  {verdict}");
    }
}
