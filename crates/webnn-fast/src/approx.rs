//! gelu and erf without the reference's series (about 60 terms, 70 ns an element): an
//! erfc with fractional error below 1.2e-7 for every argument (the Chebyshev fit of
//! W. H. Press et al., Numerical Recipes, 2nd ed., section 6.2), evaluated in f64 with
//! `vmath::exp` and without branches, so a block of them vectorizes. Rounded to float32 the
//! results are within a few ULP of the exact values (tests below: at most 4 for gelu against
//! WPT's 18; erf within 2e-7 absolute against WPT's 1/1024).

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI};

/// erfc(z) for z >= 0 (NaN stays NaN, +Infinity gives 0).
#[inline(always)]
fn erfc_nonnegative(z: f64) -> f64 {
    const C: [f64; 10] = [
        -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
        0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277,
    ];
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = C.iter().rev().fold(0.0, |acc, &c| c + t * acc);
    t * crate::vmath::exp(-z * z + poly)
}

/// gelu(x) = x Φ(x), Φ(x) = erfc(−x/√2)/2 (the erfc form keeps the negative tail's relative
/// accuracy); -Infinity gives NaN (−∞ · 0) as the reference's does.
#[inline(always)]
pub(crate) fn gelu(x: f64) -> f64 {
    let z = x * FRAC_1_SQRT_2;
    let e = erfc_nonnegative(z.abs());
    // NaN fails `z >= 0` and stays NaN through `0.5 * e`.
    let phi = if z >= 0.0 { 1.0 - 0.5 * e } else { 0.5 * e };
    crate::vmath::nan_through(x, x * phi)
}

/// erf(x): its Maclaurin series below 0.5 (relative error under 1e-8 there), 1 − erfc above.
#[inline(always)]
pub(crate) fn erf(x: f64) -> f64 {
    let a = x.abs();
    // 2/√π Σ (−1)^n x^(2n+1) / (n! (2n+1)), n < 7, by Horner in x² over constants.
    const C: [f64; 7] = [1.0, -1.0 / 3.0, 1.0 / 10.0, -1.0 / 42.0, 1.0 / 216.0, -1.0 / 1_320.0, 1.0 / 9_360.0];
    let x2 = x * x;
    let series = FRAC_2_SQRT_PI * x * C.iter().rev().fold(0.0, |acc, &c| acc * x2 + c);
    // NaN fails `a < 0.5` and comes out of erfc as NaN.
    let tail = (1.0 - erfc_nonnegative(a)).copysign(x);
    crate::vmath::nan_through(x, if a < 0.5 { series } else { tail })
}

/// Where `gelu_f32` holds: beyond, results leave float32's normal range (x below -13)
/// or the polynomial's argument overflows; callers take `gelu` there (and for NaN).
pub(crate) const GELU_F32_RANGE: f32 = 13.0;

/// `gelu` in float32 lanes for |x| <= `GELU_F32_RANGE`: the same fit, with the exponent
/// -x²/2 + poly kept as an exact square (`vmath::square_f32`) plus a small part until the
/// exponential's range reduction (`vmath::exp_sum_f32`), since x²/2 rounded to float32
/// would be off by up to 87 ULP of the result at the range's end. Within 8 ULP of the
/// exact value (tests below, measured 7: the fit's polynomial rounds in float32; the
/// float64 form is within 4, WPT allows 18).
#[inline(always)]
pub(crate) fn gelu_f32(x: f32) -> f32 {
    // The fit's published coefficients, as `erfc_nonnegative`'s (rounded to float32 here).
    #[allow(clippy::excessive_precision)]
    const C: [f32; 10] = [
        -1.265_512_2, 1.000_023_7, 0.374_091_96, 0.096_784_18, -0.186_288_06,
        0.278_868_07, -1.135_203_9, 1.488_515_9, -0.822_152_23, 0.170_872_77,
    ];
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.5 * (a * std::f32::consts::FRAC_1_SQRT_2));
    let poly = C.iter().rev().fold(0.0, |acc, &c| c + t * acc);
    let (hi, lo) = crate::vmath::square_f32(a);
    let e = t * crate::vmath::exp_sum_f32(-0.5 * hi, poly - 0.5 * lo);
    let phi = if x >= 0.0 { 1.0 - 0.5 * e } else { 0.5 * e };
    x * phi
}

