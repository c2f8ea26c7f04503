//! Pooling and resample2d.

use super::mil_name;
use crate::emit::{Em, In, Ty, V};
use webnn_core::ops::{spatial_pair, spatial_padding, InputLayout, InterpolationMode, Pool2d, Resample2d};
use webnn_core::{OpKind, Operand, Result};

/// Pooling in NCHW. WebNN's output size (from roundingType or outputSizes) is met by growing
/// the end padding until MIL's floor rounding gives it: the extra windows then cover only
/// padding at their end, which max and L2 pooling ignore and average pooling leaves out of
/// its count, as WebNN's ceil rounding does.
pub fn pool2d(em: &mut Em, kind: OpKind, a: &Pool2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let x = em.transpose(&x, &o.layout.nchw_axes());
    let out_shape = em.shape(out)?;
    let nchw: Vec<usize> = o.layout.nchw_axes().iter().map(|&i| out_shape[i]).collect();
    let window = match o.window_dimensions.as_deref() {
        Some(&[h, w]) => [h as usize, w as usize],
        _ => [x.shape[2], x.shape[3]],
    };
    let strides = spatial_pair(&o.strides).map(|s| s as usize);
    let dilations = spatial_pair(&o.dilations).map(|d| d as usize);
    let mut pad = spatial_padding(&o.padding).map(|p| p as usize);
    for d in 0..2 {
        let needed = (nchw[2 + d] - 1) * strides[d] + (window[d] - 1) * dilations[d] + 1;
        let have = x.shape[2 + d] + pad[2 * d] + pad[2 * d + 1];
        if needed > have {
            pad[2 * d + 1] += needed - have;
        }
    }
    if dilations != [1, 1] {
        let g = Geometry { window, strides, dilations, pad, out: [nchw[2], nchw[3]] };
        let y = dilated(em, kind, &x, &g);
        return bind_nchw(em, out, y, o.layout);
    }
    let ty = x.ty;
    let mut inputs = vec![
        ("x", In::V(x)),
        ("kernel_sizes", In::Ints(window.iter().map(|&n| n as i64).collect())),
        ("strides", In::Ints(strides.iter().map(|&n| n as i64).collect())),
        ("pad_type", In::Str("custom")),
        ("pad", In::Ints(pad.iter().map(|&n| n as i64).collect())),
    ];
    if kind == OpKind::AveragePool2d {
        inputs.push(("exclude_padding_from_average", In::Bool(true)));
    }
    let y = em.op(mil_name(kind)?, inputs, ty, nchw);
    bind_nchw(em, out, y, o.layout)
}

fn bind_nchw(em: &mut Em, out: Operand, y: V, layout: InputLayout) -> Result<()> {
    let y = match layout {
        InputLayout::Nchw => y,
        InputLayout::Nhwc => em.transpose(&y, &[0, 2, 3, 1]),
    };
    em.bind(out, y)
}

/// One pooling's window geometry along (height, width); `pad` is [top, bottom, left, right].
struct Geometry {
    window: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    pad: [usize; 4],
    out: [usize; 2],
}

/// Dilated pooling, which MIL's pooling ops lack: the padded input is sliced once per window
/// position (strided by the pooling's strides) and the slices combined; average pooling
/// divides by the number of input (not padding) elements each window covers.
fn dilated(em: &mut Em, kind: OpKind, x: &V, g: &Geometry) -> V {
    let [n, c, h, w] = [x.shape[0], x.shape[1], x.shape[2], x.shape[3]];
    let fill = match kind {
        OpKind::MaxPool2d if x.ty.is_float() => f64::NEG_INFINITY,
        OpKind::MaxPool2d => i32::MIN as f64,
        _ => 0.0,
    };
    let p = g.pad;
    let padded_shape = vec![n, c, h + p[0] + p[1], w + p[2] + p[3]];
    let pads = In::Ints(vec![0, 0, 0, 0, p[0] as i64, p[1] as i64, p[2] as i64, p[3] as i64]);
    let inputs = vec![("x", In::V(x.clone())), ("pad", pads), ("mode", In::Str("constant")), ("constant_val", In::Num(x.ty, fill))];
    let padded = em.op("pad", inputs, x.ty, padded_shape);
    let mut acc: Option<V> = None;
    for i in 0..g.window[0] {
        for j in 0..g.window[1] {
            let (y0, x0) = (i * g.dilations[0], j * g.dilations[1]);
            let begin = vec![0, 0, y0 as i64, x0 as i64];
            let end = vec![
                n as i64,
                c as i64,
                (y0 + (g.out[0] - 1) * g.strides[0] + 1) as i64,
                (x0 + (g.out[1] - 1) * g.strides[1] + 1) as i64,
            ];
            let stride = vec![1, 1, g.strides[0] as i64, g.strides[1] as i64];
            let inputs =
                vec![("x", In::V(padded.clone())), ("begin", In::Ints(begin)), ("end", In::Ints(end)), ("stride", In::Ints(stride))];
            let mut s = em.op("slice_by_index", inputs, x.ty, vec![n, c, g.out[0], g.out[1]]);
            if kind == OpKind::L2Pool2d {
                s = em.arith2("mul", &s, &s);
            }
            acc = Some(match acc {
                None => s,
                Some(a) if kind == OpKind::MaxPool2d => em.arith2("maximum", &a, &s),
                Some(a) => em.arith2("add", &a, &s),
            });
        }
    }
    let acc = acc.unwrap_or_else(|| em.scalar(x.ty, 0.0));
    match kind {
        OpKind::L2Pool2d => em.unary("sqrt", &acc, vec![]),
        OpKind::AveragePool2d => {
            // Window taps that fall on the input along one axis, from a padded start.
            let inside = |start: usize, axis: usize| {
                (0..g.window[axis])
                    .filter(|&t| {
                        let pos = start + t * g.dilations[axis];
                        pos >= p[2 * axis] && pos < p[2 * axis] + [h, w][axis]
                    })
                    .count()
            };
            let counts: Vec<u8> = (0..g.out[0])
                .flat_map(|oy| (0..g.out[1]).map(move |ox| (oy, ox)))
                .flat_map(|(oy, ox)| {
                    let count = inside(oy * g.strides[0], 0) * inside(ox * g.strides[1], 1);
                    crate::emit::scalar_bytes(x.ty, count.max(1) as f64)
                })
                .collect();
            let counts = em.constant(x.ty, &[1, 1, g.out[0], g.out[1]], &counts);
            em.arith2("real_div", &acc, &counts)
        }
        _ => acc,
    }
}

