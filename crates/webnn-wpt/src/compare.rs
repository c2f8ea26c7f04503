//! WPT's comparison rules (tests/wpt/README.md, "Tolerances"): ULP distance on float32 bit
//! patterns read as sign-magnitude integers, raw-uint16 distance for float16 (with the ±0
//! rule), integer distance for integer types, and absolute tolerance (ATOL). An expected NaN
//! means "the actual value is NaN" for every metric.

use crate::data::{element, to_half, Data, Element, Scalar};
use serde_json::Value;
use webnn_core::DataType;

/// WPT's `kMaximumIndexToValidate`: an expected output written as one fill value is only
/// compared on its first elements.
pub const MAX_INDEX_TO_VALIDATE: usize = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Ulp,
    Atol,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub metric: Metric,
    pub value: f64,
}

impl Tolerance {
    /// A case's `tolerance` object: `{metricType, value}`.
    pub fn from_json(v: &Value) -> Result<Tolerance, String> {
        let metric = match v.get("metricType").and_then(Value::as_str) {
            Some("ULP") => Metric::Ulp,
            Some("ATOL") => Metric::Atol,
            other => return Err(format!("unknown tolerance metricType {other:?}")),
        };
        let value = v.get("value").and_then(crate::args::number).ok_or("the tolerance has no numeric value")?;
        Ok(Tolerance { metric, value })
    }
}

impl std::fmt::Display for Tolerance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.metric {
            Metric::Ulp => write!(f, "{} ULP", self.value),
            Metric::Atol => write!(f, "ATOL {}", self.value),
        }
    }
}

/// float32 bits of `|x|` as an integer, negated when `x < 0` (so ±0 are both 0); NaN is the
/// canonical quiet NaN, as a Float32Array store makes it.
pub fn f32_sign_magnitude(x: f32) -> i64 {
    if x.is_nan() {
        return 0x7FC0_0000;
    }
    let magnitude = (x.to_bits() & 0x7FFF_FFFF) as i64;
    if x < 0.0 {
        -magnitude
    } else {
        magnitude
    }
}

/// float16 distance between raw actual bits and `toHalf(expected)`: 0 when both are ±0,
/// otherwise the distance of the raw uint16 patterns (no sign-magnitude adjustment).
pub fn f16_distance(actual: u16, expected_bits: u16) -> u32 {
    if actual & 0x7FFF == 0 && expected_bits & 0x7FFF == 0 {
        return 0;
    }
    (actual as i32 - expected_bits as i32).unsigned_abs()
}

/// Compares one element; returns the distance when it is out of tolerance.
pub fn check_element(actual: Element, expected: Scalar, tol: &Tolerance) -> Result<(), f64> {
    let e = expected.as_f64();
    if e.is_nan() {
        return if actual.is_nan() { Ok(()) } else { Err(f64::NAN) };
    }
    let distance = match tol.metric {
        Metric::Atol => {
            let a = actual.as_f64();
            if a == e {
                return Ok(());
            }
            // NaN differences are out of tolerance (the comparison below is false).
            (a - e).abs()
        }
        Metric::Ulp => match actual {
            Element::F32(a) => (f32_sign_magnitude(a) - f32_sign_magnitude(e as f32)).unsigned_abs() as f64,
            Element::F16(a) => f16_distance(a, to_half(e)) as f64,
            Element::Int(a) => match expected.as_integer().and_then(|x| a.checked_sub(x)) {
                Some(d) => d.unsigned_abs() as f64,
                None => (a as f64 - e).abs(),
            },
        },
    };
    if distance <= tol.value {
        Ok(())
    } else {
        Err(distance)
    }
}

