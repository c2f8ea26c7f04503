//! Benchmark of the toy decoder on WebGPU (flexible inputs, KV caches in tensors updated in
//! place): per-step latency at several context lengths, host bytes and GPU copies per step,
//! dispatch-side CPU time, pipelines and step sets created after the first step, and the
//! binding cost of a 100-tensor dispatch next to a 6-tensor one. The cpu backend runs the
//! same steps as the baseline of the same run.
//!
//! `cargo run --release -p webnn --example decoder`

#[path = "../tests/shared/decoder.rs"]
mod decoder;

use decoder::Decoder;
use std::time::{Duration, Instant};
use webnn::Context;
use webnn_models::DecoderConfig;
use webnn_wgpu::WgpuBackend;

const STEPS: u32 = 8;

/// Mean latency (dispatch + read back), dispatch CPU time, and bytes of `STEPS` decode steps
/// at context `ctx` (the cache filled by one prompt chunk per `max_seq` tokens first).
fn measure(d: &mut Decoder, ctx: u32) -> (Duration, Duration, u64, u64, u64) {
    let mut past = 0;
    while past + STEPS < ctx {
        let n = (ctx - STEPS - past).min(d.config.max_seq);
        let chunk: Vec<i32> = (0..n).map(|i| ((past + i) % d.config.vocab) as i32).collect();
        d.step(&chunk, past).unwrap();
        past += n;
    }
    let (mut latency, mut cpu) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..STEPS {
        let started = Instant::now();
        d.step(&[(past % d.config.vocab) as i32], past).unwrap();
        latency += started.elapsed();
        cpu += d.dispatch_time;
        past += 1;
    }
    let copied = d.graph.copied_bytes().unwrap_or(0);
    (latency / STEPS, cpu / STEPS, d.written, d.read, copied)
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

fn main() {
    let config = DecoderConfig::TOY;
    let gpu = Context::wgpu(WgpuBackend::new().expect("a WebGPU adapter"));
    println!("toy decoder: {} layers, dim {}, {} heads, capacity {}; wgpu on {}", config.layers, config.dim, config.heads, config.capacity, gpu.device_name());
    let mut wgpu = Decoder::new(gpu.clone(), config, 7).unwrap();
    let mut cpu = Decoder::new(Context::cpu(), config, 7).unwrap();
    wgpu.step(&[1, 2, 3], 0).unwrap();
    let (pipelines, shapes) = (gpu.pipelines().unwrap(), wgpu.graph.shapes_built().unwrap());
    let cache = 2 * config.layers as u64 * config.cache_bytes();
    println!();
    println!("| context | wgpu step (ms) | cpu step (ms) | wgpu/cpu | dispatch CPU (ms) | host bytes written | read | GPU bytes copied | whole caches |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for ctx in [16u32, 256, 1024] {
        let (lat, dispatch, written, read, copied) = measure(&mut wgpu, ctx);
        let (cpu_lat, ..) = measure(&mut cpu, ctx);
        println!(
            "| {ctx} | {} | {} | {:.2} | {} | {written} | {read} | {copied} | {cache} |",
            ms(lat),
            ms(cpu_lat),
            lat.as_secs_f64() / cpu_lat.as_secs_f64(),
            ms(dispatch)
        );
    }
    println!();
    println!(
        "after the first step: {} pipelines created, {} step sets built (sizes met: 1 to {} tokens, contexts 3 to {})",
        gpu.pipelines().unwrap() - pipelines,
        wgpu.graph.shapes_built().unwrap() - shapes,
        config.max_seq,
        config.capacity
    );
    binding_cost(&gpu);
}

/// Dispatch-side CPU time of a 1-layer decoder (6 tensors) and a 48-layer one (100 tensors),
/// per kernel step, with the same tensors each time (bind groups reused) and with new cache
/// tensors each time (bind groups made again).
fn binding_cost(gpu: &Context) {
    println!();
    println!("| tensors bound | kernels | dispatch CPU, same tensors (µs) | per kernel (µs) | new cache tensors each time (µs) |");
    println!("|---|---|---|---|---|");
    for layers in [1u32, 48] {
        let config = DecoderConfig { layers, capacity: 64, ..DecoderConfig::TOY };
        let mut d = Decoder::new(gpu.clone(), config, 3).unwrap();
        let run = |d: &mut Decoder, n: u32| {
            let mut total = Duration::ZERO;
            for i in 0..n {
                d.step(&[1], 8 + (i % 2)).unwrap();
                total += d.dispatch_time;
            }
            total / n
        };
        run(&mut d, 2);
        let same = run(&mut d, 10);
        let kernels = d.kernel_steps();
        let mut fresh = Duration::ZERO;
        for _ in 0..3 {
            d.renew_caches().unwrap();
            fresh += run(&mut d, 1);
        }
        let us = |t: Duration| format!("{:.0}", t.as_secs_f64() * 1e6);
        println!(
            "| {} | {kernels} | {} | {:.1} | {} |",
            4 + 2 * layers,
            us(same),
            same.as_secs_f64() * 1e6 / kernels as f64,
            us(fresh / 3)
        );
    }
}
