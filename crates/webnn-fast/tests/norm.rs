//! batchNormalization and instanceNormalization on the fast backend against the reference:
//! bit for bit on a graph input, within float32 rounding after a convolution (whose result
//! is stored NHWC and normalized where it lies); every axis and layout, with and without
//! scale and bias, parameters given as inputs or constants.

mod common;

use common::{check, G};
use webnn_core::ops::*;
use webnn_core::Operand;

/// `x` of `shape`, optionally through a 1x1 convolution of its `c` channels first.
fn source(g: &mut G, shape: &[u32], c: u32, layout: InputLayout, conv: bool) -> Operand {
    let x = g.input("x", shape);
    if !conv {
        return x;
    }
    let filter = g.constant(&[c, c, 1, 1]);
    g.b.conv2d(x, filter, Conv2dOptions { input_layout: layout, ..Default::default() }).unwrap()
}

#[test]
fn batch_normalization_matches_the_reference() {
    let cases: [(&[u32], u32, bool); 5] = [
        (&[2, 5, 7, 3], 1, false),
        (&[2, 5, 7, 3], 1, true),
        (&[2, 5, 7, 3], 3, false),
        (&[4, 6], 0, false),
        (&[3, 4, 5], 2, false),
    ];
    for (shape, axis, conv) in cases {
        for (with_params, params_as_inputs) in [(true, false), (false, false), (true, true)] {
            let mut g = G::new(4);
            let x = source(&mut g, shape, shape[1], InputLayout::Nchw, conv);
            let c = shape[axis as usize];
            let param = |g: &mut G, name: &str| match params_as_inputs {
                true => g.input(name, &[c]),
                false => g.constant(&[c]),
            };
            let mean = param(&mut g, "mean");
            // Variances must not be negative: |v| + 0.1 through the graph.
            let v = param(&mut g, "variance");
            let v = g.b.abs(v, OpOptions::default()).unwrap();
            let tenth = g.b.constant(webnn_core::OperandDescriptor::new(webnn_core::DataType::Float32, &[1]), 0.1f32.to_le_bytes().to_vec()).unwrap();
            let variance = g.b.add(v, tenth, OpOptions::default()).unwrap();
            let (scale, bias) = match with_params {
                true => (Some(param(&mut g, "scale")), Some(param(&mut g, "bias"))),
                false => (None, None),
            };
            let options = BatchNormalizationOptions { axis, scale, bias, epsilon: 1e-3, ..Default::default() };
            let y = g.b.batch_normalization(x, mean, variance, options).unwrap();
            let y = g.b.relu(y, OpOptions::default()).unwrap();
            let graph = g.build(&[("y", y)]);
            let tol = if conv { 1e-4 } else { 0.0 };
            let (_, reference) = check(&graph, &g.inputs, tol);
            assert_eq!(reference, 0, "{shape:?} axis {axis} conv {conv}");
        }
    }
}

#[test]
fn instance_normalization_matches_the_reference() {
    for layout in [InputLayout::Nchw, InputLayout::Nhwc] {
        for conv in [false, true] {
            for with_params in [true, false] {
                let mut g = G::new(6);
                let (c, shape) = match layout {
                    InputLayout::Nchw => (5, [2, 5, 9, 7]),
                    InputLayout::Nhwc => (5, [2, 9, 7, 5]),
                };
                let x = source(&mut g, &shape, c, layout, conv);
                let (scale, bias) = match with_params {
                    true => (Some(g.constant(&[c])), Some(g.constant(&[c]))),
                    false => (None, None),
                };
                let options = InstanceNormalizationOptions { scale, bias, layout, ..Default::default() };
                let y = g.b.instance_normalization(x, options).unwrap();
                let graph = g.build(&[("y", y)]);
                let tol = if conv { 1e-4 } else { 0.0 };
                let (fast, reference) = check(&graph, &g.inputs, tol);
                // After a conv the result is stored NHWC: a layout step joins for the output.
                assert_eq!(reference, 0, "{layout:?} conv {conv}");
                assert!(fast > usize::from(conv), "{layout:?} conv {conv}");
            }
        }
    }
}

