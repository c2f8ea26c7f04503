//! gather, gatherElements, gatherND, scatterElements, scatterND. Indices are clamped into
//! range first: WebNN never reads or writes out of bounds, MIL leaves that undefined.

use crate::emit::{Em, In, Ty, V};
use webnn_core::ops::{Gather, GatherNd, ScatterElements, ScatterNd};
use webnn_core::{Operand, Result};

/// `idx` clamped to [-n, n - 1], `n` a scalar or a vector along the last axis.
fn clamp_indices(em: &mut Em, idx: &V, dims: &[usize]) -> V {
    let idx = em.cast(idx, Ty::I32);
    let lo: Vec<u8> = dims.iter().flat_map(|&n| (-(n as i32)).to_le_bytes()).collect();
    let hi: Vec<u8> = dims.iter().flat_map(|&n| (n as i32 - 1).to_le_bytes()).collect();
    let shape = if dims.len() == 1 && idx.rank() == 0 { vec![] } else { vec![dims.len()] };
    let lo = em.constant(Ty::I32, &shape, &lo);
    let hi = em.constant(Ty::I32, &shape, &hi);
    let idx = em.arith2("maximum", &idx, &lo);
    em.arith2("minimum", &idx, &hi)
}

pub fn gather(em: &mut Em, a: &Gather, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let axis = a.options.axis as usize;
    let idx = em.v(a.indices)?;
    let idx = clamp_indices(em, &idx, &[x.shape[axis]]);
    let shape = em.shape(out)?;
    let ty = x.ty;
    let inputs = vec![("x", In::V(x)), ("indices", In::V(idx)), ("axis", In::Int(axis as i64))];
    let r = em.op("gather", inputs, ty, shape);
    em.bind(out, r)
}

pub fn gather_elements(em: &mut Em, a: &Gather, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let axis = a.options.axis as usize;
    let idx = em.v(a.indices)?;
    let idx = clamp_indices(em, &idx, &[x.shape[axis]]);
    let shape = em.shape(out)?;
    let ty = x.ty;
    let inputs = vec![("x", In::V(x)), ("indices", In::V(idx)), ("axis", In::Int(axis as i64))];
    let r = em.op("gather_along_axis", inputs, ty, shape);
    em.bind(out, r)
}

pub fn gather_nd(em: &mut Em, a: &GatherNd, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let idx = em.v(a.indices)?;
    let k = *idx.shape.last().unwrap_or(&0);
    let idx = clamp_indices(em, &idx, &x.shape[..k]);
    let shape = em.shape(out)?;
    let ty = x.ty;
    let r = em.op("gather_nd", vec![("x", In::V(x)), ("indices", In::V(idx))], ty, shape);
    em.bind(out, r)
}

pub fn scatter_elements(em: &mut Em, a: &ScatterElements, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let u = em.v(a.updates)?;
    let u = em.arith(&u);
    let axis = a.options.axis as usize;
    let idx = em.v(a.indices)?;
    let idx = clamp_indices(em, &idx, &[x.shape[axis]]);
    let (ty, shape) = (x.ty, x.shape.clone());
    let inputs = vec![
        ("data", In::V(x)),
        ("indices", In::V(idx)),
        ("updates", In::V(u)),
        ("axis", In::Int(axis as i64)),
        ("mode", In::Str("update")),
    ];
    let r = em.op("scatter_along_axis", inputs, ty, shape);
    em.bind(out, r)
}

pub fn scatter_nd(em: &mut Em, a: &ScatterNd, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let u = em.v(a.updates)?;
    let u = em.arith(&u);
    let idx = em.v(a.indices)?;
    let k = *idx.shape.last().unwrap_or(&0);
    let idx = clamp_indices(em, &idx, &x.shape[..k]);
    let (ty, shape) = (x.ty, x.shape.clone());
    let inputs = vec![("data", In::V(x)), ("indices", In::V(idx)), ("updates", In::V(u)), ("mode", In::Str("update"))];
    let r = em.op("scatter_nd", inputs, ty, shape);
    em.bind(out, r)
}
