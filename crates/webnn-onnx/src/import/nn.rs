//! Convolutions, pooling, normalizations, matrix products, softmax and resize: ops whose
//! ONNX attributes map onto WebNN options, with 1-D spatial forms run as 2-D ones.

use super::node::{Args, OnnxNode};
use super::tensor::axis;
use super::{one, Cx, Value};
use webnn_core::ops::*;
use webnn_core::{Dim, Error, Operand, Result};

pub(crate) fn lower(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    match n.op_type.as_str() {
        "Conv" => conv(cx, n, a, false),
        "ConvTranspose" => conv(cx, n, a, true),
        "MaxPool" | "AveragePool" | "LpPool" => pool(cx, n, a),
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => {
            let shape = cx.shape(a.req(0)?)?;
            let rank = shape.len();
            let x = a.op(cx, 0)?;
            if rank == 4 && n.op_type != "GlobalLpPool" {
                // A pool with the whole plane as its window: backends run pools on the
                // layout they keep (a reduction may need the logical one).
                let options = Pool2dOptions { label: cx.label.clone(), window_dimensions: Some(vec![shape[2], shape[3]]), ..Default::default() };
                let y = if n.op_type == "GlobalAveragePool" { cx.b.average_pool2d(x, options)? } else { cx.b.max_pool2d(x, options)? };
                return one(y);
            }
            let options = ReduceOptions { label: cx.label.clone(), axes: Some((2..rank as u32).collect()), keep_dimensions: true };
            let y = match n.op_type.as_str() {
                "GlobalAveragePool" => cx.b.reduce_mean(x, options)?,
                "GlobalMaxPool" => cx.b.reduce_max(x, options)?,
                _ if n.i("p", 2) == 2 => cx.b.reduce_l2(x, options)?,
                _ if n.i("p", 2) == 1 => cx.b.reduce_l1(x, options)?,
                _ => return Err(n.unsupported(format!("p = {}", n.i("p", 2)))),
            };
            one(y)
        }
        "BatchNormalization" => {
            if n.i("training_mode", 0) != 0 || n.outputs.iter().skip(1).any(|o| !o.is_empty()) {
                return Err(n.unsupported("training mode (running statistics as outputs)"));
            }
            let x = a.op(cx, 0)?;
            let (scale, bias, mean, var) = (a.op(cx, 1)?, a.op(cx, 2)?, a.op(cx, 3)?, a.op(cx, 4)?);
            let options = BatchNormalizationOptions {
                label: cx.label.clone(),
                scale: Some(scale),
                bias: Some(bias),
                axis: 1,
                epsilon: n.f("epsilon", 1e-5) as f64,
            };
            one(cx.b.batch_normalization(x, mean, var, options)?)
        }
        "InstanceNormalization" => {
            let shape = cx.shape(a.req(0)?)?;
            let mut x = a.op(cx, 0)?;
            let (scale, bias) = (a.op(cx, 1)?, a.op(cx, 2)?);
            // WebNN's instanceNormalization is 4-D: other ranks fold their spatial axes.
            let four = shape.len() != 4;
            if four {
                let spatial: u32 = shape[2..].iter().product();
                x = cx.b.reshape(x, vec![Dim::Static(shape[0]), Dim::Static(shape[1]), Dim::Static(spatial), Dim::Static(1)], cx.o())?;
            }
            let options = InstanceNormalizationOptions {
                label: cx.label.clone(),
                scale: Some(scale),
                bias: Some(bias),
                epsilon: n.f("epsilon", 1e-5) as f64,
                layout: InputLayout::Nchw,
            };
            let mut y = cx.b.instance_normalization(x, options)?;
            if four {
                y = cx.b.reshape(y, shape.iter().map(|&d| Dim::Static(d)).collect(), cx.o())?;
            }
            one(y)
        }
        "LayerNormalization" => {
            if n.outputs.iter().skip(1).any(|o| !o.is_empty()) {
                return Err(n.unsupported("the Mean and InvStdDev outputs"));
            }
            let rank = cx.rank(a.req(0)?)?;
            let first = axis(n.i("axis", -1), rank)? as u32;
            let x = a.op(cx, 0)?;
            let scale = a.opt_op(cx, 1)?;
            let bias = a.opt_op(cx, 2)?;
            let options = LayerNormalizationOptions {
                label: cx.label.clone(),
                scale,
                bias,
                axes: Some((first..rank as u32).collect()),
                epsilon: n.f("epsilon", 1e-5) as f64,
            };
            one(cx.b.layer_normalization(x, options)?)
        }
        "Gemm" => {
            let (x, w) = (a.op(cx, 0)?, a.op(cx, 1)?);
            let c = a.opt_op(cx, 2)?;
            let options = GemmOptions {
                label: cx.label.clone(),
                c,
                alpha: n.f("alpha", 1.0) as f64,
                beta: n.f("beta", 1.0) as f64,
                a_transpose: n.i("transA", 0) != 0,
                b_transpose: n.i("transB", 0) != 0,
            };
            one(cx.b.gemm(x, w, options)?)
        }
        "MatMul" => matmul(cx, a),
        "LRN" => lrn(cx, n, a),
        "Softmax" | "LogSoftmax" => softmax(cx, n, a),
        "Resize" | "Upsample" => resize(cx, n, a),
        _ => Ok(None),
    }
}

