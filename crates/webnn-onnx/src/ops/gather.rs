//! gather, gatherElements, gatherND, scatterElements, scatterND. Indices are data: a
//! negative index counts from the end and an index out of range is clamped into it (the
//! spec leaves that implementation-defined and suggests clamping), where ONNX Runtime would
//! fail the run.

use crate::emit::{attr_i, held, Em};
use webnn_core::ops::{Gather, GatherNd, ScatterElements, ScatterNd};
use webnn_core::{DataType, Operand, Result};

const I64: DataType = DataType::Int64;

/// Indices as int64 with negatives wrapped and the rest clamped to `0..n`, `n` a 0-D or
/// 1-D (per last-axis component) int64 value.
fn normalize(em: &mut Em, indices: Operand, sizes: &[i64]) -> Result<String> {
    let idx = em.input_as(indices, I64)?;
    let n = if sizes.len() == 1 {
        em.scalar_int(I64, sizes[0] as i128)
    } else {
        em.i64s(sizes)
    };
    let zero = em.scalar_int(I64, 0);
    let one = em.scalar_int(I64, 1);
    let neg = em.node("Less", &[&idx, &zero], vec![]);
    let wrapped = em.node("Add", &[&idx, &n], vec![]);
    let idx = em.node("Where", &[&neg, &wrapped, &idx], vec![]);
    let last = em.node("Sub", &[&n, &one], vec![]);
    let idx = em.extreme(true, &idx, &zero, I64);
    Ok(em.extreme(false, &idx, &last, I64))
}

pub fn gather(em: &mut Em, a: &Gather, out: Operand, elements: bool) -> Result<()> {
    let axis = a.options.axis as usize;
    let n = em.shape(a.input)?[axis] as i64;
    let idx = normalize(em, a.indices, &[n])?;
    let x = em.v(a.input)?;
    let op = if elements { "GatherElements" } else { "Gather" };
    let y = em.node(op, &[&x, &idx], vec![attr_i("axis", axis as i64)]);
    let dt = em.dt(a.input);
    em.output_from(out, y, held(dt))
}

/// The sizes of the input axes the last index axis addresses.
fn nd_sizes(em: &Em, input: Operand, indices: Operand) -> Result<Vec<i64>> {
    let in_shape = em.shape(input)?;
    let k = *em.shape(indices)?.last().unwrap_or(&0) as usize;
    Ok(in_shape.iter().take(k).map(|&n| n as i64).collect())
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
    let n = em.shape(a.input)?[axis] as i64;
    let idx = normalize(em, a.indices, &[n])?;
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
