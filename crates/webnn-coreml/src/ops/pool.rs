//! Pooling and resample2d.

use super::mil_name;
use crate::emit::{Em, In, Ty};
use webnn_core::ops::{spatial_pair, spatial_padding, InputLayout, InterpolationMode, Pool2d, Resample2d};
use webnn_core::{Error, OpKind, Operand, Result};

/// Pooling in NCHW. WebNN's output size (from roundingType or outputSizes) is met by growing
/// the end padding until MIL's floor rounding gives it: the extra windows then cover only
/// padding at their end, which max and L2 pooling ignore and average pooling leaves out of
/// its count, as WebNN's ceil rounding does.
pub fn pool2d(em: &mut Em, kind: OpKind, a: &Pool2d, out: Operand) -> Result<()> {
    let o = &a.options;
    if spatial_pair(&o.dilations) != [1, 1] {
        return Err(Error::not_supported("MIL's pooling has no dilations"));
    }
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
    let mut pad = spatial_padding(&o.padding).map(|p| p as usize);
    for d in 0..2 {
        let needed = (nchw[2 + d] - 1) * strides[d] + window[d];
        let have = x.shape[2 + d] + pad[2 * d] + pad[2 * d + 1];
        if needed > have {
            pad[2 * d + 1] += needed - have;
        }
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
    let y = em.op(mil_name(kind), inputs, ty, nchw);
    let y = match o.layout {
        InputLayout::Nchw => y,
        InputLayout::Nhwc => em.transpose(&y, &[0, 2, 3, 1]),
    };
    em.bind(out, y)
}

/// Resizes the two axes moved last; MIL resizes float tensors, so integers go through fp32.
pub fn resample2d(em: &mut Em, a: &Resample2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let axes: Vec<usize> = match o.axes.as_deref() {
        Some(&[h, w]) => vec![h as usize, w as usize],
        _ => vec![2, 3],
    };
    let x = em.v(a.input)?;
    let x = if x.ty.is_float() { x } else { em.cast(&x, Ty::F32) };
    let mut perm: Vec<usize> = (0..4).filter(|i| !axes.contains(i)).collect();
    perm.extend(&axes);
    let x = em.transpose(&x, &perm);
    let out_shape = em.shape(out)?;
    let mut shape: Vec<usize> = perm.iter().map(|&i| out_shape[i]).collect();
    let (h, w) = (shape[2] as i64, shape[3] as i64);
    shape[2] = h as usize;
    let ty = x.ty;
    let y = match o.mode {
        InterpolationMode::NearestNeighbor => em.op(
            "resize_nearest_neighbor",
            vec![("x", In::V(x)), ("target_size_height", In::Int(h)), ("target_size_width", In::Int(w))],
            ty,
            shape,
        ),
        InterpolationMode::Linear => em.op(
            "resize_bilinear",
            vec![
                ("x", In::V(x)),
                ("target_size_height", In::Int(h)),
                ("target_size_width", In::Int(w)),
                ("sampling_mode", In::Str("UNALIGN_CORNERS")),
            ],
            ty,
            shape,
        ),
    };
    let mut inverse = vec![0; 4];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    let y = em.transpose(&y, &inverse);
    em.bind(out, y)
}
