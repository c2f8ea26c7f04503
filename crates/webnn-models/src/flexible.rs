//! A probe graph for flexible inputs: one bounded dynamic dimension `seq` through the op
//! families that accept it (element-wise, matmul, gemm, normalization, reductions, softmax,
//! transpose, reshape and expand naming it, concat along a static axis, gather, where, a
//! cumulative sum along it, argMax).

use webnn_core::ops::*;
use webnn_core::{DataType, Dim, Graph, GraphBuilder, OperandDescriptor, Result};

const F: DataType = DataType::Float32;

/// Deterministic float32 bytes for `n` elements.
pub fn probe_values(n: usize, seed: u32) -> Vec<u8> {
    (0..n).flat_map(|k| ((((k as u32) * 37 + seed * 11) % 23) as f32 / 4.0 - 2.5).to_le_bytes()).collect()
}

/// The probe over input `x` of shape `[seq, 8]`; `seq` static or dynamic.
pub fn flexible_probe(seq: Dim) -> Result<Graph> {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::with_dims(F, vec![seq.clone(), Dim::Static(8)]))?;
    let w = b.constant(OperandDescriptor::new(F, &[8, 8]), probe_values(64, 1))?;
    let bias = b.constant(OperandDescriptor::new(F, &[8]), probe_values(8, 2))?;
    let none = OpOptions::default;
    let h = b.matmul(x, w, none())?;
    let h = b.add(h, bias, none())?;
    let h = b.relu(h, none())?;
    let n = b.layer_normalization(h, LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() })?;
    let s = b.softmax(n, 1, none())?;
    let mean = b.reduce_mean(s, ReduceOptions { axes: Some(vec![1]), keep_dimensions: true, ..Default::default() })?;
    let centered = b.sub(s, mean, none())?;
    let t = b.transpose(centered, TransposeOptions::default())?;
    let r = b.reshape(x, vec![seq.clone(), Dim::Static(2), Dim::Static(4)], none())?;
    let c = b.concat(&[x, h], 1, none())?;
    let idx: Vec<u8> = [0i32, 5, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
    let idx = b.constant(OperandDescriptor::new(DataType::Int32, &[3]), idx)?;
    let g = b.gather(c, idx, GatherOptions { axis: 1, ..Default::default() })?;
    let zero = b.constant_scalar(F, MLNumber::Double(0.0))?;
    let cond = b.greater(x, zero, none())?;
    let wh = b.where_(cond, x, h, none())?;
    let col = b.reduce_sum(wh, ReduceOptions { axes: Some(vec![0]), ..Default::default() })?;
    // Along and across the dynamic axis: gemm, expand naming it, a running sum over it, the
    // index of each row's largest value.
    let gm = b.gemm(x, w, GemmOptions { c: Some(bias), alpha: 0.5, ..Default::default() })?;
    let one = b.reshape(mean, vec![seq.clone(), Dim::Static(1)], none())?;
    let ex = b.expand(one, vec![seq.clone(), Dim::Static(3)], none())?;
    let cum = b.cumulative_sum(gm, 0, CumulativeSumOptions::default())?;
    let am = b.arg_max(gm, 1, ArgMinMaxOptions::default())?;
    b.build(&[("t", t), ("r", r), ("g", g), ("wh", wh), ("col", col), ("ex", ex), ("cum", cum), ("am", am)])
}

/// A second probe over a dynamic batch: NCHW `[batch, 3, 8, 8]` through conv2d (with bias and
/// a fused clamp), depthwise conv, pooling, instance normalization, resample, pad, slice and a
/// per-image reduction.
pub fn flexible_batch_probe(batch: Dim) -> Result<Graph> {
    let mut b = GraphBuilder::new();
    let shape = vec![batch.clone(), Dim::Static(3), Dim::Static(8), Dim::Static(8)];
    let x = b.input("x", OperandDescriptor::with_dims(F, shape))?;
    let w = b.constant(OperandDescriptor::new(F, &[4, 3, 3, 3]), probe_values(108, 4))?;
    let bias = b.constant(OperandDescriptor::new(F, &[4]), probe_values(4, 5))?;
    let conv = Conv2dOptions { padding: Some(vec![1; 4]), bias: Some(bias), ..Default::default() };
    let y = b.conv2d(x, w, conv)?;
    let relu6 = ClampOptions { min_value: Some(MLNumber::Double(0.0)), max_value: Some(MLNumber::Double(6.0)), ..Default::default() };
    let y = b.clamp(y, relu6)?;
    let dw = b.constant(OperandDescriptor::new(F, &[4, 1, 3, 3]), probe_values(36, 6))?;
    let y = b.conv2d(y, dw, Conv2dOptions { groups: 4, strides: Some(vec![2, 2]), ..Default::default() })?;
    let pooled = b.max_pool2d(y, Pool2dOptions { window_dimensions: Some(vec![2, 2]), ..Default::default() })?;
    let norm = b.instance_normalization(y, InstanceNormalizationOptions::default())?;
    let up = b.resample2d(norm, Resample2dOptions { scales: Some(vec![2.0, 2.0]), ..Default::default() })?;
    let padded = b.pad(up, vec![0, 0, 1, 1], vec![0, 0, 1, 1], PadOptions::default())?;
    let avg = b.average_pool2d(padded, Pool2dOptions::default())?;
    let per_image = b.reduce_l2(pooled, ReduceOptions { axes: Some(vec![1, 2, 3]), ..Default::default() })?;
    b.build(&[("pooled", pooled), ("avg", avg), ("per_image", per_image)])
}
