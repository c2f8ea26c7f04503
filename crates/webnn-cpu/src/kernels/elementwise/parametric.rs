//! The ops with options or a second operand beyond broadcasting arithmetic: cast, clamp,
//! prelu, elu, hardSigmoid, leakyRelu and linear.

use super::elem::{each, renibble, zip_data, Elem, Zip};
use super::map_float;
use super::scalar::{cast_option, FloatUnary};
use crate::eval::Cx;
use crate::tensor::{Data, Tensor};
use webnn_core::ops::*;
use webnn_core::{DataType, Result};

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-elu>
pub fn elu(cx: &Cx, op: &Elu) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let alpha = cast_option(x.data_type(), op.options.alpha);
    let f = FloatUnary::Elu { alpha };
    let data = map_float("elu", &x.data, |v| f.apply(v))?;
    Ok(Tensor::new(x.shape.clone(), data))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-hard-sigmoid>
pub fn hard_sigmoid(cx: &Cx, op: &HardSigmoid) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let alpha = cast_option(x.data_type(), op.options.alpha);
    let beta = cast_option(x.data_type(), op.options.beta);
    let f = FloatUnary::HardSigmoid { alpha, beta };
    let data = map_float("hardSigmoid", &x.data, |v| f.apply(v))?;
    Ok(Tensor::new(x.shape.clone(), data))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-leakyrelu>
pub fn leaky_relu(cx: &Cx, op: &LeakyRelu) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let alpha = cast_option(x.data_type(), op.options.alpha);
    let f = FloatUnary::LeakyRelu { alpha };
    let data = map_float("leakyRelu", &x.data, |v| f.apply(v))?;
    Ok(Tensor::new(x.shape.clone(), data))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-linear>
pub fn linear(cx: &Cx, op: &Linear) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let alpha = cast_option(x.data_type(), op.options.alpha);
    let beta = cast_option(x.data_type(), op.options.beta);
    let f = FloatUnary::Linear { alpha, beta };
    let data = map_float("linear", &x.data, |v| f.apply(v))?;
    Ok(Tensor::new(x.shape.clone(), data))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast>: float to float and integer to float
/// round to nearest (overflow gives ±Infinity); float to integer truncates toward zero, and
/// out-of-range values (implementation-defined) saturate, NaN giving 0; integer to integer
/// keeps the lowest bits (two's complement).
pub fn cast(cx: &Cx, op: &Cast) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    fn conv<S: Elem, D: Elem + Default>(v: &[S]) -> Vec<D> {
        let mut out = vec![D::default(); v.len()];
        convert(v, &mut out);
        out
    }
    fn to<S: Elem>(v: &[S], dt: DataType) -> Data {
        match dt {
            DataType::Float32 => Data::F32(conv(v)),
            DataType::Float16 => Data::F16(conv(v)),
            DataType::Int32 => Data::I32(conv(v)),
            DataType::Uint32 => Data::U32(conv(v)),
            DataType::Int64 => Data::I64(conv(v)),
            DataType::Uint64 => Data::U64(conv(v)),
            DataType::Int8 => Data::I8(conv(v)),
            DataType::Uint8 => Data::U8(conv(v)),
            DataType::Int4 => renibble(Data::I4(conv(v))),
            DataType::Uint4 => renibble(Data::U4(conv(v))),
        }
    }
    let data = each!(&x.data, |v| to(v, op.data_type));
    Ok(Tensor::new(x.shape.clone(), data))
}

/// `src` cast element by element into `dst` (as long as the shorter): floats through f64,
/// integers through i128, as `cast` describes.
pub fn convert<S: Elem, D: Elem>(src: &[S], dst: &mut [D]) {
    if S::FLOAT {
        dst.iter_mut().zip(src).for_each(|(d, &s)| *d = D::from_f64(s.to_f64()));
    } else {
        dst.iter_mut().zip(src).for_each(|(d, &s)| *d = D::wrap(s.to_i128()));
    }
}

/// A clamp bound after the spec's cast to the element type
/// (<https://www.w3.org/TR/webnn/#algorithms-casting>), as f64 for floats and i128 for
/// integers.
fn bound<T: Elem>(v: MLNumber) -> (f64, i128) {
    if T::FLOAT {
        return (T::from_f64(v.as_f64()).to_f64(), 0);
    }
    let i = match v {
        MLNumber::BigInt(x) => x.clamp(T::MIN, T::MAX),
        MLNumber::Double(x) if x.is_nan() => 0,
        // The float clamp keeps the conversion in range; the integer one is exact (i64::MAX
        // as f64 is 2^63, one above the range).
        MLNumber::Double(x) => {
            (x.clamp(T::MIN as f64, T::MAX as f64).round_ties_even() as i128).clamp(T::MIN, T::MAX)
        }
    };
    (0.0, i)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp>. A NaN bound compares false and
/// so limits nothing; NaN elements stay NaN.
pub fn clamp(cx: &Cx, op: &Clamp) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    fn go<T: Elem>(v: &[T], lo: Option<MLNumber>, hi: Option<MLNumber>) -> Vec<T> {
        let (lo, hi) = (lo.map(bound::<T>), hi.map(bound::<T>));
        if T::FLOAT {
            let lo = lo.map_or(f64::NEG_INFINITY, |b| b.0);
            let hi = hi.map_or(f64::INFINITY, |b| b.0);
            v.iter()
                .map(|&e| {
                    let y = e.to_f64();
                    if y < lo {
                        T::from_f64(lo)
                    } else if y > hi {
                        T::from_f64(hi)
                    } else {
                        e
                    }
                })
                .collect()
        } else {
            let lo = lo.map_or(i128::MIN, |b| b.1);
            let hi = hi.map_or(i128::MAX, |b| b.1);
            v.iter()
                .map(|&e| {
                    let y = e.to_i128();
                    if y < lo {
                        T::wrap(lo)
                    } else if y > hi {
                        T::wrap(hi)
                    } else {
                        e
                    }
                })
                .collect()
        }
    }
    let (lo, hi) = (op.options.min_value, op.options.max_value);
    let data = renibble(crate::map_data!(&x.data, |v| go(v, lo, hi)));
    Ok(Tensor::new(x.shape.clone(), data))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-prelu>: x if x >= 0, slope · x
/// otherwise, with input and slope broadcast together.
pub fn prelu(cx: &Cx, op: &Prelu) -> Result<Tensor> {
    let (x, s) = (cx.t(op.input)?, cx.t(op.slope)?);
    let (z, shape) = Zip::new(&x.shape, &s.shape)?;
    fn go<T: Elem>(p: T, q: T) -> T {
        if T::FLOAT {
            let v = p.to_f64();
            if v < 0.0 {
                T::from_f64(q.to_f64() * v)
            } else {
                p
            }
        } else {
            let v = p.to_i128();
            if v < 0 {
                T::wrap(q.to_i128().wrapping_mul(v))
            } else {
                p
            }
        }
    }
    let data = zip_data!(same, &x.data, &s.data, |a, b| z.map(a, b, go));
    Ok(Tensor::new(shape, data))
}
