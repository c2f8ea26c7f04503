//! gather, gatherElements, gatherND, scatterElements, scatterND.
//!
//! Index values are data, so the builder cannot check their range; backends clamp them.

use super::common::{check_axis, desc, same_type, Ctx};
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::{Dim, OperandDescriptor};

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather>: the output shape is
/// `input[..axis] ++ indices ++ input[axis+1..]`.
pub(super) fn gather(cx: &Ctx, op: &Gather) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let indices = cx.check("indices", op.indices)?;
    let axis = check_axis(op.options.axis, input.rank())?;
    let mut shape: Vec<Dim> = input.shape[..axis].to_vec();
    shape.extend(indices.shape.iter().cloned());
    shape.extend(input.shape[axis + 1..].iter().cloned());
    // The spec's table lists output ranks from 1, but its own steps (and WPT) give a 0-D
    // output for a 1-D input and 0-D indices, so only the rank limit is checked here.
    let out = desc(input.data_type, shape);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements>: indices have the
/// input's shape except along `axis`; the output has the indices' shape.
pub(super) fn gather_elements(cx: &Ctx, op: &Gather) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let indices = cx.check("indices", op.indices)?;
    if indices.rank() != input.rank() {
        return Err(Error::type_error(format!(
            "indices rank {} is not the input rank {}",
            indices.rank(),
            input.rank()
        )));
    }
    let axis = check_axis(op.options.axis, input.rank())?;
    check_shape_but_axis("indices", indices, input, axis)?;
    // The spec says "copy input", but its examples (and WPT) give the indices' shape.
    Ok(desc(input.data_type, indices.shape.clone()))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd>: the output shape is
/// `indices[..-1] ++ input[indices[-1]..]`.
pub(super) fn gather_nd(cx: &Ctx, op: &GatherNd) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let indices = cx.check("indices", op.indices)?;
    let coordinate_size = coordinate_size(input, indices)?;
    let out = desc(
        input.data_type,
        nd_slices_shape(input, indices, coordinate_size),
    );
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements>: indices and updates
/// share a shape that is the input's except along `axis`; the output is the input's.
pub(super) fn scatter_elements(cx: &Ctx, op: &ScatterElements) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let indices = cx.check("indices", op.indices)?;
    let updates = cx.check("updates", op.updates)?;
    same_type("input", input, "updates", updates)?;
    for (what, d) in [("indices", indices), ("updates", updates)] {
        if d.rank() != input.rank() {
            return Err(Error::type_error(format!(
                "{what} rank {} is not the input rank {}",
                d.rank(),
                input.rank()
            )));
        }
    }
    let axis = check_axis(op.options.axis, input.rank())?;
    check_shape_but_axis("indices", indices, input, axis)?;
    if updates.shape != indices.shape {
        return Err(Error::type_error(format!(
            "updates shape {} is not the indices shape {}",
            updates.shape_string(),
            indices.shape_string()
        )));
    }
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd>: updates have the shape
/// `indices[..-1] ++ input[indices[-1]..]`; the output is the input's.
pub(super) fn scatter_nd(cx: &Ctx, op: &ScatterNd) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let indices = cx.check("indices", op.indices)?;
    let updates = cx.check("updates", op.updates)?;
    same_type("input", input, "updates", updates)?;
    let coordinate_size = coordinate_size(input, indices)?;
    let expected = nd_slices_shape(input, indices, coordinate_size);
    if updates.shape != expected {
        let expected = desc(updates.data_type, expected);
        return Err(Error::type_error(format!(
            "updates shape {} is not the expected {}",
            updates.shape_string(),
            expected.shape_string()
        )));
    }
    Ok(input.clone())
}

/// TypeError unless `d`'s shape equals the input's at every axis but `axis`.
fn check_shape_but_axis(
    what: &str,
    d: &OperandDescriptor,
    input: &OperandDescriptor,
    axis: usize,
) -> Result<()> {
    let mut expected = input.shape.clone();
    expected[axis] = d.shape[axis].clone();
    if d.shape != expected {
        return Err(Error::type_error(format!(
            "{what} shape {} must equal the input shape {} except along axis {axis}",
            d.shape_string(),
            input.shape_string()
        )));
    }
    Ok(())
}

/// gatherND/scatterND: the last dimension of indices (the coordinate length), at most the
/// input rank. Indices have rank >= 1 (checked by the table).
fn coordinate_size(input: &OperandDescriptor, indices: &OperandDescriptor) -> Result<usize> {
    let last = indices.shape.last().cloned().unwrap_or(Dim::Static(1));
    let Some(n) = last.as_static() else {
        return Err(Error::not_supported(format!(
            "the last dimension of indices must be static, got {}",
            indices.shape_string()
        )));
    };
    if n as usize > input.rank() {
        return Err(Error::type_error(format!(
            "indices.shape[-1] = {n} is greater than the input rank {}",
            input.rank()
        )));
    }
    Ok(n as usize)
}

/// `indices[..-1] ++ input[coordinate_size..]`.
fn nd_slices_shape(
    input: &OperandDescriptor,
    indices: &OperandDescriptor,
    coordinate_size: usize,
) -> Vec<Dim> {
    let mut shape: Vec<Dim> = indices.shape[..indices.rank().saturating_sub(1)].to_vec();
    shape.extend(input.shape[coordinate_size..].iter().cloned());
    shape
}
