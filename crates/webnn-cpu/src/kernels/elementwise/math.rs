//! Scalar f64 functions the standard library lacks (erf, erfc) and the activation formulas.
//! Every function is evaluated in f64; callers round once to the output type.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI, PI};

/// Below this |x| erf uses its power series, above it the continued fraction of erfc.
const SERIES_LIMIT: f64 = 2.5;

/// erf(x) = 2/√π · e^(−x²) · Σ 2ⁿx^(2n+1) / (1·3·…·(2n+1)), for 0 <= x < ~3. Every term is
/// positive, so nothing cancels and the sum is accurate to a few f64 ulps.
fn erf_series(x: f64) -> f64 {
    let two_x2 = 2.0 * x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    // The terms peak near n = x² and then shrink geometrically; 200 is far beyond what
    // SERIES_LIMIT needs (about 60).
    for _ in 0..200 {
        n += 1.0;
        term *= two_x2 / (2.0 * n + 1.0);
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
    }
    FRAC_2_SQRT_PI * (-x * x).exp() * sum
}

/// erfc(x) for x >= SERIES_LIMIT by its continued fraction
/// erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated with the
/// modified Lentz method.
fn erfc_fraction(x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    // e^(−x²) underflows to 0 beyond about 27.3 (this also keeps Infinity out of the fraction).
    if x > 27.5 {
        return 0.0;
    }
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for n in 1..1000 {
        let a = n as f64 * 0.5;
        d = x + a * d;
        if d == 0.0 {
            d = TINY;
        }
        c = x + a / c;
        if c == 0.0 {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (PI.sqrt() * f)
}

/// The error function.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a < SERIES_LIMIT {
        erf_series(a)
    } else {
        1.0 - erfc_fraction(a)
    };
    r.copysign(x)
}

/// The complementary error function 1 − erf(x), accurate in the tail where 1 − erf(x)
/// would cancel to 0.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < SERIES_LIMIT {
        1.0 - erf_series(x)
    } else {
        erfc_fraction(x)
    }
}

/// gelu(x) = x/2 · (1 + erf(x/√2)) = x/2 · erfc(−x/√2); the erfc form keeps the negative tail
/// accurate.
pub fn gelu(x: f64) -> f64 {
    0.5 * x * erfc(-x * FRAC_1_SQRT_2)
}

pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// ln(1 + eˣ) = max(x, 0) + ln(1 + e^(−|x|)), which neither overflows nor loses the small
/// values of the negative side.
pub fn softplus(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

pub fn softsign(x: f64) -> f64 {
    x / (1.0 + x.abs())
}

/// x · max(0, min(6, x + 3)) / 6.
pub fn hard_swish(x: f64) -> f64 {
    x * (x + 3.0).clamp(0.0, 6.0) / 6.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || ((a - b) / b).abs() <= rel
    }

    #[test]
    #[allow(clippy::excessive_precision)] // reference values keep their 19 digits
    fn erf_and_erfc_match_reference_values() {
        // Reference values from mpmath at 30 digits.
        let cases = [
            (0.1, 0.1124629160182848984, 0.8875370839817151016),
            (0.5, 0.5204998778130465377, 0.4795001221869534623),
            (1.0, 0.8427007929497148693, 0.1572992070502851307),
            (2.0, 0.9953222650189527342, 0.004677734981047265838),
            (2.5, 0.9995930479825550411, 0.0004069520174449589),
            (3.0, 0.9999779095030014146, 2.209049699858544137e-05),
            (5.0, 0.9999999999984625402, 1.537459794428034850e-12),
            (10.0, 1.0, 2.088487583762544757e-45),
        ];
        for (x, e, c) in cases {
            assert!(close(erf(x), e, 4e-16), "erf({x}) = {}", erf(x));
            assert!(close(erf(-x), -e, 4e-16));
            // erfc is checked relative to itself: the tail must not cancel.
            let tol = if x < SERIES_LIMIT { 1e-12 } else { 1e-14 };
            assert!(close(erfc(x), c, tol), "erfc({x}) = {}", erfc(x));
        }
        assert_eq!(erf(0.0), 0.0);
        assert!(erf(-0.0).is_sign_negative());
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert!(erf(f64::NAN).is_nan());
        assert_eq!(erfc(f64::INFINITY), 0.0);
        assert_eq!(erfc(f64::NEG_INFINITY), 2.0);
    }

    #[test]
    fn gelu_keeps_its_negative_tail() {
        // gelu(-10) = -5 · erfc(10/√2) ≈ -7.6199e-23, which 1 + erf would round to 0.
        let g = gelu(-10.0);
        assert!(g < 0.0 && close(g, -7.619853024160526e-23, 1e-12), "{g}");
        assert_eq!(gelu(0.0), 0.0);
        assert!(close(gelu(1.0), 0.8413447460685429, 1e-15));
    }

    #[test]
    fn softplus_is_stable() {
        assert_eq!(softplus(1000.0), 1000.0);
        assert!(close(softplus(-50.0), 1.9287498479639178e-22, 1e-14));
        assert!(close(softplus(0.0), std::f64::consts::LN_2, 1e-16));
    }
}
