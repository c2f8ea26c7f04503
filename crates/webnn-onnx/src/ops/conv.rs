//! conv2d, convTranspose2d, matmul and gemm. Layouts other than NCHW / OIHW (IOHW for the
//! transposed convolution) are transposed into ONNX's, and the result back.

use crate::emit::{attr_f, attr_i, attr_ints, Em};
use webnn_core::ops::{
    spatial_padding, spatial_pair, Binary, Conv2d, ConvTranspose2d, Gemm, InputLayout,
};
use webnn_core::{DataType, Operand, Result};

const F: DataType = DataType::Float32;

fn transpose(em: &mut Em, v: &str, perm: &[usize]) -> String {
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return v.to_string();
    }
    let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
    em.node("Transpose", &[v], vec![attr_ints("perm", &perm)])
}

fn to_nchw(em: &mut Em, v: &str, layout: InputLayout) -> String {
    match layout {
        InputLayout::Nchw => v.to_string(),
        InputLayout::Nhwc => transpose(em, v, &[0, 3, 1, 2]),
    }
}

fn from_nchw(em: &mut Em, v: &str, layout: InputLayout) -> String {
    match layout {
        InputLayout::Nchw => v.to_string(),
        InputLayout::Nhwc => transpose(em, v, &[0, 2, 3, 1]),
    }
}

/// WebNN's [top, bottom, left, right] as ONNX's [top, left, bottom, right].
fn onnx_pads(p: [u32; 4]) -> Vec<i64> {
    vec![p[0] as i64, p[2] as i64, p[1] as i64, p[3] as i64]
}

fn pair(v: [u32; 2]) -> Vec<i64> {
    vec![v[0] as i64, v[1] as i64]
}

pub fn conv2d(em: &mut Em, a: &Conv2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.input_as(a.input, F)?;
    let x = to_nchw(em, &x, o.input_layout);
    let w = em.input_as(a.filter, F)?;
    let w = transpose(em, &w, &o.filter_layout.oihw_axes());
    let mut inputs = vec![x, w];
    if let Some(b) = o.bias {
        inputs.push(em.input_as(b, F)?);
    }
    let attrs = vec![
        attr_ints("pads", &onnx_pads(spatial_padding(&o.padding))),
        attr_ints("strides", &pair(spatial_pair(&o.strides))),
        attr_ints("dilations", &pair(spatial_pair(&o.dilations))),
        attr_i("group", o.groups as i64),
    ];
    let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let y = em.node("Conv", &refs, attrs);
    let y = from_nchw(em, &y, o.input_layout);
    em.output_from(out, y, F)
}

/// The output padding that gives the output size shape inference chose (from `outputSizes`
/// or from `outputPadding`), so ONNX computes the same size.
pub fn conv_transpose2d(em: &mut Em, a: &ConvTranspose2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let ax = o.input_layout.nchw_axes();
    let fx = o.filter_layout.iohw_axes();
    let (s, d, p) = (
        spatial_pair(&o.strides),
        spatial_pair(&o.dilations),
        spatial_padding(&o.padding),
    );
    let mut out_pad = [0i64; 2];
    for i in 0..2 {
        let (n, k, m) = (
            em.static_dim(a.input, ax[2 + i])? as i64,
            em.static_dim(a.filter, fx[2 + i])? as i64,
            em.static_dim(out, ax[2 + i])? as i64,
        );
        let base = (n - 1) * s[i] as i64 + (k - 1) * d[i] as i64 + 1
            - p[2 * i] as i64
            - p[2 * i + 1] as i64;
        out_pad[i] = m - base;
    }
    let x = em.input_as(a.input, F)?;
    let x = to_nchw(em, &x, o.input_layout);
    let w = em.input_as(a.filter, F)?;
    let w = transpose(em, &w, &fx);
    let mut inputs = vec![x, w];
    if let Some(b) = o.bias {
        inputs.push(em.input_as(b, F)?);
    }
    let attrs = vec![
        attr_ints("pads", &onnx_pads(p)),
        attr_ints("strides", &pair(s)),
        attr_ints("dilations", &pair(d)),
        attr_ints("output_padding", &out_pad),
        attr_i("group", o.groups as i64),
    ];
    let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let y = em.node("ConvTranspose", &refs, attrs);
    let y = from_nchw(em, &y, o.input_layout);
    em.output_from(out, y, F)
}

pub fn matmul(em: &mut Em, a: &Binary, out: Operand) -> Result<()> {
    em.simple("MatMul", &[a.a, a.b], F, vec![], out)
}

pub fn gemm(em: &mut Em, a: &Gemm, out: Operand) -> Result<()> {
    let o = &a.options;
    let dt = em.dt(a.a);
    let cast = |v: f64| {
        if dt == DataType::Float16 {
            half::f16::from_f64(v).to_f32()
        } else {
            v as f32
        }
    };
    let mut inputs = vec![a.a, a.b];
    inputs.extend(o.c);
    let attrs = vec![
        attr_f("alpha", cast(o.alpha)),
        attr_f("beta", cast(o.beta)),
        attr_i("transA", o.a_transpose as i64),
        attr_i("transB", o.b_transpose as i64),
    ];
    em.simple("Gemm", &inputs, F, attrs, out)
}
