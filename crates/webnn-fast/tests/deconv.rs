//! convTranspose2d on the fast backend against the reference: both input layouts, every
//! filter layout, strides, dilations, asymmetric padding, output padding, bias, a fused relu
//! and a residual add, after a convolution (NHWC-stored input) and on a graph input, with a
//! constant filter and bias or ones the graph computes.

mod common;

use common::{check, G};
use webnn_core::ops::*;

#[derive(Clone, Debug)]
struct Case {
    layout: InputLayout,
    filter: ConvTranspose2dFilterLayout,
    k: [u32; 2],
    strides: [u32; 2],
    dilations: [u32; 2],
    padding: [u32; 4],
    output_padding: [u32; 2],
    bias: bool,
    relu: bool,
    after_conv: bool,
    /// Input and output channels, height, width.
    size: [u32; 4],
    /// The filter and bias are inputs of the graph, not constants.
    computed: bool,
}

fn base() -> Case {
    Case {
        layout: InputLayout::Nchw,
        filter: ConvTranspose2dFilterLayout::Iohw,
        k: [3, 3],
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        output_padding: [1, 1],
        bias: true,
        relu: false,
        after_conv: false,
        size: [5, 7, 6, 5],
        computed: false,
    }
}

fn run(case: Case) {
    let [c, oc, h, w] = case.size;
    let mut g = G::new(17);
    let shape = match case.layout {
        InputLayout::Nchw => [2, c, h, w],
        InputLayout::Nhwc => [2, h, w, c],
    };
    let mut x = g.input("x", &shape);
    if case.after_conv {
        let f = g.constant(&[c, c, 1, 1]);
        x = g.b.conv2d(x, f, Conv2dOptions { input_layout: case.layout, ..Default::default() }).unwrap();
    }
    let [kh, kw] = case.k;
    let filter_shape = match case.filter {
        ConvTranspose2dFilterLayout::Iohw => [c, oc, kh, kw],
        ConvTranspose2dFilterLayout::Hwoi => [kh, kw, oc, c],
        ConvTranspose2dFilterLayout::Ohwi => [oc, kh, kw, c],
    };
    let (filter, bias) = match case.computed {
        true => (g.input("f", &filter_shape), case.bias.then(|| g.input("b", &[oc]))),
        false => (g.constant(&filter_shape), case.bias.then(|| g.constant(&[oc]))),
    };
    let options = ConvTranspose2dOptions {
        padding: Some(case.padding.to_vec()),
        strides: Some(case.strides.to_vec()),
        dilations: Some(case.dilations.to_vec()),
        output_padding: Some(case.output_padding.to_vec()),
        input_layout: case.layout,
        filter_layout: case.filter,
        bias,
        ..Default::default()
    };
    let mut y = g.b.conv_transpose2d(x, filter, options).unwrap();
    if case.relu {
        y = g.b.relu(y, OpOptions::default()).unwrap();
    }
    let graph = g.build(&[("y", y)]);
    let (fast, reference) = check(&graph, &g.inputs, 1e-5);
    assert_eq!(reference, 0, "{case:?}");
    assert!(fast >= 1, "{case:?}");
}

#[test]
fn conv_transpose_matches_the_reference() {
    run(base());
    run(Case { layout: InputLayout::Nhwc, ..base() });
    run(Case { filter: ConvTranspose2dFilterLayout::Hwoi, ..base() });
    run(Case { filter: ConvTranspose2dFilterLayout::Ohwi, layout: InputLayout::Nhwc, ..base() });
    run(Case { strides: [1, 1], padding: [0; 4], output_padding: [0, 0], bias: false, ..base() });
    run(Case { k: [2, 3], strides: [3, 2], dilations: [1, 2], padding: [0, 2, 1, 0], output_padding: [2, 1], ..base() });
    run(Case { relu: true, after_conv: true, ..base() });
    run(Case { relu: true, after_conv: true, layout: InputLayout::Nhwc, ..base() });
    // Wide rows: each task's band of output rows reads a few input rows, some of which the
    // band before it also computed (`Deconv::band`).
    run(Case { size: [16, 64, 9, 128], ..base() });
    run(Case { size: [8, 64, 7, 160], k: [5, 3], strides: [1, 1], padding: [2, 1, 1, 1], output_padding: [0, 0], after_conv: true, ..base() });
    // A filter and bias the graph computes, packed per dispatch.
    run(Case { computed: true, ..base() });
    run(Case { computed: true, k: [2, 3], strides: [3, 2], dilations: [1, 2], padding: [0, 2, 1, 0], output_padding: [2, 1], filter: ConvTranspose2dFilterLayout::Hwoi, ..base() });
    run(Case { computed: true, filter: ConvTranspose2dFilterLayout::Ohwi, layout: InputLayout::Nhwc, relu: true, ..base() });
    run(Case { computed: true, bias: false, after_conv: true, size: [16, 64, 9, 128], ..base() });
}

/// A residual add after a transposed convolution is fused into its step.
#[test]
fn a_residual_add_is_fused() {
    let mut g = G::new(18);
    let x = g.input("x", &[1, 4, 5, 5]);
    let skip = g.input("skip", &[1, 3, 10, 10]);
    let filter = g.constant(&[4, 3, 2, 2]);
    let options = ConvTranspose2dOptions { strides: Some(vec![2, 2]), ..Default::default() };
    let y = g.b.conv_transpose2d(x, filter, options).unwrap();
    let y = g.b.add(y, skip, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    let (_, reference) = check(&graph, &g.inputs, 1e-5);
    assert_eq!(reference, 0);
}
