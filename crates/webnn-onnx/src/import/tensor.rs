//! Layout and data-movement ops: reshapes, transposes, concat/split/slice, gather, pad,
//! expand, tile, cast, and the ops that produce tensors known at import (Constant, Shape,
//! ConstantOfShape).

use super::host::{webnn_type, Host};
use super::node::{Args, OnnxNode};
use super::{one, Cx, Value};
use webnn_core::ops::{GatherOptions, PadOptions, PaddingMode, SliceOptions, SplitOptions, Splits, TransposeOptions};
use webnn_core::{DataType, Dim, Error, Result};

/// A possibly negative axis of a rank-`rank` tensor, checked.
pub(crate) fn axis(a: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if a < -r || a >= r.max(1) {
        return Err(Error::type_error(format!("axis {a} is out of range for rank {rank}")));
    }
    Ok(if a < 0 { (a + r) as usize } else { a as usize })
}

/// The axes list of a node: the `axes` attribute before `from_opset`, input `input` after.
pub(crate) fn axes_of(n: &OnnxNode, a: &Args, input: usize, from_opset: i64) -> Result<Option<Vec<i64>>> {
    if n.opset >= from_opset {
        a.ints(input, "axes")
    } else {
        Ok(n.ints("axes"))
    }
}

pub(crate) fn lower(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    match n.op_type.as_str() {
        "Identity" => Ok(Some(vec![a.req(0)?.clone()])),
        "Dropout" => {
            if n.i("training_mode", 0) != 0 || a.get(2).is_some() {
                return Err(n.unsupported("Dropout in training mode"));
            }
            // At inference Dropout passes its input through and its mask is all true.
            let x = a.req(0)?.clone();
            let shape: Vec<usize> = cx.shape(&x)?.iter().map(|&d| d as usize).collect();
            let count = shape.iter().product::<usize>();
            let mask = Host::from_ints(DataType::Uint8, shape, &vec![1; count]);
            Ok(Some(vec![x, Value::Host(mask)]))
        }
        "Reshape" => {
            let shape = a.ints(1, "the shape").and_then(|s| s.ok_or_else(|| Error::type_error("the shape input is required")))?;
            let dims = reshape_dims(cx, a.req(0)?, &shape, n.i("allowzero", 0) != 0)?;
            reshape(cx, a.req(0)?, dims)
        }
        "Flatten" => {
            let shape = cx.shape(a.req(0)?)?;
            let k = if n.i("axis", 1) == shape.len() as i64 { shape.len() } else { axis(n.i("axis", 1), shape.len())? };
            let lead: u32 = shape[..k].iter().product();
            let rest: u32 = shape[k..].iter().product();
            reshape(cx, a.req(0)?, vec![Dim::Static(lead), Dim::Static(rest)])
        }
        "Squeeze" => {
            let desc = cx.desc(a.req(0)?)?;
            let axes = axes_of(n, a, 1, 13)?;
            let rank = desc.rank();
            let drop: Vec<usize> = match axes {
                Some(ax) => ax.iter().map(|&x| axis(x, rank)).collect::<Result<_>>()?,
                None => (0..rank).filter(|&i| desc.shape[i] == Dim::Static(1)).collect(),
            };
            for &d in &drop {
                if desc.shape[d] != Dim::Static(1) {
                    return Err(Error::type_error(format!("axis {d} has size {} and cannot be squeezed", desc.shape[d])));
                }
            }
            let dims = desc.shape.iter().enumerate().filter(|(i, _)| !drop.contains(i)).map(|(_, d)| d.clone()).collect();
            reshape(cx, a.req(0)?, dims)
        }
        "Unsqueeze" => {
            let desc = cx.desc(a.req(0)?)?;
            let axes = axes_of(n, a, 1, 13)?.ok_or_else(|| Error::type_error("axes are required"))?;
            let out_rank = desc.rank() + axes.len();
            let mut ins: Vec<usize> = axes.iter().map(|&x| axis(x, out_rank)).collect::<Result<_>>()?;
            ins.sort_unstable();
            let mut src = desc.shape.iter();
            let dims = (0..out_rank)
                .map(|i| if ins.contains(&i) { Dim::Static(1) } else { src.next().cloned().unwrap_or(Dim::Static(1)) })
                .collect();
            reshape(cx, a.req(0)?, dims)
        }
        "Transpose" => {
            let rank = cx.rank(a.req(0)?)?;
            let perm = n.ints("perm").map(|p| p.iter().map(|&x| x as u32).collect::<Vec<_>>());
            let x = a.op(cx, 0)?;
            one(cx.b.transpose(x, TransposeOptions { label: cx.label.clone(), permutation: perm.or_else(|| Some((0..rank as u32).rev().collect())) })?)
        }
        "Concat" => {
            let rank = cx.rank(a.req(0)?)?;
            let ax = axis(n.i("axis", 0), rank)? as u32;
            let ops: Vec<_> = (0..a.len()).filter(|&i| a.get(i).is_some()).map(|i| a.op(cx, i)).collect::<Result<_>>()?;
            let o = cx.o();
            one(cx.b.concat(&ops, ax, o)?)
        }
        "Split" => split(cx, n, a),
        "Slice" => slice(cx, n, a),
        "Gather" => {
            let rank = cx.rank(a.req(0)?)?;
            let ax = axis(n.i("axis", 0), rank)?;
            let dim = cx.shape(a.req(0)?)?[ax] as i64;
            let x = a.op(cx, 0)?;
            let idx = indices(cx, a.req(1)?, dim)?;
            one(cx.b.gather(x, idx, GatherOptions { label: cx.label.clone(), axis: ax as u32 })?)
        }
        "Pad" => pad(cx, n, a),
        "Expand" => {
            let shape = a.ints(1, "the shape")?.ok_or_else(|| Error::type_error("the shape input is required"))?;
            let desc = cx.desc(a.req(0)?)?;
            let target: Vec<Dim> = shape.iter().map(|&d| Dim::Static(d.max(0) as u32)).collect();
            let out = webnn_core::shape::broadcast_shapes(&desc.shape, &target, true).ok_or_else(|| {
                Error::type_error(format!("shape {} does not broadcast with {shape:?}", desc.shape_string()))
            })?;
            let x = a.op(cx, 0)?;
            if out == desc.shape {
                return one(cx.b.identity(x, cx.o())?);
            }
            let o = cx.o();
            one(cx.b.expand(x, out, o)?)
        }
        "Tile" => {
            let reps = a.ints(1, "the repeats")?.ok_or_else(|| Error::type_error("the repeats input is required"))?;
            let reps = reps.iter().map(|&r| u32::try_from(r).map_err(|_| Error::type_error(format!("repeat {r} is not a positive size")))).collect::<Result<_>>()?;
            let x = a.op(cx, 0)?;
            let o = cx.o();
            one(cx.b.tile(x, reps, o)?)
        }
        "Cast" => {
            let to = webnn_type(n.i("to", 0))?;
            let bool_target = n.i("to", 0) == crate::proto::tensor_proto::DataType::Bool as i64;
            cast(cx, a.req(0)?, to, bool_target)
        }
        "CastLike" => {
            let to = a.dt(cx, 1)?;
            cast(cx, a.req(0)?, to, false)
        }
        "GatherElements" => {
            let shape = cx.shape(a.req(0)?)?;
            let ax = axis(n.i("axis", 0), shape.len())?;
            let x = a.op(cx, 0)?;
            let idx = indices(cx, a.req(1)?, shape[ax] as i64)?;
            one(cx.b.gather_elements(x, idx, GatherOptions { label: cx.label.clone(), axis: ax as u32 })?)
        }
        "GatherND" => {
            if n.i("batch_dims", 0) != 0 {
                return Err(n.unsupported("batch_dims"));
            }
            let (x, idx) = (a.op(cx, 0)?, a.op(cx, 1)?);
            let o = cx.o();
            one(cx.b.gather_nd(x, idx, o)?)
        }
        "ScatterElements" | "ScatterND" => {
            if n.s("reduction", "none") != "none" {
                return Err(n.unsupported(format!("reduction '{}'", n.s("reduction", "none"))));
            }
            let (x, idx, upd) = (a.op(cx, 0)?, a.op(cx, 1)?, a.op(cx, 2)?);
            if n.op_type == "ScatterND" {
                let o = cx.o();
                return one(cx.b.scatter_nd(x, idx, upd, o)?);
            }
            let rank = cx.rank(a.req(0)?)?;
            let ax = axis(n.i("axis", 0), rank)? as u32;
            one(cx.b.scatter_elements(x, idx, upd, webnn_core::ops::ScatterOptions { label: cx.label.clone(), axis: ax })?)
        }
        "CumSum" => {
            let rank = cx.rank(a.req(0)?)?;
            let ax = a.ints(1, "the axis")?.and_then(|v| v.first().copied()).ok_or_else(|| Error::type_error("the axis is required"))?;
            let x = a.op(cx, 0)?;
            let options = webnn_core::ops::CumulativeSumOptions {
                label: cx.label.clone(),
                exclusive: n.i("exclusive", 0) != 0,
                reversed: n.i("reverse", 0) != 0,
            };
            one(cx.b.cumulative_sum(x, axis(ax, rank)? as u32, options)?)
        }
        "Trilu" => {
            let k = a.ints(1, "k")?.and_then(|v| v.first().copied()).unwrap_or(0);
            let x = a.op(cx, 0)?;
            let diagonal = i32::try_from(k).map_err(|_| Error::type_error(format!("k {k} is out of range")))?;
            one(cx.b.triangular(x, webnn_core::ops::TriangularOptions { label: cx.label.clone(), upper: n.i("upper", 1) != 0, diagonal })?)
        }
        "DepthToSpace" | "SpaceToDepth" => {
            let s = cx.shape(a.req(0)?)?;
            let b = n.i("blocksize", 0);
            if s.len() != 4 || b < 1 {
                return Err(Error::type_error("a 4-D input and a positive blocksize are required"));
            }
            let b = b as u32;
            let [nb, c, h, w] = [s[0], s[1], s[2], s[3]];
            let (first, perm, last): (Vec<u32>, Vec<u32>, Vec<u32>) = if n.op_type == "SpaceToDepth" {
                if h % b != 0 || w % b != 0 {
                    return Err(Error::type_error(format!("the blocksize {b} does not divide {h}x{w}")));
                }
                (vec![nb, c, h / b, b, w / b, b], vec![0, 3, 5, 1, 2, 4], vec![nb, c * b * b, h / b, w / b])
            } else {
                if c % (b * b) != 0 {
                    return Err(Error::type_error(format!("the blocksize {b} squared does not divide {c} channels")));
                }
                let out = vec![nb, c / (b * b), h * b, w * b];
                match n.s("mode", "DCR").as_str() {
                    "DCR" => (vec![nb, b, b, c / (b * b), h, w], vec![0, 3, 4, 1, 5, 2], out),
                    "CRD" => (vec![nb, c / (b * b), b, b, h, w], vec![0, 1, 4, 2, 5, 3], out),
                    other => return Err(n.unsupported(format!("mode '{other}'"))),
                }
            };
            let x = a.op(cx, 0)?;
            let dims = |v: Vec<u32>| v.into_iter().map(Dim::Static).collect::<Vec<_>>();
            let o = cx.o();
            let t = cx.b.reshape(x, dims(first), o.clone())?;
            let t = cx.b.transpose(t, TransposeOptions { label: cx.label.clone(), permutation: Some(perm) })?;
            one(cx.b.reshape(t, dims(last), o)?)
        }
        "Where" => {
            let (c, t, f) = (a.op(cx, 0)?, a.op(cx, 1)?, a.op(cx, 2)?);
            let o = cx.o();
            one(cx.b.where_(c, t, f, o)?)
        }
        _ => Ok(None),
    }
}

