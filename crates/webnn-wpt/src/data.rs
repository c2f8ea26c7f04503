//! Tensor data as the WPT extract writes it, encoded to bytes the way WPT fills its typed
//! arrays, and output bytes decoded element by element.

use crate::args::special_number;
use serde_json::Value;
use webnn_core::DataType;

/// One data value: a JS number, or a BigInt written as a decimal string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Number(f64),
    BigInt(i128),
}

impl Scalar {
    pub fn from_json(v: &Value) -> Option<Scalar> {
        match v {
            Value::Number(n) => n.as_f64().map(Scalar::Number),
            Value::String(s) => {
                special_number(s).map(Scalar::Number).or_else(|| s.trim().parse::<i128>().ok().map(Scalar::BigInt))
            }
            _ => None,
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Number(x) => x,
            Scalar::BigInt(i) => i as f64,
        }
    }

    /// The exact integer value, if it is one.
    pub fn as_integer(self) -> Option<i128> {
        match self {
            Scalar::BigInt(i) => Some(i),
            Scalar::Number(x) if x.is_finite() && x.trunc() == x && x.abs() < 1e38 => Some(x as i128),
            Scalar::Number(_) => None,
        }
    }
}

/// An operand's `data`: one value per element, or one value for every element.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    List(Vec<Scalar>),
    Fill(Scalar),
}

impl Data {
    pub fn from_json(v: &Value) -> Result<Data, String> {
        match v {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, x)| Scalar::from_json(x).ok_or_else(|| format!("data[{i}] = {x} is not a number")))
                .collect::<Result<Vec<_>, _>>()
                .map(Data::List),
            _ => Scalar::from_json(v).map(Data::Fill).ok_or_else(|| format!("data {v} is not a number or an array")),
        }
    }

    /// Element `i` (callers check the length first).
    pub fn get(&self, i: usize) -> Scalar {
        match self {
            Data::List(v) => v.get(i).copied().unwrap_or(Scalar::Number(f64::NAN)),
            Data::Fill(s) => *s,
        }
    }

    /// Checks a list holds exactly `elements` values (a fill value fits any count).
    pub fn check_len(&self, elements: usize) -> Result<(), String> {
        match self {
            Data::List(v) if v.len() != elements => {
                Err(format!("data has {} values but the shape has {elements} elements", v.len()))
            }
            _ => Ok(()),
        }
    }
}

/// WPT's `toHalf()` (utils.js): the number is first stored in a Float32Array, then its bits are
/// rounded to binary16 by adding the first dropped bit (ties away from zero), values whose
/// float32 exponent is below 103 become signed zero, and exponent overflow gives infinity.
/// Quirks kept on purpose: NaN becomes 0x7C00 (+/-Inf), and a finite overflow ORs the float32
/// mantissa into the result (the caller's Uint16Array keeps the low 16 bits, as here).
pub fn to_half(value: f64) -> u16 {
    let x = (value as f32).to_bits() as i32;
    let mut bits = (x >> 16) & 0x8000;
    let m = (x >> 12) & 0x07ff;
    let e = (x >> 23) & 0xff;
    if e < 103 {
        return bits as u16;
    }
    if e > 142 {
        bits |= 0x7c00;
        if e != 255 {
            bits |= x & 0x007f_ffff;
        }
        return bits as u16;
    }
    if e < 113 {
        let m = m | 0x0800;
        bits |= (m >> (114 - e)) + ((m >> (113 - e)) & 1);
        return bits as u16;
    }
    bits |= ((e - 112) << 10) | (m >> 1);
    bits += m & 1;
    bits as u16
}

/// float16 input data: `toHalf()`, except that NaN stays a (quiet) NaN. WPT's quirk turns an
/// input NaN into +Inf, which would change what a case tests (`clamp float16 1D tensor` feeds
/// NaN and expects NaN); comparisons treat an expected NaN as "actual is NaN" to match.
pub fn half_bits_for_input(value: f64) -> u16 {
    if value.is_nan() {
        0x7E00
    } else {
        to_half(value)
    }
}

/// A number stored into an integer typed array of `bits` bits: JS `ToInt32`-style
/// truncation and wrap-around (NaN and infinities become 0). 64-bit arrays go through
/// `BigInt(value)`, which rejects non-integers.
pub fn to_integer(s: Scalar, bits: u32, signed: bool) -> Result<i128, String> {
    let raw = match s {
        Scalar::BigInt(i) => i,
        Scalar::Number(x) if bits == 64 => {
            Scalar::Number(x).as_integer().ok_or_else(|| format!("{x} is not an integer (BigInt() throws)"))?
        }
        Scalar::Number(x) if !x.is_finite() => 0,
        Scalar::Number(x) => {
            // `%` on doubles is exact; reducing huge values keeps the cast to i128 exact.
            (x.trunc() % 18446744073709551616.0) as i128
        }
    };
    let modulus = 1i128 << bits;
    let mut v = raw.rem_euclid(modulus);
    if signed && v >= modulus / 2 {
        v -= modulus;
    }
    Ok(v)
}

