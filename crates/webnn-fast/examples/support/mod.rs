//! Timing helpers the benchmark examples share (each includes this file with `#[path]`).

#![allow(dead_code)]

use std::time::Instant;
use webnn_core::{Executable, HostTensor};

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A float32 tensor's values.
pub fn floats(t: &HostTensor) -> Vec<f32> {
    t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The median milliseconds of `runs` dispatches after one untimed, and the first output.
pub fn time(exe: &mut dyn Executable, feeds: &[(&str, &HostTensor)], runs: usize) -> (f64, HostTensor) {
    let mut out = exe.dispatch(feeds).expect("dispatch");
    let times = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            out = exe.dispatch(feeds).expect("dispatch");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    (median(times), out.swap_remove(0).1)
}
