//! Single-threaded GFLOP/s of every available ISA on the GEMM shapes of MobileNetV2's 1x1
//! convolutions (NHWC, so M is height x width), plus a square matrix, magika's im2col
//! convolution (K = 5 taps x 256 channels) and a GEMV, next to an
//! estimate of one core's peak.
//!
//! `cargo run --release -p webnn-gemm --example gflops`

use std::hint::black_box;
use std::time::{Duration, Instant};
use webnn_gemm::{gemm, Epilogue, Isa, PackedB};

/// (label, M, K, N)
const SHAPES: [(&str, usize, usize, usize); 10] = [
    ("56x56 expand 24->144", 3136, 24, 144),
    ("56x56 project 144->24", 3136, 144, 24),
    ("56x56 144->144", 3136, 144, 144),
    ("28x28 expand 32->192", 784, 32, 192),
    ("28x28 project 192->32", 784, 192, 32),
    ("14x14 576->160", 196, 576, 160),
    ("7x7 960->320", 49, 960, 320),
    ("square 512", 512, 512, 512),
    ("magika 5x1 conv im2col", 508, 1280, 512),
    ("gemv 576->1536", 1, 576, 1536),
];

fn main() {
    let isas = Isa::available();
    let listed = cpu_ghz();
    let measured = measured_ghz();
    let listed_text = listed.map_or("unknown".into(), |ghz| format!("{ghz:.2} GHz"));
    println!("single core; clock: {listed_text} in /proc/cpuinfo (\"cpu MHz\"), {measured:.2} GHz measured");
    println!("peak = 2 FMA pipes x f32 lanes per pipe x 2 flops x measured GHz; AMD family 19h");
    println!(
        "(Zen 4) runs 512-bit FMAs as two 256-bit halves, so its AVX-512 gets 8 lanes, not 16."
    );
    println!("cells: GFLOP/s (percent of that ISA's peak)");
    let ghz = Some(measured);
    print!("\n{:<24} {:>5} {:>4} {:>5}", "shape", "M", "K", "N");
    for isa in &isas {
        print!(" {:>16}", isa.name());
    }
    println!();
    for (label, m, k, n) in SHAPES {
        print!("{label:<24} {m:>5} {k:>4} {n:>5}");
        for &isa in &isas {
            let gflops = measure(isa, m, k, n);
            match peak(isa, ghz) {
                Some(peak) => print!(" {:>7.1} ({:>4.0}%)", gflops, 100.0 * gflops / peak),
                None => print!(" {gflops:>7.1}  (  - )"),
            }
        }
        println!();
    }
    print!("{:<41}", "peak estimate");
    for &isa in &isas {
        match peak(isa, ghz) {
            Some(peak) => print!(" {peak:>16.1}"),
            None => print!(" {:>16}", "-"),
        }
    }
    println!();
}

/// GFLOP/s of the fastest of several timed batches.
fn measure(isa: Isa, m: usize, k: usize, n: usize) -> f64 {
    let mut seed = 1u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1 << 24) as f32 - 0.5
    };
    let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
    let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
    let bias: Vec<f32> = (0..n).map(|_| next()).collect();
    let packed = PackedB::new(isa, k, n, &b, Some(&bias));
    let mut c = vec![0.0f32; m * n];
    let mut run = || {
        gemm(
            m,
            black_box(&a),
            k,
            &packed,
            black_box(&mut c),
            n,
            Epilogue::RELU6,
        )
    };
    // Calibrate to batches of at least 30 ms, then keep the fastest of five: the minimum is
    // the least disturbed by other processes on the machine.
    let mut iters = 1u32;
    loop {
        let start = Instant::now();
        (0..iters).for_each(|_| run());
        if start.elapsed() >= Duration::from_millis(30) {
            break;
        }
        iters *= 2;
    }
    let best = (0..5)
        .map(|_| {
            let start = Instant::now();
            (0..iters).for_each(|_| run());
            start.elapsed() / iters
        })
        .min()
        .unwrap();
    2.0 * (m * k * n) as f64 / best.as_secs_f64() / 1e9
}

/// Peak GFLOP/s estimate for `isa`; `None` for the scalar kernel, whose code is up to the
/// compiler's auto-vectorizer.
fn peak(isa: Isa, ghz: Option<f64>) -> Option<f64> {
    let lanes = match isa {
        Isa::Scalar => return None,
        Isa::Avx512 if amd_zen4() => 8,
        isa => isa.lanes(),
    };
    ghz.map(|ghz| 2.0 * lanes as f64 * 2.0 * ghz)
}

fn cpuinfo_field(name: &str) -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == name).then(|| value.trim().to_string())
    })
}

fn cpu_ghz() -> Option<f64> {
    cpuinfo_field("cpu MHz")?
        .parse::<f64>()
        .ok()
        .map(|mhz| mhz / 1e3)
}

/// The clock actually reached under load, from a chain of dependent one-cycle integer ops
/// (rotate, then xor with an opaque value: one cycle each on current x86 and ARM cores). The
/// MHz in /proc/cpuinfo is often the base clock, below what a busy core boosts to.
fn measured_ghz() -> f64 {
    let key = black_box(0x9e37_79b9_7f4a_7c15u64);
    let steps = 400_000_000u64;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let start = Instant::now();
        let mut x = black_box(1u64);
        for _ in 0..steps {
            x = x.rotate_left(7) ^ key;
        }
        black_box(x);
        best = best.min(start.elapsed().as_secs_f64());
    }
    2.0 * steps as f64 / best / 1e9
}

fn amd_zen4() -> bool {
    cpuinfo_field("vendor_id").as_deref() == Some("AuthenticAMD")
        && cpuinfo_field("cpu family").as_deref() == Some("25")
}
