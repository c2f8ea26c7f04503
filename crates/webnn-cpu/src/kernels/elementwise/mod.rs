//! Element-wise ops and activations: arithmetic, comparisons and logic with broadcasting,
//! unary math, cast, clamp, prelu and the parameterised activations.
//!
//! Floats are computed in f64 and rounded once to the output type, so float16 results are
//! correctly rounded. Integers are computed in i128 and wrapped to their type (two's
//! complement), which the spec asks for add/sub/mul and which is exact for every 64-bit value.

mod elem;
pub use elem::Elem;
mod math;
mod parametric;
pub mod scalar;

pub use parametric::{cast, clamp, convert, elu, hard_sigmoid, leaky_relu, linear, prelu};

use crate::eval::Cx;
use crate::tensor::{Data, Tensor};
use elem::{each, renibble, unsupported, zip_data, Zip};
use half::f16;
use scalar::{FloatBinary, FloatUnary};
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

/// An arithmetic result: `ff` on floats, `fi` wrapped on integers.
#[inline]
fn arith<T: Elem>(
    p: T,
    q: T,
    ff: &impl Fn(f64, f64) -> f64,
    fi: &impl Fn(i128, i128) -> i128,
) -> T {
    if T::FLOAT {
        T::from_f64(ff(p.to_f64(), q.to_f64()))
    } else {
        T::wrap(fi(p.to_i128(), q.to_i128()))
    }
}

#[inline]
fn pred<T: Elem>(
    p: T,
    q: T,
    ff: &impl Fn(f64, f64) -> bool,
    fi: &impl Fn(i128, i128) -> bool,
) -> u8 {
    let r = if T::FLOAT {
        ff(p.to_f64(), q.to_f64())
    } else {
        fi(p.to_i128(), q.to_i128())
    };
    r as u8
}

fn zip_arith(
    z: &Zip,
    a: &Data,
    b: &Data,
    ff: impl Fn(f64, f64) -> f64,
    fi: impl Fn(i128, i128) -> i128,
) -> Result<Data> {
    Ok(zip_data!(same, a, b, |x, y| z.map(x, y, |p, q| arith(p, q, &ff, &fi))))
}

fn zip_test(
    z: &Zip,
    a: &Data,
    b: &Data,
    ff: impl Fn(f64, f64) -> bool,
    fi: impl Fn(i128, i128) -> bool,
) -> Result<Data> {
    Ok(Data::U8(zip_data!(any, a, b, |x, y| z.map(
        x,
        y,
        |p, q| pred(p, q, &ff, &fi)
    ))))
}

/// Integer division truncates toward zero. Division by zero is not defined by the spec; it
/// gives 0 here rather than trapping.
fn int_div(x: i128, y: i128) -> i128 {
    x.checked_div(y).unwrap_or(0)
}

