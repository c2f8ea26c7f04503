//! Reductions over a contiguous block of axes on the fast backend: bit for bit the
//! reference's, every fold, trailing and middle blocks, with and without kept dimensions,
//! NaN and infinities; other axis sets stay on the reference.

mod common;

use common::{check, G};
use webnn_core::ops::*;

type Method = fn(&mut webnn_core::GraphBuilder, webnn_core::Operand, ReduceOptions) -> webnn_core::Result<webnn_core::Operand>;

#[test]
fn reductions_over_a_block_of_axes_match_the_reference() {
    use webnn_core::GraphBuilder as B;
    let folds: [Method; 7] = [B::reduce_mean, B::reduce_sum, B::reduce_max, B::reduce_min, B::reduce_l1, B::reduce_l2, B::reduce_sum_square];
    let axes: [Option<Vec<u32>>; 5] = [Some(vec![2]), Some(vec![1, 2]), Some(vec![0]), Some(vec![1]), None];
    for f in folds {
        for ax in &axes {
            for keep in [false, true] {
                let mut g = G::new(3);
                let x = g.input("x", &[3, 40, 17]);
                let y = f(&mut g.b, x, ReduceOptions { axes: ax.clone(), keep_dimensions: keep, ..Default::default() }).unwrap();
                let graph = g.build(&[("y", y)]);
                let mut v = common::floats(&g.inputs[0].1.bytes);
                v[5] = f32::NAN;
                v[100] = f32::INFINITY;
                g.inputs[0].1.bytes = common::bytes(&v);
                assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "{ax:?} keep {keep}");
            }
        }
    }
    // Long lanes (the vector maximum's sixteen lanes and its tail), NaN deep in one lane
    // and infinities in another, over the last axis and over the first.
    for f in folds {
        for ax in [vec![1u32], vec![0]] {
            let mut g = G::new(5);
            let x = g.input("x", &[5, 203]);
            let y = f(&mut g.b, x, ReduceOptions { axes: Some(ax.clone()), ..Default::default() }).unwrap();
            let graph = g.build(&[("y", y)]);
            let mut v = common::floats(&g.inputs[0].1.bytes);
            (v[150], v[203 + 190], v[406 + 7]) = (f32::NAN, f32::INFINITY, f32::NEG_INFINITY);
            g.inputs[0].1.bytes = common::bytes(&v);
            assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "{ax:?}");
        }
    }
    // Axes 0 and 2 are not one block: the reference runs them.
    let mut g = G::new(4);
    let x = g.input("x", &[3, 4, 5]);
    let y = g.b.reduce_sum(x, ReduceOptions { axes: Some(vec![0, 2]), ..Default::default() }).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 0.0), (0, 1));
}
