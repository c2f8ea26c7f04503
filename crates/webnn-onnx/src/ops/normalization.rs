//! batchNormalization, instanceNormalization, layerNormalization as
//! `scale * (x - mean) / sqrt(variance + epsilon) + bias`, computed in doubles and rounded
//! once to the output type (population variance, epsilon cast to the input type first);
//! layerNormalization and instanceNormalization as ONNX's own ops when
//! `ConvertOptions::normalization_ops` asks.

use crate::emit::{attr_f, attr_i, attr_ints, onnx_type, Em};
use webnn_core::ops::{BatchNormalization, InputLayout, InstanceNormalization, LayerNormalization};
use webnn_core::{DataType, Operand, Result};

fn epsilon(dt: DataType, eps: f64) -> f64 {
    match dt {
        DataType::Float16 => half::f16::from_f64(eps).to_f64(),
        _ => eps as f32 as f64,
    }
}

/// A 1-D per-feature operand reshaped to broadcast along `axis` of a rank-`rank` input.
fn along(em: &mut Em, o: Operand, axis: usize, rank: usize) -> Result<String> {
    let v = em.v(o)?;
    let v = em.as_f64(&v);
    let shape: Vec<i64> = (0..rank).map(|i| if i == axis { -1 } else { 1 }).collect();
    let shape = em.i64s(&shape);
    Ok(em.node("Reshape", &[&v, &shape], vec![]))
}

/// `(x - mean) / sqrt(var + eps) * scale + bias`, then the output type.
fn finish(
    em: &mut Em,
    x: &str,
    (mean, var): (&str, &str),
    eps: f64,
    (scale, bias): (Option<String>, Option<String>),
    out: Operand,
) {
    let eps = em.f64_scalar(eps);
    let centered = em.node("Sub", &[x, mean], vec![]);
    let ve = em.node("Add", &[var, &eps], vec![]);
    let sd = em.node("Sqrt", &[&ve], vec![]);
    let mut y = em.node("Div", &[&centered, &sd], vec![]);
    if let Some(s) = scale {
        y = em.node("Mul", &[&y, &s], vec![]);
    }
    if let Some(b) = bias {
        y = em.node("Add", &[&y, &b], vec![]);
    }
    let dt = em.dt(out);
    let y = em.node("Cast", &[&y], vec![attr_i("to", onnx_type(dt) as i64)]);
    em.set(out, y);
}

/// Mean over `axes` keeping them; the identity over no axes.
fn mean(em: &mut Em, x: &str, axes: &[i64]) -> String {
    if axes.is_empty() {
        return x.to_string();
    }
    let a = em.i64s(axes);
    em.node("ReduceMean", &[x, &a], vec![attr_i("keepdims", 1)])
}

fn moments(em: &mut Em, x: &str, axes: &[i64]) -> (String, String) {
    let m = mean(em, x, axes);
    let c = em.node("Sub", &[x, &m], vec![]);
    let sq = em.node("Mul", &[&c, &c], vec![]);
    let var = mean(em, &sq, axes);
    (m, var)
}

pub fn batch_normalization(em: &mut Em, a: &BatchNormalization, out: Operand) -> Result<()> {
    let o = &a.options;
    let rank = em.rank(a.input);
    let axis = o.axis as usize;
    let x = em.v(a.input)?;
    let x = em.as_f64(&x);
    let mean = along(em, a.mean, axis, rank)?;
    let var = along(em, a.variance, axis, rank)?;
    let scale = o.scale.map(|s| along(em, s, axis, rank)).transpose()?;
    let bias = o.bias.map(|b| along(em, b, axis, rank)).transpose()?;
    finish(
        em,
        &x,
        (&mean, &var),
        epsilon(em.dt(a.input), o.epsilon),
        (scale, bias),
        out,
    );
    Ok(())
}