/// The input index each output index of one axis takes in nearest-neighbor mode: WebNN's
/// half-pixel mapping, rounding halves up. MIL's resize_nearest_neighbor maps o to
/// floor(o * in / out), which differs for scales that are not whole (4 to 3: 0, 1, 2
/// against 0, 1, 3), so nearest-neighbor resampling is a gather of these indices.
fn nearest_taps(input: usize, output: usize) -> Vec<i32> {
    let last = input.saturating_sub(1) as f64;
    (0..output)
        .map(|o| {
            let coord = ((o as f64 + 0.5) * input as f64 / output as f64 - 0.5).clamp(0.0, last);
            (coord - 0.5).ceil().clamp(0.0, last) as i32
        })
        .collect()
}

/// resample2d. Linear mode resizes the two axes moved last with MIL's half-pixel
/// (`UNALIGN_CORNERS`) bilinear resize, in float32 for integer inputs and rounded back to
/// nearest; nearest-neighbor mode gathers along each resized axis.
pub fn resample2d(em: &mut Em, a: &Resample2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let axes: Vec<usize> = match o.axes.as_deref() {
        Some(&[h, w]) => vec![h as usize, w as usize],
        _ => vec![2, 3],
    };
    let x = em.v(a.input)?;
    let out_shape = em.shape(out)?;
    if o.mode == InterpolationMode::NearestNeighbor {
        let mut y = em.arith(&x);
        for &axis in &axes {
            if y.shape[axis] == out_shape[axis] {
                continue;
            }
            let taps = nearest_taps(y.shape[axis], out_shape[axis]);
            let bytes: Vec<u8> = taps.iter().flat_map(|t| t.to_le_bytes()).collect();
            let idx = em.constant(Ty::I32, &[taps.len()], &bytes);
            let mut shape = y.shape.clone();
            shape[axis] = out_shape[axis];
            let ty = y.ty;
            let inputs = vec![("x", In::V(y)), ("indices", In::V(idx)), ("axis", In::Int(axis as i64))];
            y = em.op("gather", inputs, ty, shape);
        }
        return em.bind(out, y);
    }
    let integer = !x.ty.is_float();
    let x = if integer { em.cast(&x, Ty::F32) } else { x };
    let mut perm: Vec<usize> = (0..4).filter(|i| !axes.contains(i)).collect();
    perm.extend(&axes);
    let x = em.transpose(&x, &perm);
    let shape: Vec<usize> = perm.iter().map(|&i| out_shape[i]).collect();
    let (h, w) = (shape[2] as i64, shape[3] as i64);
    let ty = x.ty;
    let inputs = vec![
        ("x", In::V(x)),
        ("target_size_height", In::Int(h)),
        ("target_size_width", In::Int(w)),
        ("sampling_mode", In::Str("UNALIGN_CORNERS")),
    ];
    let y = em.op("resize_bilinear", inputs, ty, shape);
    let mut inverse = vec![0; 4];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    let mut y = em.transpose(&y, &inverse);
    if integer {
        y = em.unary("round", &y, vec![]);
    }
    em.bind(out, y)
}
