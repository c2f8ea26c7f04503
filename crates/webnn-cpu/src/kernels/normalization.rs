//! batch, instance and layer normalization, computed in f64 and rounded once.
//!
//! All three compute `scale * (x - mean) / sqrt(variance + epsilon) + bias`; instance and
//! layer normalization take the (population) mean and variance of each group in two passes.

use super::reduction::{group_map, lanes, strided_map};
use crate::eval::Cx;
use crate::tensor::{strides, Tensor};
use half::f16;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{DataType, Error, Operand, Result};

/// The spec casts epsilon to the input's data type before use.
fn cast_epsilon(data_type: DataType, epsilon: f64) -> f64 {
    match data_type {
        DataType::Float16 => f16::from_f64(epsilon).to_f64(),
        DataType::Float32 => epsilon as f32 as f64,
        _ => epsilon,
    }
}

/// An optional per-feature operand as f64 values, checked to hold `len` elements.
fn values(cx: &Cx, what: &str, o: Option<Operand>, len: usize) -> Result<Option<Vec<f64>>> {
    let Some(t) = cx.opt(o)? else { return Ok(None) };
    if t.len() != len {
        return Err(Error::operation_error(format!(
            "{what} has {} elements, expected {len}",
            t.len()
        )));
    }
    Ok(Some(t.to_f64()))
}

fn normalize(x: f64, mean: f64, inv_std: f64, scale: Option<f64>, bias: Option<f64>) -> f64 {
    (x - mean) * inv_std * scale.unwrap_or(1.0) + bias.unwrap_or(0.0)
}

/// batchNormalization with the given per-feature mean and variance along `axis`.
pub fn batch_normalization(cx: &Cx, op: &BatchNormalization) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let (outer, c, inner) = lanes(&x.shape, op.options.axis as usize)?;
    let eps = cast_epsilon(x.data_type(), op.options.epsilon);
    let need = |what: &str, o: Operand| values(cx, what, Some(o), c).map(|v| v.unwrap_or_default());
    let mean = need("mean", op.mean)?;
    let variance = need("variance", op.variance)?;
    let scale = values(cx, "scale", op.options.scale, c)?;
    let bias = values(cx, "bias", op.options.bias, c)?;
    let inv_std: Vec<f64> = variance.iter().map(|&v| 1.0 / (v + eps).sqrt()).collect();
    let v = x.to_f64();
    let mut out = vec![0.0f64; v.len()];
    for o in 0..outer {
        for ch in 0..c {
            let base = (o * c + ch) * inner;
            let (s, b) = (scale.as_ref().map(|s| s[ch]), bias.as_ref().map(|b| b[ch]));
            for j in base..base + inner {
                out[j] = normalize(v[j], mean[ch], inv_std[ch], s, b);
            }
        }
    }
    Ok(Tensor::from_f64(x.data_type(), x.shape.clone(), &out))
}

/// Mean and 1/sqrt(variance + eps) of `v` at the given indices.
fn moments(v: &[f64], idx: impl Iterator<Item = usize> + Clone, eps: f64) -> (f64, f64) {
    let (mut sum, mut n) = (0.0f64, 0usize);
    for j in idx.clone() {
        sum += v[j];
        n += 1;
    }
    let mean = sum / n as f64;
    let var = idx.map(|j| (v[j] - mean) * (v[j] - mean)).sum::<f64>() / n as f64;
    (mean, 1.0 / (var + eps).sqrt())
}

/// instanceNormalization: per sample and channel, over the spatial dimensions.
pub fn instance_normalization(cx: &Cx, op: &InstanceNormalization) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let &[n, d1, d2, d3] = x.shape.as_slice() else {
        return Err(Error::operation_error(format!(
            "input rank {} is not 4",
            x.rank()
        )));
    };
    // (channels, spatial size, stride between a channel's elements, stride between channels)
    let (c, hw, step, ch_stride) = match op.options.layout {
        InputLayout::Nchw => (d1, d2 * d3, 1, d2 * d3),
        InputLayout::Nhwc => (d3, d1 * d2, d3, 1),
    };
    let eps = cast_epsilon(x.data_type(), op.options.epsilon);
    let scale = values(cx, "scale", op.options.scale, c)?;
    let bias = values(cx, "bias", op.options.bias, c)?;
    let v = x.to_f64();
    let mut out = vec![0.0f64; v.len()];
    for b in 0..n {
        for ch in 0..c {
            let base = b * c * hw + ch * ch_stride;
            let idx = (0..hw).map(|s| base + s * step);
            let (mean, inv_std) = moments(&v, idx.clone(), eps);
            let (s, bi) = (scale.as_ref().map(|s| s[ch]), bias.as_ref().map(|b| b[ch]));
            for j in idx {
                out[j] = normalize(v[j], mean, inv_std, s, bi);
            }
        }
    }
    Ok(Tensor::from_f64(x.data_type(), x.shape.clone(), &out))
}

/// layerNormalization over `axes` (default: every axis but the first). Scale and bias have
/// the input's sizes at `axes` in `axes` order, so they are indexed through their own strides.
pub fn layer_normalization(cx: &Cx, op: &LayerNormalization) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let rank = x.rank();
    let axes: Vec<usize> = match &op.options.axes {
        None => (1..rank).collect(),
        Some(a) => a.iter().map(|&a| a as usize).collect(),
    };
    if let Some(&a) = axes.iter().find(|&&a| a >= rank) {
        return Err(Error::operation_error(format!(
            "axis {a} is out of range for rank {rank}"
        )));
    }
    let mut reduced = vec![false; rank];
    for &a in &axes {
        reduced[a] = true;
    }
    let (group, kept) = group_map(&x.shape, &reduced);
    let groups: usize = kept.iter().product();
    let param_shape: Vec<usize> = axes.iter().map(|&a| x.shape[a]).collect();
    let mut param_eff = vec![0usize; rank];
    for (&a, s) in axes.iter().zip(strides(&param_shape)) {
        param_eff[a] = s;
    }
    let param = strided_map(&x.shape, &param_eff);
    let param_len: usize = param_shape.iter().product();
    let scale = values(cx, "scale", op.options.scale, param_len)?;
    let bias = values(cx, "bias", op.options.bias, param_len)?;
    let eps = cast_epsilon(x.data_type(), op.options.epsilon);

    let v = x.to_f64();
    let count = v.len().checked_div(groups).unwrap_or(0) as f64;
    let mut mean = vec![0.0f64; groups];
    for (&g, &x) in group.iter().zip(&v) {
        mean[g] += x;
    }
    mean.iter_mut().for_each(|m| *m /= count);
    let mut var = vec![0.0f64; groups];
    for (&g, &x) in group.iter().zip(&v) {
        var[g] += (x - mean[g]) * (x - mean[g]);
    }
    let inv_std: Vec<f64> = var
        .iter()
        .map(|&s| 1.0 / (s / count + eps).sqrt())
        .collect();
    let out: Vec<f64> = v
        .iter()
        .zip(group.iter().zip(&param))
        .map(|(&x, (&g, &p))| {
            normalize(
                x,
                mean[g],
                inv_std[g],
                scale.as_ref().map(|s| s[p]),
                bias.as_ref().map(|b| b[p]),
            )
        })
        .collect();
    Ok(Tensor::from_f64(x.data_type(), x.shape.clone(), &out))
}
