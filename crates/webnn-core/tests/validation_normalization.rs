//! Validation of batchNormalization, instanceNormalization and layerNormalization.

use webnn_core::ops::*;
use webnn_core::{DataType, Error, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result};

use DataType::{Float16 as F16, Float32 as F32};

const LABEL: &str = "mylabel";

fn input(b: &mut GraphBuilder, data_type: DataType, shape: &[u32]) -> Operand {
    let name = format!("x{}", b.graph().operands.len());
    b.input(&name, OperandDescriptor::new(data_type, shape))
        .expect("valid input")
}

fn assert_type_error(r: Result<Operand>) {
    let err: Error = r.expect_err("building should fail");
    assert_eq!(err.kind, ErrorKind::TypeError, "{err}");
    assert!(err.to_string().contains("[mylabel]"), "{err}");
}

fn assert_ok(r: Result<Operand>, b: &GraphBuilder, expected: OperandDescriptor) {
    let o = r.expect("building should succeed");
    assert_eq!(b.desc(o).expect("own operand"), &expected);
}

/// batchNormalization of an input `[1, 2, 5, 5]` with the given mean/variance/scale/bias
/// descriptors (`None` for absent options).
fn batch_norm(
    dt: DataType,
    mean: (DataType, &[u32]),
    variance: (DataType, &[u32]),
    scale: Option<(DataType, &[u32])>,
    bias: Option<(DataType, &[u32])>,
    axis: u32,
) -> (GraphBuilder, Result<Operand>) {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, dt, &[1, 2, 5, 5]);
    let m = input(&mut b, mean.0, mean.1);
    let v = input(&mut b, variance.0, variance.1);
    let scale = scale.map(|(t, s)| input(&mut b, t, s));
    let bias = bias.map(|(t, s)| input(&mut b, t, s));
    let options = BatchNormalizationOptions {
        scale,
        bias,
        axis,
        epsilon: 1e-4,
        label: LABEL.into(),
    };
    let r = b.batch_normalization(x, m, v, options);
    (b, r)
}

#[test]
fn batch_normalization() {
    let (b, r) = batch_norm(
        F32,
        (F32, &[2]),
        (F32, &[2]),
        Some((F32, &[2])),
        Some((F32, &[2])),
        1,
    );
    assert_ok(r, &b, OperandDescriptor::new(F32, &[1, 2, 5, 5]));
    let (b, r) = batch_norm(F16, (F16, &[5]), (F16, &[5]), None, None, 3);
    assert_ok(r, &b, OperandDescriptor::new(F16, &[1, 2, 5, 5]));

    // Input type, axis range.
    assert_type_error(
        batch_norm(
            DataType::Int32,
            (DataType::Int32, &[2]),
            (DataType::Int32, &[2]),
            None,
            None,
            1,
        )
        .1,
    );
    assert_type_error(batch_norm(F32, (F32, &[5]), (F32, &[5]), None, None, 4).1);
    // mean and variance: type, rank, size.
    assert_type_error(batch_norm(F32, (F16, &[2]), (F32, &[2]), None, None, 1).1);
    assert_type_error(batch_norm(F32, (F32, &[1, 2]), (F32, &[2]), None, None, 1).1);
    assert_type_error(batch_norm(F32, (F32, &[3]), (F32, &[2]), None, None, 1).1);
    assert_type_error(batch_norm(F32, (F32, &[2]), (F16, &[2]), None, None, 1).1);
    assert_type_error(batch_norm(F32, (F32, &[2]), (F32, &[2, 2]), None, None, 1).1);
    assert_type_error(batch_norm(F32, (F32, &[5]), (F32, &[2]), None, None, 2).1);
    // scale and bias: type, rank, size.
    assert_type_error(batch_norm(F16, (F16, &[2]), (F16, &[2]), Some((F32, &[2])), None, 1).1);
    assert_type_error(batch_norm(F32, (F32, &[2]), (F32, &[2]), Some((F32, &[2, 1])), None, 1).1);
    assert_type_error(batch_norm(F32, (F32, &[5]), (F32, &[5]), Some((F32, &[2])), None, 2).1);
    assert_type_error(batch_norm(F16, (F16, &[2]), (F16, &[2]), None, Some((F32, &[2])), 1).1);
    assert_type_error(batch_norm(F32, (F32, &[2]), (F32, &[2]), None, Some((F32, &[2, 1])), 1).1);
    assert_type_error(batch_norm(F32, (F32, &[5]), (F32, &[5]), None, Some((F32, &[2])), 2).1);
}

fn instance_norm(
    dt: DataType,
    shape: &[u32],
    layout: InputLayout,
    scale: Option<(DataType, &[u32])>,
    bias: Option<(DataType, &[u32])>,
) -> (GraphBuilder, Result<Operand>) {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, dt, shape);
    let scale = scale.map(|(t, s)| input(&mut b, t, s));
    let bias = bias.map(|(t, s)| input(&mut b, t, s));
    let options = InstanceNormalizationOptions {
        scale,
        bias,
        layout,
        label: LABEL.into(),
        ..Default::default()
    };
    let r = b.instance_normalization(x, options);
    (b, r)
}

