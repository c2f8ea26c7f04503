//! quantizeLinear and dequantizeLinear, written out in the scale's float type. Blockwise
//! scales and zero points are repeated up to the input's shape first.

use crate::emit::{Em, In, V};
use webnn_core::ops::{QuantizeLinear};
use webnn_core::{Operand, Result};

/// `v` with each element repeated along every axis where it has fewer (non-unit) elements
/// than `shape`: WebNN's block-wise quantization parameters.
fn blocks(em: &mut Em, v: &V, shape: &[usize]) -> V {
    // Parameters of lower rank align with the input's trailing axes.
    let mut lifted = vec![1; shape.len().saturating_sub(v.rank())];
    lifted.extend(&v.shape);
    let mut v = em.reshape(v, lifted);
    for d in 0..shape.len() {
        let (n, target) = (v.shape[d], shape[d]);
        if n == target || n == 1 {
            continue;
        }
        let mut split = v.shape.clone();
        split.insert(d + 1, 1);
        let x = em.reshape(&v, split.clone());
        let mut reps = vec![1i64; split.len()];
        reps[d + 1] = (target / n) as i64;
        let mut tiled = split.clone();
        tiled[d + 1] = target / n;
        let ty = x.ty;
        let x = em.op("tile", vec![("x", In::V(x)), ("reps", In::Ints(reps))], ty, tiled);
        let mut merged = v.shape.clone();
        merged[d] = target;
        v = em.reshape(&x, merged);
    }
    v
}

pub fn quantize(em: &mut Em, a: &QuantizeLinear, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let scale = em.v(a.scale)?;
    let scale = blocks(em, &scale, &x.shape);
    let zp = em.v(a.zero_point)?;
    let zp = em.cast(&zp, x.ty);
    let zp = blocks(em, &zp, &x.shape);
    let q = em.arith2("real_div", &x, &scale);
    let q = em.unary("round", &q, vec![]);
    let q = em.arith2("add", &q, &zp);
    let (lo, hi) = em.g.desc(out).data_type.int_range().unwrap_or((0, 0));
    let q = em.with_scalar("maximum", &q, lo as f64);
    let q = em.with_scalar("minimum", &q, hi as f64);
    em.bind(out, q)
}

pub fn dequantize(em: &mut Em, a: &QuantizeLinear, out: Operand) -> Result<()> {
    let scale = em.v(a.scale)?;
    let x = em.v(a.input)?;
    let x = em.cast(&x, scale.ty);
    let scale = blocks(em, &scale, &x.shape);
    let zp = em.v(a.zero_point)?;
    let zp = em.cast(&zp, scale.ty);
    let zp = blocks(em, &zp, &x.shape);
    let d = em.arith2("sub", &x, &zp);
    let r = em.arith2("mul", &d, &scale);
    em.bind(out, r)
}