/// The bytes of `elements` elements of `data_type` holding `data` (little-endian; int4/uint4
/// two per byte, element 2i in the low nibble, each value masked with `& 0xF`).
pub fn encode(data_type: DataType, data: &Data, elements: usize) -> Result<Vec<u8>, String> {
    data.check_len(elements)?;
    if matches!(data_type, DataType::Int4 | DataType::Uint4) {
        let mut out = vec![0u8; elements.div_ceil(2)];
        for i in 0..elements {
            let nibble = (to_integer(data.get(i), 32, true)? & 0xF) as u8;
            out[i / 2] |= nibble << ((i % 2) * 4);
        }
        return Ok(out);
    }
    let mut elem = Vec::new();
    match data {
        Data::Fill(s) => {
            encode_one(data_type, *s, &mut elem)?;
            Ok(elem.repeat(elements))
        }
        Data::List(values) => {
            let mut out = Vec::with_capacity(elements * (data_type.bits() as usize / 8));
            for s in values {
                encode_one(data_type, *s, &mut out)?;
            }
            Ok(out)
        }
    }
}

fn encode_one(data_type: DataType, s: Scalar, out: &mut Vec<u8>) -> Result<(), String> {
    match data_type {
        DataType::Float32 => out.extend_from_slice(&(s.as_f64() as f32).to_le_bytes()),
        DataType::Float16 => out.extend_from_slice(&half_bits_for_input(s.as_f64()).to_le_bytes()),
        DataType::Int32 => out.extend_from_slice(&(to_integer(s, 32, true)? as i32).to_le_bytes()),
        DataType::Uint32 => out.extend_from_slice(&(to_integer(s, 32, false)? as u32).to_le_bytes()),
        DataType::Int64 => out.extend_from_slice(&(to_integer(s, 64, true)? as i64).to_le_bytes()),
        DataType::Uint64 => out.extend_from_slice(&(to_integer(s, 64, false)? as u64).to_le_bytes()),
        DataType::Int8 => out.push(to_integer(s, 8, true)? as i8 as u8),
        DataType::Uint8 => out.push(to_integer(s, 8, false)? as u8),
        DataType::Int4 | DataType::Uint4 => return Err("4-bit elements are packed by encode()".into()),
    }
    Ok(())
}

/// One decoded output element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Element {
    F32(f32),
    /// The raw binary16 bits.
    F16(u16),
    Int(i128),
}

impl Element {
    pub fn as_f64(self) -> f64 {
        match self {
            Element::F32(x) => x as f64,
            Element::F16(b) => half::f16::from_bits(b).to_f64(),
            Element::Int(i) => i as f64,
        }
    }

    pub fn is_nan(self) -> bool {
        self.as_f64().is_nan()
    }
}

impl std::fmt::Display for Element {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Element::F32(x) => write!(f, "{x:?} (0x{:08x})", x.to_bits()),
            Element::F16(b) => write!(f, "{:?} (0x{b:04x})", half::f16::from_bits(*b).to_f32()),
            Element::Int(i) => write!(f, "{i}"),
        }
    }
}

