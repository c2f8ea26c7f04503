//! concat, transpose and reshape on the fast backend against the reference, bit for bit:
//! concat on every axis, inputs of different widths, one input twice, features stored NHWC by
//! convolutions joined along their channels where they lie, and a mix of stored layouts;
//! transposes of every permutation of a 4-D tensor; reshapes of NHWC-stored features; pads
//! in every mode and rank, of graph inputs and of NHWC-stored features.

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

#[test]
fn transposes_match_the_reference() {
    let perms = [[0, 1, 2, 3], [3, 2, 1, 0], [0, 2, 3, 1], [0, 3, 1, 2], [1, 0, 3, 2], [2, 0, 1, 3]];
    for perm in perms {
        let mut g = G::new(10);
        let x = g.input("x", &[2, 3, 4, 5]);
        let options = TransposeOptions { permutation: Some(perm.to_vec()), ..Default::default() };
        let y = g.b.transpose(x, options).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "{perm:?}");
    }
    // Axes of one element, and shapes whose transposed axes take ragged 16 x 16 tiles (an
    // NCHW to NHWC copy, a matrix behind a leading axis).
    let cases: [(&[u32], [u32; 4]); 4] =
        [(&[1, 40, 33, 1], [0, 2, 1, 3]), (&[2, 5, 7, 19], [0, 2, 3, 1]), (&[3, 17, 1, 50], [0, 3, 2, 1]), (&[1, 1, 1, 9], [3, 2, 1, 0])];
    for (shape, perm) in cases {
        let mut g = G::new(13);
        let x = g.input("x", shape);
        let options = TransposeOptions { permutation: Some(perm.to_vec()), ..Default::default() };
        let y = g.b.transpose(x, options).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "{shape:?} {perm:?}");
    }
    // The default permutation reverses the axes.
    let mut g = G::new(11);
    let x = g.input("x", &[6, 7]);
    let y = g.b.transpose(x, TransposeOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0));
}

#[test]
fn reshapes_of_convolution_features_are_logical() {
    let mut g = G::new(12);
    let x = g.input("x", &[1, 4, 3, 5]);
    let f = g.constant(&[6, 4, 1, 1]);
    let c = g.b.conv2d(x, f, Conv2dOptions::default()).unwrap();
    let y = g.b.reshape(c, vec![6u32.into(), 15u32.into()], OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    let (_, reference) = check(&graph, &g.inputs, 1e-5);
    assert_eq!(reference, 0);
}

#[test]
fn pads_match_the_reference() {
    let modes = [PaddingMode::Constant, PaddingMode::Edge, PaddingMode::Reflection];
    let cases: [(&[u32], &[u32], &[u32]); 4] =
        [(&[7], &[2], &[3]), (&[4, 5], &[0, 3], &[2, 1]), (&[2, 3, 4], &[1, 0, 2], &[0, 2, 3]), (&[2, 2, 5, 4], &[0, 1, 3, 2], &[1, 0, 2, 3])];
    for mode in modes {
        for (shape, begin, end) in cases {
            let mut g = G::new(13);
            let x = g.input("x", shape);
            let options = PadOptions { mode, value: MLNumber::Double(-2.5), ..Default::default() };
            let y = g.b.pad(x, begin.to_vec(), end.to_vec(), options).unwrap();
            let graph = g.build(&[("y", y)]);
            assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "{mode:?} {shape:?}");
        }
    }
}

#[test]
fn spatial_pads_of_convolution_features_stay_nhwc() {
    for (begin, end) in [([0u32, 0, 2, 1], [0u32, 0, 1, 2]), ([0, 1, 1, 0], [0, 2, 0, 1])] {
        for mode in [PaddingMode::Reflection, PaddingMode::Constant] {
            let mut g = G::new(14);
            let x = g.input("x", &[1, 3, 6, 5]);
            let f = g.constant(&[4, 3, 1, 1]);
            let c = g.b.conv2d(x, f, Conv2dOptions::default()).unwrap();
            let padded = g.b.pad(c, begin.to_vec(), end.to_vec(), PadOptions { mode, ..Default::default() }).unwrap();
            let channels = 4 + begin[1] + end[1];
            let f2 = g.constant(&[2, channels, 3, 3]);
            let z = g.b.conv2d(padded, f2, Conv2dOptions::default()).unwrap();
            let graph = g.build(&[("z", z)]);
            let (_, reference) = check(&graph, &g.inputs, 1e-5);
            assert_eq!(reference, 0, "{begin:?} {mode:?}");
        }
    }
}
