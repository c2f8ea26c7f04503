//! conv2d, convTranspose2d, matmul and gemm, plus the window arithmetic pooling shares.

use super::common::{desc, same_type, Ctx};
use crate::error::{Error, Result};
use crate::graph::Operand;
use crate::ops::*;
use crate::shape::{broadcast_shapes, Dim, OperandDescriptor};

/// The largest <https://www.w3.org/TR/webnn/#valid-dimension>: the range of IDL `long`.
const MAX_VALID_DIMENSION: i128 = i32::MAX as i128;

/// `n` as a dimension if it is a valid dimension (positive, within `long`).
pub(super) fn valid_dimension(what: &str, n: i128) -> Result<u32> {
    if n <= 0 || n > MAX_VALID_DIMENSION {
        return Err(Error::type_error(format!("{what} = {n} is not a valid dimension (1..={MAX_VALID_DIMENSION})")));
    }
    Ok(n as u32)
}

/// The option list `name`, which must have `len` items, or `len` copies of `default`.
pub(super) fn list_or(name: &str, v: Option<&Vec<u32>>, len: usize, default: u32) -> Result<Vec<u32>> {
    match v {
        None => Ok(vec![default; len]),
        Some(v) if v.len() == len => Ok(v.clone()),
        Some(v) => Err(Error::type_error(format!("{name} must have {len} items, got {}", v.len()))),
    }
}

/// TypeError if any item of `name` is 0.
pub(super) fn nonzero(name: &str, v: &[u32]) -> Result<()> {
    if v.contains(&0) {
        return Err(Error::type_error(format!("{name} must be greater than 0, got {v:?}")));
    }
    Ok(())
}

/// Dimension `i` of `d` as a number (NotSupportedError if it is dynamic).
pub(super) fn static_dim(d: &OperandDescriptor, i: usize, what: &str) -> Result<u32> {
    d.shape[i].as_static().ok_or_else(|| {
        Error::not_supported(format!("{what} must have a static size, got {} in {}", d.shape[i], d.shape_string()))
    })
}

/// `(filterSize - 1) * dilation + 1`, exact.
pub(super) fn effective_size(filter: u32, dilation: u32) -> i128 {
    (filter as i128 - 1) * dilation as i128 + 1
}

/// The numerator of <https://www.w3.org/TR/webnn/#mlgraphbuilder-calculate-conv-output-size>:
/// the output size is `numerator / stride + 1` (a rational number the caller rounds).
/// Exact in i128 for every u32 input, so nothing can overflow.
pub(super) fn conv_numerator(input: u32, filter: u32, pad_begin: u32, pad_end: u32, dilation: u32) -> i128 {
    input as i128 - effective_size(filter, dilation) + pad_begin as i128 + pad_end as i128
}

/// floor(numerator / stride) + 1.
pub(super) fn floor_size(numerator: i128, stride: u32) -> i128 {
    numerator.div_euclid(stride as i128) + 1
}

/// ceil(numerator / stride) + 1.
pub(super) fn ceil_size(numerator: i128, stride: u32) -> i128 {
    -(-numerator).div_euclid(stride as i128) + 1
}

/// Spatial options shared by conv2d, convTranspose2d and pooling after defaults and checks.
pub(super) struct Window {
    pub padding: Vec<u32>,
    pub strides: Vec<u32>,
    pub dilations: Vec<u32>,
}

/// Padding (4 items, default 0), strides and dilations (2 items each, default 1, nonzero).
pub(super) fn window(
    padding: Option<&Vec<u32>>,
    strides: Option<&Vec<u32>>,
    dilations: Option<&Vec<u32>>,
) -> Result<Window> {
    let padding = list_or("padding", padding, 4, 0)?;
    let strides = list_or("strides", strides, 2, 1)?;
    nonzero("strides", &strides)?;
    let dilations = list_or("dilations", dilations, 2, 1)?;
    nonzero("dilations", &dilations)?;
    Ok(Window { padding, strides, dilations })
}

/// Batch (kept as a `Dim`), channels, height and width of a 4-D input in `layout`.
pub(super) fn split_input(input: &OperandDescriptor, layout: InputLayout) -> Result<(Dim, u32, u32, u32)> {
    let (c, h, w) = match layout {
        InputLayout::Nchw => (1, 2, 3),
        InputLayout::Nhwc => (3, 1, 2),
    };
    Ok((
        input.shape[0].clone(),
        static_dim(input, c, "the input channel dimension")?,
        static_dim(input, h, "the input height")?,
        static_dim(input, w, "the input width")?,
    ))
}

/// The 4-D output shape in `layout`.
pub(super) fn join_output(layout: InputLayout, batch: Dim, channels: Dim, h: u32, w: u32) -> Vec<Dim> {
    match layout {
        InputLayout::Nchw => vec![batch, channels, Dim::Static(h), Dim::Static(w)],
        InputLayout::Nhwc => vec![batch, Dim::Static(h), Dim::Static(w), channels],
    }
}

