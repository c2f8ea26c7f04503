//! maxPool2d, averagePool2d and l2Pool2d over windows on the fast backend against the reference, bit
//! for bit: both layouts, features a convolution stored NHWC, strides, dilations, padding,
//! ceil rounding, windows wholly in the padding, NaN and infinities.

mod common;

use common::{check, G};
use webnn_core::ops::*;
use webnn_core::Operand;

#[derive(Clone, Copy, Debug)]
enum Pool {
    Max,
    Average,
    L2,
}

#[derive(Clone, Debug)]
struct Case {
    kind: Pool,
    layout: InputLayout,
    /// A 1x1 convolution before the pool (its result is stored NHWC).
    after_conv: bool,
    window: [u32; 2],
    strides: [u32; 2],
    dilations: [u32; 2],
    padding: [u32; 4],
    ceil: bool,
}

fn base(kind: Pool) -> Case {
    Case {
        kind,
        layout: InputLayout::Nchw,
        after_conv: false,
        window: [3, 3],
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        ceil: false,
    }
}

fn pool(g: &mut G, x: Operand, case: &Case) -> Operand {
    let options = Pool2dOptions {
        window_dimensions: Some(case.window.to_vec()),
        strides: Some(case.strides.to_vec()),
        dilations: Some(case.dilations.to_vec()),
        padding: Some(case.padding.to_vec()),
        layout: case.layout,
        output_shape_rounding: if case.ceil { RoundingType::Ceil } else { RoundingType::Floor },
        ..Default::default()
    };
    match case.kind {
        Pool::Max => g.b.max_pool2d(x, options).unwrap(),
        Pool::Average => g.b.average_pool2d(x, options).unwrap(),
        Pool::L2 => g.b.l2_pool2d(x, options).unwrap(),
    }
}

fn run(case: Case) {
    let mut g = G::new(3);
    let (c, h, w) = (6u32, 11u32, 9u32);
    let shape = match case.layout {
        InputLayout::Nchw => [2, c, h, w],
        InputLayout::Nhwc => [2, h, w, c],
    };
    let mut x = g.input("x", &shape);
    if case.after_conv {
        let filter = g.constant(&[c, c, 1, 1]);
        x = g.b.conv2d(x, filter, Conv2dOptions { input_layout: case.layout, ..Default::default() }).unwrap();
    }
    let y = pool(&mut g, x, &case);
    let y = g.b.relu(y, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    // Non-finite values in the input (the conv would spread them; only plain inputs get them).
    if !case.after_conv {
        let mut v = common::floats(&g.inputs[0].1.bytes);
        v[4] = f32::NAN;
        v[40] = f32::INFINITY;
        v[41] = f32::NEG_INFINITY;
        g.inputs[0].1.bytes = common::bytes(&v);
    }
    // Exact on the input's values; after a convolution, within its float32 sums' rounding.
    let tol = if case.after_conv { 1e-5 } else { 0.0 };
    let (fast, reference) = check(&graph, &g.inputs, tol);
    assert_eq!(reference, 0, "{case:?}: every op on a fast step");
    assert!(fast >= 2, "{case:?}");
}

#[test]
fn pools_match_the_reference() {
    for max in [Pool::Max, Pool::Average, Pool::L2] {
        run(base(max));
        run(Case { layout: InputLayout::Nhwc, ..base(max) });
        run(Case { after_conv: true, ..base(max) });
        run(Case { after_conv: true, layout: InputLayout::Nhwc, ..base(max) });
        run(Case { window: [2, 2], strides: [2, 2], padding: [0; 4], ..base(max) });
        run(Case { dilations: [2, 1], strides: [1, 1], padding: [0, 2, 1, 0], ..base(max) });
        run(Case { ceil: true, padding: [0; 4], ..base(max) });
        // A 1x1 window with padding 2: the edge windows hold no input element.
        run(Case { window: [1, 1], strides: [1, 1], padding: [2, 2, 2, 2], ..base(max) });
    }
}
