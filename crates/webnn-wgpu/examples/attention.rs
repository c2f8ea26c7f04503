//! A decode step's fused attention (one query position, SmolLM2's 3 kv heads of 3 query heads
//! each, head dim 64) against the same graph run op by op, over caches of 64 to 2,048 keys:
//! GPU time per step (timestamp queries, median of runs), the cache bytes it reads, and the
//! two times' ratio.
//!
//!     cargo run --release -p webnn-wgpu --example attention [-- --gpu-tuning] [runs]

use webnn_core::{DataType, Dim, Graph, GraphBuilder, HostTensor, OperandDescriptor};
use webnn_models::{attention, AttentionShape, Rng};

const F: DataType = DataType::Float32;
const KV_HEADS: u32 = 3;
const GROUP: u32 = 3;
const HD: u32 = 64;

fn graph() -> Graph {
    let total = Dim::Dynamic { name: "total".into(), max_size: 2048 };
    let mut b = GraphBuilder::new();
    let q = b.input("q", OperandDescriptor::new(F, &[KV_HEADS, GROUP, 1, HD])).unwrap();
    let cache = || OperandDescriptor::with_dims(F, vec![total.clone(), (KV_HEADS * HD).into()]);
    let keys = b.input("keys", cache()).unwrap();
    let values = b.input("values", cache()).unwrap();
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![1.into(), total.clone()])).unwrap();
    let shape = AttentionShape { kv_heads: KV_HEADS, head_dim: HD, total, scale: 0.125, masked: -1e30 };
    let y = attention(&mut b, &shape, q, keys, values, mask).unwrap();
    b.build(&[("y", y)]).unwrap()
}

/// The kernels of one step and their median GPU time, in ms.
fn gpu_ms(exe: &mut webnn_wgpu::WgpuGraph, total: u32, runs: usize) -> (String, f64) {
    let mut rng = Rng::new(3);
    let mut host = |t: DataType, shape: &[u32], bytes: Option<Vec<u8>>| {
        let n = shape.iter().product::<u32>() as usize;
        let bytes = bytes.unwrap_or_else(|| rng.fill(n, -1.0, 1.0).iter().flat_map(|v| v.to_le_bytes()).collect());
        HostTensor { desc: OperandDescriptor::new(t, shape), bytes }
    };
    let inputs = [
        ("q", host(F, &[KV_HEADS, GROUP, 1, HD], None)),
        ("keys", host(F, &[total, KV_HEADS * HD], None)),
        ("values", host(F, &[total, KV_HEADS * HD], None)),
        ("mask", host(DataType::Uint8, &[1, total], Some(vec![1; total as usize]))),
    ];
    let feeds: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
    webnn_core::Executable::dispatch(exe, &feeds).unwrap();
    exe.median_gpu_ms(&feeds, runs).unwrap().expect("an adapter with timestamp queries")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = args.iter().find_map(|a| a.parse().ok()).unwrap_or(5);
    let mut backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter");
    if args.iter().any(|a| a == "--gpu-tuning") {
        backend = backend.tuned_for_gpu();
    }
    let g = graph();
    let mut fused = backend.compile_graph(&g).unwrap();
    let mut unfused = backend.clone().unfused().compile_graph(&g).unwrap();
    println!("| keys | fused kernels | ms | cache MB read | GB/s | op by op ms | op by op / fused |");
    println!("|---|---|---|---|---|---|---|");
    for total in [64, 256, 1024, 2048] {
        let (kernels, f) = gpu_ms(&mut fused, total, runs);
        let (_, u) = gpu_ms(&mut unfused, total, runs);
        let mb = 2.0 * total as f64 * (KV_HEADS * HD) as f64 * 4.0 / 1e6;
        println!("| {total} | {kernels} | {f:.3} | {mb:.2} | {:.2} | {u:.3} | {:.2}x |", mb / f, u / f);
    }
}