/// A reshape target from ONNX's shape tensor: 0 copies the input's size (unless
/// `allowzero`), -1 is inferred.
pub(crate) fn reshape_dims(cx: &Cx, x: &Value, shape: &[i64], allowzero: bool) -> Result<Vec<Dim>> {
    let input = cx.shape(x)?;
    let total: u64 = input.iter().map(|&d| d as u64).product();
    let mut dims: Vec<i64> = Vec::with_capacity(shape.len());
    for (i, &s) in shape.iter().enumerate() {
        dims.push(match s {
            0 if !allowzero => *input.get(i).ok_or_else(|| Error::type_error(format!("shape entry {i} copies an axis the input lacks")))? as i64,
            s => s,
        });
    }
    let known: u64 = dims.iter().filter(|&&d| d >= 0).map(|&d| d as u64).product();
    let unknown = dims.iter().filter(|&&d| d == -1).count();
    if unknown > 1 || dims.iter().any(|&d| d < -1) {
        return Err(Error::type_error(format!("shape {shape:?} is not a valid reshape target")));
    }
    if unknown == 1 {
        if known == 0 || total % known != 0 {
            return Err(Error::type_error(format!("{total} elements cannot take the shape {shape:?}")));
        }
        let inferred = (total / known) as i64;
        dims.iter_mut().filter(|d| **d == -1).for_each(|d| *d = inferred);
    }
    Ok(dims.iter().map(|&d| Dim::Static(d as u32)).collect())
}