fn matmul(cx: &mut Cx, a: &Args) -> Result<Option<Vec<Value>>> {
    let (sa, sb) = (cx.shape(a.req(0)?)?, cx.shape(a.req(1)?)?);
    let (mut x, mut w) = (a.op(cx, 0)?, a.op(cx, 1)?);
    // ONNX (numpy) matmul takes 1-D operands as a row or a column that is then dropped.
    if sa.len() == 1 {
        x = cx.b.reshape(x, vec![Dim::Static(1), Dim::Static(sa[0])], cx.o())?;
    }
    if sb.len() == 1 {
        w = cx.b.reshape(w, vec![Dim::Static(sb[0]), Dim::Static(1)], cx.o())?;
    }
    let y = cx.b.matmul(x, w, cx.o())?;
    if sa.len() > 1 && sb.len() > 1 {
        return one(y);
    }
    let mut out = cx.b.desc(y)?.shape.clone();
    if sb.len() == 1 {
        out.pop();
    }
    if sa.len() == 1 {
        out.remove(out.len() - 1 - usize::from(sb.len() != 1));
    }
    one(cx.b.reshape(y, out, cx.o())?)
}

/// Explicit [begin_h, end_h, begin_w, end_w] padding from ONNX's pads or auto_pad.
fn padding(n: &OnnxNode, input: [u32; 2], window: [u32; 2], strides: [u32; 2], dilations: [u32; 2]) -> Result<[u32; 4]> {
    let auto = n.s("auto_pad", "NOTSET");
    match auto.as_str() {
        "NOTSET" => {
            let p = n.ints("pads").unwrap_or_else(|| vec![0; 4]);
            if p.len() != 4 || p.iter().any(|&v| v < 0) {
                return Err(Error::type_error(format!("pads {p:?} are not four non-negative sizes")));
            }
            Ok([p[0] as u32, p[2] as u32, p[1] as u32, p[3] as u32])
        }
        "VALID" => Ok([0; 4]),
        "SAME_UPPER" | "SAME_LOWER" => {
            let mut out = [0u32; 4];
            for i in 0..2 {
                let effective = (window[i] - 1) * dilations[i] + 1;
                let size = input[i].div_ceil(strides[i]);
                let total = ((size - 1) * strides[i] + effective).saturating_sub(input[i]);
                let small = total / 2;
                let (b, e) = if auto == "SAME_UPPER" { (small, total - small) } else { (total - small, small) };
                out[2 * i] = b;
                out[2 * i + 1] = e;
            }
            Ok(out)
        }
        other => Err(n.unsupported(format!("auto_pad '{other}'"))),
    }
}

fn pair(n: &OnnxNode, name: &str, spatial: usize) -> Result<[u32; 2]> {
    match n.ints(name) {
        None => Ok([1, 1]),
        Some(v) if v.len() == spatial && v.iter().all(|&x| x > 0) => Ok(if spatial == 1 { [1, v[0] as u32] } else { [v[0] as u32, v[1] as u32] }),
        Some(v) => Err(Error::type_error(format!("{name} {v:?} do not fit {spatial} spatial axes"))),
    }
}

