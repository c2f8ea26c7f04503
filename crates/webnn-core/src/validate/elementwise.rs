//! Element-wise ops, cast, clamp, prelu and the activations that keep their input's shape.

use super::common::{broadcast, desc, same_type, Ctx};
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::graph::Operand;
use crate::ops::{Binary, Cast, Clamp, Elu, HardSigmoid, LeakyRelu, Linear, MLNumber, Prelu};
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

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical>: logicalNot, isNaN,
/// isInfinite; uint8 output of the input's shape.
pub(super) fn logical_unary(cx: &Ctx, op: &crate::ops::Unary) -> Result<OperandDescriptor> {
    let a = cx.check("a", op.input)?;
    Ok(a.with_type(DataType::Uint8))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary> and the shape-preserving
/// activations without options: the output has the input's descriptor.
pub(super) fn unary(cx: &Ctx, input: Operand) -> Result<OperandDescriptor> {
    Ok(cx.check("input", input)?.clone())
}

/// The IDL declares these options `double` (not `unrestricted double`), so WebIDL conversion
/// rejects NaN and infinities with a TypeError before the method steps run.
fn finite(name: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::type_error(format!(
            "{name} must be a finite number, got {v}"
        )))
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-elu>
pub(super) fn elu(cx: &Ctx, op: &Elu) -> Result<OperandDescriptor> {
    finite("alpha", op.options.alpha)?;
    unary(cx, op.input)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-hard-sigmoid>
pub(super) fn hard_sigmoid(cx: &Ctx, op: &HardSigmoid) -> Result<OperandDescriptor> {
    finite("alpha", op.options.alpha)?;
    finite("beta", op.options.beta)?;
    unary(cx, op.input)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-leakyrelu>
pub(super) fn leaky_relu(cx: &Ctx, op: &LeakyRelu) -> Result<OperandDescriptor> {
    finite("alpha", op.options.alpha)?;
    unary(cx, op.input)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-linear>
pub(super) fn linear(cx: &Ctx, op: &Linear) -> Result<OperandDescriptor> {
    finite("alpha", op.options.alpha)?;
    finite("beta", op.options.beta)?;
    unary(cx, op.input)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast>
pub(super) fn cast(cx: &Ctx, op: &Cast) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let out = input.with_type(op.data_type);
    cx.check_desc("output", &out)?;
    Ok(out)
}

// An `MLNumber` after the spec's "cast" to an operand data type: floats stay floats (NaN
// included), integers are exact.
use crate::ops::NumberCast as Casted;

/// <https://www.w3.org/TR/webnn/#algorithms-casting>
fn cast_number(v: MLNumber, data_type: DataType) -> Casted {
    v.cast(data_type)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp>: the bounds are cast to the
/// input's data type and then compared. The spec's text defaults a missing minValue to
/// Infinity and a missing maxValue to -Infinity, which would reject every call with one
/// bound; the evident intent (no limit on that side) is used instead.
pub(super) fn clamp(cx: &Ctx, op: &Clamp) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let dt = input.data_type;
    let min = cast_number(
        op.options
            .min_value
            .unwrap_or(MLNumber::Double(f64::NEG_INFINITY)),
        dt,
    );
    let max = cast_number(
        op.options
            .max_value
            .unwrap_or(MLNumber::Double(f64::INFINITY)),
        dt,
    );
    // A NaN bound compares false, as in the spec's "is greater than".
    if min > max {
        let show = |c: Casted| match c {
            Casted::Float(x) => x.to_string(),
            Casted::Int(x) => x.to_string(),
        };
        return Err(Error::type_error(format!(
            "minValue {} is greater than maxValue {} (after casting to {dt})",
            show(min),
            show(max)
        )));
    }
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-prelu>: input and slope have one data
/// type and broadcast bidirectionally; the output has the broadcast shape.
pub(super) fn prelu(cx: &Ctx, op: &Prelu) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let slope = cx.check("slope", op.slope)?;
    same_type("input", input, "slope", slope)?;
    let shape =
        crate::shape::broadcast_shapes(&slope.shape, &input.shape, true).ok_or_else(|| {
            Error::type_error(format!(
                "slope shape {} and input shape {} are not broadcastable",
                slope.shape_string(),
                input.shape_string()
            ))
        })?;
    let out = desc(input.data_type, shape);
    cx.check_desc("output", &out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casting_numbers_follows_the_spec() {
        let d = MLNumber::Double;
        assert_eq!(cast_number(d(2.5), DataType::Int32), Casted::Int(2));
        assert_eq!(cast_number(d(3.5), DataType::Int8), Casted::Int(4));
        assert_eq!(cast_number(d(-1.0), DataType::Uint8), Casted::Int(0));
        assert_eq!(cast_number(d(f64::NAN), DataType::Uint32), Casted::Int(0));
        assert_eq!(
            cast_number(d(f64::INFINITY), DataType::Int64),
            Casted::Int(i64::MAX as i128)
        );
        assert_eq!(
            cast_number(MLNumber::BigInt(1 << 70), DataType::Uint64),
            Casted::Int(u64::MAX as i128)
        );
        assert_eq!(
            cast_number(d(1e6), DataType::Float16),
            Casted::Float(f64::INFINITY)
        );
        assert_eq!(
            cast_number(d(0.1), DataType::Float32),
            Casted::Float(0.1f32 as f64)
        );
    }
}
