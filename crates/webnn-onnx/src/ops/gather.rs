//! gather, gatherElements, gatherND, scatterElements, scatterND. Indices are data: a
//! negative index counts from the end and an index out of range is clamped into it (the
//! spec leaves that implementation-defined and suggests clamping), where ONNX Runtime would
//! fail the run.

use crate::emit::{attr_i, held, Em};
use webnn_core::ops::{Gather, GatherNd, ScatterElements, ScatterNd};
use webnn_core::{DataType, Operand, Result};

const I64: DataType = DataType::Int64;

/// Indices as int64 with negatives wrapped and the rest clamped to `0..n`, `n` an int64
/// value: 0-D, or 1-D with one size per component of the last index axis.
fn normalize(em: &mut Em, indices: Operand, n: &str) -> Result<String> {
    let idx = em.input_as(indices, I64)?;
    let zero = em.scalar_int(I64, 0);
    let one = em.scalar_int(I64, 1);
    let neg = em.node("Less", &[&idx, &zero], vec![]);
    let wrapped = em.node("Add", &[&idx, n], vec![]);
    let idx = em.node("Where", &[&neg, &wrapped, &idx], vec![]);
    let last = em.node("Sub", &[n, &one], vec![]);
    let idx = em.extreme(true, &idx, &zero, I64);
    Ok(em.extreme(false, &idx, &last, I64))
}

/// The size of `input`'s dimension `axis` as a 0-D int64 value.
fn axis_size(em: &mut Em, input: Operand, axis: usize) -> Result<String> {
    let d = em.dims(input)[axis].clone();
    em.dim_scalar(&d)
}

pub fn gather(em: &mut Em, a: &Gather, out: Operand, elements: bool) -> Result<()> {
    let axis = a.options.axis as usize;
    let n = axis_size(em, a.input, axis)?;
    let idx = normalize(em, a.indices, &n)?;
    let x = em.v(a.input)?;
    let op = if elements { "GatherElements" } else { "Gather" };
    let y = em.node(op, &[&x, &idx], vec![attr_i("axis", axis as i64)]);
    let dt = em.dt(a.input);
    em.output_from(out, y, held(dt))
}

/// The sizes of the input axes the last index axis addresses, as a 1-D int64 value.
fn nd_sizes(em: &mut Em, input: Operand, indices: Operand) -> Result<String> {
    let k = em.static_dim(indices, em.rank(indices) - 1)? as usize;
    let dims = em.dims(input);
    em.shape_value(&dims[..k.min(dims.len())])
}

pub fn gather_nd(em: &mut Em, a: &GatherNd, out: Operand) -> Result<()> {
    let sizes = nd_sizes(em, a.input, a.indices)?;
    let idx = normalize(em, a.indices, &sizes)?;
    let x = em.v(a.input)?;
    let y = em.node("GatherND", &[&x, &idx], vec![]);
    let dt = em.dt(a.input);
    em.output_from(out, y, held(dt))
}

pub fn scatter_elements(em: &mut Em, a: &ScatterElements, out: Operand) -> Result<()> {
    let axis = a.options.axis as usize;
    let n = axis_size(em, a.input, axis)?;
    let idx = normalize(em, a.indices, &n)?;
    let (x, u) = (em.v(a.input)?, em.v(a.updates)?);
    let y = em.node(
        "ScatterElements",
        &[&x, &idx, &u],
        vec![attr_i("axis", axis as i64)],
    );
    let dt = em.dt(a.input);
    em.output_from(out, y, held(dt))
}

pub fn scatter_nd(em: &mut Em, a: &ScatterNd, out: Operand) -> Result<()> {
    let sizes = nd_sizes(em, a.input, a.indices)?;
    let idx = normalize(em, a.indices, &sizes)?;
    let (x, u) = (em.v(a.input)?, em.v(a.updates)?);
    let y = em.node("ScatterND", &[&x, &idx, &u], vec![]);
    let dt = em.dt(a.input);
    em.output_from(out, y, held(dt))
}
