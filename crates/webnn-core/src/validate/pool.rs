//! Pooling and resample2d.

use super::common::{desc, Ctx};
use super::conv::{
    ceil_size, conv_numerator, floor_size, join_output, list_or, nonzero, static_dim,
    valid_dimension,
};
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::{Dim, OperandDescriptor};

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d> (averagePool2d, l2Pool2d and
/// maxPool2d; the op table gives each its data types).
///
/// Two steps of the spec's algorithm are not applied, because they contradict its own
/// `outputSizes` semantics and every WPT vector: padding is kept when `outputSizes` is given
/// (the spec resets it to zeros), and `outputSizes` items are not required to be smaller
/// than the strides.
pub(super) fn pool2d(cx: &Ctx, op: &Pool2d) -> Result<OperandDescriptor> {
    let o = &op.options;
    let input = cx.check("input", op.input)?;
    // Batch and channels pass through; the window arithmetic needs the spatial sizes.
    let (c, h, w) = match o.layout {
        InputLayout::Nchw => (1, 2, 3),
        InputLayout::Nhwc => (3, 1, 2),
    };
    let (batch, channels) = (input.shape[0].clone(), input.shape[c].clone());
    let in_h = static_dim(input, h, "the input height")?;
    let in_w = static_dim(input, w, "the input width")?;
    let window = match &o.window_dimensions {
        None => vec![in_h, in_w],
        Some(_) => list_or("windowDimensions", o.window_dimensions.as_ref(), 2, 0)?,
    };
    nonzero("windowDimensions", &window)?;
    let padding = list_or("padding", o.padding.as_ref(), 4, 0)?;
    let strides = list_or("strides", o.strides.as_ref(), 2, 1)?;
    nonzero("strides", &strides)?;
    if let Some(sizes) = &o.output_sizes {
        if sizes.len() != 2 {
            return Err(Error::type_error(format!(
                "outputSizes must have 2 items, got {}",
                sizes.len()
            )));
        }
    }
    let dilations = list_or("dilations", o.dilations.as_ref(), 2, 1)?;
    nonzero("dilations", &dilations)?;
    let num_h = conv_numerator(in_h, window[0], padding[0], padding[1], dilations[0]);
    let num_w = conv_numerator(in_w, window[1], padding[2], padding[3], dilations[1]);
    let floor = (floor_size(num_h, strides[0]), floor_size(num_w, strides[1]));
    let ceil = (ceil_size(num_h, strides[0]), ceil_size(num_w, strides[1]));
    let (out_h, out_w) = match &o.output_sizes {
        Some(sizes) => {
            let want = (sizes[0] as i128, sizes[1] as i128);
            if want != floor && want != ceil {
                return Err(Error::type_error(format!(
                    "outputSizes {sizes:?} must be the floor {:?} or the ceiling {:?} of the computed sizes",
                    [floor.0, floor.1],
                    [ceil.0, ceil.1]
                )));
            }
            want
        }
        None => match o.output_shape_rounding {
            RoundingType::Floor => floor,
            RoundingType::Ceil => ceil,
        },
    };
    let out_h = valid_dimension("output height", out_h)?;
    let out_w = valid_dimension("output width", out_w)?;
    Ok(desc(
        input.data_type,
        join_output(o.layout, batch, channels, out_h, out_w),
    ))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method>
pub(super) fn resample2d(cx: &Ctx, op: &Resample2d) -> Result<OperandDescriptor> {
    let o = &op.options;
    let input = cx.check("input", op.input)?;
    let scales = match &o.scales {
        None => vec![1.0f32, 1.0],
        Some(s) => {
            // NaN is rejected too: it is not greater than 0.
            if s.len() != 2 || s.iter().any(|&x| x.is_nan() || x <= 0.0) {
                return Err(Error::type_error(format!(
                    "scales must be 2 values greater than 0, got {s:?}"
                )));
            }
            s.clone()
        }
    };
    if let Some(sizes) = &o.sizes {
        if sizes.len() != 2 {
            return Err(Error::type_error(format!(
                "sizes must have 2 items, got {}",
                sizes.len()
            )));
        }
        nonzero("sizes", sizes)?;
    }
    let axes = match &o.axes {
        None => vec![2u32, 3],
        Some(axes) => {
            // The spec indexes axes with the two sizes/scales, so it needs exactly two.
            if axes.len() != 2 {
                return Err(Error::type_error(format!(
                    "axes must have 2 items, got {}",
                    axes.len()
                )));
            }
            if axes[0] == axes[1] {
                return Err(Error::type_error(format!("axes {axes:?} must be distinct")));
            }
            if let Some(a) = axes.iter().find(|&&a| a as usize >= input.rank()) {
                return Err(Error::type_error(format!(
                    "axis {a} is out of range for rank {}",
                    input.rank()
                )));
            }
            axes.clone()
        }
    };
    let mut shape = input.shape.clone();
    for (index, &axis) in axes.iter().enumerate() {
        let axis = axis as usize;
        let size = match &o.sizes {
            Some(sizes) => sizes[index] as i128,
            None => {
                let n = static_dim(input, axis, "a resampled dimension")?;
                let v = (n as f64 * scales[index] as f64).floor();
                // Saturating float-to-int conversion; anything that large is invalid below.
                if v.is_finite() {
                    v as i128
                } else {
                    i128::MAX
                }
            }
        };
        shape[axis] = Dim::Static(valid_dimension(
            &format!("output size of axis {axis}"),
            size,
        )?);
    }
    Ok(desc(input.data_type, shape))
}
