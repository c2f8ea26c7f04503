// Float32 math with known accuracy. Native WGSL builtins are only as accurate as the adapter
// (Vulkan allows exp 3 + 2|x| ulp, sin/cos only inside [-pi, pi]), while WPT's tolerances are a
// few ulp, so the transcendental ops reduce their argument and evaluate Taylor polynomials
// here; each stays within a few ulp of the correctly rounded result.

// x limited to [lo, hi]; NaN passes through (WGSL's clamp leaves NaN open). NaN is tested
// on its bits first: a compiler that assumes no NaN (WGSL allows it) may turn `x > hi` into
// `!(x <= hi)`, true for NaN, which gave +inf for a NaN clamped to [-2, inf] on an NVIDIA
// driver (float16, WPT's "clamp float16 1D tensor").
fn clamp_f(x: f32, lo: f32, hi: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x < lo) {
        return lo;
    }
    if (x > hi) {
        return hi;
    }
    return x;
}

// x * 2^k for k in [-300, 300], in two exact steps so that neither 2^k nor an intermediate
// leaves the float range before the final rounding.
fn scale2(x: f32, k: i32) -> f32 {
    let k1 = k / 2;
    return ldexp(ldexp(x, k1), k - k1);
}

// e^r for |r| <= ln(2)/2: Taylor to r^8 (truncation below 3e-9 relative).
fn exp_reduced(r: f32) -> f32 {
    var p = 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    return p * r + 1.0;
}

// ln 2 in two parts: LN2_HI has few significant bits, so k * LN2_HI is exact for |k| < 2^8.
const LN2_HI: f32 = 0.693145751953125;
const LN2_LO: f32 = 1.428606765330187e-6;

// e^x: x = k ln 2 + r (Cody-Waite), e^x = 2^k e^r.
fn exp_f(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x > 88.72284) {
        return f32_inf(false);
    }
    if (x < -104.0) {
        return 0.0;
    }
    let k = round(x * 1.4426950408889634);
    let r = (x - k * LN2_HI) - k * LN2_LO;
    return scale2(exp_reduced(r), i32(k));
}

// e^x - 1 without the cancellation near 0: Taylor to x^9 for |x| < 0.35 (truncation below
// 1e-9 relative), e^x - 1 beyond, where at most ~2 ulp are lost.
fn expm1_f(x: f32) -> f32 {
    if (abs(x) < 0.35) {
        var p = 1.0 / 3628800.0;
        p = p * x + 1.0 / 362880.0;
        p = p * x + 1.0 / 40320.0;
        p = p * x + 1.0 / 5040.0;
        p = p * x + 1.0 / 720.0;
        p = p * x + 1.0 / 120.0;
        p = p * x + 1.0 / 24.0;
        p = p * x + 1.0 / 6.0;
        p = p * x + 0.5;
        return (p * x) * x + x;
    }
    return exp_f(x) - 1.0;
}

// ln(1 + f) for 1 + f in [sqrt(1/2), sqrt(2)]: 2 atanh(s) with s = f / (2 + f), |s| < 0.172,
// by its series to s^11 (truncation below 3e-10 relative). Taking f itself (not 1 + f rounded)
// keeps small arguments exact.
fn log1p_reduced(f: f32) -> f32 {
    let s = f / (2.0 + f);
    let s2 = s * s;
    var p = 1.0 / 11.0;
    p = p * s2 + 1.0 / 9.0;
    p = p * s2 + 1.0 / 7.0;
    p = p * s2 + 1.0 / 5.0;
    p = p * s2 + 1.0 / 3.0;
    return 2.0 * s + 2.0 * s * (s2 * p);
}

// ln x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln x = e ln 2 + ln m.
fn log_f(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0) {
        return f32_nan();
    }
    if (x == 0.0) {
        return f32_inf(true);
    }
    if (is_inf(x)) {
        return x;
    }
    var v = x;
    var e = 0i;
    if (v < 1.1754943508222875e-38) {
        // Subnormal: scale into the normal range first.
        v = v * 16777216.0;
        e = -24;
    }
    let b = bitcast<u32>(v);
    e += i32(b >> 23u) - 127;
    var m = bitcast<f32>((b & 0x007fffffu) | 0x3f800000u);
    if (m > 1.4142135) {
        m = m * 0.5;
        e += 1;
    }
    // Exact: m - 1 has no rounding for m in [0.5, 2].
    let lm = log1p_reduced(m - 1.0);
    let fe = f32(e);
    return fe * LN2_HI + (fe * LN2_LO + lm);
}