/// 1-D spatial ops run on [N, C, 1, L]: their per-axis attributes gain a leading entry.
fn widen_1d(n: &OnnxNode, name: &str, spatial: usize) -> Option<Vec<i64>> {
    let v = n.ints(name)?;
    // Per-axis lists have one entry per spatial axis (pads two); a list of another length is
    // passed on as it is, for the caller's length check to refuse.
    let per_axis = if name == "pads" { 2 * spatial } else { spatial };
    if spatial == 2 || v.len() != per_axis {
        return Some(v);
    }
    Some(match name {
        "pads" => vec![0, v[0], 0, v[1]],
        "output_padding" => vec![0, v[0]],
        "output_shape" => vec![1, v[0]],
        _ => vec![1, v[0]],
    })
}

fn to_4d(cx: &mut Cx, x: Operand, shape: &[u32]) -> Result<Operand> {
    let mut dims: Vec<Dim> = shape.iter().map(|&d| Dim::Static(d)).collect();
    dims.insert(2, Dim::Static(1));
    cx.b.reshape(x, dims, cx.o())
}

fn conv(cx: &mut Cx, n: &OnnxNode, a: &Args, transpose: bool) -> Result<Option<Vec<Value>>> {
    let xs = cx.shape(a.req(0)?)?;
    let ws = cx.shape(a.req(1)?)?;
    let spatial = xs.len().saturating_sub(2);
    if !(1..=2).contains(&spatial) {
        return Err(n.unsupported(format!("a {spatial}-D convolution (WebNN convolves 2-D)")));
    }
    if ws.len() != xs.len() {
        return Err(Error::type_error(format!("the weights have rank {}, the input {}", ws.len(), xs.len())));
    }
    let (mut x, mut w) = (a.op(cx, 0)?, a.op(cx, 1)?);
    if spatial == 1 {
        x = to_4d(cx, x, &xs)?;
        w = to_4d(cx, w, &ws)?;
    }
    let bias = a.opt_op(cx, 2)?;
    let x4 = cx.b.desc(x)?.static_shape().unwrap_or_default();
    let w4 = cx.b.desc(w)?.static_shape().unwrap_or_default();
    let strides = pair(n, "strides", spatial)?;
    let dilations = pair(n, "dilations", spatial)?;
    let window = [w4[2], w4[3]];
    let groups = n.i("group", 1) as u32;
    let attr = |name: &str| widen_1d(n, name, spatial);
    let y = if !transpose {
        let pads = padding_with(n, attr("pads"), [x4[2], x4[3]], window, strides, dilations)?;
        let options = Conv2dOptions {
            label: cx.label.clone(),
            padding: Some(pads.to_vec()),
            strides: Some(strides.to_vec()),
            dilations: Some(dilations.to_vec()),
            groups,
            bias,
            ..Default::default()
        };
        cx.b.conv2d(x, w, options)?
    } else {
        let out_pad = attr("output_padding").unwrap_or_else(|| vec![0, 0]);
        let output_shape = attr("output_shape");
        if out_pad.len() != 2 || out_pad.iter().any(|&p| p < 0) || output_shape.as_ref().is_some_and(|s| s.len() < 2) {
            return Err(Error::type_error("output_padding and output_shape need one size per spatial axis"));
        }
        let out_pad = [out_pad[0] as u32, out_pad[1] as u32];
        let mut pads = [0u32; 4];
        let auto = n.s("auto_pad", "NOTSET");
        if output_shape.is_some() || auto.starts_with("SAME") {
            for i in 0..2 {
                let natural = strides[i] * (x4[2 + i] - 1) + out_pad[i] + (window[i] - 1) * dilations[i] + 1;
                let wanted = match &output_shape {
                    Some(s) => s[s.len() - 2 + i] as u32,
                    None => x4[2 + i] * strides[i],
                };
                let total = natural.checked_sub(wanted).ok_or_else(|| Error::type_error(format!("output_shape {wanted} exceeds what the input gives")))?;
                let (b, e) = if auto == "SAME_UPPER" { (total / 2, total - total / 2) } else { (total - total / 2, total / 2) };
                pads[2 * i] = b;
                pads[2 * i + 1] = e;
            }
        } else if auto == "NOTSET" {
            let p = attr("pads").unwrap_or_else(|| vec![0; 4]);
            if p.len() != 4 || p.iter().any(|&v| v < 0) {
                return Err(Error::type_error(format!("pads {p:?} are not four non-negative sizes")));
            }
            pads = [p[0] as u32, p[2] as u32, p[1] as u32, p[3] as u32];
        } else if auto != "VALID" {
            return Err(n.unsupported(format!("auto_pad '{auto}'")));
        }
        let options = ConvTranspose2dOptions {
            label: cx.label.clone(),
            padding: Some(pads.to_vec()),
            strides: Some(strides.to_vec()),
            dilations: Some(dilations.to_vec()),
            output_padding: Some(out_pad.to_vec()),
            groups,
            bias,
            ..Default::default()
        };
        cx.b.conv_transpose2d(x, w, options)?
    };
    if spatial == 1 {
        let mut dims = cx.b.desc(y)?.shape.clone();
        dims.remove(2);
        return one(cx.b.reshape(y, dims, cx.o())?);
    }
    one(y)
}