/// A reshape that stays on the host for known tensors.
pub(crate) fn reshape(cx: &mut Cx, x: &Value, dims: Vec<Dim>) -> Result<Option<Vec<Value>>> {
    if let Value::Host(h) = x {
        let shape: Vec<usize> = dims.iter().map(|d| d.max_size() as usize).collect();
        if shape.iter().product::<usize>() == h.elements() {
            return Ok(Some(vec![Value::Host(h.reshaped(shape))]));
        }
    }
    let o = cx.operand(x)?;
    let opts = cx.o();
    one(cx.b.reshape(o, dims, opts)?)
}

/// Gather indices: constants are made non-negative and int32 (ONNX counts negative indices
/// from the end; WebNN clamps them); run-time indices get `where(i < 0, i + dim, i)`.
pub(crate) fn indices(cx: &mut Cx, v: &Value, dim: i64) -> Result<webnn_core::Operand> {
    if let Value::Host(h) = v {
        let idx: Vec<i64> = h.ints().iter().map(|&i| if i < 0 { i + dim } else { i }).collect();
        if let Some(bad) = idx.iter().find(|&&i| i < 0 || i >= dim) {
            return Err(Error::type_error(format!("index {bad} is out of range for an axis of size {dim}")));
        }
        return cx.operand(&Value::Host(Host::from_ints(DataType::Int32, h.shape.clone(), &idx)));
    }
    let i = cx.operand(v)?;
    let dt = cx.dt(v)?;
    if !dt.is_signed() {
        return Ok(i);
    }
    let zero = cx.scalar(dt, 0.0)?;
    let size = cx.scalar(dt, dim as f64)?;
    let o = cx.o();
    let neg = cx.b.lesser(i, zero, o.clone())?;
    let wrapped = cx.b.add(i, size, o.clone())?;
    cx.b.where_(neg, wrapped, i, o)
}

