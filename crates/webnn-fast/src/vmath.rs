//! exp, expm1, sigmoid, tanh and elu in float64, and tanh in float32, without branches or
//! library calls, so that a loop over a block of values vectorizes (the element-wise chains,
//! `chain.rs`). The reference computes these with libm, one call per element (10-20 ns
//! each); here a block runs at a few vector instructions per element.
//!
//! Each function is within about 1e-14 relative of the exact value (polynomials of the
//! reduced argument, evaluated in float64), far below float32's half ULP (6e-8): rounded to
//! float32, the results equal the reference's except when the exact value lies within that
//! distance of a rounding boundary, and then differ by one ULP (the tests below count them).
//! WPT allows 32 ULP for exp, 34 for sigmoid, 18 for elu and 1/1024 absolute for tanh.
//!
//! No fused multiply-adds: every build (baseline, AVX2, AVX-512, wasm) computes the same bits.
//!
//! NaN: each function ends in `nan_through`. The selects inside (the argument's clamp, the
//! choice between two formulas) keep NaN as written, but in the wasm builds with relaxed
//! SIMD LLVM may turn a clamp's compare-and-selects into relaxed min/max, which drop NaN on
//! x86 (the page fuzzer found tanh(NaN) = -1 there); the explicit test is a plain blend.

/// 1.5 * 2^52: adding it rounds a float64 of magnitude below 2^51 to an integer, which then
/// sits in the low bits of the sum's representation.
const MAGIC: f64 = 6_755_399_441_055_744.0;
/// ln 2 split so that `n * LN2_HI` is exact for |n| < 2^20 (fdlibm's constants).
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
/// Arguments are clamped to ±LIMIT: e^110 overflows float32 and e^-110 underflows it, so
/// clamped results still round to the float32 ones, and 2^n stays a normal float64.
const LIMIT: f64 = 110.0;

/// 1/k! for k = 0..=15: e^r on |r| <= ln2/2 takes k <= 11 (the first term left out,
/// r^12/12!, is below 7e-15 of the result there), e^y - 1 on |y| <= 1 takes k <= 14.
const INV_FACT: [f64; 16] = [
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
    1.0 / 87_178_291_200.0,
    1.0 / 1_307_674_368_000.0,
];

/// `r`, or `x` where `x` is NaN (see the module's note on NaN).
#[inline(always)]
pub(crate) fn nan_through(x: f64, r: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        r
    }
}

/// `x` limited to ±LIMIT with NaN kept (both comparisons fail for NaN).
#[inline(always)]
fn clamp_arg(x: f64) -> f64 {
    if x < -LIMIT {
        -LIMIT
    } else if x > LIMIT {
        LIMIT
    } else {
        x
    }
}

/// e^x: x = n ln2 + r with n an integer and |r| <= ln2/2 (Cody and Waite's two-part ln2),
/// e^r by its Taylor polynomial, 2^n made from its bits.
#[inline(always)]
pub(crate) fn exp(x: f64) -> f64 {
    let x = clamp_arg(x);
    let k = x * std::f64::consts::LOG2_E + MAGIC;
    let n = k - MAGIC;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // Horner over constants: a fixed-length loop the compiler unrolls, so the caller's loop
    // over elements vectorizes.
    let mut p = INV_FACT[11];
    for &c in INV_FACT[..11].iter().rev() {
        p = p * r + c;
    }
    // k's low bits hold n in two's complement: n + 1023 is 2^n's biased exponent (n is
    // within ±159 after the clamp, so the exponent field never overflows).
    let bits = k.to_bits().wrapping_sub(MAGIC.to_bits()).wrapping_add(1023) << 52;
    nan_through(x, p * f64::from_bits(bits))
}

/// e^y − 1 for |y| <= 1 by its Taylor polynomial (y^15/15! is below 1e-12 of the result),
/// accurate relative to the result near 0, where `exp(y) - 1` would cancel.
#[inline(always)]
fn expm1_small(y: f64) -> f64 {
    // y Σ y^k / (k+1)!, k = 0..=13, by Horner over constants (unrolled, so it vectorizes).
    let mut p = INV_FACT[14];
    for &c in INV_FACT[1..14].iter().rev() {
        p = p * y + c;
    }
    y * p
}

