//! batch, instance and layer normalization, written out as mean, variance and affine steps
//! (MIL's own ops want constant statistics and fixed layouts).

use crate::emit::{Em, In, V};
use webnn_core::ops::{BatchNormalization, InputLayout, InstanceNormalization, LayerNormalization};
use webnn_core::{Operand, Result};

/// `v` reshaped to broadcast along `axes` of a rank-`rank` tensor (the other axes 1).
fn along(em: &mut Em, v: &V, rank: usize, axes: &[usize]) -> V {
    // The operand's dimensions follow `axes`' order; broadcasting needs them ascending.
    let mut order: Vec<usize> = (0..axes.len()).collect();
    order.sort_by_key(|&i| axes[i]);
    let v = em.transpose(v, &order);
    let sorted: Vec<usize> = order.iter().map(|&k| axes[k]).collect();
    let shape = (0..rank).map(|i| sorted.iter().position(|&a| a == i).map_or(1, |j| v.shape[j])).collect();
    em.reshape(&v, shape)
}

/// (x - mean) / sqrt(variance + epsilon) * scale + bias, the statistics already broadcastable.
fn affine(em: &mut Em, d: &V, variance: &V, epsilon: f64, scale: Option<V>, bias: Option<V>) -> V {
    let var = em.with_scalar("add", variance, epsilon);
    let std = em.unary("sqrt", &var, vec![]);
    let mut y = em.arith2("real_div", d, &std);
    if let Some(s) = scale {
        y = em.arith2("mul", &y, &s);
    }
    if let Some(b) = bias {
        y = em.arith2("add", &y, &b);
    }
    y
}

fn reduce_mean(em: &mut Em, x: &V, axes: &[usize]) -> V {
    if axes.is_empty() {
        return x.clone();
    }
    let shape = x.shape.iter().enumerate().map(|(i, &n)| if axes.contains(&i) { 1 } else { n }).collect();
    let a = axes.iter().map(|&i| i as i64).collect();
    em.op("reduce_mean", vec![("x", In::V(x.clone())), ("axes", In::Ints(a)), ("keep_dims", In::Bool(true))], x.ty, shape)
}

fn optional(em: &mut Em, o: Option<Operand>, rank: usize, axes: &[usize]) -> Result<Option<V>> {
    o.map(|o| -> Result<V> {
        let v = em.v(o)?;
        Ok(along(em, &v, rank, axes))
    })
    .transpose()
}

pub fn batch(em: &mut Em, a: &BatchNormalization, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.v(a.input)?;
    let (rank, axes) = (x.rank(), [o.axis as usize]);
    let mean = em.v(a.mean)?;
    let mean = along(em, &mean, rank, &axes);
    let var = em.v(a.variance)?;
    let var = along(em, &var, rank, &axes);
    let scale = optional(em, o.scale, rank, &axes)?;
    let bias = optional(em, o.bias, rank, &axes)?;
    let d = em.arith2("sub", &x, &mean);
    let y = affine(em, &d, &var, o.epsilon, scale, bias);
    em.bind(out, y)
}

pub fn instance(em: &mut Em, a: &InstanceNormalization, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.v(a.input)?;
    let (spatial, channel) = match o.layout {
        InputLayout::Nchw => ([2, 3], 1),
        InputLayout::Nhwc => ([1, 2], 3),
    };
    let mean = reduce_mean(em, &x, &spatial);
    let d = em.arith2("sub", &x, &mean);
    let sq = em.arith2("mul", &d, &d);
    let var = reduce_mean(em, &sq, &spatial);
    let scale = optional(em, o.scale, 4, &[channel])?;
    let bias = optional(em, o.bias, 4, &[channel])?;
    let y = affine(em, &d, &var, o.epsilon, scale, bias);
    em.bind(out, y)
}

pub fn layer(em: &mut Em, a: &LayerNormalization, out: Operand) -> Result<()> {
    let o = &a.options;
    let x = em.v(a.input)?;
    let rank = x.rank();
    let axes: Vec<usize> = match &o.axes {
        Some(axes) => axes.iter().map(|&i| i as usize).collect(),
        None => (1..rank).collect(),
    };
    let mut sorted = axes.clone();
    sorted.sort();
    let mean = reduce_mean(em, &x, &sorted);
    let d = em.arith2("sub", &x, &mean);
    let sq = em.arith2("mul", &d, &d);
    let var = reduce_mean(em, &sq, &sorted);
    let scale = optional(em, o.scale, rank, &axes)?;
    let bias = optional(em, o.bias, rank, &axes)?;
    let y = affine(em, &d, &var, o.epsilon, scale, bias);
    em.bind(out, y)
}