fn cast(cx: &mut Cx, x: &Value, to: DataType, bool_target: bool) -> Result<Option<Vec<Value>>> {
    let o = cx.operand(x)?;
    let from = cx.dt(x)?;
    if bool_target {
        // ONNX's bool is "not zero", where WebNN's cast to uint8 would round and wrap.
        let zero = cx.scalar(from, 0.0)?;
        let opts = cx.o();
        return one(cx.b.not_equal(o, zero, opts)?);
    }
    let opts = cx.o();
    if from == to {
        return one(cx.b.identity(o, opts)?);
    }
    if from.is_float() && !to.is_float() {
        // ONNX truncates toward zero where WebNN's cast rounds to nearest even.
        let sign = cx.b.sign(o, opts.clone())?;
        let mag = cx.b.abs(o, opts.clone())?;
        let mag = cx.b.floor(mag, opts.clone())?;
        let t = cx.b.mul(sign, mag, opts.clone())?;
        return one(cx.b.cast(t, to, opts)?);
    }
    one(cx.b.cast(o, to, opts)?)
}

fn split(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let shape = cx.shape(a.req(0)?)?;
    let ax = axis(n.i("axis", 0), shape.len())?;
    let sizes = if n.opset >= 13 { a.ints(1, "the split sizes")? } else { n.ints("split") };
    let parts = n.outputs.len() as u32;
    if parts == 0 || parts > shape[ax] {
        return Err(Error::type_error(format!("{parts} outputs cannot split an axis of {}", shape[ax])));
    }
    let splits = match sizes {
        Some(s) if !s.is_empty() => Splits::Sizes(s.iter().map(|&x| x as u32).collect()),
        _ if shape[ax] % parts == 0 => Splits::Count(parts),
        _ => {
            // Opset 18's num_outputs: equal parts, the last one smaller.
            let each = shape[ax].div_ceil(parts);
            let mut v = vec![each; parts as usize - 1];
            v.push(shape[ax] - each * (parts - 1));
            Splits::Sizes(v)
        }
    };
    let x = a.op(cx, 0)?;
    let outs = cx.b.split(x, splits, SplitOptions { label: cx.label.clone(), axis: ax as u32 })?;
    Ok(Some(outs.into_iter().map(Value::Op).collect()))
}