/// e^x − 1, as precise near 0 as `f64::exp_m1`.
#[inline(always)]
pub(crate) fn expm1(x: f64) -> f64 {
    let small = expm1_small(x);
    let large = exp(x) - 1.0;
    nan_through(x, if x.abs() <= 1.0 { small } else { large })
}

/// 1 / (1 + e^-x), as the reference writes it.
#[inline(always)]
pub(crate) fn sigmoid(x: f64) -> f64 {
    nan_through(x, 1.0 / (1.0 + exp(-x)))
}

/// tanh x = m / (m + 2) with m = e^2a − 1 and a = |x|, the sign put back: m from expm1's
/// series below a = 0.5 (where e^2a − 1 would cancel), as e^2a − 1 above (e^2a >= e there,
/// so the subtraction loses under two of float64's bits). One division, selected operands:
/// a float64 division costs more than either polynomial. `exp` clamps its argument, so m
/// stays finite and a large `a` gives 1.
#[inline(always)]
pub(crate) fn tanh(x: f64) -> f64 {
    let a = x.abs();
    let small = expm1_small(2.0 * a);
    let large = exp(2.0 * a) - 1.0;
    let m = if a < 0.5 { small } else { large };
    nan_through(x, (m / (m + 2.0)).copysign(x))
}

/// elu: x where x > 0, else alpha (e^x − 1).
#[inline(always)]
pub(crate) fn elu(x: f64, alpha: f64) -> f64 {
    let negative = alpha * expm1(x);
    nan_through(x, if x > 0.0 { x } else { negative })
}

/// `x` rounded to the nearest float16 value, ties to even, as a float64 (float16's
/// overflow to ±Infinity, subnormals and signed zeros included): adding and subtracting
/// 1.5 · 2^52 · q rounds to a multiple of q, float16's spacing at x's magnitude (2^-24 in its
/// subnormal range). Equal to `half::f16::from_f64(x).to_f64()`, without its branches.
#[inline(always)]
pub(crate) fn round_f16(x: f64) -> f64 {
    let a = x.abs();
    // x's binary exponent, at least float16's smallest normal one (-14).
    let e = ((a.to_bits() >> 52) as i64 - 1023).max(-14);
    // 1.5 · 2^(e - 10 + 52): the mantissa's top bit and the exponent of q · 2^52.
    let magic = f64::from_bits((((e + 42 + 1023) as u64) << 52) | (1 << 51));
    let r = ((a + magic) - magic).copysign(x);
    // 65520 and more round to infinity (the infinities too: their exponent would make
    // `magic` meaningless); NaN stays NaN.
    nan_through(x, if a >= 65520.0 { f64::INFINITY.copysign(x) } else { r })
}

/// `round_f16` for a float32 value, in float32 (the same trick with 1.5 · 2^23 · q): the
/// same value, as rounding to float16's grid is exact in either width.
#[inline(always)]
pub(crate) fn round_f16_f32(x: f32) -> f32 {
    let a = x.abs();
    // x's binary exponent, within float16's normal exponents (-14..=15; larger values
    // become infinity below, and the clamp keeps `magic` a finite float).
    let e = ((a.to_bits() >> 23) as i32 - 127).clamp(-14, 15);
    // 1.5 · 2^(e - 10 + 23).
    let magic = f32::from_bits((((e + 13 + 127) as u32) << 23) | (1 << 22));
    let r = ((a + magic) - magic).copysign(x);
    let r = if a >= 65520.0 { f32::INFINITY.copysign(x) } else { r };
    if x.is_nan() {
        x
    } else {
        r
    }
}

