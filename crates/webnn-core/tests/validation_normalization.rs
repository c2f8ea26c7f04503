//! Validation of batchNormalization, instanceNormalization and layerNormalization.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::*;
use webnn_core::{DataType, GraphBuilder, Operand, OperandDescriptor, Result};

use DataType::{Float16 as F16, Float32 as F32};

/// Builds `f(input, scale, bias)` on new inputs (`None` for absent options) and gives its output.
fn norm(
    dt: DataType,
    shape: &[u32],
    scale: Option<TypedShape>,
    bias: Option<TypedShape>,
    f: impl FnOnce(&mut GraphBuilder, Operand, Option<Operand>, Option<Operand>) -> Result<Operand>,
) -> Result<OperandDescriptor> {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, dt, shape);
    let scale = scale.map(|(t, s)| input(&mut b, t, s));
    let bias = bias.map(|(t, s)| input(&mut b, t, s));
    let y = f(&mut b, x, scale, bias)?;
    Ok(desc(&b, y))
}

/// batchNormalization of an input `[1, 2, 5, 5]` with the given mean/variance/scale/bias.
fn batch_norm(
    dt: DataType,
    mean: TypedShape,
    variance: TypedShape,
    scale: Option<TypedShape>,
    bias: Option<TypedShape>,
    axis: u32,
) -> Result<OperandDescriptor> {
    norm(dt, &[1, 2, 5, 5], scale, bias, |b, x, scale, bias| {
        let (m, v) = (input(b, mean.0, mean.1), input(b, variance.0, variance.1));
        b.batch_normalization(x, m, v, labelled!(BatchNormalizationOptions { scale, bias, axis, epsilon: 1e-4 }))
    })
}

#[test]
fn batch_normalization() {
    let y = batch_norm(F32, (F32, &[2]), (F32, &[2]), Some((F32, &[2])), Some((F32, &[2])), 1);
    assert_eq!(y.unwrap(), OperandDescriptor::new(F32, &[1, 2, 5, 5]));
    let y = batch_norm(F16, (F16, &[5]), (F16, &[5]), None, None, 3);
    assert_eq!(y.unwrap(), OperandDescriptor::new(F16, &[1, 2, 5, 5]));

    type Case<'a> = (DataType, TypedShape<'a>, TypedShape<'a>, Option<TypedShape<'a>>, Option<TypedShape<'a>>, u32);
    let i32 = DataType::Int32;
    let bad: [Case; 14] = [
        // Input type, axis range.
        (i32, (i32, &[2]), (i32, &[2]), None, None, 1),
        (F32, (F32, &[5]), (F32, &[5]), None, None, 4),
        // mean and variance: type, rank, size.
        (F32, (F16, &[2]), (F32, &[2]), None, None, 1),
        (F32, (F32, &[1, 2]), (F32, &[2]), None, None, 1),
        (F32, (F32, &[3]), (F32, &[2]), None, None, 1),
        (F32, (F32, &[2]), (F16, &[2]), None, None, 1),
        (F32, (F32, &[2]), (F32, &[2, 2]), None, None, 1),
        (F32, (F32, &[5]), (F32, &[2]), None, None, 2),
        // scale and bias: type, rank, size.
        (F16, (F16, &[2]), (F16, &[2]), Some((F32, &[2])), None, 1),
        (F32, (F32, &[2]), (F32, &[2]), Some((F32, &[2, 1])), None, 1),
        (F32, (F32, &[5]), (F32, &[5]), Some((F32, &[2])), None, 2),
        (F16, (F16, &[2]), (F16, &[2]), None, Some((F32, &[2])), 1),
        (F32, (F32, &[2]), (F32, &[2]), None, Some((F32, &[2, 1])), 1),
        (F32, (F32, &[5]), (F32, &[5]), None, Some((F32, &[2])), 2),
    ];
    for (dt, mean, variance, scale, bias, axis) in bad {
        type_error(batch_norm(dt, mean, variance, scale, bias, axis));
    }
}

fn instance_norm(
    dt: DataType,
    shape: &[u32],
    layout: InputLayout,
    scale: Option<TypedShape>,
    bias: Option<TypedShape>,
) -> Result<OperandDescriptor> {
    norm(dt, shape, scale, bias, |b, x, scale, bias| {
        b.instance_normalization(x, labelled!(InstanceNormalizationOptions { scale, bias, layout }))
    })
}