/// Element `i` of packed `bytes` of `data_type` (int4 sign-extended), if in range.
pub fn element(data_type: DataType, bytes: &[u8], i: usize) -> Option<Element> {
    fn le<const N: usize>(bytes: &[u8], i: usize) -> Option<[u8; N]> {
        bytes.get(i.checked_mul(N)?..i.checked_mul(N)?.checked_add(N)?)?.try_into().ok()
    }
    Some(match data_type {
        DataType::Float32 => Element::F32(f32::from_le_bytes(le::<4>(bytes, i)?)),
        DataType::Float16 => Element::F16(u16::from_le_bytes(le::<2>(bytes, i)?)),
        DataType::Int32 => Element::Int(i32::from_le_bytes(le::<4>(bytes, i)?) as i128),
        DataType::Uint32 => Element::Int(u32::from_le_bytes(le::<4>(bytes, i)?) as i128),
        DataType::Int64 => Element::Int(i64::from_le_bytes(le::<8>(bytes, i)?) as i128),
        DataType::Uint64 => Element::Int(u64::from_le_bytes(le::<8>(bytes, i)?) as i128),
        DataType::Int8 => Element::Int(*bytes.get(i)? as i8 as i128),
        DataType::Uint8 => Element::Int(*bytes.get(i)? as i128),
        DataType::Int4 | DataType::Uint4 => {
            let nibble = (bytes.get(i / 2)? >> ((i % 2) * 4)) & 0xF;
            if data_type == DataType::Int4 {
                Element::Int((((nibble << 4) as i8) >> 4) as i128)
            } else {
                Element::Int(nibble as i128)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn to_half_matches_wpt() {
        assert_eq!(to_half(1.0), 0x3C00);
        assert_eq!(to_half(-2.0), 0xC000);
        assert_eq!(to_half(0.0), 0x0000);
        assert_eq!(to_half(-0.0), 0x8000);
        assert_eq!(to_half(65504.0), 0x7BFF);
        assert_eq!(to_half(f64::INFINITY), 0x7C00);
        assert_eq!(to_half(f64::NEG_INFINITY), 0xFC00);
        // The quirk: NaN becomes +Inf.
        assert_eq!(to_half(f64::NAN), 0x7C00);
        assert_eq!(half_bits_for_input(f64::NAN), 0x7E00);
        assert_eq!(half_bits_for_input(-1.0), 0xBC00);
        assert_eq!(to_half(65536.0), 0x7C00);
        // Ties round away from zero: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
        assert_eq!(to_half(1.0 + 2f64.powi(-11)), 0x3C01);
        assert_eq!(to_half(-(1.0 + 2f64.powi(-11))), 0xBC01);
        // ... where ties-to-even would have kept 1.0; half's own conversion does that.
        assert_eq!(half::f16::from_f64(1.0 + 2f64.powi(-11)).to_bits(), 0x3C00);
        // Subnormals: 2^-24 is the smallest; below float32 exponent 103 flushes to zero.
        assert_eq!(to_half(2f64.powi(-24)), 0x0001);
        assert_eq!(to_half(2f64.powi(-14)), 0x0400);
        assert_eq!(to_half(2f64.powi(-25)), 0x0000);
        assert_eq!(to_half(-(2f64.powi(-26))), 0x8000);
        // Rounding that carries into the exponent is fine.
        assert_eq!(to_half(65519.0), 0x7BFF);
        assert_eq!(to_half(65520.0), 0x7C00);
    }

    #[test]
    fn integers_wrap_like_typed_arrays() {
        assert_eq!(to_integer(Scalar::Number(300.0), 8, false), Ok(44));
        assert_eq!(to_integer(Scalar::Number(-1.0), 8, false), Ok(255));
        assert_eq!(to_integer(Scalar::Number(-1.7), 32, true), Ok(-1));
        assert_eq!(to_integer(Scalar::Number(f64::NAN), 32, true), Ok(0));
        assert_eq!(to_integer(Scalar::Number(2147483648.0), 32, true), Ok(-2147483648));
        assert_eq!(to_integer(Scalar::Number(-1.0), 64, false), Ok(u64::MAX as i128));
        assert!(to_integer(Scalar::Number(1.5), 64, true).is_err());
        assert_eq!(to_integer(Scalar::BigInt(i64::MAX as i128 + 1), 64, true), Ok(i64::MIN as i128));
    }

    #[test]
    fn int4_packing_and_unpacking() {
        let data = Data::from_json(&json!([1, -2, 7, -8, 10, -15, 16])).unwrap_or(Data::List(vec![]));
        let bytes = encode(DataType::Int4, &data, 7).unwrap_or_default();
        // Element 2i in bits 0-3, 2i+1 in bits 4-7, values masked with & 0xF.
        assert_eq!(bytes, vec![0xE1, 0x87, 0x1A, 0x00]);
        let back: Vec<Option<Element>> = (0..7).map(|i| element(DataType::Int4, &bytes, i)).collect();
        let want = [1, -2, 7, -8, -6, 1, 0].map(|v| Some(Element::Int(v)));
        assert_eq!(back, want.to_vec());
        let u: Vec<Option<Element>> = (0..4).map(|i| element(DataType::Uint4, &bytes, i)).collect();
        assert_eq!(u, [1, 14, 7, 8].map(|v| Some(Element::Int(v))).to_vec());
        assert_eq!(element(DataType::Int4, &bytes, 8), None);
    }

    #[test]
    fn fill_data_and_lengths() {
        let fill = Data::from_json(&json!(1.5)).unwrap_or(Data::List(vec![]));
        assert_eq!(encode(DataType::Float32, &fill, 3).map(|b| b.len()), Ok(12));
        let list = Data::from_json(&json!([1, "NaN", "-0", "-Infinity"])).unwrap_or(Data::List(vec![]));
        assert!(encode(DataType::Float32, &list, 3).is_err());
        let b = encode(DataType::Float32, &list, 4).unwrap_or_default();
        assert!(f32::from_le_bytes([b[4], b[5], b[6], b[7]]).is_nan());
        assert_eq!(&b[8..12], &(-0.0f32).to_le_bytes());
        assert!(Data::from_json(&json!({"a": 1})).is_err());
        assert!(Data::from_json(&json!([1, [2]])).is_err());
        assert_eq!(Scalar::from_json(&json!("12345678901234567890")), Some(Scalar::BigInt(12345678901234567890)));
    }
}
