//! The ONNX Runtime overhead benchmark: `cargo run --release -p webnn-ort --example mobilenet [runs]`.
//! Runs MobileNetV2-1.0-224 (NCHW, float32, seeded weights) two ways in one process, with the
//! same session options: through webnn-rs's ort backend (`dispatch`: copy the input into the
//! bound tensor, run, copy both outputs out) and as the exported ONNX model run directly by
//! ONNX Runtime through `ort` (borrowed input, outputs extracted). Prints both median
//! latencies and their ratio (goal: at most 1.05), with the cpu backend's (and, where a
//! WebGPU adapter exists, the wgpu backend's) latency next to them.

use std::time::Instant;
use webnn_core::{Backend, Executable, HostTensor};
use webnn_ort::OrtBackend;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1e3)
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Median seconds of `runs` dispatches after one warm-up, and the last outputs.
fn time_backend(
    exe: &mut dyn Executable,
    image: &HostTensor,
    runs: usize,
) -> (f64, Vec<(String, HostTensor)>) {
    let feeds = [("input", image)];
    let mut out = exe.dispatch(&feeds).expect("dispatch");
    let times = (0..runs)
        .map(|_| {
            let start = Instant::now();
            out = exe.dispatch(&feeds).expect("dispatch");
            start.elapsed().as_secs_f64()
        })
        .collect();
    (median(times), out)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(50)
        .max(1);
    let graph = webnn_models::mobilenet_v2(7).expect("MobileNetV2 builds");
    let image = webnn_models::sample_image(11);
    let backend = OrtBackend::new().unwrap_or_else(|e| panic!("{e}"));

    let start = Instant::now();
    let model = webnn_onnx::convert(&graph).expect("converts to ONNX");
    let bytes = model.to_bytes();
    let converted = start.elapsed().as_secs_f64();
    println!(
        "MobileNetV2-1.0-224, NCHW float32: {} WebNN ops -> {} ONNX nodes, {:.1} kB model + {:.1} MB external data, converted in {}",
        graph.nodes.len(),
        model.model.graph.as_ref().map_or(0, |g| g.node.len()),
        bytes.len() as f64 / 1e3,
        model.external_data.len() as f64 / 1e6,
        ms(converted)
    );

    let start = Instant::now();
    let mut exe = backend.compile(&graph).expect("ort compile");
    println!(
        "webnn-ort compile (convert + session + binding): {}",
        ms(start.elapsed().as_secs_f64())
    );
    let mut session = backend.model_session(&model).expect("direct session");
    let (input_name, output_names) = (
        model.inputs[0].onnx_name.clone(),
        model
            .outputs
            .iter()
            .map(|b| b.onnx_name.clone())
            .collect::<Vec<_>>(),
    );
    let pixels = floats(&image.bytes);
    let mut direct = || -> Vec<Vec<f32>> {
        let input = ort::value::TensorRef::from_array_view(([1usize, 3, 224, 224], &pixels[..]))
            .expect("input");
        let outputs = session
            .run(ort::inputs![input_name.as_str() => input])
            .expect("run");
        output_names
            .iter()
            .map(|n| {
                outputs[n.as_str()]
                    .try_extract_tensor::<f32>()
                    .expect("float32 output")
                    .1
                    .to_vec()
            })
            .collect()
    };

    // Warm both up, then alternate which goes first: ONNX Runtime's worker threads spin for
    // a while after a run, so whichever runs second shares the cores with the other's pool.
    let feeds = [("input", &image)];
    let mut ours = exe.dispatch(&feeds).expect("dispatch");
    let mut theirs = direct();
    let (mut t_ours, mut t_direct) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for i in 0..runs {
        for first in [i % 2 == 0, i % 2 == 1] {
            let start = Instant::now();
            if first {
                ours = exe.dispatch(&feeds).expect("dispatch");
                t_ours.push(start.elapsed().as_secs_f64());
            } else {
                theirs = direct();
                t_direct.push(start.elapsed().as_secs_f64());
            }
        }
    }
    let (ours_ms, direct_ms) = (median(t_ours), median(t_direct));
    let same = ours
        .iter()
        .zip(&theirs)
        .all(|((_, t), d)| floats(&t.bytes) == *d);
    println!("{runs} alternating runs each");
    println!("webnn-ort dispatch:        median {}", ms(ours_ms));
    println!("ONNX Runtime directly:     median {}", ms(direct_ms));
    println!(
        "overhead ratio:            {:.3} (goal <= 1.05); outputs bit-identical: {same}",
        ours_ms / direct_ms
    );

    let mut cpu = webnn_cpu::CpuBackend.compile(&graph).expect("cpu compile");
    let cpu_runs = runs.clamp(1, 3);
    let (cpu_ms, cpu_out) = time_backend(cpu.as_mut(), &image, cpu_runs);
    let worst = floats(&cpu_out[0].1.bytes)
        .iter()
        .zip(floats(&ours[0].1.bytes))
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    println!(
        "cpu backend (reference):   median {} ({cpu_runs} runs), {:.0}x the ort backend; logits within {worst:.1e} of it",
        ms(cpu_ms),
        cpu_ms / ours_ms
    );
    match webnn_wgpu::WgpuBackend::new() {
        Ok(wgpu) => {
            let mut gexe = wgpu.compile(&graph).expect("wgpu compile");
            let (wgpu_ms, _) = time_backend(gexe.as_mut(), &image, cpu_runs);
            println!(
                "wgpu backend:              median {} ({cpu_runs} runs) on {}",
                ms(wgpu_ms),
                wgpu.gpu().info.name
            );
        }
        Err(e) => println!("wgpu backend:              skipped, no WebGPU adapter ({e})"),
    }
}