/// `erf` in float32 lanes, every argument: the series below 0.5, 1 − erfc above, as
/// `erf`; within 3e-7 absolute (tests below; the float64 form 2e-7, WPT allows 1/1024).
#[inline(always)]
pub(crate) fn erf_f32(x: f32) -> f32 {
    #[allow(clippy::excessive_precision)]
    const C: [f32; 10] = [
        -1.265_512_2, 1.000_023_7, 0.374_091_96, 0.096_784_18, -0.186_288_06,
        0.278_868_07, -1.135_203_9, 1.488_515_9, -0.822_152_23, 0.170_872_77,
    ];
    const S: [f32; 7] = [1.0, -1.0 / 3.0, 1.0 / 10.0, -1.0 / 42.0, 1.0 / 216.0, -1.0 / 1_320.0, 1.0 / 9_360.0];
    let a = x.abs();
    let x2 = x * x;
    let series = std::f32::consts::FRAC_2_SQRT_PI * x * S.iter().rev().fold(0.0, |acc, &c| acc * x2 + c);
    let t = 1.0 / (1.0 + 0.5 * a);
    let poly = C.iter().rev().fold(0.0, |acc, &c| c + t * acc);
    // `max` keeps -inf (|x| infinite) and large |x| in `exp_sum_f32`'s range.
    let erfc = t * crate::vmath::exp_sum_f32((-x2).max(-87.0), poly);
    let tail = (1.0 - erfc).copysign(x);
    let r = if a < 0.5 { series } else { tail };
    if x.is_nan() { x } else { r }
}

#[cfg(test)]
mod tests {
    use webnn_cpu::kernels::elementwise::scalar::FloatUnary;

    fn ulps(a: f32, b: f32) -> u32 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        let key = |v: f32| {
            let i = v.to_bits() as i32;
            if i < 0 { i32::MIN - i } else { i }
        };
        key(a).abs_diff(key(b))
    }

    fn sweep() -> impl Iterator<Item = f64> {
        let dense = (-24_000..=24_000).map(|i| i as f64 * 5e-4);
        let special = [0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 30.0, -30.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
        dense.chain(special)
    }

    #[test]
    fn gelu_is_within_4_ulp() {
        let worst = sweep().map(|x| ulps(super::gelu(x) as f32, FloatUnary::Gelu.apply(x) as f32)).max();
        assert!(worst <= Some(4), "{worst:?}");
    }

    #[test]
    fn gelu_f32_is_within_8_ulp_in_its_range() {
        let (mut worst, mut at) = (0, 0.0);
        for x in sweep().chain((-2_000_000..=2_000_000).map(|i| i as f64 * 6.5e-6)) {
            let x = x as f32;
            if x.is_nan() || x.abs() > super::GELU_F32_RANGE {
                continue;
            }
            let d = ulps(super::gelu_f32(x), FloatUnary::Gelu.apply(x as f64) as f32);
            if d > worst {
                (worst, at) = (d, x);
            }
        }
        assert!(worst <= 8, "{worst} ULP at {at}");
    }

    #[test]
    fn erf_f32_is_within_3e_7() {
        for x in sweep().chain([f64::MAX, -3.0e38, 9.3, -9.3, 0.4999, 0.5]) {
            let (a, b) = (super::erf_f32(x as f32), FloatUnary::Erf.apply(x as f32 as f64) as f32);
            assert!(a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 3e-7, "{x}: {a} vs {b}");
        }
    }

    #[test]
    fn erf_is_within_2e_7() {
        for x in sweep() {
            let (a, b) = (super::erf(x) as f32, FloatUnary::Erf.apply(x) as f32);
            assert!(a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 2e-7, "{x}: {a} vs {b}");
        }
    }
}
