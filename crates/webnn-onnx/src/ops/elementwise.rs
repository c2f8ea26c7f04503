//! Element-wise arithmetic, comparisons, logic, unary math, cast and clamp.

use crate::emit::{arith, attr_i, held, Em};
use webnn_core::ops::{Binary, Cast, Clamp, MLNumber, NumberCast, Unary};
use webnn_core::{DataType, OpKind, Result};

/// uint64 values as int64 with the sign bit flipped: signed order on the result is the
/// unsigned order of the input, so comparisons and max/min stay exact above 2^63.
pub fn ordered_u64(em: &mut Em, v: &str) -> String {
    let x = em.cast(v, DataType::Uint64, DataType::Int64);
    let bit = em.scalar_int(DataType::Int64, i64::MIN as i128);
    em.node("BitwiseXor", &[&x, &bit], vec![])
}

/// add, sub, mul, div, max, min, pow.
pub fn binary(em: &mut Em, kind: OpKind, a: &Binary, out: webnn_core::Operand) -> Result<()> {
    let dt = em.dt(a.a);
    if dt == DataType::Uint64 && matches!(kind, OpKind::Max | OpKind::Min) {
        let (x, y) = (em.v(a.a)?, em.v(a.b)?);
        let (x, y) = (ordered_u64(em, &x), ordered_u64(em, &y));
        let m = em.extreme(kind == OpKind::Max, &x, &y, DataType::Int64);
        let bit = em.scalar_int(DataType::Int64, i64::MIN as i128);
        let m = em.node("BitwiseXor", &[&m, &bit], vec![]);
        return em.output_from(out, m, DataType::Int64);
    }
    let ct = arith(dt);
    let op = match kind {
        OpKind::Add => "Add",
        OpKind::Sub => "Sub",
        OpKind::Mul => "Mul",
        OpKind::Div => "Div",
        OpKind::Max => "Max",
        OpKind::Min => "Min",
        OpKind::Pow => "Pow",
        other => return Err(crate::ops::misrouted(other)),
    };
    let x = em.input_as(a.a, ct)?;
    let y = em.input_as(a.b, ct)?;
    let r = if kind == OpKind::Div && !dt.is_float() {
        // An integer division by zero traps in ONNX Runtime; WebNN leaves it undefined and
        // the reference gives 0: divide by 1 there and select 0.
        let zero = em.scalar_int(ct, 0);
        let one = em.scalar_int(ct, 1);
        let is_zero = em.node("Equal", &[&y, &zero], vec![]);
        let safe = em.node("Where", &[&is_zero, &one, &y], vec![]);
        let q = if dt == DataType::Uint64 {
            // Unsigned division (ONNX Runtime has it for uint64, though no Where).
            let (xu, su) = (em.cast(&x, ct, dt), em.cast(&safe, ct, dt));
            let q = em.node("Div", &[&xu, &su], vec![]);
            em.cast(&q, dt, ct)
        } else if matches!(dt, DataType::Int32 | DataType::Int64) {
            // MIN / -1 overflows and traps too; dividing by -1 is negating (which wraps).
            let minus_one = em.scalar_int(ct, -1);
            let is_minus_one = em.node("Equal", &[&y, &minus_one], vec![]);
            let safe = em.node("Where", &[&is_minus_one, &one, &safe], vec![]);
            let q = em.node("Div", &[&x, &safe], vec![]);
            let neg = em.node("Neg", &[&x], vec![]);
            em.node("Where", &[&is_minus_one, &neg, &q], vec![])
        } else {
            em.node("Div", &[&x, &safe], vec![])
        };
        em.node("Where", &[&is_zero, &zero, &q], vec![])
    } else if kind == OpKind::Pow && !dt.is_float() {
        let shape = em.shape_value(&em.dims(out))?;
        int_pow(em, &x, &y, ct, dt == DataType::Uint64, &shape)
    } else if matches!(kind, OpKind::Max | OpKind::Min) {
        em.extreme(kind == OpKind::Max, &x, &y, ct)
    } else {
        em.node(op, &[&x, &y], vec![])
    };
    em.output_from(out, r, ct)
}