/// TypeError unless the bias is `[outputChannels]` of the input's type.
fn check_bias(cx: &Ctx, bias: Option<Operand>, input: &OperandDescriptor, channels: u32) -> Result<()> {
    if let Some(b) = bias {
        let b = cx.check("bias", b)?;
        if b.shape != [Dim::Static(channels)] {
            return Err(Error::type_error(format!(
                "bias shape {} must be [{channels}] (the output channels)",
                b.shape_string()
            )));
        }
        same_type("input", input, "bias", b)?;
    }
    Ok(())
}

/// The first steps of conv2d and convTranspose2d: input and filter of one data type, then
/// padding, strides and dilations.
fn conv_operands<'a>(
    cx: &Ctx<'a>,
    input: Operand,
    filter: Operand,
    [padding, strides, dilations]: [Option<&Vec<u32>>; 3],
) -> Result<(&'a OperandDescriptor, &'a OperandDescriptor, Window)> {
    let input = cx.check("input", input)?;
    let filter = cx.check("filter", filter)?;
    same_type("input", input, "filter", filter)?;
    Ok((input, filter, window(padding, strides, dilations)?))
}

/// TypeError if groups is 0.
fn check_groups(groups: u32) -> Result<()> {
    if groups == 0 {
        return Err(Error::type_error("groups must be greater than 0"));
    }
    Ok(())
}

