//! batchNormalization, instanceNormalization, layerNormalization.

use super::common::{axes_or_all, check_axis, same_type, Ctx};
use crate::error::{Error, Result};
use crate::graph::Operand;
use crate::ops::*;
use crate::shape::{Dim, OperandDescriptor};

/// Checks a 1-D per-feature operand (`mean`, `variance`, `scale`, `bias`): its table slot,
/// the input's data type, and a shape of exactly « `size` ».
fn check_per_feature(
    cx: &Ctx,
    slot: &str,
    o: Operand,
    input: &OperandDescriptor,
    size: &Dim,
) -> Result<()> {
    let d = cx.check(slot, o)?;
    same_type("input", input, slot, d)?;
    if d.shape.as_slice() != std::slice::from_ref(size) {
        return Err(Error::type_error(format!(
            "{slot} shape {} is not [{size}]",
            d.shape_string()
        )));
    }
    Ok(())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm>
pub(super) fn batch_normalization(cx: &Ctx, op: &BatchNormalization) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let axis = check_axis(op.options.axis, input.rank())?;
    let size = &input.shape[axis];
    check_per_feature(cx, "mean", op.mean, input, size)?;
    check_per_feature(cx, "variance", op.variance, input, size)?;
    if let Some(scale) = op.options.scale {
        check_per_feature(cx, "scale", scale, input, size)?;
    }
    if let Some(bias) = op.options.bias {
        check_per_feature(cx, "bias", bias, input, size)?;
    }
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm>: scale and bias have the
/// size of the channel axis (1 for nchw, 3 for nhwc).
pub(super) fn instance_normalization(
    cx: &Ctx,
    op: &InstanceNormalization,
) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let axis = match op.options.layout {
        InputLayout::Nchw => 1,
        InputLayout::Nhwc => 3,
    };
    let size = &input.shape[axis];
    if let Some(scale) = op.options.scale {
        check_per_feature(cx, "scale", scale, input, size)?;
    }
    if let Some(bias) = op.options.bias {
        check_per_feature(cx, "bias", bias, input, size)?;
    }
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm>: absent `axes` mean every axis
/// but the first; scale and bias have the input's sizes at `axes`, in `axes` order.
pub(super) fn layer_normalization(cx: &Ctx, op: &LayerNormalization) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let rank = input.rank();
    let axes: Vec<usize> = match &op.options.axes {
        None => (1..rank).collect(),
        Some(axes) => axes_or_all(Some(axes), rank)?,
    };
    for (slot, o) in [("scale", op.options.scale), ("bias", op.options.bias)] {
        let Some(o) = o else { continue };
        let d = cx.check(slot, o)?;
        same_type("input", input, slot, d)?;
        if d.rank() != axes.len() {
            return Err(Error::type_error(format!(
                "{slot} rank {} is not the number of axes {}",
                d.rank(),
                axes.len()
            )));
        }
        for (i, &a) in axes.iter().enumerate() {
            if d.shape[i] != input.shape[a] {
                return Err(Error::type_error(format!(
                    "{slot} shape {} does not match the input's sizes at axes {axes:?} (dimension {i} is {}, input dimension {a} is {})",
                    d.shape_string(),
                    d.shape[i],
                    input.shape[a]
                )));
            }
        }
    }
    Ok(input.clone())
}
