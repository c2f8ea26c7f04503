//! Single-threaded GEMM with B out of the cache, as a network's layers meet their weights
//! once per run: copies of B that together outgrow the caches (96 MB), cycled, against the
//! same B again and again (warm). Shapes of EfficientNet-Lite0's late layers (M = 49 or
//! 196 pixels) and its classifier (a GEMV).
//!
//! `cargo run --release -p webnn-gemm --example cold`

use std::time::Instant;
use webnn_gemm::{gemm, Epilogue, Isa, PackedB};

/// (M, K, N)
const SHAPES: [(usize, usize, usize); 5] = [(49, 320, 1280), (49, 1152, 320), (196, 672, 112), (196, 112, 672), (1, 1280, 1000)];

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    let isa = Isa::detect();
    println!("{isa}, one thread; median us per product");
    println!("{:>16} {:>10} {:>10} {:>14}", "M x K x N", "cold", "warm", "cold: B GB/s");
    for (m, k, n) in SHAPES {
        let copies = (96 << 20) / (k * n * 4) + 1;
        let bs: Vec<PackedB> = (0..copies)
            .map(|c| {
                let b: Vec<f32> = (0..k * n).map(|i| ((i * 7 + c) % 13) as f32 * 0.1).collect();
                PackedB::new(isa, k, n, &b, None)
            })
            .collect();
        let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32).collect();
        let mut c = vec![0f32; m * n];
        let mut time = |b: &PackedB| {
            let s = Instant::now();
            gemm(m, &a, k, b, &mut c, n, Epilogue::NONE);
            s.elapsed().as_secs_f64() * 1e6
        };
        // A first pass over the copies untimed, then three timed.
        bs.iter().for_each(|b| {
            time(b);
        });
        let cold = median((0..3).flat_map(|_| bs.iter().map(&mut time).collect::<Vec<_>>()).collect());
        let warm = median((0..50).map(|_| time(&bs[0])).collect());
        let gbs = (k * n * 4) as f64 / cold / 1e3;
        println!("{:>16} {cold:>10.1} {warm:>10.1} {gbs:>14.1}", format!("{m}x{k}x{n}"));
    }
}