/// tanh in float32, for chains computing in float32 lanes (`chain::float32`): within one
/// ULP of the correctly rounded value, as `tanh` rounded to float32 is (the test sweeps the
/// float32 line), where WPT allows 1/1024 absolute. Below |x| = 0.5625, x + x³·P(x²) with P fitted for relative error
/// 1.5e-9; above, 1 − 2/(e^2|x| + 1), whose subtraction keeps a result above 1/2 within one
/// ULP of the quotient's error. Sixteen lanes to a vector instead of eight, and a float32
/// division: about five times the float64 form's speed. No fused multiply-adds, as above.
#[inline(always)]
pub(crate) fn tanh_f32(x: f32) -> f32 {
    const P: [f32; 5] = [-0.333_333_13, 0.133_324_27, -0.053_835_12, 0.020_999_18, -0.006_169_445];
    let a = x.abs();
    let y = a * a;
    let p = (((P[4] * y + P[3]) * y + P[2]) * y + P[1]) * y + P[0];
    let small = a + a * (y * p);
    // tanh is 1 in float32 beyond 9.02, and e^19 is finite.
    let e = exp_f32(2.0 * a.min(9.5));
    let large = 1.0 - 2.0 / (e + 1.0);
    let r = if a < 0.5625 { small } else { large }.copysign(x);
    if x.is_nan() {
        x
    } else {
        r
    }
}

/// e^z in float32 for 0 <= z <= 19 (`tanh_f32`'s range): `exp_sum_f32` with nothing to
/// add.
#[inline(always)]
fn exp_f32(z: f32) -> f32 {
    exp_sum_f32(z, 0.0)
}

/// e^(big + small) in float32 for big + small in [-87, 19] with |small| below 4 (a sum kept
/// unevaluated: `big`'s rounding error would be `small`'s): n from the sum, then
/// r = (big − n·ln2's first part, exact for these n) − n·ln2's second part + small, e^r by
/// its Taylor polynomial to r⁷/7! (the next term is below 6e-9 of the result on
/// |r| <= ln2/2), 2^n from its bits. Arguments below -87 are taken as -87 (a result below float32's normal
/// range, for callers that have no use for it).
#[inline(always)]
pub(crate) fn exp_sum_f32(big: f32, small: f32) -> f32 {
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // 1.5 · 2^23: adding and subtracting it rounds to an integer.
    const ROUND: f32 = 12_582_912.0;
    let big = big.max(-87.0);
    let t = (big + small) * std::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    let r = ((big - n * LN2_HI) - n * LN2_LO) + small;
    let mut q = 1.0 / 5_040.0;
    for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        q = q * r + c;
    }
    // n sits in t's low bits (`as i32` would saturate, and its checks do not vectorize).
    let n_bits = t.to_bits().wrapping_sub(ROUND.to_bits());
    q * f32::from_bits(n_bits.wrapping_add(127) << 23)
}

/// `x²` as `hi + lo` exactly (Dekker's product, without a fused multiply-add, which wasm
/// lacks): `x` split into halves of 12 bits, whose products are exact. For |x| below 2^60.
#[inline(always)]
pub(crate) fn square_f32(x: f32) -> (f32, f32) {
    let g = 4097.0 * x;
    let h = g - (g - x);
    let l = x - h;
    let hi = x * x;
    (hi, ((h * h - hi) + 2.0 * h * l) + l * l)
}

#[cfg(test)]
mod tests {
    use webnn_cpu::kernels::elementwise::scalar::FloatUnary;