/// Integer power as the reference computes it: by squaring over every bit of the exponent,
/// wrapping (ONNX's integer Pow goes through doubles). A negative exponent truncates
/// 1/x^|y| toward zero: ±1 for x = ±1, 0 otherwise. `unsigned`: the exponent's bits are a
/// uint64's, never negative.
fn int_pow(em: &mut Em, x: &str, y: &str, ct: DataType, unsigned: bool, shape: &str) -> String {
    let bits = if ct == DataType::Int64 { 64 } else { 32 };
    let zero = em.scalar_int(ct, 0);
    let one = em.scalar_int(ct, 1);
    let xb = em.node("Expand", &[x, shape], vec![]);
    let ybig = em.node("Expand", &[y, shape], vec![]);
    let mut base = xb.clone();
    let mut result = one.clone();
    for k in 0..bits {
        let mask = em.scalar_int(
            ct,
            if k == 63 {
                i64::MIN as i128
            } else {
                1i128 << k
            },
        );
        let m = em.node("BitwiseAnd", &[&ybig, &mask], vec![]);
        let set = em.node("Equal", &[&m, &zero], vec![]);
        let times = em.node("Mul", &[&result, &base], vec![]);
        result = em.node("Where", &[&set, &result, &times], vec![]);
        if k + 1 < bits {
            base = em.node("Mul", &[&base, &base], vec![]);
        }
    }
    if unsigned {
        return result;
    }
    let minus_one = em.scalar_int(ct, -1);
    let two = em.scalar_int(ct, 2);
    let is_one = em.node("Equal", &[&xb, &one], vec![]);
    let is_minus_one = em.node("Equal", &[&xb, &minus_one], vec![]);
    let odd = em.node("BitwiseAnd", &[&ybig, &one], vec![]);
    let twice = em.node("Mul", &[&odd, &two], vec![]);
    let sign = em.node("Sub", &[&one, &twice], vec![]);
    let neg = em.node("Where", &[&is_minus_one, &sign, &zero], vec![]);
    let neg = em.node("Where", &[&is_one, &one, &neg], vec![]);
    let negative = em.node("Less", &[&ybig, &zero], vec![]);
    em.node("Where", &[&negative, &neg, &result], vec![])
}

/// equal, notEqual, greater, greaterOrEqual, lesser, lesserOrEqual: bool results as uint8.
pub fn compare(em: &mut Em, kind: OpKind, a: &Binary, out: webnn_core::Operand) -> Result<()> {
    let dt = em.dt(a.a);
    let (x, y) = if dt == DataType::Uint64 {
        let (x, y) = (em.v(a.a)?, em.v(a.b)?);
        (ordered_u64(em, &x), ordered_u64(em, &y))
    } else {
        let ct = arith(dt);
        (em.input_as(a.a, ct)?, em.input_as(a.b, ct)?)
    };
    let op = match kind {
        OpKind::Equal | OpKind::NotEqual => "Equal",
        OpKind::Greater => "Greater",
        OpKind::GreaterOrEqual => "GreaterOrEqual",
        OpKind::Lesser => "Less",
        OpKind::LesserOrEqual => "LessOrEqual",
        other => return Err(crate::ops::misrouted(other)),
    };
    let mut r = em.node(op, &[&x, &y], vec![]);
    if kind == OpKind::NotEqual {
        r = em.node("Not", &[&r], vec![]);
    }
    let r = bool_to_u8(em, &r);
    em.set(out, r);
    Ok(())
}

pub fn bool_to_u8(em: &mut Em, v: &str) -> String {
    em.node(
        "Cast",
        &[v],
        vec![attr_i("to", crate::emit::onnx_type(DataType::Uint8) as i64)],
    )
}

pub fn to_bool(em: &mut Em, v: &str) -> String {
    em.node(
        "Cast",
        &[v],
        vec![attr_i(
            "to",
            crate::proto::tensor_proto::DataType::Bool as i64,
        )],
    )
}