/// The last steps of conv2d and convTranspose2d: the output height and width must be valid
/// dimensions; the output is `[batch, channels, height, width]` in `layout`.
fn conv_output(
    cx: &Ctx,
    input: &OperandDescriptor,
    layout: InputLayout,
    batch: Dim,
    channels: u32,
    [out_h, out_w]: [i128; 2],
) -> Result<OperandDescriptor> {
    let out_h = valid_dimension("output height", out_h)?;
    let out_w = valid_dimension("output width", out_w)?;
    let out = desc(input.data_type, join_output(layout, batch, Dim::Static(channels), out_h, out_w));
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d>
pub(super) fn conv2d(cx: &Ctx, op: &Conv2d) -> Result<OperandDescriptor> {
    let o = &op.options;
    let window_options = [o.padding.as_ref(), o.strides.as_ref(), o.dilations.as_ref()];
    let (input, filter, win) = conv_operands(cx, op.input, op.filter, window_options)?;
    check_groups(o.groups)?;
    let (batch, in_channels, in_h, in_w) = split_input(input, o.input_layout)?;
    let f = filter.require_static("filter")?;
    let (out_channels, filter_in, fh, fw) = match o.filter_layout {
        Conv2dFilterLayout::Oihw => (f[0], f[1], f[2], f[3]),
        Conv2dFilterLayout::Hwio => (f[3], f[2], f[0], f[1]),
        Conv2dFilterLayout::Ohwi => (f[0], f[3], f[1], f[2]),
        Conv2dFilterLayout::Ihwo => (f[3], f[0], f[1], f[2]),
    };
    if in_channels % o.groups != 0 {
        return Err(Error::type_error(format!(
            "input channels {in_channels} are not divisible by groups {}",
            o.groups
        )));
    }
    if in_channels / o.groups != filter_in {
        return Err(Error::type_error(format!(
            "input channels / groups = {} must equal the filter's input channels {filter_in}",
            in_channels / o.groups
        )));
    }
    if out_channels % o.groups != 0 {
        return Err(Error::type_error(format!(
            "output channels {out_channels} are not divisible by groups {}",
            o.groups
        )));
    }
    check_bias(cx, o.bias, input, out_channels)?;
    let (p, s, d) = (&win.padding, &win.strides, &win.dilations);
    let out_h = floor_size(conv_numerator(in_h, fh, p[0], p[1], d[0]), s[0]);
    let out_w = floor_size(conv_numerator(in_w, fw, p[2], p[3], d[1]), s[1]);
    conv_output(cx, input, o.input_layout, batch, out_channels, [out_h, out_w])
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d>
pub(super) fn conv_transpose2d(cx: &Ctx, op: &ConvTranspose2d) -> Result<OperandDescriptor> {
    let o = &op.options;
    let window_options = [o.padding.as_ref(), o.strides.as_ref(), o.dilations.as_ref()];
    let (input, filter, win) = conv_operands(cx, op.input, op.filter, window_options)?;
    let (p, s, d) = (&win.padding, &win.strides, &win.dilations);
    let output_padding = list_or("outputPadding", o.output_padding.as_ref(), 2, 0)?;
    match &o.output_sizes {
        Some(sizes) if sizes.len() != 2 => {
            return Err(Error::type_error(format!("outputSizes must have 2 items, got {}", sizes.len())));
        }
        Some(_) => {}
        None => {
            if output_padding[0] >= s[0] || output_padding[1] >= s[1] {
                return Err(Error::type_error(format!(
                    "outputPadding {output_padding:?} must be smaller than strides {s:?}"
                )));
            }
        }
    }
    check_groups(o.groups)?;
    let (batch, in_channels, in_h, in_w) = split_input(input, o.input_layout)?;
    let f = filter.require_static("filter")?;
    let (filter_in, filter_out, fh, fw) = match o.filter_layout {
        ConvTranspose2dFilterLayout::Iohw => (f[0], f[1], f[2], f[3]),
        ConvTranspose2dFilterLayout::Hwoi => (f[3], f[2], f[0], f[1]),
        ConvTranspose2dFilterLayout::Ohwi => (f[3], f[0], f[1], f[2]),
    };
    if in_channels != filter_in {
        return Err(Error::type_error(format!(
            "input channels {in_channels} must equal the filter's input channels {filter_in}"
        )));
    }
    let out_channels = valid_dimension("output channels", filter_out as i128 * o.groups as i128)?;
    check_bias(cx, o.bias, input, out_channels)?;
    // (inputSize - 1) * stride + effectiveFilterSize - beginningPadding - endingPadding, exact.
    let calc = |size: u32, filter: u32, begin: u32, end: u32, stride: u32, dilation: u32| -> i128 {
        (size as i128 - 1) * stride as i128 + effective_size(filter, dilation) - begin as i128 - end as i128
    };
    let calc_h = calc(in_h, fh, p[0], p[1], s[0], d[0]);
    let calc_w = calc(in_w, fw, p[2], p[3], s[1], d[1]);
    let (out_h, out_w) = match &o.output_sizes {
        Some(sizes) => {
            for (what, size, calc, stride) in [("height", sizes[0], calc_h, s[0]), ("width", sizes[1], calc_w, s[1])] {
                let size = size as i128;
                if size < calc || size >= calc + stride as i128 {
                    return Err(Error::type_error(format!(
                        "output {what} {size} must be in [{calc}, {}) (the computed size plus less than the stride)",
                        calc + stride as i128
                    )));
                }
            }
            (sizes[0] as i128, sizes[1] as i128)
        }
        None => (calc_h + output_padding[0] as i128, calc_w + output_padding[1] as i128),
    };
    conv_output(cx, input, o.input_layout, batch, out_channels, [out_h, out_w])
}

/// TypeError unless two dimensions that must agree do (NotSupportedError when only a dynamic
/// size could tell).
fn same_dim(what: &str, a: &Dim, b: &Dim) -> Result<()> {
    if a == b {
        Ok(())
    } else if a.is_dynamic() || b.is_dynamic() {
        Err(Error::not_supported(format!("{what}: {a} and {b} must be static or the same named dimension")))
    } else {
        Err(Error::type_error(format!("{what}: {a} != {b}")))
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul>
pub(super) fn matmul(cx: &Ctx, op: &Binary) -> Result<OperandDescriptor> {
    let a = cx.check("a", op.a)?;
    let b = cx.check("b", op.b)?;
    same_type("a", a, "b", b)?;
    let (ra, rb) = (a.rank(), b.rank());
    let (rows_a, cols_a) = (&a.shape[ra - 2], &a.shape[ra - 1]);
    let (rows_b, cols_b) = (&b.shape[rb - 2], &b.shape[rb - 1]);
    same_dim("the columns of a must equal the rows of b", cols_a, rows_b)?;
    let mut shape = broadcast_shapes(&a.shape[..ra - 2], &b.shape[..rb - 2], true).ok_or_else(|| {
        Error::type_error(format!(
            "the batch dimensions of {} and {} are not broadcastable",
            a.shape_string(),
            b.shape_string()
        ))
    })?;
    shape.push(rows_a.clone());
    shape.push(cols_b.clone());
    let out = desc(a.data_type, shape);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm>
pub(super) fn gemm(cx: &Ctx, op: &Gemm) -> Result<OperandDescriptor> {
    let o = &op.options;
    let a = cx.check("a", op.a)?;
    let b = cx.check("b", op.b)?;
    same_type("a", a, "b", b)?;
    let mut shape_a = a.shape.clone();
    let mut shape_b = b.shape.clone();
    if o.a_transpose {
        shape_a.reverse();
    }
    if o.b_transpose {
        shape_b.reverse();
    }
    same_dim("the K dimensions of a and b must agree", &shape_a[1], &shape_b[0])?;
    let out_shape = vec![shape_a[0].clone(), shape_b[1].clone()];
    if let Some(c) = o.c {
        let c = cx.check("c", c)?;
        if broadcast_shapes(&out_shape, &c.shape, false).is_none() {
            return Err(Error::type_error(format!(
                "c shape {} is not unidirectionally broadcastable to [{}, {}]",
                c.shape_string(),
                out_shape[0],
                out_shape[1]
            )));
        }
        same_type("a", a, "c", c)?;
    }
    let out = desc(a.data_type, out_shape);
    cx.check_desc("output", &out)?;
    Ok(out)
}