/// Integer power by squaring, wrapping modulo 2^128 (and so modulo the type's 2^N). A
/// negative exponent truncates 1/x^|y| toward zero: ±1 for x = ±1, 0 otherwise (including
/// x = 0, a division by zero).
fn int_pow(x: i128, y: i128) -> i128 {
    if y < 0 {
        return match x {
            1 => 1,
            -1 => 1 - 2 * (y & 1),
            _ => 0,
        };
    }
    let (mut result, mut base, mut e) = (1i128, x, y as u128);
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    result
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary> and
/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical> (two operands).
pub fn binary(cx: &Cx, kind: OpKind, op: &Binary) -> Result<Tensor> {
    let (a, b) = (cx.t(op.a)?, cx.t(op.b)?);
    let (z, shape) = Zip::new(&a.shape, &b.shape)?;
    let (a, b) = (&a.data, &b.data);
    let nz = |v: i128| v != 0;
    let data = match kind {
        OpKind::Add => zip_arith(
            &z,
            a,
            b,
            |x, y| FloatBinary::Add.apply(x, y),
            i128::wrapping_add,
        )?,
        OpKind::Sub => zip_arith(
            &z,
            a,
            b,
            |x, y| FloatBinary::Sub.apply(x, y),
            i128::wrapping_sub,
        )?,
        OpKind::Mul => zip_arith(
            &z,
            a,
            b,
            |x, y| FloatBinary::Mul.apply(x, y),
            i128::wrapping_mul,
        )?,
        OpKind::Div => zip_arith(&z, a, b, |x, y| FloatBinary::Div.apply(x, y), int_div)?,
        OpKind::Max => zip_arith(&z, a, b, |x, y| FloatBinary::Max.apply(x, y), i128::max)?,
        OpKind::Min => zip_arith(&z, a, b, |x, y| FloatBinary::Min.apply(x, y), i128::min)?,
        OpKind::Pow => zip_arith(&z, a, b, |x, y| FloatBinary::Pow.apply(x, y), int_pow)?,
        OpKind::Equal => zip_test(&z, a, b, |x, y| x == y, |x, y| x == y)?,
        OpKind::NotEqual => zip_test(&z, a, b, |x, y| x != y, |x, y| x != y)?,
        OpKind::Greater => zip_test(&z, a, b, |x, y| x > y, |x, y| x > y)?,
        OpKind::GreaterOrEqual => zip_test(&z, a, b, |x, y| x >= y, |x, y| x >= y)?,
        OpKind::Lesser => zip_test(&z, a, b, |x, y| x < y, |x, y| x < y)?,
        OpKind::LesserOrEqual => zip_test(&z, a, b, |x, y| x <= y, |x, y| x <= y)?,
        // The table limits logical ops to uint8; non-zero is true.
        OpKind::LogicalAnd => {
            zip_test(&z, a, b, |x, y| x != 0.0 && y != 0.0, |x, y| nz(x) && nz(y))?
        }
        OpKind::LogicalOr => {
            zip_test(&z, a, b, |x, y| x != 0.0 || y != 0.0, |x, y| nz(x) || nz(y))?
        }
        OpKind::LogicalXor => zip_test(
            &z,
            a,
            b,
            |x, y| (x != 0.0) != (y != 0.0),
            |x, y| nz(x) != nz(y),
        )?,
        _ => {
            return Err(Error::operation_error(format!(
                "{} is not a binary element-wise op",
                kind.name()
            )))
        }
    };
    Ok(Tensor::new(shape, data))
}

/// Applies `ff` to float elements and `fi` (wrapped) to integer ones, keeping the type.
fn map_num(data: &Data, ff: impl Fn(f64) -> f64, fi: impl Fn(i128) -> i128) -> Data {
    fn go<T: Elem>(v: &[T], ff: &impl Fn(f64) -> f64, fi: &impl Fn(i128) -> i128) -> Vec<T> {
        if T::FLOAT {
            v.iter().map(|&x| T::from_f64(ff(x.to_f64()))).collect()
        } else {
            v.iter().map(|&x| T::wrap(fi(x.to_i128()))).collect()
        }
    }
    renibble(crate::map_data!(data, |v| go(v, &ff, &fi)))
}

/// Applies `f` to float elements; other types are an error (the op table excludes them).
pub(crate) fn map_float(what: &str, data: &Data, f: impl Fn(f64) -> f64) -> Result<Data> {
    Ok(match data {
        Data::F32(v) => Data::F32(v.iter().map(|&x| f(x as f64) as f32).collect()),
        Data::F16(v) => Data::F16(v.iter().map(|&x| f16::from_f64(f(x.to_f64()))).collect()),
        other => return Err(unsupported(what, other.data_type())),
    })
}

/// A uint8 0/1 per element: `ff` on floats, `fi` on integers.
fn map_test(data: &Data, ff: impl Fn(f64) -> bool, fi: impl Fn(i128) -> bool) -> Data {
    fn go<T: Elem>(v: &[T], ff: &impl Fn(f64) -> bool, fi: &impl Fn(i128) -> bool) -> Vec<u8> {
        if T::FLOAT {
            v.iter().map(|&x| ff(x.to_f64()) as u8).collect()
        } else {
            v.iter().map(|&x| fi(x.to_i128()) as u8).collect()
        }
    }
    Data::U8(each!(data, |v| go(v, &ff, &fi)))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary>, logicalNot/isNaN/isInfinite
/// and the activations without options.
/// The float function of a unary op without options.
fn float_unary_kind(kind: OpKind) -> Option<FloatUnary> {
    Some(match kind {
        OpKind::Ceil => FloatUnary::Ceil,
        OpKind::Cos => FloatUnary::Cos,
        OpKind::Erf => FloatUnary::Erf,
        OpKind::Exp => FloatUnary::Exp,
        OpKind::Floor => FloatUnary::Floor,
        OpKind::Log => FloatUnary::Log,
        OpKind::Reciprocal => FloatUnary::Reciprocal,
        OpKind::RoundEven => FloatUnary::RoundEven,
        OpKind::Sin => FloatUnary::Sin,
        OpKind::Sqrt => FloatUnary::Sqrt,
        OpKind::Tan => FloatUnary::Tan,
        OpKind::Gelu => FloatUnary::Gelu,
        OpKind::HardSwish => FloatUnary::HardSwish,
        OpKind::Sigmoid => FloatUnary::Sigmoid,
        OpKind::Softplus => FloatUnary::Softplus,
        OpKind::Softsign => FloatUnary::Softsign,
        OpKind::Tanh => FloatUnary::Tanh,
        _ => return None,
    })
}

pub fn unary(cx: &Cx, kind: OpKind, op: &Unary) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let d = &x.data;
    let name = kind.name();
    let data = match kind {
        OpKind::Identity => d.clone(),
        OpKind::LogicalNot => map_test(d, |v| v == 0.0, |v| v == 0),
        OpKind::IsNaN => map_test(d, f64::is_nan, |_| false),
        OpKind::IsInfinite => map_test(d, f64::is_infinite, |_| false),
        OpKind::Abs => map_num(d, |v| FloatUnary::Abs.apply(v), i128::abs),
        OpKind::Neg => map_num(d, |v| FloatUnary::Neg.apply(v), |v| -v),
        OpKind::Sign => map_num(d, |v| FloatUnary::Sign.apply(v), i128::signum),
        OpKind::Relu => map_num(d, |v| FloatUnary::Relu.apply(v), |v| v.max(0)),
        OpKind::Ceil
        | OpKind::Cos
        | OpKind::Erf
        | OpKind::Exp
        | OpKind::Floor
        | OpKind::Log
        | OpKind::Reciprocal
        | OpKind::RoundEven
        | OpKind::Sin
        | OpKind::Sqrt
        | OpKind::Tan
        | OpKind::Gelu
        | OpKind::HardSwish
        | OpKind::Sigmoid
        | OpKind::Softplus
        | OpKind::Softsign
        | OpKind::Tanh => {
            let f = float_unary_kind(kind)
                .ok_or_else(|| Error::operation_error(format!("{name} is not a float op")))?;
            map_float(name, d, |v| f.apply(v))?
        }
        _ => {
            return Err(Error::operation_error(format!(
                "{name} is not a unary element-wise op"
            )))
        }
    };
    Ok(Tensor::new(x.shape.clone(), data))
}

#[cfg(test)]
pub(crate) mod tests;