fn slice(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let shape = cx.shape(a.req(0)?)?;
    let rank = shape.len();
    let (starts, ends, axes, steps) = if n.opset >= 10 {
        (
            a.ints(1, "starts")?.ok_or_else(|| Error::type_error("starts are required"))?,
            a.ints(2, "ends")?.ok_or_else(|| Error::type_error("ends are required"))?,
            a.ints(3, "axes")?,
            a.ints(4, "steps")?,
        )
    } else {
        (n.ints("starts").unwrap_or_default(), n.ints("ends").unwrap_or_default(), n.ints("axes"), None)
    };
    let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(Error::type_error("starts, ends, axes and steps differ in length"));
    }
    let mut begin = vec![0u32; rank];
    // Elements taken per axis, and the span of the input they lie in (WebNN's `sizes`).
    let mut size = shape.clone();
    let mut span = shape.clone();
    let mut stride = vec![1u32; rank];
    let mut reversed = Vec::new();
    for k in 0..starts.len() {
        let ax = axis(axes[k], rank)?;
        let dim = shape[ax] as i64;
        let step = steps[k];
        if step == 0 {
            return Err(Error::type_error("a slice step is 0"));
        }
        let norm = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
        let (first, count) = if step > 0 {
            let s = norm(starts[k]).clamp(0, dim);
            let e = norm(ends[k]).clamp(0, dim);
            (s, if e > s { (e - s + step - 1) / step } else { 0 })
        } else {
            let s = norm(starts[k]).clamp(-1, dim - 1);
            let e = norm(ends[k]).clamp(-1, dim - 1);
            // Walking backwards from s: on the reversed axis it starts at dim-1-s.
            reversed.push(ax as u32);
            (dim - 1 - s, if s > e { (s - e + (-step) - 1) / (-step) } else { 0 })
        };
        if count == 0 {
            return Err(Error::not_supported(format!("the slice of axis {ax} is empty; WebNN has no empty tensors")));
        }
        begin[ax] = first as u32;
        size[ax] = count as u32;
        stride[ax] = step.unsigned_abs() as u32;
        span[ax] = ((count - 1) * step.abs() + 1) as u32;
    }
    if let Value::Host(h) = a.req(0)? {
        return Ok(Some(vec![Value::Host(slice_host(h, &begin, &size, &stride, &reversed))]));
    }
    let mut x = a.op(cx, 0)?;
    if !reversed.is_empty() {
        x = cx.b.reverse(x, webnn_core::ops::ReverseOptions { label: cx.label.clone(), axes: Some(reversed) })?;
    }
    let strides = stride.iter().any(|&s| s != 1).then_some(stride);
    one(cx.b.slice(x, begin, span, SliceOptions { label: cx.label.clone(), strides })?)
}

