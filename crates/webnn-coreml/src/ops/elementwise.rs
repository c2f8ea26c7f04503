//! Element-wise arithmetic, comparisons, logic, unary math, cast and clamp.

use super::mil_name;
use crate::emit::{Em, In, Ty};
use webnn_core::ops::{Binary, Cast, Clamp, Unary};
use webnn_core::{OpKind, Operand, Result};

pub fn binary(em: &mut Em, kind: OpKind, a: &Binary, out: Operand) -> Result<()> {
    let x = em.v(a.a)?;
    let y = em.v(a.b)?;
    let (x, y) = (em.arith(&x), em.arith(&y));
    let r = em.arith2(mil_name(kind)?, &x, &y);
    em.bind(out, r)
}

/// Comparisons and binary logic: MIL gives bool, WebNN uint8.
pub fn predicate(em: &mut Em, kind: OpKind, a: &Binary, out: Operand) -> Result<()> {
    let x = em.v(a.a)?;
    let y = em.v(a.b)?;
    let (x, y) = match kind {
        // WebNN's logical ops read any non-zero value as true.
        OpKind::LogicalAnd | OpKind::LogicalOr | OpKind::LogicalXor => (em.cast(&x, Ty::Bool), em.cast(&y, Ty::Bool)),
        _ => (em.arith(&x), em.arith(&y)),
    };
    let r = em.binary(mil_name(kind)?, &x, &y, Ty::Bool);
    em.bind(out, r)
}

pub fn unary_predicate(em: &mut Em, kind: OpKind, a: &Unary, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let r = match kind {
        OpKind::LogicalNot => {
            let b = em.cast(&x, Ty::Bool);
            em.unary("logical_not", &b, vec![])
        }
        // NaN is the one value unequal to itself.
        OpKind::IsNaN => em.binary("not_equal", &x, &x, Ty::Bool),
        _ => {
            let abs = em.unary("abs", &x, vec![]);
            let inf = em.scalar(x.ty, f64::INFINITY);
            em.binary("equal", &abs, &inf, Ty::Bool)
        }
    };
    em.bind(out, r)
}

pub fn unary(em: &mut Em, kind: OpKind, a: &Unary, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let r = match kind {
        OpKind::Neg => em.with_scalar("mul", &x, -1.0),
        OpKind::Reciprocal => {
            let one = em.scalar(x.ty, 1.0);
            em.arith2("real_div", &one, &x)
        }
        // MIL's log adds an epsilon (1e-45 by default); WebNN's is exact.
        OpKind::Log => em.unary("log", &x, vec![("epsilon", In::Num(x.ty, 0.0))]),
        OpKind::Gelu => em.unary("gelu", &x, vec![("mode", In::Str("EXACT"))]),
        // x * max(0, min(1, x / 6 + 0.5)).
        OpKind::HardSwish => {
            let h = em.unary(
                "sigmoid_hard",
                &x,
                vec![("alpha", In::Num(x.ty, 1.0 / 6.0)), ("beta", In::Num(x.ty, 0.5))],
            );
            em.arith2("mul", &x, &h)
        }
        OpKind::Relu if !x.ty.is_float() => em.with_scalar("maximum", &x, 0.0),
        _ => em.unary(mil_name(kind)?, &x, vec![]),
    };
    em.bind(out, r)
}

pub fn cast(em: &mut Em, a: &Cast, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let to = em.held(a.data_type)?;
    let r = em.cast(&x, to);
    em.bind(out, r)
}

pub fn clamp(em: &mut Em, a: &Clamp, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let dt = em.g.desc(a.input).data_type;
    let mut r = em.arith(&x);
    let bound = |n: webnn_core::ops::MLNumber| match n.cast(dt) {
        webnn_core::ops::NumberCast::Float(f) => f,
        webnn_core::ops::NumberCast::Int(i) => i as f64,
    };
    if let Some(lo) = a.options.min_value {
        r = em.with_scalar("maximum", &r, bound(lo));
    }
    if let Some(hi) = a.options.max_value {
        r = em.with_scalar("minimum", &r, bound(hi));
    }
    em.bind(out, r)
}
