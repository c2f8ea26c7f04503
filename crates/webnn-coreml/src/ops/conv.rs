//! conv2d, convTranspose2d (MIL's NCHW convolutions between layout transposes), matmul, gemm.

use crate::emit::{Em, In, V};
use webnn_core::ops::{spatial_pair, spatial_padding, Binary, Conv2d, ConvTranspose2d, Gemm, InputLayout};
use webnn_core::{Operand, Result};

/// The input in NCHW.
fn to_nchw(em: &mut Em, x: &V, layout: InputLayout) -> V {
    em.transpose(x, &layout.nchw_axes())
}

/// `y` (NCHW) back in the input's layout.
fn from_nchw(em: &mut Em, y: &V, layout: InputLayout) -> V {
    match layout {
        InputLayout::Nchw => y.clone(),
        InputLayout::Nhwc => em.transpose(y, &[0, 2, 3, 1]),
    }
}

/// The output's NCHW shape from its WebNN shape.
fn nchw_shape(em: &Em, out: Operand, layout: InputLayout) -> Result<Vec<usize>> {
    let s = em.shape(out)?;
    Ok(layout.nchw_axes().iter().map(|&i| s[i]).collect())
}

/// Adds a per-channel bias to an NCHW value (MIL's convolutions take only constant biases).
fn add_bias(em: &mut Em, y: V, bias: Option<Operand>) -> Result<V> {
    let Some(b) = bias else { return Ok(y) };
    let b = em.v(b)?;
    let b = em.reshape(&b, vec![1, y.shape[1], 1, 1]);
    Ok(em.arith2("add", &y, &b))
}

fn ints(v: &[u32]) -> In {
    In::Ints(v.iter().map(|&x| x as i64).collect())
}

pub fn conv2d(em: &mut Em, a: &Conv2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.v(a.input)?;
    let x = to_nchw(em, &x, o.input_layout);
    let w = em.v(a.filter)?;
    let w = em.transpose(&w, &o.filter_layout.oihw_axes());
    let shape = nchw_shape(em, out, o.input_layout)?;
    let ty = x.ty;
    let inputs = vec![
        ("x", In::V(x)),
        ("weight", In::V(w)),
        ("strides", ints(&spatial_pair(&o.strides))),
        ("pad_type", In::Str("custom")),
        ("pad", ints(&spatial_padding(&o.padding))),
        ("dilations", ints(&spatial_pair(&o.dilations))),
        ("groups", In::Int(o.groups as i64)),
    ];
    let y = em.op("conv", inputs, ty, shape);
    let y = add_bias(em, y, o.bias)?;
    let y = from_nchw(em, &y, o.input_layout);
    em.bind(out, y)
}

pub fn conv_transpose2d(em: &mut Em, a: &ConvTranspose2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.v(a.input)?;
    let x = to_nchw(em, &x, o.input_layout);
    let w = em.v(a.filter)?;
    let w = em.transpose(&w, &o.filter_layout.iohw_axes());
    let shape = nchw_shape(em, out, o.input_layout)?;
    let ty = x.ty;
    // The output shape settles what outputPadding and outputSizes add past the last window.
    let inputs = vec![
        ("x", In::V(x)),
        ("weight", In::V(w)),
        ("strides", ints(&spatial_pair(&o.strides))),
        ("pad_type", In::Str("custom")),
        ("pad", ints(&spatial_padding(&o.padding))),
        ("dilations", ints(&spatial_pair(&o.dilations))),
        ("groups", In::Int(o.groups as i64)),
        ("output_shape", In::Ints(shape.iter().map(|&n| n as i64).collect())),
    ];
    let y = em.op("conv_transpose", inputs, ty, shape);
    let y = add_bias(em, y, o.bias)?;
    let y = from_nchw(em, &y, o.input_layout);
    em.bind(out, y)
}

pub fn matmul(em: &mut Em, a: &Binary, out: Operand) -> Result<()> {
    let x = em.v(a.a)?;
    let y = em.v(a.b)?;
    let shape = em.shape(out)?;
    let ty = x.ty;
    let r = em.op("matmul", vec![("x", In::V(x)), ("y", In::V(y))], ty, shape);
    em.bind(out, r)
}

/// alpha * op(A) op(B) + beta * C.
pub fn gemm(em: &mut Em, a: &Gemm, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.v(a.a)?;
    let y = em.v(a.b)?;
    let shape = em.shape(out)?;
    let ty = x.ty;
    let inputs = vec![
        ("x", In::V(x)),
        ("y", In::V(y)),
        ("transpose_x", In::Bool(o.a_transpose)),
        ("transpose_y", In::Bool(o.b_transpose)),
    ];
    let mut r = em.op("matmul", inputs, ty, shape);
    if o.alpha != 1.0 {
        r = em.with_scalar("mul", &r, o.alpha);
    }
    if let Some(c) = o.c {
        let mut c = em.v(c)?;
        if o.beta != 1.0 {
            c = em.with_scalar("mul", &c, o.beta);
        }
        r = em.arith2("add", &r, &c);
    }
    em.bind(out, r)
}
