//! Comparing a backend's outputs with the cpu backend's, shared by every backend's tests
//! (each `common` module includes this file).

use webnn_core::{DataType, HostTensor};

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

/// Distance in units in the last place between two floats of `t` (sign-magnitude order), 0
/// for two NaNs.
pub fn ulp(t: DataType, a: &[u8], b: &[u8]) -> u64 {
    let key = |bits: u64, sign: u64| -> i64 {
        if bits & sign != 0 {
            -((bits & !sign) as i64)
        } else {
            bits as i64
        }
    };
    match t {
        DataType::Float32 => {
            let (x, y) = (
                f32::from_le_bytes(a.try_into().unwrap()),
                f32::from_le_bytes(b.try_into().unwrap()),
            );
            if x.is_nan() && y.is_nan() {
                return 0;
            }
            if x.is_nan() || y.is_nan() {
                return u64::MAX;
            }
            let s = 1u64 << 31;
            key(x.to_bits() as u64, s).abs_diff(key(y.to_bits() as u64, s))
        }
        DataType::Float16 => {
            let (x, y) = (
                half::f16::from_le_bytes(a.try_into().unwrap()),
                half::f16::from_le_bytes(b.try_into().unwrap()),
            );
            if x.is_nan() && y.is_nan() {
                return 0;
            }
            if x.is_nan() || y.is_nan() {
                return u64::MAX;
            }
            let s = 1u64 << 15;
            key(x.to_bits() as u64, s).abs_diff(key(y.to_bits() as u64, s))
        }
        _ => u64::from(a != b) * u64::MAX,
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
            "{what}: element {k}: got {g:?} vs cpu {w:?} ({d} ulp > {max_ulp})"
        );
    }
}

/// Element k of a little-endian tensor of `t` as f64 (integers exactly up to 2^53).
fn element(t: DataType, bytes: &[u8], k: usize) -> f64 {
    let w = (t.bits() as usize / 8).max(1);
    let b = &bytes[k * w..(k + 1) * w];
    match t {
        DataType::Float32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
        DataType::Float16 => half::f16::from_le_bytes(b.try_into().unwrap()).to_f64(),
        _ => 0.0,
    }
}

/// Why `got` differs from `want` beyond float rounding (floats: 1e-3 relative to max(1, |x|)
/// for float32, 4e-3 for float16; other types: by at most `int_slack`), or None.
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
            return Some(format!("element {k}: got {g} vs cpu {w}"));
        }
    }
    None
}