/// A channels-last image of more pixels than one task sums (its runs' sums added in order)
/// after a convolution, with the relu after it fused: within the convolution's float32
/// rounding of the reference, the same bits at every thread count (`check`), one step for
/// both ops.
#[test]
fn instance_normalization_of_a_large_image_fuses_its_relu() {
    let mut g = G::new(12);
    let x = g.input("x", &[1, 3, 50, 45]);
    let filter = g.constant(&[24, 3, 3, 3]);
    let y = g.b.conv2d(x, filter, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let (scale, bias) = (Some(g.constant(&[24])), Some(g.constant(&[24])));
    let y = g.b.instance_normalization(y, InstanceNormalizationOptions { scale, bias, ..Default::default() }).unwrap();
    let y = g.b.relu(y, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 1e-4).1, 0);
    let steps = common::steps(&graph, &g);
    assert!(steps.iter().any(|s| s.starts_with("instance normalization of 24 channels over 2250 (NHWC) clamp[0, inf]")), "{steps:?}");
    assert!(!steps.iter().any(|s| s.starts_with("element-wise")), "{steps:?}");
}

/// A batch normalization with constant statistics after a convolution with constant weights
/// folds into it: the plan has no normalization step, and the result stays within float32
/// rounding of the reference's two ops.
#[test]
fn batch_normalization_folds_into_the_convolution_before_it() {
    for (with_bias, layout) in [(false, InputLayout::Nchw), (true, InputLayout::Nhwc)] {
        let mut g = G::new(9);
        let shape: &[u32] = if layout == InputLayout::Nchw { &[1, 4, 6, 5] } else { &[1, 6, 5, 4] };
        let x = g.input("x", shape);
        let filter = g.constant(&[8, 4, 3, 3]);
        let bias = with_bias.then(|| g.constant(&[8]));
        let options = Conv2dOptions { input_layout: layout, bias, padding: Some(vec![1; 4]), ..Default::default() };
        let y = g.b.conv2d(x, filter, options).unwrap();
        let alone = g.b.relu(y, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", alone)]);
        let conv_steps = check(&graph, &g.inputs, 1e-4);
        let mut g = G::new(9);
        let x = g.input("x", shape);
        let filter = g.constant(&[8, 4, 3, 3]);
        let bias = with_bias.then(|| g.constant(&[8]));
        let options = Conv2dOptions { input_layout: layout, bias, padding: Some(vec![1; 4]), ..Default::default() };
        let y = g.b.conv2d(x, filter, options).unwrap();
        let (mean, scale, beta) = (g.constant(&[8]), g.constant(&[8]), g.constant(&[8]));
        let v = g.constant(&[8]);
        let v = g.b.abs(v, OpOptions::default()).unwrap();
        let axis = if layout == InputLayout::Nchw { 1 } else { 3 };
        let options = BatchNormalizationOptions { axis, scale: Some(scale), bias: Some(beta), epsilon: 1e-3, ..Default::default() };
        let y = g.b.batch_normalization(y, mean, v, options).unwrap();
        let y = g.b.relu(y, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        let (fast, reference) = check(&graph, &g.inputs, 1e-4);
        assert_eq!((fast, reference), conv_steps, "{layout:?}: the steps of the convolution alone");
    }
}

/// The same after a single-group transposed convolution (the upsampling of a detection head).
#[test]
fn batch_normalization_folds_into_a_transposed_convolution() {
    let build = |g: &mut G, with_norm: bool| {
        let x = g.input("x", &[1, 4, 5, 6]);
        let filter = g.constant(&[4, 3, 2, 2]);
        let options = ConvTranspose2dOptions { strides: Some(vec![2, 2]), ..Default::default() };
        let y = g.b.conv_transpose2d(x, filter, options).unwrap();
        if !with_norm {
            return y;
        }
        let (mean, scale, beta, v) = (g.constant(&[3]), g.constant(&[3]), g.constant(&[3]), g.constant(&[3]));
        let v = g.b.abs(v, OpOptions::default()).unwrap();
        let options = BatchNormalizationOptions { scale: Some(scale), bias: Some(beta), epsilon: 1e-3, ..Default::default() };
        g.b.batch_normalization(y, mean, v, options).unwrap()
    };
    let mut g = G::new(10);
    let alone = build(&mut g, false);
    let graph = g.build(&[("y", alone)]);
    let deconv_steps = check(&graph, &g.inputs, 1e-4);
    let mut g = G::new(10);
    let y = build(&mut g, true);
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 1e-4), deconv_steps);
}
