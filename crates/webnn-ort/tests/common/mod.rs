//! Shared by the ort tests: one backend per test binary (ONNX Runtime's library is required:
//! `bash scripts/setup.sh all` installs it, `source scripts/env.sh` points ORT_DYLIB_PATH at
//! it), and comparison of a graph's outputs with the cpu backend's.

#![allow(dead_code)]

/// The backend-independent cases (one small graph per op and data type) the wgpu tests
/// use too, so every backend is checked on the same graphs.
#[path = "../../../webnn-wgpu/tests/common/cases/mod.rs"]
pub mod cases;

use std::sync::OnceLock;
use webnn_core::{Backend, DataType, Graph, HostTensor, OperandDescriptor};
use webnn_cpu::CpuBackend;
use webnn_ort::OrtBackend;

pub fn ort() -> &'static OrtBackend {
    static B: OnceLock<OrtBackend> = OnceLock::new();
    B.get_or_init(|| {
        OrtBackend::new().unwrap_or_else(|e| {
            panic!("these tests need ONNX Runtime (bash scripts/setup.sh all; source scripts/env.sh): {e}")
        })
    })
}

/// Runs `graph` on both backends and returns (ort, cpu) outputs.
pub fn run_both(graph: &Graph, inputs: &[(&str, &HostTensor)]) -> Vec<(HostTensor, HostTensor)> {
    let mut exe = ort()
        .compile(graph)
        .unwrap_or_else(|e| panic!("ort compile: {e}"));
    let got = exe
        .dispatch(inputs)
        .unwrap_or_else(|e| panic!("ort dispatch: {e}"));
    let mut cpu = CpuBackend.compile(graph).expect("cpu compile");
    let want = cpu.dispatch(inputs).expect("cpu dispatch");
    assert_eq!(got.len(), want.len());
    got.into_iter()
        .zip(want)
        .map(|((n1, g), (n2, w))| {
            assert_eq!(n1, n2);
            assert_eq!(g.desc, w.desc, "output {n1}");
            (g, w)
        })
        .collect()
}

pub fn tensor_of(t: DataType, shape: &[u32], bytes: Vec<u8>) -> HostTensor {
    HostTensor {
        desc: OperandDescriptor::new(t, shape),
        bytes,
    }
}

fn element(t: DataType, bytes: &[u8], k: usize) -> f64 {
    let w = (t.bits() as usize / 8).max(1);
    let b = &bytes[k * w..(k + 1) * w];
    match t {
        DataType::Float32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
        DataType::Float16 => half::f16::from_le_bytes(b.try_into().unwrap()).to_f64(),
        _ => 0.0,
    }
}

/// Why `got` differs from `want` beyond float rounding (1e-3 relative to max(1, |x|) for
/// float32, 4e-3 for float16; other types: bytes apart by at most `int_slack`), or None.
pub fn mismatch(got: &HostTensor, want: &HostTensor, int_slack: u8) -> Option<String> {
    if got.desc != want.desc || got.bytes.len() != want.bytes.len() {
        return Some(format!(
            "{} ({} bytes) vs {} ({} bytes)",
            got.desc,
            got.bytes.len(),
            want.desc,
            want.bytes.len()
        ));
    }
    let t = got.desc.data_type;
    if !t.is_float() {
        let at = got
            .bytes
            .iter()
            .zip(&want.bytes)
            .position(|(a, b)| a.abs_diff(*b) > int_slack)?;
        return Some(format!(
            "byte {at} differs: {} vs {}",
            got.bytes[at], want.bytes[at]
        ));
    }
    let tol = if t == DataType::Float16 { 4e-3 } else { 1e-3 };
    let n = got.bytes.len() / (t.bits() as usize / 8);
    for k in 0..n {
        let (g, w) = (element(t, &got.bytes, k), element(t, &want.bytes, k));
        let same = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1.0);
        if !same {
            return Some(format!("element {k}: ort {g} vs cpu {w}"));
        }
    }
    None
}

/// Deterministic pseudo-random floats in [lo, hi).
pub fn values(n: usize, lo: f32, hi: f32, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            lo + (hi - lo) * (s as f32 / u32::MAX as f32)
        })
        .collect()
}

/// Distance in units in the last place between two floats of `t`, 0 for two NaNs.
pub fn ulp(t: DataType, a: &[u8], b: &[u8]) -> u64 {
    let key = |bits: u64, sign: u64| -> i64 {
        if bits & sign != 0 {
            -((bits & !sign) as i64)
        } else {
            bits as i64
        }
    };
    let (x, y, bits, sign) = match t {
        DataType::Float32 => {
            let (x, y) = (
                f32::from_le_bytes(a.try_into().unwrap()),
                f32::from_le_bytes(b.try_into().unwrap()),
            );
            (
                x as f64,
                y as f64,
                (x.to_bits() as u64, y.to_bits() as u64),
                1u64 << 31,
            )
        }
        DataType::Float16 => {
            let (x, y) = (
                half::f16::from_le_bytes(a.try_into().unwrap()),
                half::f16::from_le_bytes(b.try_into().unwrap()),
            );
            (
                x.to_f64(),
                y.to_f64(),
                (x.to_bits() as u64, y.to_bits() as u64),
                1u64 << 15,
            )
        }
        _ => return u64::from(a != b) * u64::MAX,
    };
    match (x.is_nan(), y.is_nan()) {
        (true, true) => 0,
        (false, false) => key(bits.0, sign).abs_diff(key(bits.1, sign)),
        _ => u64::MAX,
    }
}

/// Asserts every element is within `max_ulp` (floats) or equal (other types).
pub fn assert_close(what: &str, got: &HostTensor, want: &HostTensor, max_ulp: u64) {
    let t = got.desc.data_type;
    assert_eq!(got.bytes.len(), want.bytes.len(), "{what}");
    if t.bits() < 8 || !t.is_float() {
        assert_eq!(got.bytes, want.bytes, "{what}");
        return;
    }
    let size = t.bits() as usize / 8;
    for (k, (g, w)) in got
        .bytes
        .chunks(size)
        .zip(want.bytes.chunks(size))
        .enumerate()
    {
        let d = ulp(t, g, w);
        assert!(
            d <= max_ulp,
            "{what}: element {k}: ort {g:?} vs cpu {w:?} ({d} ulp > {max_ulp})"
        );
    }
}