/// logicalAnd, logicalOr, logicalXor: nonzero is true.
pub fn logical(em: &mut Em, kind: OpKind, a: &Binary, out: webnn_core::Operand) -> Result<()> {
    let (x, y) = (em.v(a.a)?, em.v(a.b)?);
    let (x, y) = (to_bool(em, &x), to_bool(em, &y));
    let op = match kind {
        OpKind::LogicalAnd => "And",
        OpKind::LogicalOr => "Or",
        OpKind::LogicalXor => "Xor",
        other => return Err(crate::ops::misrouted(other)),
    };
    let r = em.node(op, &[&x, &y], vec![]);
    let r = bool_to_u8(em, &r);
    em.set(out, r);
    Ok(())
}

/// The unary ops, including logicalNot, isNaN, isInfinite and identity.
pub fn unary(em: &mut Em, kind: OpKind, a: &Unary, out: webnn_core::Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let float_op = match kind {
        OpKind::LogicalNot => {
            let x = em.v(a.input)?;
            let b = to_bool(em, &x);
            let r = em.node("Not", &[&b], vec![]);
            let r = bool_to_u8(em, &r);
            em.set(out, r);
            return Ok(());
        }
        OpKind::IsNaN | OpKind::IsInfinite => {
            let x = em.input_as(a.input, DataType::Float32)?;
            let r = em.node(
                if kind == OpKind::IsNaN {
                    "IsNaN"
                } else {
                    "IsInf"
                },
                &[&x],
                vec![],
            );
            let r = bool_to_u8(em, &r);
            em.set(out, r);
            return Ok(());
        }
        OpKind::Identity => {
            let x = em.v(a.input)?;
            em.set(out, x);
            return Ok(());
        }
        OpKind::Abs => return em.simple("Abs", &[a.input], arith(dt), vec![], out),
        OpKind::Neg => return em.simple("Neg", &[a.input], arith(dt), vec![], out),
        OpKind::Sign if dt.is_float() || dt == DataType::Int64 => {
            // The spec's 1 if > 0, -1 if < 0, else +0, by comparisons: for floats NaN and -0
            // give +0 (ONNX: NaN, -0); ONNX Runtime's int64 Sign reads only the low 32 bits
            // (4294967295 gave -1).
            let ct = if dt.is_float() { DataType::Float32 } else { DataType::Int64 };
            let x = em.input_as(a.input, ct)?;
            let zero = em.scalar(ct, 0.0);
            let to = vec![attr_i("to", crate::emit::onnx_type(ct) as i64)];
            let pos = em.node("Greater", &[&x, &zero], vec![]);
            let pos = em.node("Cast", &[&pos], to.clone());
            let neg = em.node("Less", &[&x, &zero], vec![]);
            let neg = em.node("Cast", &[&neg], to);
            let y = em.node("Sub", &[&pos, &neg], vec![]);
            return em.output_from(out, y, ct);
        }
        OpKind::Sign => return em.simple("Sign", &[a.input], arith(dt), vec![], out),
        OpKind::Ceil => "Ceil",
        OpKind::Cos => "Cos",
        OpKind::Erf => "Erf",
        OpKind::Exp => "Exp",
        OpKind::Floor => "Floor",
        OpKind::Log => "Log",
        OpKind::Reciprocal => "Reciprocal",
        OpKind::RoundEven => "Round",
        OpKind::Sin => "Sin",
        OpKind::Sqrt => "Sqrt",
        OpKind::Tan => "Tan",
        _ => return crate::ops::activation::unary(em, kind, a, out),
    };
    em.simple(float_op, &[a.input], DataType::Float32, vec![], out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast>: float to integer truncates toward
/// zero and saturates (NaN gives 0), integer to integer keeps the low bits, the rest round
/// to nearest.
pub fn cast(em: &mut Em, a: &Cast, out: webnn_core::Operand) -> Result<()> {
    let from = em.dt(a.input);
    let to = a.data_type;
    let x = em.v(a.input)?;
    if !from.is_float() && matches!(to, DataType::Int4 | DataType::Uint4) {
        let wide = em.cast(&x, from, DataType::Int32);
        return em.output_from(out, wide, DataType::Int32);
    }
    if !from.is_float() || to.is_float() {
        return em.output_from(out, x, held(from));
    }
    let xd = em.as_f64(&x);
    let zero = em.f64_scalar(0.0);
    let nan = em.node("IsNaN", &[&xd], vec![]);
    let xd0 = em.node("Where", &[&nan, &zero, &xd], vec![]);
    let (lo, hi) = to.int_range().unwrap_or((0, 0));
    let hi_f = hi as f64;
    // 2^63 - 1 and 2^64 - 1 round up in a double; clamp below and patch the top.
    let needs_top = hi_f as i128 > hi;
    let hi_clip = if needs_top {
        f64::from_bits(hi_f.to_bits() - 1)
    } else {
        hi_f
    };
    let (lo_c, hi_c) = (em.f64_scalar(lo as f64), em.f64_scalar(hi_clip));
    let clipped = em.node("Clip", &[&xd0, &lo_c, &hi_c], vec![]);
    let mut y = em.node(
        "Cast",
        &[&clipped],
        vec![attr_i("to", crate::emit::onnx_type(to) as i64)],
    );
    if needs_top {
        let top = em.f64_scalar(hi_f);
        let at_top = em.node("GreaterOrEqual", &[&xd0, &top], vec![]);
        // Where has no uint64 kernel: select in int64 (the same bits).
        let yi = em.cast(&y, to, DataType::Int64);
        let max = em.scalar_int(DataType::Int64, hi as u64 as i64 as i128);
        let yi = em.node("Where", &[&at_top, &max, &yi], vec![]);
        y = em.cast(&yi, DataType::Int64, to);
    }
    em.set(out, y);
    Ok(())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp>: the bounds cast to the input
/// type; a NaN bound limits nothing.
pub fn clamp(em: &mut Em, a: &Clamp, out: webnn_core::Operand) -> Result<()> {
    let dt = em.dt(a.input);
    // Float16 runs in float32 with Clip; integers in their arithmetic type by comparisons, as
    // ONNX Runtime's int64 Clip compares only the low 32 bits; uint64 in the sign-flipped
    // order of `ordered_u64`.
    let ct = match dt {
        DataType::Float16 | DataType::Float32 => DataType::Float32,
        other => arith(other),
    };
    let x = if dt == DataType::Uint64 {
        let v = em.v(a.input)?;
        ordered_u64(em, &v)
    } else {
        em.input_as(a.input, ct)?
    };
    let bound = |em: &mut Em, v: Option<MLNumber>| -> String {
        match v.map(|v| v.cast(dt)) {
            None => String::new(),
            Some(NumberCast::Float(f)) if f.is_nan() => String::new(),
            Some(NumberCast::Float(f)) => em.scalar(ct, f),
            Some(NumberCast::Int(i)) if dt == DataType::Uint64 => {
                em.scalar_int(ct, ((i as u64) ^ (1 << 63)) as i64 as i128)
            }
            Some(NumberCast::Int(i)) => em.scalar_int(ct, i),
        }
    };
    let mut lo = bound(em, a.options.min_value);
    let mut hi = bound(em, a.options.max_value);
    if dt.is_float() {
        // Clip's absent bounds are the float range's ends, WebNN's the infinities: with
        // minValue = inf and no maxValue, Clip gave 3.4e38.
        if lo.is_empty() {
            lo = em.scalar(ct, f64::NEG_INFINITY);
        }
        if hi.is_empty() {
            hi = em.scalar(ct, f64::INFINITY);
        }
    }
    let mut y = if dt.is_float() {
        em.node("Clip", &[&x, &lo, &hi], vec![])
    } else {
        let mut y = x;
        if !lo.is_empty() {
            y = em.extreme(true, &y, &lo, ct);
        }
        if !hi.is_empty() {
            y = em.extreme(false, &y, &hi, ct);
        }
        y
    };
    if dt == DataType::Uint64 {
        let bit = em.scalar_int(DataType::Int64, i64::MIN as i128);
        y = em.node("BitwiseXor", &[&y, &bit], vec![]);
    }
    em.output_from(out, y, ct)
}