// ln(1 + y). Near 0 the series takes y directly; elsewhere rounding 1 + y costs at most half
// an ulp of the result. (Compensated forms such as ln(u) y / (u - 1) are not used: shader
// compilers may simplify (1 + y) - 1 to y, which undoes them.)
fn log1p_f(y: f32) -> f32 {
    if (y > -0.29289322 && y < 0.41421356) {
        return log1p_reduced(y);
    }
    return log_f(1.0 + y);
}

// The top 12 significant bits of x: products of two such halves are exact in f32.
fn high_bits(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
}

// a x + b with the product split into exact partial products, so that cancellation against b
// (linear, hardSigmoid) does not magnify the product's rounding. No step relies on an
// addition being exact, which a compiler's algebraic rewrites could break.
fn mul_add_f(a: f32, x: f32, b: f32) -> f32 {
    if (is_inf(a) || is_inf(x) || is_nan(a) || is_nan(x) || abs(a * x) > 1e30) {
        return a * x + b;
    }
    let ah = high_bits(a);
    let al = a - ah;
    let xh = high_bits(x);
    let xl = x - xh;
    return ((ah * xh + b) + (ah * xl + al * xh)) + al * xl;
}

// pi/2 in three parts with few significant bits each (Cody-Waite), exact products k * part
// for |k| up to 2^12.
const PIO2_1: f32 = 1.5703125;
const PIO2_2: f32 = 4.837512969970703125e-4;
const PIO2_3: f32 = 7.54978995489188216e-8;

// sin and cos of |r| <= pi/4 by Taylor polynomials (truncation below 2e-9).
fn sin_reduced(r: f32) -> f32 {
    let r2 = r * r;
    var p = 1.0 / 362880.0;
    p = p * r2 - 1.0 / 5040.0;
    p = p * r2 + 1.0 / 120.0;
    p = p * r2 - 1.0 / 6.0;
    return r + r * (r2 * p);
}

fn cos_reduced(r: f32) -> f32 {
    let r2 = r * r;
    var p = -1.0 / 3628800.0;
    p = p * r2 + 1.0 / 40320.0;
    p = p * r2 - 1.0 / 720.0;
    p = p * r2 + 1.0 / 24.0;
    p = p * r2 - 0.5;
    return 1.0 + r2 * p;
}

// sin and cos of x as (sin, cos), from x = k pi/2 + r and the quadrant k mod 4. Beyond 2^16 the
// three-part reduction loses accuracy, so the adapter's own functions take over there.
fn sincos_f(x: f32) -> vec2<f32> {
    if (!(abs(x) <= 65536.0)) {
        return vec2<f32>(sin(x), cos(x));
    }
    let k = round(x * 0.63661977236758134);
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let s = sin_reduced(r);
    let c = cos_reduced(r);
    let q = i32(k) & 3;
    if (q == 0) {
        return vec2<f32>(s, c);
    }
    if (q == 1) {
        return vec2<f32>(c, -s);
    }
    if (q == 2) {
        return vec2<f32>(-s, -c);
    }
    return vec2<f32>(-c, s);
}

fn sin_f(x: f32) -> f32 {
    return sincos_f(x).x;
}

fn cos_f(x: f32) -> f32 {
    return sincos_f(x).y;
}

fn tan_f(x: f32) -> f32 {
    let sc = sincos_f(x);
    return sc.x / sc.y;
}

// tanh x = t / (t + 2) with t = e^(2|x|) - 1; 1 beyond |x| = 9 where tanh rounds to 1.
fn tanh_f(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = abs(x);
    var r = 1.0;
    if (a < 9.0) {
        let t = expm1_f(2.0 * a);
        r = t / (t + 2.0);
    }
    return select(r, -r, x < 0.0);
}

fn sigmoid_f(x: f32) -> f32 {
    if (x >= 0.0) {
        return 1.0 / (1.0 + exp_f(-x));
    }
    let e = exp_f(x);
    return e / (1.0 + e);
}

// erf(x) for |x| < 0.5 by its Taylor series (alternating, little cancellation there).
fn erf_small(x: f32) -> f32 {
    let x2 = x * x;
    var p = -1.0 / 75600.0;
    p = p * x2 + 1.0 / 9360.0;
    p = p * x2 - 1.0 / 1320.0;
    p = p * x2 + 1.0 / 216.0;
    p = p * x2 - 1.0 / 42.0;
    p = p * x2 + 1.0 / 10.0;
    p = p * x2 - 1.0 / 3.0;
    return 1.1283791670955126 * (x + x * (x2 * p));
}

