//! The loops outside GEMM and depthwise: the residual-add-and-clamp epilogue and
//! element-wise binary ops, written as plain Rust over fixed-size channel blocks so that LLVM
//! vectorises them, and compiled three times (AVX-512, AVX2+FMA, the build's baseline) with
//! the variant chosen at run time. One binary then uses the widest vectors the machine has
//! without per-element dispatch, and no intrinsics are needed.

use webnn_gemm::Isa;

/// Which compiled variant of the loops to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Simd {
    Avx512,
    Avx2,
    Base,
}

impl Simd {
    /// The variant matching the GEMM kernels' ISA, so one machine runs one family throughout.
    pub(crate) fn for_isa(isa: Isa) -> Simd {
        match isa {
            Isa::Avx512 => Simd::Avx512,
            Isa::Avx2Fma => Simd::Avx2,
            Isa::Scalar | Isa::Simd128 | Isa::RelaxedSimd | Isa::Neon => Simd::Base,
        }
    }
}

/// Calls `$generic::<true>(args)` inside a function compiled for the variant's features,
/// `$generic::<false>` (separate multiply and add, no libm `fma` calls) for the baseline.
macro_rules! dispatch {
    ($simd:expr, $generic:ident ( $($arg:expr),* )) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx2,fma")]
            fn avx512(f: impl FnOnce()) { f() }
            #[target_feature(enable = "avx2,fma")]
            fn avx2(f: impl FnOnce()) { f() }
            match $simd {
                // SAFETY: `Simd` comes from `Isa::detect`, which checked these features.
                Simd::Avx512 => unsafe { avx512(#[inline(always)] || $generic::<true>($($arg),*)) },
                Simd::Avx2 => unsafe { avx2(#[inline(always)] || $generic::<true>($($arg),*)) },
                Simd::Base => $generic::<false>($($arg),*),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = $simd;
            $generic::<false>($($arg),*)
        }
    }};
}

pub(crate) use dispatch;

/// `a·b + c`, fused where the caller is compiled with FMA.
#[inline(always)]
pub(crate) fn fma<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// The epilogue's clamp; NaN passes through, as in the reference clamp and relu. In wasm the
/// NaN test is explicit: LLVM turns the compare-and-selects of a vectorised loop into
/// min/max, which relaxed-SIMD builds lower to relaxed min/max, and those lose NaN on x86
/// hosts (the fuzzer's page found it in convTranspose2d); with the test a NaN lane takes `x`
/// whatever min/max did. Native x86 min/max keep the select's meaning, so the test is left
/// out there (it cost MobileNetV2 about 2% on one thread).
#[inline(always)]
pub(crate) fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    if cfg!(target_arch = "wasm32") && x.is_nan() {
        x
    } else if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// The output columns `first..end` whose windows (`kw` taps `dilation` apart, from column
/// `ox * stride - pad`) lie wholly inside a row of `w` pixels, from the bounds rather than a
/// `taps` call per column (whose divisions cost more than a column's arithmetic); an empty
/// range is `(ow, ow)`.
pub(crate) fn inside_columns(w: usize, ow: usize, kw: usize, stride: usize, dilation: usize, pad: usize) -> (usize, usize) {
    let s = stride.max(1);
    let reach = (kw.max(1) - 1) * dilation;
    let first = pad.div_ceil(s).min(ow);
    // The last inside column satisfies ox * s <= w - 1 - reach + pad.
    let end = match (w + pad).checked_sub(reach + 1) {
        Some(top) => (top / s + 1).min(ow),
        None => 0,
    };
    match first < end {
        true => (first, end),
        false => (ow, ow),
    }
}

/// The `k` in `0..count` for which `k * stride + offset` lies in `0..limit`: the taps of a
/// window that fall inside the image, so the inner loops need no bounds test.
pub(crate) fn taps(
    offset: isize,
    stride: usize,
    limit: usize,
    count: usize,
) -> std::ops::Range<usize> {
    let s = stride.max(1) as isize;
    let lo = if offset >= 0 {
        0
    } else {
        (-offset + s - 1) / s
    };
    let hi = if (limit as isize) <= offset {
        0
    } else {
        (limit as isize - 1 - offset) / s + 1
    };
    let (lo, hi) = (
        lo.clamp(0, count as isize) as usize,
        hi.clamp(0, count as isize) as usize,
    );
    lo..hi.max(lo)
}

/// `out = clamp(out + residual)`: a residual add fused into the op that produced `out`,
/// applied while its rows are still in cache.
pub(crate) fn add_clamp(simd: Simd, out: &mut [f32], residual: &[f32], lo: f32, hi: f32) {
    dispatch!(simd, add_clamp_generic(out, residual, lo, hi))
}

#[inline(always)]
fn add_clamp_generic<const FMA: bool>(out: &mut [f32], residual: &[f32], lo: f32, hi: f32) {
    for (o, r) in out.iter_mut().zip(residual) {
        *o = clamp(*o + r, lo, hi);
    }
}

/// `out` rounded to float16's grid and widened back (a float16 export's round trip), as the
/// reference's casts round: to nearest even, overflow to infinity, NaN kept.
pub(crate) fn round_f16(simd: Simd, out: &mut [f32]) {
    dispatch!(simd, round_f16_generic(out))
}

#[inline(always)]
fn round_f16_generic<const FMA: bool>(out: &mut [f32]) {
    for o in out.iter_mut() {
        *o = crate::vmath::round_f16_f32(*o);
    }
}

/// The element-wise binary ops with a fast path; results equal the reference's (an f32 op
/// equals the f64 op rounded once for these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinaryKind {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

/// `out = clamp(a op b)` over equal-length slices.
pub(crate) fn binary(
    simd: Simd,
    kind: BinaryKind,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    lo: f32,
    hi: f32,
) {
    match kind {
        BinaryKind::Add => dispatch!(simd, zip(a, b, out, lo, hi, |x, y| x + y)),
        BinaryKind::Sub => dispatch!(simd, zip(a, b, out, lo, hi, |x, y| x - y)),
        BinaryKind::Mul => dispatch!(simd, zip(a, b, out, lo, hi, |x, y| x * y)),
        BinaryKind::Div => dispatch!(simd, zip(a, b, out, lo, hi, |x, y| x / y)),
        // The reference's max and min return NaN when either side is NaN.
        BinaryKind::Max => dispatch!(
            simd,
            zip(a, b, out, lo, hi, |x, y| if x.is_nan() || y.is_nan() {
                f32::NAN
            } else {
                x.max(y)
            })
        ),
        BinaryKind::Min => dispatch!(
            simd,
            zip(a, b, out, lo, hi, |x, y| if x.is_nan() || y.is_nan() {
                f32::NAN
            } else {
                x.min(y)
            })
        ),
    }
}

#[inline(always)]
fn zip<const FMA: bool>(
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    lo: f32,
    hi: f32,
    f: impl Fn(f32, f32) -> f32,
) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = clamp(f(*x, *y), lo, hi);
    }
}