fn padding_with(n: &OnnxNode, pads: Option<Vec<i64>>, input: [u32; 2], window: [u32; 2], strides: [u32; 2], dilations: [u32; 2]) -> Result<[u32; 4]> {
    if n.s("auto_pad", "NOTSET") == "NOTSET" {
        let p = pads.unwrap_or_else(|| vec![0; 4]);
        if p.len() != 4 || p.iter().any(|&v| v < 0) {
            return Err(Error::type_error(format!("pads {p:?} are not four non-negative sizes")));
        }
        return Ok([p[0] as u32, p[2] as u32, p[1] as u32, p[3] as u32]);
    }
    padding(n, input, window, strides, dilations)
}

fn pool(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    if n.outputs.iter().skip(1).any(|o| !o.is_empty()) {
        return Err(n.unsupported("the Indices output of MaxPool"));
    }
    let xs = cx.shape(a.req(0)?)?;
    let spatial = xs.len().saturating_sub(2);
    if !(1..=2).contains(&spatial) {
        return Err(n.unsupported(format!("{spatial}-D pooling (WebNN pools 2-D)")));
    }
    let mut x = a.op(cx, 0)?;
    if spatial == 1 {
        x = to_4d(cx, x, &xs)?;
    }
    let x4 = cx.b.desc(x)?.static_shape().unwrap_or_default();
    let kernel = widen_1d(n, "kernel_shape", spatial).ok_or_else(|| Error::type_error("kernel_shape is required"))?;
    if kernel.len() != 2 || kernel.iter().any(|&k| k < 1) {
        return Err(Error::type_error(format!("kernel_shape {kernel:?} does not give a positive size per spatial axis")));
    }
    let window = [kernel[0] as u32, kernel[1] as u32];
    let strides = pair(n, "strides", spatial)?;
    let dilations = pair(n, "dilations", spatial)?;
    let mut pads = padding_with(n, widen_1d(n, "pads", spatial), [x4[2], x4[3]], window, strides, dilations)?;
    let ceil = n.i("ceil_mode", 0) != 0;
    // ONNX's output size; with ceil_mode a window must start inside the input or its
    // leading padding (as ONNX Runtime computes it).
    let mut sizes = [0u32; 2];
    for i in 0..2 {
        let padded = (x4[2 + i] + pads[2 * i] + pads[2 * i + 1]) as i64;
        let effective = ((window[i] - 1) * dilations[i] + 1) as i64;
        let span = padded - effective;
        if span < 0 {
            return Err(Error::type_error(format!("the window {effective} exceeds the padded input {padded}")));
        }
        let s = strides[i] as i64;
        let mut out = if ceil { (span + s - 1) / s + 1 } else { span / s + 1 };
        if ceil && (out - 1) * s >= x4[2 + i] as i64 + pads[2 * i] as i64 {
            out -= 1;
        }
        sizes[i] = out as u32;
    }
    let avg = n.op_type == "AveragePool";
    if avg && n.i("count_include_pad", 0) != 0 && pads.iter().any(|&p| p > 0) {
        // WebNN averages over the input elements only: padding that counts is made real.
        let rank = 4;
        let mut begin = vec![0u32; rank];
        let mut end = vec![0u32; rank];
        (begin[2], end[2], begin[3], end[3]) = (pads[0], pads[1], pads[2], pads[3]);
        x = cx.b.pad(x, begin, end, PadOptions { label: cx.label.clone(), ..Default::default() })?;
        pads = [0; 4];
    }
    let options = Pool2dOptions {
        label: cx.label.clone(),
        window_dimensions: Some(window.to_vec()),
        padding: Some(pads.to_vec()),
        strides: Some(strides.to_vec()),
        dilations: Some(dilations.to_vec()),
        layout: InputLayout::Nchw,
        output_shape_rounding: RoundingType::Floor,
        output_sizes: Some(sizes.to_vec()),
    };
    let y = match n.op_type.as_str() {
        "MaxPool" => {
            if n.i("storage_order", 0) != 0 {
                return Err(n.unsupported("storage_order 1"));
            }
            cx.b.max_pool2d(x, options)?
        }
        "AveragePool" => cx.b.average_pool2d(x, options)?,
        _ if n.i("p", 2) == 2 => cx.b.l2_pool2d(x, options)?,
        _ => return Err(n.unsupported(format!("LpPool with p = {}", n.i("p", 2)))),
    };
    if spatial == 1 {
        let mut dims = cx.b.desc(y)?.shape.clone();
        dims.remove(2);
        return one(cx.b.reshape(y, dims, cx.o())?);
    }
    one(y)
}

