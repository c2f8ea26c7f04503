//! Activations with parameters, prelu and softmax.

use crate::emit::{Em, In};
use webnn_core::ops::{Elu, HardSigmoid, LeakyRelu, Linear, Prelu, Softmax};
use webnn_core::{Operand, Result};

pub fn elu(em: &mut Em, a: &Elu, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let r = em.unary("elu", &x, vec![("alpha", In::Num(x.ty, a.options.alpha))]);
    em.bind(out, r)
}

pub fn hard_sigmoid(em: &mut Em, a: &HardSigmoid, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let params = vec![("alpha", In::Num(x.ty, a.options.alpha)), ("beta", In::Num(x.ty, a.options.beta))];
    let r = em.unary("sigmoid_hard", &x, params);
    em.bind(out, r)
}

pub fn leaky_relu(em: &mut Em, a: &LeakyRelu, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let r = em.unary("leaky_relu", &x, vec![("alpha", In::Num(x.ty, a.options.alpha))]);
    em.bind(out, r)
}

pub fn linear(em: &mut Em, a: &Linear, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let params = vec![("alpha", In::Num(x.ty, a.options.alpha)), ("beta", In::Num(x.ty, a.options.beta))];
    let r = em.unary("linear_activation", &x, params);
    em.bind(out, r)
}

/// max(x, 0) + slope * min(x, 0): MIL's prelu takes only a constant per-channel slope.
pub fn prelu(em: &mut Em, a: &Prelu, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let s = em.v(a.slope)?;
    let (x, s) = (em.arith(&x), em.arith(&s));
    let pos = em.with_scalar("maximum", &x, 0.0);
    let neg = em.with_scalar("minimum", &x, 0.0);
    let neg = em.arith2("mul", &neg, &s);
    let r = em.arith2("add", &pos, &neg);
    em.bind(out, r)
}

pub fn softmax(em: &mut Em, a: &Softmax, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let r = em.unary("softmax", &x, vec![("axis", In::Int(a.axis as i64))]);
    em.bind(out, r)
}
