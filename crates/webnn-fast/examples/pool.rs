//! The thread pool's per-op cost: `cargo run --release -p webnn-fast --example pool`.
//! Runs jobs of `threads` empty tasks back to back (the fork/join an op pays on top of its
//! work) and jobs with a gap between them (as between ops, when workers may have parked),
//! and prints the median cost per job.

use std::time::{Duration, Instant};
use webnn_fast::Pool;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    println!("| threads | back to back | after 50 µs idle | after 5 ms idle (parked) |");
    println!("|---|---|---|---|");
    for threads in [2, 3, 4] {
        let pool = Pool::new(threads);
        let job = |gap: Duration, n: usize| {
            let t: Vec<f64> = (0..n)
                .map(|_| {
                    let until = Instant::now() + gap;
                    while Instant::now() < until {
                        std::hint::spin_loop();
                    }
                    let s = Instant::now();
                    pool.run(threads, &|i| {
                        std::hint::black_box(i);
                    });
                    s.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            median(t)
        };
        job(Duration::ZERO, 1000);
        println!(
            "| {threads} | {:.2} µs | {:.2} µs | {:.2} µs |",
            job(Duration::ZERO, 20_000),
            job(Duration::from_micros(50), 2_000),
            job(Duration::from_millis(5), 100)
        );
    }
}