fn softmax(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let shape = cx.shape(a.req(0)?)?;
    let rank = shape.len();
    let log = n.op_type == "LogSoftmax";
    let x = a.op(cx, 0)?;
    let default_axis = if n.opset >= 13 { -1 } else { 1 };
    let ax = axis(n.i("axis", default_axis), rank)?;
    let apply = |cx: &mut Cx, x: Operand, ax: u32| -> Result<Operand> {
        if log {
            // x - max - log(sum(exp(x - max))), stable for large inputs.
            let o = cx.o();
            let keep = ReduceOptions { label: cx.label.clone(), axes: Some(vec![ax]), keep_dimensions: true };
            let m = cx.b.reduce_max(x, keep.clone())?;
            let shifted = cx.b.sub(x, m, o.clone())?;
            let lse = cx.b.reduce_log_sum_exp(shifted, keep)?;
            cx.b.sub(shifted, lse, o)
        } else {
            cx.b.softmax(x, ax, cx.o())
        }
    };
    if n.opset >= 13 || ax == rank - 1 {
        return one(apply(cx, x, ax as u32)?);
    }
    // Before opset 13 the input is read as a matrix [prod(..axis), prod(axis..)].
    let lead: u32 = shape[..ax].iter().product();
    let rest: u32 = shape[ax..].iter().product();
    let m = cx.b.reshape(x, vec![Dim::Static(lead), Dim::Static(rest)], cx.o())?;
    let y = apply(cx, m, 1)?;
    one(cx.b.reshape(y, shape.iter().map(|&d| Dim::Static(d)).collect(), cx.o())?)
}

