//! Reductions, arg min/max, cumulative sum and softmax.

use super::common::{axes_or_all, check_axis, desc, Ctx};
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::{Dim, OperandDescriptor};

/// <https://www.w3.org/TR/webnn/#mlgraphbuilder-calculate-reduction-output-sizes>: absent
/// `axes` reduce every axis; reduced axes are dropped, or kept with size 1. Only the reduced
/// dimensions disappear, so dynamic dimensions pass through unchanged.
fn reduction_output_shape(
    shape: &[Dim],
    axes: Option<&[u32]>,
    keep_dimensions: bool,
) -> Result<Vec<Dim>> {
    let axes = axes_or_all(axes, shape.len())?;
    let mut reduced = vec![false; shape.len()];
    for a in axes {
        reduced[a] = true;
    }
    Ok(shape
        .iter()
        .zip(&reduced)
        .filter_map(|(d, &r)| match (r, keep_dimensions) {
            (false, _) => Some(d.clone()),
            (true, true) => Some(Dim::Static(1)),
            (true, false) => None,
        })
        .collect())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method>
pub(super) fn softmax(cx: &Ctx, op: &Softmax) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    check_axis(op.axis, input.rank())?;
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax>
pub(super) fn arg_min_max(cx: &Ctx, op: &ArgMinMax) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let axis = check_axis(op.axis, input.rank())?;
    let out_type = op.options.output_data_type;
    let allowed = cx.slot("output").data_types;
    if !allowed.contains(out_type) {
        return Err(Error::type_error(format!(
            "outputDataType {out_type} is not one of {allowed}"
        )));
    }
    // Every index must be representable; a dynamic dimension is checked at its bound.
    let max_index: u64 = match out_type {
        DataType::Int32 => i32::MAX as u64,
        _ => i64::MAX as u64,
    };
    let size = input.shape[axis].max_size() as u64;
    if size > max_index {
        return Err(Error::type_error(format!(
            "input dimension {axis} of size {size} exceeds the largest {out_type} value {max_index}"
        )));
    }
    let shape = reduction_output_shape(&input.shape, Some(&[op.axis]), op.options.keep_dimensions)?;
    let out = desc(out_type, shape);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum>
pub(super) fn cumulative_sum(cx: &Ctx, op: &CumulativeSum) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    check_axis(op.axis, input.rank())?;
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce>: the allowed input types per
/// reduction are the op table's rows.
pub(super) fn reduce(cx: &Ctx, op: &Reduce) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let shape = reduction_output_shape(
        &input.shape,
        op.options.axes.as_deref(),
        op.options.keep_dimensions,
    )?;
    let out = desc(input.data_type, shape);
    cx.check_desc("output", &out)?;
    Ok(out)
}
