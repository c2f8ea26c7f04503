//! Dictionary members the spec dropped that frameworks still pass, given their old meaning
//! where WebIDL alone would ignore them: `autoPad` of conv2d and the pooling ops (2022 spec:
//! "explicit", "same-upper", "same-lower"), resolved to explicit padding from the shapes.

use crate::args::Opts;
use webnn_core::ops::{Conv2dOptions, InputLayout, Pool2dOptions};
use webnn_core::{GraphBuilder, Operand, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AutoPad {
    Explicit,
    SameUpper,
    SameLower,
}

const AUTO_PAD: &[(&str, AutoPad)] =
    &[("explicit", AutoPad::Explicit), ("same-upper", AutoPad::SameUpper), ("same-lower", AutoPad::SameLower)];

/// `[begin, end]` padding so the output has ceil(n / stride) positions; the odd unit goes
/// after for same-upper, before for same-lower.
fn same(n: u32, window: u32, stride: u32, dilation: u32, mode: AutoPad) -> [u32; 2] {
    let stride = stride.max(1);
    let out = n.div_ceil(stride) as u64;
    let extent = (window.max(1) as u64 - 1) * dilation.max(1) as u64 + 1;
    let total = ((out.saturating_sub(1)) * stride as u64 + extent).saturating_sub(n as u64) as u32;
    match mode {
        AutoPad::SameLower => [total.div_ceil(2), total / 2],
        AutoPad::SameUpper | AutoPad::Explicit => [total / 2, total.div_ceil(2)],
    }
}

/// The spatial sizes (height, width) of `o` in `layout`, when it is a static 4-D operand.
fn spatial(b: &GraphBuilder, o: Operand, layout: InputLayout) -> Option<[u32; 2]> {
    let d = b.desc(o).ok()?;
    let s = d.static_shape().filter(|s| s.len() == 4)?;
    let axes = layout.nchw_axes();
    Some([s[axes[2]], s[axes[3]]])
}

fn padding(sizes: [u32; 2], window: [u32; 2], strides: &Option<Vec<u32>>, dilations: &Option<Vec<u32>>, mode: AutoPad) -> Vec<u32> {
    let at = |v: &Option<Vec<u32>>, i: usize| v.as_ref().and_then(|v| v.get(i).copied()).unwrap_or(1);
    let [t, b] = same(sizes[0], window[0], at(strides, 0), at(dilations, 0), mode);
    let [l, r] = same(sizes[1], window[1], at(strides, 1), at(dilations, 1), mode);
    vec![t, b, l, r]
}

fn mode(o: &Opts) -> Result<Option<AutoPad>> {
    Ok(o.enum_value("autoPad", AUTO_PAD)?.filter(|m| *m != AutoPad::Explicit))
}

/// conv2d's `autoPad` (when no explicit padding is given).
pub fn conv2d(b: &GraphBuilder, o: &Opts, input: Operand, filter: Operand, options: &mut Conv2dOptions) -> Result<()> {
    let Some(m) = mode(o)? else { return Ok(()) };
    let f = b.desc(filter).ok().and_then(|d| d.static_shape()).filter(|s| s.len() == 4);
    if let (None, Some(sizes), Some(f)) = (&options.padding, spatial(b, input, options.input_layout), f) {
        let axes = options.filter_layout.oihw_axes();
        options.padding = Some(padding(sizes, [f[axes[2]], f[axes[3]]], &options.strides, &options.dilations, m));
    }
    Ok(())
}

/// The pooling ops' `autoPad`; the window defaults to the whole input as the spec says.
pub fn pool2d(b: &GraphBuilder, o: &Opts, input: Operand, options: &mut Pool2dOptions) -> Result<()> {
    let Some(m) = mode(o)? else { return Ok(()) };
    if let (None, Some(sizes)) = (&options.padding, spatial(b, input, options.layout)) {
        let window = match options.window_dimensions.as_deref() {
            Some([h, w]) => [*h, *w],
            _ => sizes,
        };
        options.padding = Some(padding(sizes, window, &options.strides, &options.dilations, m));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_padding_as_onnx_and_tflite() {
        assert_eq!(same(224, 3, 2, 1, AutoPad::SameUpper), [0, 1]);
        assert_eq!(same(224, 3, 2, 1, AutoPad::SameLower), [1, 0]);
        assert_eq!(same(5, 3, 1, 1, AutoPad::SameUpper), [1, 1]);
        assert_eq!(same(5, 3, 1, 2, AutoPad::SameUpper), [2, 2]);
        assert_eq!(same(7, 4, 3, 1, AutoPad::SameUpper), [1, 2]);
    }
}
