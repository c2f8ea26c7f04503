//! Activations. float16 runs in float32; options are first cast to the input's type, as the
//! spec casts them.

use crate::emit::{arith, attr_f, attr_i, Em};
use webnn_core::ops::{Elu, HardSigmoid, LeakyRelu, Linear, Prelu, Softmax, Unary};
use webnn_core::{DataType, OpKind, Operand, Result};

/// An option after the spec's cast to the input's float type.
fn option(dt: DataType, v: f64) -> f32 {
    match dt {
        DataType::Float16 => half::f16::from_f64(v).to_f32(),
        _ => v as f32,
    }
}

const F: DataType = DataType::Float32;

/// gelu, hardSwish, relu, sigmoid, softplus, softsign, tanh.
pub fn unary(em: &mut Em, kind: OpKind, a: &Unary, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let op = match kind {
        OpKind::Gelu => "Gelu",
        OpKind::HardSwish => "HardSwish",
        OpKind::Relu if !dt.is_float() => {
            let ct = arith(dt);
            let x = em.input_as(a.input, ct)?;
            let zero = em.scalar_int(ct, 0);
            let y = em.extreme(true, &x, &zero, ct);
            return em.output_from(out, y, ct);
        }
        OpKind::Relu => "Relu",
        OpKind::Sigmoid => {
            // ONNX Runtime's float Sigmoid is an approximation (about 200 ULP off near
            // 0.0025); 1 / (1 + exp(-x)) in doubles rounds once.
            let x = em.v(a.input)?;
            let x = em.as_f64(&x);
            let n = em.node("Neg", &[&x], vec![]);
            let e = em.node("Exp", &[&n], vec![]);
            let one = em.f64_scalar(1.0);
            let d = em.node("Add", &[&e, &one], vec![]);
            let y = em.node("Reciprocal", &[&d], vec![]);
            let y = em.node(
                "Cast",
                &[&y],
                vec![attr_i("to", crate::emit::onnx_type(dt) as i64)],
            );
            em.set(out, y);
            return Ok(());
        }
        OpKind::Softplus => "Softplus",
        OpKind::Softsign => "Softsign",
        OpKind::Tanh => "Tanh",
        other => return Err(crate::ops::misrouted(other)),
    };
    em.simple(op, &[a.input], F, vec![], out)
}

pub fn elu(em: &mut Em, a: &Elu, out: Operand) -> Result<()> {
    let alpha = option(em.dt(a.input), a.options.alpha);
    em.simple("Elu", &[a.input], F, vec![attr_f("alpha", alpha)], out)
}

pub fn hard_sigmoid(em: &mut Em, a: &HardSigmoid, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let attrs = vec![
        attr_f("alpha", option(dt, a.options.alpha)),
        attr_f("beta", option(dt, a.options.beta)),
    ];
    em.simple("HardSigmoid", &[a.input], F, attrs, out)
}

pub fn leaky_relu(em: &mut Em, a: &LeakyRelu, out: Operand) -> Result<()> {
    let alpha = option(em.dt(a.input), a.options.alpha);
    em.simple(
        "LeakyRelu",
        &[a.input],
        F,
        vec![attr_f("alpha", alpha)],
        out,
    )
}

/// alpha * x + beta.
pub fn linear(em: &mut Em, a: &Linear, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let x = em.input_as(a.input, F)?;
    let alpha = em.scalar(F, option(dt, a.options.alpha) as f64);
    let beta = em.scalar(F, option(dt, a.options.beta) as f64);
    let ax = em.node("Mul", &[&x, &alpha], vec![]);
    let y = em.node("Add", &[&ax, &beta], vec![]);
    em.output_from(out, y, F)
}

/// x where x >= 0, else slope * x (any signed type; ONNX's PRelu is float-only).
pub fn prelu(em: &mut Em, a: &Prelu, out: Operand) -> Result<()> {
    let ct = arith(em.dt(a.input));
    let x = em.input_as(a.input, ct)?;
    let s = em.input_as(a.slope, ct)?;
    let zero = em.scalar_int(ct, 0);
    let neg = em.node("Less", &[&x, &zero], vec![]);
    let sx = em.node("Mul", &[&x, &s], vec![]);
    let y = em.node("Where", &[&neg, &sx, &x], vec![]);
    em.output_from(out, y, ct)
}

pub fn softmax(em: &mut Em, a: &Softmax, out: Operand) -> Result<()> {
    em.simple(
        "Softmax",
        &[a.input],
        F,
        vec![attr_i("axis", a.axis as i64)],
        out,
    )
}
