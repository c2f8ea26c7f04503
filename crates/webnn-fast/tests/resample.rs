//! resample2d on the fast backend: bit for bit the reference's, nearest and linear, up and
//! down, on a graph input (NCHW) and after a convolution (stored NHWC, resampled there), and
//! on the axes [1, 2].

mod common;

use common::{check, G};
use webnn_core::ops::*;

#[test]
fn resample2d_matches_the_reference_bit_for_bit() {
    let sizes: [(&[u32], [u32; 2]); 3] = [(&[1, 3, 5, 7], [10, 14]), (&[2, 4, 9, 6], [4, 13]), (&[1, 2, 4, 4], [4, 4])];
    for (shape, out) in sizes {
        for mode in [InterpolationMode::NearestNeighbor, InterpolationMode::Linear] {
            for conv in [false, true] {
                let mut g = G::new(7);
                let mut x = g.input("x", shape);
                if conv {
                    let c = shape[1];
                    let filter = g.constant(&[c, c, 1, 1]);
                    x = g.b.conv2d(x, filter, Conv2dOptions::default()).unwrap();
                }
                let options = Resample2dOptions { mode, sizes: Some(out.to_vec()), ..Default::default() };
                let y = g.b.resample2d(x, options).unwrap();
                let graph = g.build(&[("y", y)]);
                let tol = if conv { 1e-5 } else { 0.0 };
                let (_, reference) = check(&graph, &g.inputs, tol);
                assert_eq!(reference, 0, "{shape:?} -> {out:?} {mode:?} conv {conv}");
            }
        }
    }
    // Other axes of a logical tensor, in either order (the blend follows the order given).
    for axes in [[1, 2], [2, 1], [3, 2], [3, 1], [1, 3], [0, 3]] {
        for mode in [InterpolationMode::NearestNeighbor, InterpolationMode::Linear] {
            let mut g = G::new(8);
            let x = g.input("x", &[2, 3, 5, 4]);
            let options = Resample2dOptions { mode, sizes: Some(vec![7, 3]), axes: Some(axes.to_vec()), ..Default::default() };
            let y = g.b.resample2d(x, options).unwrap();
            let graph = g.build(&[("y", y)]);
            assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "axes {axes:?} {mode:?}");
        }
    }
}

