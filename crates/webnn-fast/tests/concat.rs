//! concat on the fast backend against the reference, bit for bit: every axis, inputs of
//! different widths, one input twice, features stored NHWC by convolutions joined along their
//! channels where they lie, and a mix of stored layouts.

mod common;

use common::{check, G};
use webnn_core::ops::*;

#[test]
fn concat_matches_the_reference() {
    for axis in 0..4u32 {
        let mut g = G::new(8);
        let mut shape_b = [2u32, 3, 4, 5];
        shape_b[axis as usize] = 2;
        let a = g.input("a", &[2, 3, 4, 5]);
        let b = g.input("b", &shape_b);
        let y = g.b.concat(&[a, b, a], axis, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "axis {axis}");
    }
}

#[test]
fn convolution_features_join_along_their_channels() {
    for mixed in [false, true] {
        let mut g = G::new(9);
        let x = g.input("x", &[1, 4, 6, 6]);
        let f1 = g.constant(&[3, 4, 1, 1]);
        let f2 = g.constant(&[5, 4, 3, 3]);
        let a = g.b.conv2d(x, f1, Conv2dOptions::default()).unwrap();
        let pad = Conv2dOptions { padding: Some(vec![1, 1, 1, 1]), ..Default::default() };
        let b = g.b.conv2d(x, f2, pad).unwrap();
        // The mixed case joins a plain NCHW input as well.
        let y = match mixed {
            false => g.b.concat(&[a, b], 1, OpOptions::default()).unwrap(),
            true => g.b.concat(&[a, x, b], 1, OpOptions::default()).unwrap(),
        };
        let f3 = g.constant(&[2, if mixed { 12 } else { 8 }, 1, 1]);
        let z = g.b.conv2d(y, f3, Conv2dOptions::default()).unwrap();
        let graph = g.build(&[("z", z)]);
        let (_, reference) = check(&graph, &g.inputs, 1e-5);
        assert_eq!(reference, 0, "mixed {mixed}");
    }
}
