//! quantizeLinear and dequantizeLinear.

use super::common::{same_type, Ctx};
use crate::error::{Error, Result};
use crate::ops::QuantizeLinear;
use crate::shape::{Dim, OperandDescriptor};

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear>
pub(super) fn quantize_linear(cx: &Ctx, op: &QuantizeLinear) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let scale = cx.check("scale", op.scale)?;
    same_type("input", input, "scale", scale)?;
    let zero_point = cx.check("zeroPoint", op.zero_point)?;
    check_shapes(input, scale, zero_point)?;
    let out = input.with_type(zero_point.data_type);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear>
pub(super) fn dequantize_linear(cx: &Ctx, op: &QuantizeLinear) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let scale = cx.check("scale", op.scale)?;
    let zero_point = cx.check("zeroPoint", op.zero_point)?;
    same_type("input", input, "zeroPoint", zero_point)?;
    check_shapes(input, scale, zero_point)?;
    let out = input.with_type(scale.data_type);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// The shape steps both ops share: scale and zeroPoint have the input's rank and one shape,
/// and that shape is blockwise broadcastable to the input's.
fn check_shapes(
    input: &OperandDescriptor,
    scale: &OperandDescriptor,
    zero_point: &OperandDescriptor,
) -> Result<()> {
    // The spec asks for scale and zeroPoint of the input's rank. The WPT vectors this project
    // is tested against (and the implementations they were written for) also accept a lower
    // rank, aligned to the trailing axes like broadcasting; we accept it too, as an extension,
    // since it only adds graphs that have one obvious meaning.
    for (name, d) in [("scale", scale), ("zeroPoint", zero_point)] {
        if d.rank() > input.rank() {
            return Err(Error::type_error(format!(
                "{name} rank {} is greater than the input rank {}",
                d.rank(),
                input.rank()
            )));
        }
    }
    if scale.shape != zero_point.shape {
        return Err(Error::type_error(format!(
            "zeroPoint shape {} is not the scale shape {}",
            zero_point.shape_string(),
            scale.shape_string()
        )));
    }
    blockwise_broadcastable("scale", scale, input)
}

/// <https://www.w3.org/TR/webnn/#blockwise-broadcasting>: every dimension of `from` divides
/// the input's (trailing-aligned). A size-1 dimension and a dimension equal to the input's (dynamic ones
/// included) always do; otherwise both sizes are needed as numbers.
fn blockwise_broadcastable(
    name: &str,
    from: &OperandDescriptor,
    input: &OperandDescriptor,
) -> Result<()> {
    let offset = input.rank() - from.rank();
    for (f, t) in from.shape.iter().zip(&input.shape[offset..]) {
        if *f == Dim::Static(1) || f == t {
            continue;
        }
        let (Some(f), Some(t)) = (f.as_static(), t.as_static()) else {
            return Err(Error::not_supported(format!(
                "{name} shape {} against input shape {}: blockwise broadcasting a dynamic dimension needs \
                 a size-1 or identical dimension",
                from.shape_string(),
                input.shape_string()
            )));
        };
        // Dimensions are positive (checked when operands are created); a zero would fail here.
        if t.checked_rem(f) != Some(0) {
            return Err(Error::type_error(format!(
                "{name} shape {} is not blockwise broadcastable to input shape {}: {f} does not divide {t}",
                from.shape_string(),
                input.shape_string()
            )));
        }
    }
    Ok(())
}