/// Compares an output's bytes with its expected data; the message names the output, the
/// first element out of tolerance, both values and their distance.
pub fn check_output(
    name: &str,
    data_type: DataType,
    bytes: &[u8],
    elements: usize,
    expected: &Data,
    tol: &Tolerance,
) -> Result<(), String> {
    expected.check_len(elements).map_err(|e| format!("output '{name}': expected {e}"))?;
    let count = match expected {
        Data::Fill(_) => elements.min(MAX_INDEX_TO_VALIDATE),
        Data::List(_) => elements,
    };
    let mut first: Option<(usize, Element, Scalar, f64)> = None;
    let mut bad = 0usize;
    for i in 0..count {
        let actual = element(data_type, bytes, i)
            .ok_or_else(|| format!("output '{name}': {} bytes hold no element {i}", bytes.len()))?;
        let exp = expected.get(i);
        if let Err(d) = check_element(actual, exp, tol) {
            bad += 1;
            if first.is_none() {
                first = Some((i, actual, exp, d));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((i, actual, exp, d)) => {
            let exp = match exp {
                Scalar::Number(x) => format!("{x:?}"),
                Scalar::BigInt(x) => format!("{x}"),
            };
            let dist = if d.is_nan() { "expected NaN".to_owned() } else { format!("distance {d}") };
            Err(format!(
                "output '{name}' ({data_type}): {bad} of {count} elements out of tolerance ({tol}); \
                 first at index {i}: actual {actual}, expected {exp} ({dist})"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ULP1: Tolerance = Tolerance { metric: Metric::Ulp, value: 1.0 };
    const ULP0: Tolerance = Tolerance { metric: Metric::Ulp, value: 0.0 };

    fn num(x: f64) -> Scalar {
        Scalar::Number(x)
    }

    #[test]
    fn float32_ulp_is_sign_magnitude() {
        let one = 1.0f32;
        let next = f32::from_bits(one.to_bits() + 1);
        let next2 = f32::from_bits(one.to_bits() + 2);
        assert_eq!(check_element(Element::F32(next), num(1.0), &ULP1), Ok(()));
        assert_eq!(check_element(Element::F32(next2), num(1.0), &ULP1), Err(2.0));
        // ±0 are the same point; the smallest subnormals of opposite sign are 2 apart.
        assert_eq!(check_element(Element::F32(-0.0), num(0.0), &ULP0), Ok(()));
        let tiny = f32::from_bits(1);
        assert_eq!(check_element(Element::F32(-tiny), num(tiny as f64), &ULP1), Err(2.0));
        // The expected double is rounded to float32 first.
        assert_eq!(check_element(Element::F32(0.1f32), num(0.1), &ULP0), Ok(()));
        // f32::MAX is one unit below +Inf.
        assert_eq!(check_element(Element::F32(f32::MAX), num(f64::INFINITY), &ULP1), Ok(()));
        assert_eq!(f32_sign_magnitude(-1.0), -(1.0f32.to_bits() as i64));
    }

    #[test]
    fn float16_uses_raw_bits_and_the_zero_rule() {
        let h = |x: f32| half::f16::from_f32(x).to_bits();
        assert_eq!(check_element(Element::F16(h(1.0) + 1), num(1.0), &ULP1), Ok(()));
        assert_eq!(check_element(Element::F16(h(1.0) + 2), num(1.0), &ULP1), Err(2.0));
        assert_eq!(check_element(Element::F16(0x8000), num(0.0), &ULP0), Ok(()));
        assert_eq!(check_element(Element::F16(0x0000), num(-0.0), &ULP0), Ok(()));
        // Opposite signs are far apart in raw uint16 order: -2^-24 vs +2^-24.
        assert_eq!(check_element(Element::F16(0x8001), num(2f64.powi(-24)), &ULP1), Err(32768.0));
        // The expected value goes through toHalf (ties away from zero).
        assert_eq!(check_element(Element::F16(0x3C01), num(1.0 + 2f64.powi(-11)), &ULP0), Ok(()));
        assert_eq!(f16_distance(0x8000, 0x0000), 0);
    }

    #[test]
    fn expected_nan_means_actual_is_nan() {
        assert_eq!(check_element(Element::F32(f32::NAN), num(f64::NAN), &ULP0), Ok(()));
        assert!(check_element(Element::F32(1.0), num(f64::NAN), &ULP1).is_err());
        // A correct float16 NaN passes although toHalf(NaN) would be 0x7C00.
        assert_eq!(check_element(Element::F16(0x7E00), num(f64::NAN), &ULP0), Ok(()));
        assert!(check_element(Element::F16(0x7C00), num(f64::NAN), &ULP1).is_err());
        let atol = Tolerance { metric: Metric::Atol, value: 1.0 };
        assert_eq!(check_element(Element::F32(f32::NAN), num(f64::NAN), &atol), Ok(()));
        assert!(check_element(Element::F32(f32::NAN), num(1.0), &atol).is_err());
    }

    #[test]
    fn integers_and_atol() {
        assert_eq!(check_element(Element::Int(5), num(5.0), &ULP0), Ok(()));
        assert_eq!(check_element(Element::Int(-3), num(2.0), &ULP0), Err(5.0));
        assert_eq!(check_element(Element::Int(i64::MAX as i128), Scalar::BigInt(i64::MAX as i128), &ULP0), Ok(()));
        let atol = Tolerance { metric: Metric::Atol, value: 1.0 / 1024.0 };
        assert_eq!(check_element(Element::F32(0.5), num(0.5009), &atol), Ok(()));
        assert!(check_element(Element::F32(0.5), num(0.502), &atol).is_err());
        assert_eq!(check_element(Element::F16(0x3C00), num(1.0005), &atol), Ok(()));
        assert_eq!(check_element(Element::F32(f32::INFINITY), num(f64::INFINITY), &atol), Ok(()));
    }

    #[test]
    fn outputs_report_the_first_bad_element() {
        let bytes: Vec<u8> = [1.0f32, 2.0, 3.5].iter().flat_map(|x| x.to_le_bytes()).collect();
        let ok = Data::List(vec![num(1.0), num(2.0), num(3.5)]);
        assert_eq!(check_output("out", DataType::Float32, &bytes, 3, &ok, &ULP0), Ok(()));
        let bad = Data::List(vec![num(1.0), num(2.5), num(3.0)]);
        let msg = check_output("out", DataType::Float32, &bytes, 3, &bad, &ULP0).err().unwrap_or_default();
        assert!(msg.contains("'out'") && msg.contains("2 of 3") && msg.contains("index 1"), "{msg}");
        let short = Data::List(vec![num(1.0)]);
        assert!(check_output("out", DataType::Float32, &bytes, 3, &short, &ULP0).is_err());
        // A fill value is checked on the first 1000 elements only.
        let big: Vec<u8> = (0..2000).flat_map(|i| if i < 1000 { 1.0f32 } else { 9.0 }.to_le_bytes()).collect();
        assert_eq!(check_output("o", DataType::Float32, &big, 2000, &Data::Fill(num(1.0)), &ULP0), Ok(()));
    }
}
