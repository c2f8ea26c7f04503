//! The quantized linear layer against float32 on the same fast backend:
//! `cargo run --release -p webnn-fast --example qgemm [threads]`. SmolLM2-135M's layer
//! shapes (hidden 576, FFN 1536), Q4_1-style uint4 weights in blocks of 32 with a per-block
//! offset, at 1 row (decode) and 64 rows (a prompt chunk). Prints the median per call, the
//! weight bytes each read, and the ratio to float32 measured in the same run. Then the
//! decode step's weight streams, too large for the caches: thirty up/down uint4 layer pairs
//! in one chain (40 MB) and an int8 head of 49,152 x 576 (35 MB).

use std::time::Instant;
use webnn_core::ops::{ClampOptions, GemmOptions, MLNumber};
use webnn_core::{
    Backend, DataType, Executable, Graph, GraphBuilder, HostTensor, OperandDescriptor,
};
use webnn_fast::FastBackend;
use webnn_models::{QuantizedLinear, Rng};

const F: DataType = DataType::Float32;

fn floats(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<u8> {
    rng.fill(n, lo, hi)
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

fn layer(m: u32, n: u32, k: u32, quantized: bool, rng: &mut Rng) -> Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(F, &[m, k])).unwrap();
    let y = if quantized {
        let layer = QuantizedLinear { weight: DataType::Uint4, n, k, block: 32, offset: true, zero_points: true };
        layer.build(&mut b, x, rng).unwrap()
    } else {
        let w = b
            .constant(OperandDescriptor::new(F, &[n, k]), floats(rng, (n * k) as usize, -0.5, 0.5))
            .unwrap();
        b.gemm(x, w, GemmOptions { b_transpose: true, ..Default::default() }).unwrap()
    };
    b.build(&[("y", y)]).unwrap()
}

fn median_seconds(exe: &mut dyn Executable, x: &HostTensor, calls: usize) -> f64 {
    exe.dispatch(&[("x", x)]).unwrap();
    let mut t: Vec<f64> = (0..calls)
        .map(|_| {
            let s = Instant::now();
            exe.dispatch(&[("x", x)]).unwrap();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let backend = FastBackend::new(threads);
    let mut rng = Rng::new(1);
    println!(
        "fast backend, {} ({threads} thread(s)); median of 200 calls\n",
        backend.isa()
    );
    println!("| rows | n x k | uint4 (blocks of 32, offset) | float32 | ratio | uint4 weight GB/s | float32 weight GB/s |");
    println!("|---|---|---|---|---|---|---|");
    for m in [1u32, 64] {
        for (n, k) in [(576u32, 576u32), (1536, 576), (576, 1536)] {
            let x = HostTensor {
                desc: OperandDescriptor::new(F, &[m, k]),
                bytes: floats(&mut rng, (m * k) as usize, -1.0, 1.0),
            };
            let mut q = backend.compile(&layer(m, n, k, true, &mut rng)).unwrap();
            let mut f = backend.compile(&layer(m, n, k, false, &mut rng)).unwrap();
            let calls = if m == 1 { 200 } else { 20 };
            let (tq, tf) = (
                median_seconds(q.as_mut(), &x, calls),
                median_seconds(f.as_mut(), &x, calls),
            );
            // Bytes of weights each reads: nibbles plus scale and offset per block; floats.
            let (bq, bf) = ((n * k / 2 + n * k / 32 * 8) as f64, (n * k * 4) as f64);
            println!(
                "| {m} | {n} x {k} | {:.1} µs | {:.1} µs | {:.2} | {:.1} | {:.1} |",
                tq * 1e6,
                tf * 1e6,
                tq / tf,
                bq / tq / 1e9,
                bf / tf / 1e9
            );
        }
    }
    println!();
    println!("| one row through | weight MB | median | weight GB/s |");
    println!("|---|---|---|---|");
    // Weight bytes: values, then scale and offset (f32) per block of 32.
    for (name, graph, bytes) in [
        ("30 up/down uint4 pairs, 576 <-> 1536", chain(30, &mut rng), 30 * 2 * (1536 * 576 / 2 + 1536 * 576 / 32 * 8)),
        ("int8 head, 49152 x 576", head(&mut rng), 49152 * 576 + 49152 * 576 / 32 * 8),
    ] {
        let k = 576u32;
        let x = HostTensor {
            desc: OperandDescriptor::new(F, &[1, k]),
            bytes: floats(&mut rng, k as usize, -1.0, 1.0),
        };
        let mut exe = backend.compile(&graph).unwrap();
        let t = median_seconds(exe.as_mut(), &x, 20);
        println!("| {name} | {:.1} | {:.2} ms | {:.1} |", bytes as f64 / 1e6, t * 1e3, bytes as f64 / t / 1e9);
    }
}

/// `pairs` uint4 layers 576 -> 1536 -> 576, one after another.
fn chain(pairs: usize, rng: &mut Rng) -> Graph {
    let mut b = GraphBuilder::new();
    let mut x = b.input("x", OperandDescriptor::new(F, &[1, 576])).unwrap();
    for _ in 0..pairs {
        for (n, k) in [(1536, 576), (576, 1536)] {
            let layer = QuantizedLinear { weight: DataType::Uint4, n, k, block: 32, offset: true, zero_points: true };
            // Random layers multiply the activations' size several times each: sixty
            // of them overflow to infinities, which the integer kernels leave to the float
            // ones. The clamp keeps them finite and fuses into each product's epilogue.
            let y = layer.build(&mut b, x, rng).unwrap();
            let bounds = ClampOptions { min_value: Some(MLNumber::Double(-1.0)), max_value: Some(MLNumber::Double(1.0)), ..Default::default() };
            x = b.clamp(y, bounds).unwrap();
        }
    }
    b.build(&[("y", x)]).unwrap()
}

/// SmolLM2's tied head: int8 in blocks of 32 (Q8_0), 49,152 outputs.
fn head(rng: &mut Rng) -> Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(F, &[1, 576])).unwrap();
    let layer = QuantizedLinear { weight: DataType::Int8, n: 49152, k: 576, block: 32, offset: false, zero_points: true };
    let y = layer.build(&mut b, x, rng).unwrap();
    b.build(&[("y", y)]).unwrap()
}