// erfc(z) for z >= 0.5, given z and z^2 as hi + lo with hi exact, in the form
// t e^(-z^2 - 1.26551223 + P(t)), t = 1 / (1 + z/2), whose relative error is below 1.2e-7
// (the Chebyshev fit of Numerical Recipes, erfcc). Splitting z^2 keeps its rounding out of
// the exponential, which would otherwise cost up to z^2 ulp.
fn erfc_tail(z: f32, sq_hi: f32, sq_lo: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * z);
    var p = 0.17087277;
    p = p * t - 0.82215223;
    p = p * t + 1.48851587;
    p = p * t - 1.13520398;
    p = p * t + 0.27886807;
    p = p * t - 0.18628806;
    p = p * t + 0.09678418;
    p = p * t + 0.37409196;
    p = p * t + 1.00002368;
    p = p * t - 1.26551223;
    return t * exp_f(-sq_hi) * exp_f(p - sq_lo);
}

// Beyond this erfc rounds to 0 in f32 (and z^2 may overflow).
const ERFC_ZERO: f32 = 10.1;

// erfc(z) for any z, accurate relative to itself on both tails.
fn erfc_f(z: f32) -> f32 {
    if (is_nan(z)) {
        return z;
    }
    let a = abs(z);
    var r = 0.0;
    if (a < 0.5) {
        r = 1.0 - erf_small(a);
    } else if (a < ERFC_ZERO) {
        let h = high_bits(a);
        r = erfc_tail(a, h * h, (a - h) * (a + h));
    }
    return select(r, 2.0 - r, z < 0.0);
}

fn erf_f(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = abs(x);
    var r = 1.0;
    if (a < 0.5) {
        r = erf_small(a);
    } else if (a < ERFC_ZERO) {
        let h = high_bits(a);
        r = 1.0 - erfc_tail(a, h * h, (a - h) * (a + h));
    }
    return select(r, -r, x < 0.0);
}

// gelu(x) = x/2 erfc(-x/sqrt 2). z^2 = x^2/2 is split from x itself, so the rounding of
// x/sqrt(2) reaches only t, where it matters little.
fn gelu_f(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let z = abs(x) * 0.70710678118654752;
    var c = 0.0;
    if (z < 0.5) {
        c = 1.0 - erf_small(z);
    } else if (z < ERFC_ZERO) {
        let h = high_bits(abs(x));
        c = erfc_tail(z, 0.5 * (h * h), 0.5 * ((abs(x) - h) * (abs(x) + h)));
    }
    // erfc(-z) = 2 - erfc(z) for positive x.
    let e = select(c, 2.0 - c, x > 0.0);
    return 0.5 * x * e;
}

// x^n for an integer n >= 0 by squaring.
fn powi_f(x: f32, n: u32) -> f32 {
    var result = 1.0;
    var base = x;
    var e = n;
    loop {
        if (e == 0u) {
            break;
        }
        if ((e & 1u) == 1u) {
            result = result * base;
        }
        e = e >> 1u;
        if (e != 0u) {
            base = base * base;
        }
    }
    return result;
}

// pow with IEEE special cases. Small integer exponents multiply (a few ulp); others use
// e^(y ln|x|), whose error grows with |y ln x| (about |y ln x| ulp).
fn pow_f(x: f32, y: f32) -> f32 {
    if (y == 0.0 || x == 1.0) {
        return 1.0;
    }
    if (is_nan(x) || is_nan(y)) {
        return f32_nan();
    }
    let ax = abs(x);
    let y_int = trunc(y) == y;
    // Every float beyond 2^24 is even.
    let y_odd = y_int && abs(y) < 16777216.0 && (i32(y) & 1) == 1;
    if (is_inf(y)) {
        if (ax == 1.0) {
            return 1.0;
        }
        return select(0.0, f32_inf(false), (ax > 1.0) == (y > 0.0));
    }
    if (x < 0.0 && !y_int) {
        return f32_nan();
    }
    // The sign bit, not x < 0: pow(-0, y) for odd y keeps the zero's sign (-inf for y < 0).
    let negative = (bitcast<u32>(x) >> 31u) == 1u && y_odd;
    var r: f32;
    if (ax == 0.0) {
        r = select(f32_inf(false), 0.0, y > 0.0);
    } else if (is_inf(ax)) {
        r = select(0.0, f32_inf(false), y > 0.0);
    } else if (y_int && abs(y) <= 64.0) {
        r = powi_f(ax, u32(abs(y)));
        if (y < 0.0) {
            r = 1.0 / r;
        }
    } else {
        r = exp_f(y * log_f(ax));
    }
    return select(r, -r, negative);
}