    /// The float32 ULP distance (0 for equal values, both NaN, or ±0).
    pub(crate) fn ulps(a: f32, b: f32) -> u32 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        let key = |v: f32| {
            let i = v.to_bits() as i32;
            if i < 0 {
                i32::MIN - i
            } else {
                i
            }
        };
        key(a).abs_diff(key(b))
    }

    /// Dense steps over ±120 (past where every function saturates in float32), float32's
    /// extremes, subnormals and the specials.
    pub(crate) fn sweep() -> impl Iterator<Item = f64> {
        let dense = (-240_000..=240_000).map(|i| i as f64 * 5e-4);
        let fine = (-20_000..=20_000).map(|i| i as f64 * 1e-7);
        let special = [
            0.0,
            -0.0,
            1e-30,
            -1e-30,
            1e-45,
            -1e-45,
            f32::MAX as f64,
            f32::MIN as f64,
            88.72,
            88.73,
            -103.97,
            -87.3,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        dense.chain(fine).chain(special).map(|x| x as f32 as f64)
    }

    /// The worst ULP distance from the reference over the sweep, and how many differ.
    fn against(f: impl Fn(f64) -> f64, reference: FloatUnary) -> (u32, usize) {
        let mut worst = 0;
        let mut differ = 0;
        for x in sweep() {
            let d = ulps(f(x) as f32, reference.apply(x) as f32);
            worst = worst.max(d);
            differ += usize::from(d > 0);
        }
        (worst, differ)
    }

    #[test]
    fn exp_is_within_one_ulp() {
        let (worst, differ) = against(super::exp, FloatUnary::Exp);
        assert!(worst <= 1 && differ < 10, "worst {worst}, {differ} differ");
    }

    #[test]
    fn sigmoid_is_within_one_ulp() {
        let (worst, differ) = against(super::sigmoid, FloatUnary::Sigmoid);
        assert!(worst <= 1 && differ < 10, "worst {worst}, {differ} differ");
    }

    #[test]
    fn tanh_is_within_one_ulp() {
        let (worst, differ) = against(super::tanh, FloatUnary::Tanh);
        assert!(worst <= 1 && differ < 10, "worst {worst}, {differ} differ");
        assert!(super::tanh(-0.0).is_sign_negative());
    }

    #[test]
    fn round_f16_is_half_s_rounding() {
        let edges = [65504.0, 65519.99, 65520.0, 65536.0, 1e300, 6.1e-5, 6.0e-8, 5.96e-8, 2.98e-8, 2.9e-8, 1e-300];
        let values = sweep().chain(edges.iter().flat_map(|&v| [v, -v])).chain((0..70_000).map(|i| (i as f64 - 35_000.0) * 1.7));
        for x in values {
            let (got, want) = (super::round_f16(x), half::f16::from_f64(x).to_f64());
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{x}: {got} vs {want}");
        }
        // Every float32 around float16's subnormal and normal boundaries, and between two
        // float16 values (ties).
        for bits in (0x3300_0000u32..0x3900_0000).step_by(97).chain(0x477f_e000..0x4780_2000) {
            let x = f32::from_bits(bits) as f64;
            assert_eq!(super::round_f16(x).to_bits(), half::f16::from_f64(x).to_f64().to_bits(), "{x}");
        }
    }

    /// The float32 form equals `half`'s rounding for every float32 around float16's
    /// boundaries and a sweep of the rest (signed zeros, subnormals, infinities, NaN).
    #[test]
    fn round_f16_f32_is_half_s_rounding() {
        let specials = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE, 1e-45, 65504.0, 65519.99, 65520.0, 3e38];
        let bits = (0u32..=u32::MAX).step_by(4099).chain(0x3300_0000..0x3900_0000).chain(0x477f_e000..0x4780_2000);
        for x in bits.map(f32::from_bits).chain(specials.iter().flat_map(|&v| [v, -v])) {
            let (got, want) = (super::round_f16_f32(x), half::f16::from_f32(x).to_f32());
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{x:e}: {got:e} vs {want:e}");
        }
    }

    /// `tanh_f32` against float64's tanh rounded to float32, over a sweep of every
    /// magnitude (and all of [0.5, 0.6], where the formulas meet): within one ULP.
    #[test]
    fn tanh_f32_is_within_one_ulp() {
        let bits = (0u32..0x7f80_0000).step_by(997).chain(0x3f00_0000..0x3f1a_0000);
        let mut worst = (0, 0.0f32);
        for x in bits.map(f32::from_bits).flat_map(|v| [v, -v]) {
            let d = ulps(super::tanh_f32(x), (x as f64).tanh() as f32);
            if d > worst.0 {
                worst = (d, x);
            }
        }
        assert!(worst.0 <= 1, "{} ULP at {:e}", worst.0, worst.1);
        for x in [f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, f32::NAN] {
            let (got, want) = (super::tanh_f32(x), x.tanh());
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{x}: {got}");
        }
    }

    #[test]
    fn elu_is_within_one_ulp() {
        for alpha in [1.0, 0.7, 3.5] {
            let (worst, differ) = against(|x| super::elu(x, alpha), FloatUnary::Elu { alpha });
            assert!(worst <= 1 && differ < 10, "alpha {alpha}: worst {worst}, {differ} differ");
        }
    }
}
