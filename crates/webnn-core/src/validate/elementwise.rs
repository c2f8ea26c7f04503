//! Element-wise ops, cast, clamp, prelu and the activations that keep their input's shape.

use super::common::{broadcast, desc, same_type, Ctx};
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::graph::Operand;
use crate::ops::{Binary, Cast, Clamp, MLNumber, Prelu};
use crate::shape::OperandDescriptor;

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary>
pub(super) fn binary(cx: &Ctx, op: &Binary) -> Result<OperandDescriptor> {
    let a = cx.check("a", op.a)?;
    let b = cx.check("b", op.b)?;
    same_type("a", a, "b", b)?;
    let out = desc(a.data_type, broadcast(a, b)?);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical>: comparisons and logical
/// and/or/xor; the output is uint8.
pub(super) fn logical_binary(cx: &Ctx, op: &Binary) -> Result<OperandDescriptor> {
    let a = cx.check("a", op.a)?;
    let b = cx.check("b", op.b)?;
    same_type("a", a, "b", b)?;
    Ok(desc(DataType::Uint8, broadcast(a, b)?))
}

/// logicalNot, isNaN, isInfinite: uint8 output of the input's shape.
pub(super) fn logical_unary(cx: &Ctx, op: &crate::ops::Unary) -> Result<OperandDescriptor> {
    let a = cx.check("a", op.input)?;
    Ok(a.with_type(DataType::Uint8))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary> and the shape-preserving
/// activations: the output has the input's descriptor.
pub(super) fn unary(cx: &Ctx, input: Operand) -> Result<OperandDescriptor> {
    Ok(cx.check("input", input)?.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast>
pub(super) fn cast(cx: &Ctx, op: &Cast) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let out = input.with_type(op.data_type);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp>: minValue must not exceed
/// maxValue (NaN bounds are rejected too).
pub(super) fn clamp(cx: &Ctx, op: &Clamp) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let min = op.options.min_value.map(MLNumber::as_f64);
    let max = op.options.max_value.map(MLNumber::as_f64);
    for (name, v) in [("minValue", min), ("maxValue", max)] {
        if v.is_some_and(f64::is_nan) {
            return Err(Error::type_error(format!("{name} must not be NaN")));
        }
    }
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(Error::type_error(format!("minValue {lo} is greater than maxValue {hi}")));
        }
    }
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-prelu>: slope broadcasts to input
/// (unidirectionally).
pub(super) fn prelu(cx: &Ctx, op: &Prelu) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let slope = cx.check("slope", op.slope)?;
    same_type("input", input, "slope", slope)?;
    if crate::shape::broadcast_shapes(&input.shape, &slope.shape, false).is_none() {
        return Err(Error::type_error(format!(
            "slope shape {} is not broadcastable to input shape {}",
            slope.shape_string(),
            input.shape_string()
        )));
    }
    Ok(input.clone())
}