/// A strided slice of a known tensor; `reversed` axes are read from their end.
fn slice_host(h: &Host, begin: &[u32], size: &[u32], stride: &[u32], reversed: &[u32]) -> Host {
    let width = (h.dt.bits() / 8).max(1) as usize;
    let rank = h.shape.len();
    let mut src_strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        src_strides[i] = src_strides[i + 1] * h.shape[i + 1];
    }
    let count: usize = size.iter().map(|&s| s as usize).product();
    let mut data = Vec::with_capacity(count * width);
    for flat in 0..count {
        let (mut rest, mut src) = (flat, 0usize);
        for ax in (0..rank).rev() {
            let o = rest % size[ax] as usize;
            rest /= size[ax] as usize;
            let mut i = begin[ax] as usize + o * stride[ax] as usize;
            if reversed.contains(&(ax as u32)) {
                i = h.shape[ax] - 1 - i;
            }
            src += i * src_strides[ax];
        }
        data.extend_from_slice(&h.data[src * width..(src + 1) * width]);
    }
    Host { dt: h.dt, shape: size.iter().map(|&s| s as usize).collect(), data: data.into() }
}

fn pad(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let shape = cx.shape(a.req(0)?)?;
    let rank = shape.len();
    let (pads, value) = if n.opset >= 11 {
        let pads = a.ints(1, "the pads")?.ok_or_else(|| Error::type_error("pads are required"))?;
        let value = a.host(2, "the padding value")?.map(|h| h.floats()[0]).unwrap_or(0.0);
        (pads, value)
    } else {
        (n.ints("pads").unwrap_or_default(), n.f("value", 0.0) as f64)
    };
    let axes: Vec<usize> = match a.ints(3, "axes")? {
        Some(ax) => ax.iter().map(|&x| axis(x, rank)).collect::<Result<_>>()?,
        None => (0..rank).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(Error::type_error(format!("{} pads for {} axes", pads.len(), axes.len())));
    }
    let mode = match n.s("mode", "constant").as_str() {
        "constant" => PaddingMode::Constant,
        "edge" => PaddingMode::Edge,
        "reflect" => PaddingMode::Reflection,
        other => return Err(n.unsupported(format!("mode '{other}'"))),
    };
    let mut begin = vec![0u32; rank];
    let mut end = vec![0u32; rank];
    let mut crop: Vec<(usize, i64, i64)> = Vec::new();
    for (k, &ax) in axes.iter().enumerate() {
        let (b, e) = (pads[k], pads[k + axes.len()]);
        begin[ax] = b.max(0) as u32;
        end[ax] = e.max(0) as u32;
        if b < 0 || e < 0 {
            crop.push((ax, b.min(0), e.min(0)));
        }
    }
    let mut x = a.op(cx, 0)?;
    if begin.iter().chain(&end).any(|&p| p > 0) {
        let options = PadOptions { label: cx.label.clone(), mode, value: webnn_core::ops::MLNumber::Double(value) };
        x = cx.b.pad(x, begin.clone(), end.clone(), options)?;
    }
    if !crop.is_empty() {
        // Negative pads remove elements.
        let mut starts = vec![0u32; rank];
        let mut sizes: Vec<u32> = (0..rank).map(|i| shape[i] + begin[i] + end[i]).collect();
        for (ax, b, e) in crop {
            starts[ax] = (-b) as u32;
            sizes[ax] = (sizes[ax] as i64 + b + e).max(0) as u32;
        }
        x = cx.b.slice(x, starts, sizes, SliceOptions { label: cx.label.clone(), strides: None })?;
    }
    one(x)
}