fn resize(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let shape = cx.shape(a.req(0)?)?;
    let rank = shape.len();
    // Opset 10 (and Upsample) take the scales second; from 11 they come after the roi.
    let (scales, sizes) = if n.op_type == "Upsample" || n.opset < 11 {
        (a.host(1, "the scales")?.map(|h| h.floats()), None)
    } else {
        (a.host(2, "the scales")?.map(|h| h.floats()), a.ints(3, "the sizes")?)
    };
    let axes: Vec<usize> = match n.ints("axes") {
        Some(ax) => ax.iter().map(|&x| axis(x, rank)).collect::<Result<_>>()?,
        None => (0..rank).collect(),
    };
    let mut out = shape.clone();
    match (sizes.filter(|s| !s.is_empty()), scales.filter(|s| !s.is_empty())) {
        (Some(s), _) => {
            if n.s("keep_aspect_ratio_policy", "stretch") != "stretch" {
                return Err(n.unsupported("keep_aspect_ratio_policy other than 'stretch'"));
            }
            for (k, &ax) in axes.iter().enumerate() {
                out[ax] = *s.get(k).ok_or_else(|| Error::type_error("fewer sizes than axes"))? as u32;
            }
        }
        (None, Some(sc)) => {
            for (k, &ax) in axes.iter().enumerate() {
                let f = *sc.get(k).ok_or_else(|| Error::type_error("fewer scales than axes"))?;
                out[ax] = (shape[ax] as f64 * f).floor() as u32;
            }
        }
        (None, None) => return Err(Error::type_error("neither scales nor sizes are given")),
    }
    let changed: Vec<usize> = (0..rank).filter(|&i| out[i] != shape[i]).collect();
    let x = a.op(cx, 0)?;
    if changed.is_empty() {
        return one(cx.b.identity(x, cx.o())?);
    }
    if rank != 4 || changed.len() > 2 {
        return Err(n.unsupported(format!("resizing axes {changed:?} of a rank-{rank} tensor (WebNN resamples two axes of a 4-D one)")));
    }
    let mut two = changed.clone();
    if two.len() == 1 {
        let other = if two[0] == 3 { 2 } else { two[0] + 1 };
        two.push(other);
        two.sort_unstable();
    }
    if two[1] != two[0] + 1 {
        return Err(n.unsupported(format!("resizing the axes {two:?}, which are not adjacent")));
    }
    let mode = n.s("mode", "nearest");
    let default_ct = if n.opset >= 11 { "half_pixel" } else { "asymmetric" };
    let ct = n.s("coordinate_transformation_mode", default_ct);
    let nearest = n.s("nearest_mode", "round_prefer_floor");
    let integer_upscale = changed.iter().all(|&i| out[i] % shape[i] == 0);
    let mode = match (mode.as_str(), ct.as_str()) {
        ("linear", "half_pixel") => InterpolationMode::Linear,
        ("linear", "pytorch_half_pixel") if changed.iter().all(|&i| out[i] > 1) => InterpolationMode::Linear,
        ("nearest", "half_pixel") if nearest == "round_prefer_floor" => InterpolationMode::NearestNeighbor,
        // At a whole-number upscale every output picks the same source pixel either way.
        ("nearest", "asymmetric") if nearest == "floor" && integer_upscale => InterpolationMode::NearestNeighbor,
        (m, t) => {
            return Err(n.unsupported(format!(
                "mode '{m}' with coordinate_transformation_mode '{t}' and nearest_mode '{nearest}' (WebNN resamples with half-pixel centres)"
            )))
        }
    };
    if n.i("antialias", 0) != 0 && changed.iter().any(|&i| out[i] < shape[i]) {
        return Err(n.unsupported("antialiased downscaling"));
    }
    let options = Resample2dOptions {
        label: cx.label.clone(),
        mode,
        scales: None,
        sizes: Some(vec![out[two[0]], out[two[1]]]),
        axes: Some(vec![two[0] as u32, two[1] as u32]),
    };
    one(cx.b.resample2d(x, options)?)
}

/// Local response normalization across channels, from WebNN primitives:
/// y = x / (bias + alpha / size * sum of x^2 over `size` neighbouring channels)^beta.
/// The sum is an average pool over the zero-padded channel axis, times the window.
fn lrn(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let shape = cx.shape(a.req(0)?)?;
    if shape.len() < 3 {
        return Err(Error::type_error(format!("LRN needs an input of rank 3 or more, got {}", shape.len())));
    }
    let size = n.i("size", 0);
    if size < 1 {
        return Err(Error::type_error("LRN's size must be positive"));
    }
    let size = size as u32;
    let (alpha, beta, bias) = (n.f("alpha", 1e-4) as f64, n.f("beta", 0.75) as f64, n.f("bias", 1.0) as f64);
    let x = a.op(cx, 0)?;
    let dt = cx.b.desc(x)?.data_type;
    let o = cx.o();
    let (batch, channels) = (shape[0], shape[1]);
    let spatial: u32 = shape[2..].iter().product();
    let sq = cx.b.mul(x, x, o.clone())?;
    let sq = cx.b.reshape(sq, vec![Dim::Static(batch), Dim::Static(1), Dim::Static(channels), Dim::Static(spatial)], o.clone())?;
    let before = (size - 1) / 2;
    let after = size - 1 - before;
    let padded = cx.b.pad(sq, vec![0, 0, before, 0], vec![0, 0, after, 0], PadOptions { label: cx.label.clone(), ..Default::default() })?;
    let pool = Pool2dOptions { label: cx.label.clone(), window_dimensions: Some(vec![size, 1]), ..Default::default() };
    let mean = cx.b.average_pool2d(padded, pool)?;
    let mean = cx.b.reshape(mean, shape.iter().map(|&d| Dim::Static(d)).collect(), o.clone())?;
    let denom = cx.b.linear(mean, LinearOptions { label: cx.label.clone(), alpha, beta: bias })?;
    let exponent = cx.scalar(dt, beta)?;
    let denom = cx.b.pow(denom, exponent, o.clone())?;
    one(cx.b.div(x, denom, o)?)
}