pub fn instance_normalization(em: &mut Em, a: &InstanceNormalization, out: Operand) -> Result<()> {
    let o = &a.options;
    let (channel, spatial) = match o.layout {
        InputLayout::Nchw => (1, [2i64, 3]),
        InputLayout::Nhwc => (3, [1i64, 2]),
    };
    if let (true, InputLayout::Nchw, Some(scale), Some(bias)) = (em.normalization_ops, o.layout, o.scale, o.bias) {
        let x = em.v(a.input)?;
        let (scale, bias) = (em.v(scale)?, em.v(bias)?);
        let eps = epsilon(em.dt(a.input), o.epsilon) as f32;
        let y = em.node("InstanceNormalization", &[&x, &scale, &bias], vec![attr_f("epsilon", eps)]);
        em.set(out, y);
        return Ok(());
    }
    let x = em.v(a.input)?;
    let x = em.as_f64(&x);
    let (m, var) = moments(em, &x, &spatial);
    let scale = o.scale.map(|s| along(em, s, channel, 4)).transpose()?;
    let bias = o.bias.map(|b| along(em, b, channel, 4)).transpose()?;
    finish(
        em,
        &x,
        (&m, &var),
        epsilon(em.dt(a.input), o.epsilon),
        (scale, bias),
        out,
    );
    Ok(())
}

/// Scale and bias hold the input's dimensions at `axes` in the order `axes` lists them: they
/// are transposed into ascending axis order and given the input's rank.
pub fn layer_normalization(em: &mut Em, a: &LayerNormalization, out: Operand) -> Result<()> {
    let o = &a.options;
    let rank = em.rank(a.input);
    let axes: Vec<usize> = match &o.axes {
        Some(v) => v.iter().map(|&x| x as usize).collect(),
        None => (1..rank).collect(),
    };
    if em.normalization_ops && o.scale.is_some() && !axes.is_empty() && axes.iter().enumerate().all(|(i, &x)| x == rank - axes.len() + i) {
        // ONNX's LayerNormalization normalizes the axes from `axis` on, with a scale (and
        // bias) of their shape: WebNN's over trailing axes listed in order.
        let x = em.v(a.input)?;
        let scale = em.v(o.scale.expect("checked"))?;
        let bias = o.bias.map(|b| em.v(b)).transpose()?;
        let mut ins = vec![x.as_str(), scale.as_str()];
        if let Some(b) = &bias {
            ins.push(b);
        }
        let eps = epsilon(em.dt(a.input), o.epsilon) as f32;
        let y = em.node("LayerNormalization", &ins, vec![attr_i("axis", axes[0] as i64), attr_f("epsilon", eps)]);
        em.set(out, y);
        return Ok(());
    }
    let in_dims = em.dims(a.input);
    let mut order: Vec<usize> = (0..axes.len()).collect();
    order.sort_by_key(|&j| axes[j]);
    let target: Vec<webnn_core::Dim> = (0..rank)
        .map(|i| {
            if axes.contains(&i) {
                in_dims[i].clone()
            } else {
                webnn_core::Dim::Static(1)
            }
        })
        .collect();
    let param = |em: &mut Em, p: Option<Operand>| -> Result<Option<String>> {
        let Some(p) = p else { return Ok(None) };
        let v = em.v(p)?;
        let mut v = em.as_f64(&v);
        if order.iter().enumerate().any(|(i, &j)| i != j) {
            let perm: Vec<i64> = order.iter().map(|&j| j as i64).collect();
            v = em.node("Transpose", &[&v], vec![attr_ints("perm", &perm)]);
        }
        let shape = em.shape_value(&target)?;
        Ok(Some(em.node("Reshape", &[&v, &shape], vec![])))
    };
    let scale = param(em, o.scale)?;
    let bias = param(em, o.bias)?;
    let x = em.v(a.input)?;
    let x = em.as_f64(&x);
    let axes_i: Vec<i64> = axes.iter().map(|&x| x as i64).collect();
    let (m, var) = moments(em, &x, &axes_i);
    finish(
        em,
        &x,
        (&m, &var),
        epsilon(em.dt(a.input), o.epsilon),
        (scale, bias),
        out,
    );
    Ok(())
}