#[test]
fn instance_normalization() {
    use InputLayout::{Nchw, Nhwc};
    let (b, r) = instance_norm(
        F32,
        &[1, 2, 3, 4],
        Nchw,
        Some((F32, &[2])),
        Some((F32, &[2])),
    );
    assert_ok(r, &b, OperandDescriptor::new(F32, &[1, 2, 3, 4]));
    let (b, r) = instance_norm(
        F16,
        &[1, 2, 3, 4],
        Nhwc,
        Some((F16, &[4])),
        Some((F16, &[4])),
    );
    assert_ok(r, &b, OperandDescriptor::new(F16, &[1, 2, 3, 4]));

    assert_type_error(instance_norm(F32, &[1, 2, 5, 5, 2], Nchw, None, None).1);
    assert_type_error(instance_norm(F32, &[2, 5, 5], Nchw, None, None).1);
    assert_type_error(instance_norm(DataType::Int32, &[1, 2, 5, 5], Nchw, None, None).1);
    assert_type_error(instance_norm(F16, &[1, 2, 5, 5], Nchw, Some((F32, &[2])), None).1);
    assert_type_error(instance_norm(F32, &[1, 2, 5, 5], Nchw, Some((F32, &[2, 1])), None).1);
    assert_type_error(instance_norm(F32, &[1, 2, 5, 5], Nhwc, Some((F32, &[2])), None).1);
    assert_type_error(instance_norm(F32, &[1, 5, 5, 2], Nchw, Some((F32, &[2])), None).1);
    assert_type_error(instance_norm(F16, &[1, 2, 5, 5], Nchw, None, Some((F32, &[2]))).1);
    assert_type_error(instance_norm(F32, &[1, 2, 5, 5], Nchw, None, Some((F32, &[2, 1]))).1);
    assert_type_error(instance_norm(F32, &[1, 2, 5, 5], Nhwc, None, Some((F32, &[2]))).1);
    assert_type_error(instance_norm(F32, &[1, 5, 5, 2], Nchw, None, Some((F32, &[2]))).1);
}

fn layer_norm(
    dt: DataType,
    shape: &[u32],
    axes: Option<Vec<u32>>,
    scale: Option<(DataType, &[u32])>,
    bias: Option<(DataType, &[u32])>,
) -> (GraphBuilder, Result<Operand>) {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, dt, shape);
    let scale = scale.map(|(t, s)| input(&mut b, t, s));
    let bias = bias.map(|(t, s)| input(&mut b, t, s));
    let options = LayerNormalizationOptions {
        scale,
        bias,
        axes,
        label: LABEL.into(),
        ..Default::default()
    };
    let r = b.layer_normalization(x, options);
    (b, r)
}

#[test]
fn layer_normalization() {
    let s6: &[u32] = &[1, 2, 3, 4, 5, 6];
    let ok = |dt, shape: &[u32], axes, scale, bias| {
        let (b, r) = layer_norm(dt, shape, axes, scale, bias);
        assert_ok(r, &b, OperandDescriptor::new(dt, shape));
    };
    ok(F32, &[], None, None, None);
    ok(F16, &[], None, None, None);
    ok(F32, &[1, 2, 3, 4], Some(vec![3]), None, None);
    ok(F32, &[1, 2, 3, 4], None, Some((F32, &[2, 3, 4])), None);
    ok(
        F32,
        &[1, 2, 3, 4],
        Some(vec![2, 3]),
        Some((F32, &[3, 4])),
        Some((F32, &[3, 4])),
    );
    ok(
        F32,
        s6,
        Some(vec![1, 3, 5]),
        Some((F32, &[2, 4, 6])),
        Some((F32, &[2, 4, 6])),
    );
    ok(
        F32,
        s6,
        Some(vec![5, 4, 3, 2, 1]),
        Some((F32, &[6, 5, 4, 3, 2])),
        Some((F32, &[6, 5, 4, 3, 2])),
    );
    ok(F32, &[4, 6], Some(vec![]), None, Some((F32, &[])));

    let x4: &[u32] = &[1, 2, 3, 4];
    assert_type_error(layer_norm(DataType::Uint32, x4, None, None, None).1);
    assert_type_error(layer_norm(F32, x4, Some(vec![1, 2, 4]), None, None).1);
    assert_type_error(layer_norm(F32, x4, Some(vec![3, 3]), None, None).1);
    assert_type_error(
        layer_norm(
            F32,
            x4,
            Some(vec![2, 3]),
            Some((F32, &[3, 4])),
            Some((F16, &[3, 4])),
        )
        .1,
    );
    assert_type_error(
        layer_norm(
            F32,
            x4,
            Some(vec![2, 3]),
            Some((F16, &[3, 4])),
            Some((F32, &[3, 4])),
        )
        .1,
    );
    assert_type_error(layer_norm(F32, x4, None, None, Some((F32, &[3, 3, 4]))).1);
    assert_type_error(layer_norm(F32, x4, None, Some((F32, &[3, 3, 4])), None).1);
    assert_type_error(layer_norm(F32, x4, None, None, Some((F32, &[1, 2, 3, 4]))).1);
    assert_type_error(layer_norm(F32, x4, None, Some((F32, &[1, 2, 3, 4])), None).1);
    // Scale sizes follow the order of axes.
    assert_type_error(layer_norm(F32, x4, Some(vec![3, 2]), Some((F32, &[3, 4])), None).1);
}