/// AVX2 helpers of the x86 kernels.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    /// The lane sums of eight vectors, as one: each output's additions involve only its own
    /// vector, in the same order wherever it falls.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(crate) unsafe fn sum8(v: &[__m256; 8]) -> __m256 {
        let (a, b) = (_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
        let (c, d) = (_mm256_hadd_ps(v[4], v[5]), _mm256_hadd_ps(v[6], v[7]));
        let (low, high) = (_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
        _mm256_add_ps(_mm256_permute2f128_ps(low, high, 0x20), _mm256_permute2f128_ps(low, high, 0x31))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed-form inside columns equal a search with `taps`, over widths, windows,
    /// strides, dilations and paddings (wider than the image too).
    #[test]
    fn inside_columns_match_the_taps() {
        for w in 1..9usize {
            for kw in 1..5 {
                for stride in 1..4 {
                    for dilation in 1..3 {
                        for pad in 0..5 {
                            let span = (kw - 1) * dilation + 1;
                            let Some(ow) = (w + 2 * pad).checked_sub(span).map(|v| v / stride + 1) else { continue };
                            let ix = |ox: usize| (ox * stride) as isize - pad as isize;
                            let inside = |ox: usize| taps(ix(ox), dilation, w, kw) == (0..kw);
                            let first = (0..ow).find(|&ox| inside(ox)).unwrap_or(ow);
                            let end = (first..ow).find(|&ox| !inside(ox)).unwrap_or(ow);
                            assert_eq!(inside_columns(w, ow, kw, stride, dilation, pad), (first, end), "w {w} kw {kw} stride {stride} dilation {dilation} pad {pad}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn taps_stay_inside() {
        for offset in -5..8isize {
            for stride in 1..4 {
                for count in 0..5 {
                    let r = taps(offset, stride, 6, count);
                    for k in 0..count {
                        let p = offset + (k * stride) as isize;
                        assert_eq!(
                            r.contains(&k),
                            (0..6).contains(&p),
                            "{offset} {stride} {count} {k}"
                        );
                    }
                }
            }
        }
    }
}