#[test]
fn instance_normalization() {
    use InputLayout::{Nchw, Nhwc};
    let y = instance_norm(F32, &[1, 2, 3, 4], Nchw, Some((F32, &[2])), Some((F32, &[2])));
    assert_eq!(y.unwrap(), OperandDescriptor::new(F32, &[1, 2, 3, 4]));
    let y = instance_norm(F16, &[1, 2, 3, 4], Nhwc, Some((F16, &[4])), Some((F16, &[4])));
    assert_eq!(y.unwrap(), OperandDescriptor::new(F16, &[1, 2, 3, 4]));

    type Case<'a> = (DataType, &'a [u32], InputLayout, Option<TypedShape<'a>>, Option<TypedShape<'a>>);
    let x: &[u32] = &[1, 2, 5, 5];
    let bad: [Case; 11] = [
        (F32, &[1, 2, 5, 5, 2], Nchw, None, None),
        (F32, &[2, 5, 5], Nchw, None, None),
        (DataType::Int32, x, Nchw, None, None),
        (F16, x, Nchw, Some((F32, &[2])), None),
        (F32, x, Nchw, Some((F32, &[2, 1])), None),
        (F32, x, Nhwc, Some((F32, &[2])), None),
        (F32, &[1, 5, 5, 2], Nchw, Some((F32, &[2])), None),
        (F16, x, Nchw, None, Some((F32, &[2]))),
        (F32, x, Nchw, None, Some((F32, &[2, 1]))),
        (F32, x, Nhwc, None, Some((F32, &[2]))),
        (F32, &[1, 5, 5, 2], Nchw, None, Some((F32, &[2]))),
    ];
    for (dt, shape, layout, scale, bias) in bad {
        type_error(instance_norm(dt, shape, layout, scale, bias));
    }
}

fn layer_norm(
    dt: DataType,
    shape: &[u32],
    axes: Option<Vec<u32>>,
    scale: Option<TypedShape>,
    bias: Option<TypedShape>,
) -> Result<OperandDescriptor> {
    norm(dt, shape, scale, bias, |b, x, scale, bias| {
        b.layer_normalization(x, labelled!(LayerNormalizationOptions { scale, bias, axes }))
    })
}

#[test]
fn layer_normalization() {
    type Case<'a> = (DataType, &'a [u32], Option<Vec<u32>>, Option<TypedShape<'a>>, Option<TypedShape<'a>>);
    let (x4, s6): (&[u32], &[u32]) = (&[1, 2, 3, 4], &[1, 2, 3, 4, 5, 6]);
    let ok: Vec<Case> = vec![
        (F32, &[], None, None, None),
        (F16, &[], None, None, None),
        (F32, x4, Some(vec![3]), None, None),
        (F32, x4, None, Some((F32, &[2, 3, 4])), None),
        (F32, x4, Some(vec![2, 3]), Some((F32, &[3, 4])), Some((F32, &[3, 4]))),
        (F32, s6, Some(vec![1, 3, 5]), Some((F32, &[2, 4, 6])), Some((F32, &[2, 4, 6]))),
        (F32, s6, Some(vec![5, 4, 3, 2, 1]), Some((F32, &[6, 5, 4, 3, 2])), Some((F32, &[6, 5, 4, 3, 2]))),
        (F32, &[4, 6], Some(vec![]), None, Some((F32, &[]))),
    ];
    for (dt, shape, axes, scale, bias) in ok {
        assert_eq!(layer_norm(dt, shape, axes, scale, bias).unwrap(), OperandDescriptor::new(dt, shape));
    }
    let bad: Vec<Case> = vec![
        (DataType::Uint32, x4, None, None, None),
        (F32, x4, Some(vec![1, 2, 4]), None, None),
        (F32, x4, Some(vec![3, 3]), None, None),
        (F32, x4, Some(vec![2, 3]), Some((F32, &[3, 4])), Some((F16, &[3, 4]))),
        (F32, x4, Some(vec![2, 3]), Some((F16, &[3, 4])), Some((F32, &[3, 4]))),
        (F32, x4, None, None, Some((F32, &[3, 3, 4]))),
        (F32, x4, None, Some((F32, &[3, 3, 4])), None),
        (F32, x4, None, None, Some((F32, &[1, 2, 3, 4]))),
        (F32, x4, None, Some((F32, &[1, 2, 3, 4])), None),
        // Scale sizes follow the order of axes.
        (F32, x4, Some(vec![3, 2]), Some((F32, &[3, 4])), None),
    ];
    for (dt, shape, axes, scale, bias) in bad {
        type_error(layer_norm(dt, shape, axes, scale, bias));
    }
}
