//! The fused quantized GEMV (one row of x, SmolLM2's product shapes) against a float32 GEMV
//! of the same shape on the same adapter: GPU time per dispatch (timestamp queries, median of
//! runs), the bytes it reads, and the two times' ratio.
//!
//!     cargo run --release -p webnn-wgpu --example qgemv [-- --gpu-tuning] [runs]

use webnn_core::{DataType, Graph, GraphBuilder, HostTensor, OperandDescriptor};
use webnn_models::{QuantizedLinear, Rng};

const F: DataType = DataType::Float32;

fn quantized(n: u32, k: u32, weight: DataType) -> Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(F, &[1, k])).unwrap();
    let block = 32;
    // As SmolLM2's GGUF gives them: Q4_1 (uint4 with offsets) and Q8_0, no zero points.
    let y = QuantizedLinear { weight, n, k, block, offset: weight == DataType::Uint4, zero_points: false }
        .build(&mut b, x, &mut Rng::new(1))
        .unwrap();
    b.build(&[("y", y)]).unwrap()
}

fn float(n: u32, k: u32) -> Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(F, &[1, k])).unwrap();
    let bytes = Rng::new(2).fill((n * k) as usize, -0.1, 0.1).iter().flat_map(|v| v.to_le_bytes()).collect();
    let w = b.constant(OperandDescriptor::new(F, &[n, k]), bytes).unwrap();
    let y = b
        .gemm(x, w, webnn_core::ops::GemmOptions { b_transpose: true, ..Default::default() })
        .unwrap();
    b.build(&[("y", y)]).unwrap()
}

/// Median GPU time of the graph's one kernel, in ms.
fn gpu_ms(backend: &webnn_wgpu::WgpuBackend, g: &Graph, k: u32, runs: usize) -> (String, f64) {
    let mut exe = backend.compile_graph(g).unwrap();
    let x = HostTensor {
        desc: OperandDescriptor::new(F, &[1, k]),
        bytes: Rng::new(3).fill(k as usize, -1.0, 1.0).iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let feeds = [("x", &x)];
    webnn_core::Executable::dispatch(&mut exe, &feeds).unwrap();
    exe.median_gpu_ms(&feeds, runs).unwrap().expect("an adapter with timestamp queries")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = args.iter().find_map(|a| a.parse().ok()).unwrap_or(7);
    let mut backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter");
    if args.iter().any(|a| a == "--gpu-tuning") {
        backend = backend.tuned_for_gpu();
    }
    println!("| product [n, k] | weight | kernel | ms | MB read | GB/s | float32 ms | float32 / quantized |");
    println!("|---|---|---|---|---|---|---|---|");
    for (n, k, weight) in [(64, 64, DataType::Uint4), (576, 576, DataType::Uint4), (1536, 576, DataType::Uint4), (576, 1536, DataType::Uint4), (8192, 576, DataType::Int8)] {
        let (kernel, q) = gpu_ms(&backend, &quantized(n, k, weight), k, runs);
        let (_, f) = gpu_ms(&backend, &float(n, k), k, runs);
        // The weight, and per block of 32 its scale and (uint4: Q4_1) offset; the zero points
        // (all zero) are not read.
        let bits = weight.bits() as f64;
        let per_block = 4.0 + if weight == DataType::Uint4 { 4.0 } else { 0.0 };
        let mb = n as f64 * k as f64 * (bits / 8.0 + per_block / 32.0) / 1e6;
        println!("| [{n}, {k}] | {weight} | {kernel} | {q:.3} | {mb:.2} | {:.2} | {f:.3} | {:.2}x |", mb / q, f / q);
    }
}
