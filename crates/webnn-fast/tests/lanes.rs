//! softmax and layerNormalization on the fast backend against the reference, bit for bit:
//! every softmax axis, layer normalization over the trailing axes (default and given), with
//! and without scale and bias, NaN and infinities; other axes stay on the reference kernel.

mod common;

use common::{check, G};
use webnn_core::ops::*;

#[test]
fn softmax_matches_the_reference() {
    for axis in 0..3u32 {
        let mut g = G::new(21);
        let x = g.input("x", &[3, 40, 7]);
        let y = g.b.softmax(x, axis, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        let mut v = common::floats(&g.inputs[0].1.bytes);
        v.iter_mut().for_each(|x| *x *= 30.0);
        v[5] = f32::NAN;
        v[100] = f32::INFINITY;
        g.inputs[0].1.bytes = common::bytes(&v);
        assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "axis {axis}");
    }
}

#[test]
fn layer_normalization_matches_the_reference() {
    let cases: [(Option<Vec<u32>>, &[u32]); 4] =
        [(None, &[6, 5]), (Some(vec![2]), &[5]), (Some(vec![1, 2]), &[6, 5]), (Some(vec![0, 1, 2]), &[4, 6, 5])];
    for (axes, param_shape) in cases {
        for params in [true, false] {
            let mut g = G::new(22);
            let x = g.input("x", &[4, 6, 5]);
            let (scale, bias) = match params {
                true => (Some(g.constant(param_shape)), Some(g.constant(param_shape))),
                false => (None, None),
            };
            let options = LayerNormalizationOptions { axes: axes.clone(), scale, bias, ..Default::default() };
            let y = g.b.layer_normalization(x, options).unwrap();
            let graph = g.build(&[("y", y)]);
            assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "{axes:?}");
        }
    }
    // Leading or unordered axes keep the reference kernel.
    for axes in [vec![0], vec![2, 1]] {
        let mut g = G::new(23);
        let x = g.input("x", &[4, 6, 5]);
        let options = LayerNormalizationOptions { axes: Some(axes.clone()), ..Default::default() };
        let y = g.b.layer_normalization(x, options).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0), (0, 1), "{axes:?}");
    }
}
