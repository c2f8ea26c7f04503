//! Reductions and cumulative sums on the fast backend: bit for bit the reference's, every fold, trailing and
//! middle blocks of axes, axes that are no block (copied into one first), no axes, with and
//! without kept dimensions, NaN and infinities.

mod common;

use common::{check, G};
use webnn_core::ops::*;

type Method = fn(&mut webnn_core::GraphBuilder, webnn_core::Operand, ReduceOptions) -> webnn_core::Result<webnn_core::Operand>;

#[test]
fn reductions_over_a_block_of_axes_match_the_reference() {
    use webnn_core::GraphBuilder as B;
    let folds: [Method; 10] = [
        B::reduce_mean,
        B::reduce_sum,
        B::reduce_max,
        B::reduce_min,
        B::reduce_l1,
        B::reduce_l2,
        B::reduce_sum_square,
        B::reduce_log_sum,
        B::reduce_log_sum_exp,
        B::reduce_product,
    ];
    let axes: [Option<Vec<u32>>; 7] = [Some(vec![2]), Some(vec![1, 2]), Some(vec![0]), Some(vec![1]), None, Some(vec![0, 2]), Some(vec![])];
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
                let steps = if ax.as_deref() == Some(&[0, 2]) { 2 } else { 1 };
                assert_eq!(check(&graph, &g.inputs, 0.0), (steps, 0), "{ax:?} keep {keep}");
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
    // Axes that are no block, of a 4D input: a strided copy puts them together first (one
    // step more), each group still folded in the reference's order.
    for f in folds {
        for ax in [vec![0u32, 2], vec![1, 3], vec![0, 3], vec![3, 0, 2]] {
            for keep in [false, true] {
                let mut g = G::new(6);
                let x = g.input("x", &[3, 4, 5, 6]);
                let y = f(&mut g.b, x, ReduceOptions { axes: Some(ax.clone()), keep_dimensions: keep, ..Default::default() }).unwrap();
                let graph = g.build(&[("y", y)]);
                let mut v = common::floats(&g.inputs[0].1.bytes);
                (v[17], v[200]) = (f32::NAN, f32::NEG_INFINITY);
                g.inputs[0].1.bytes = common::bytes(&v);
                assert_eq!(check(&graph, &g.inputs, 0.0), (2, 0), "{ax:?} keep {keep}");
            }
        }
    }
}

/// cumulativeSum along each axis, exclusive or not, reversed or not, with NaN and
/// infinities: the reference's f64 running sums, bit for bit.
#[test]
fn cumulative_sums_match_the_reference() {
    for axis in 0..3u32 {
        for exclusive in [false, true] {
            for reversed in [false, true] {
                let mut g = G::new(7);
                let x = g.input("x", &[3, 33, 5]);
                let options = CumulativeSumOptions { exclusive, reversed, ..Default::default() };
                let y = g.b.cumulative_sum(x, axis, options).unwrap();
                let graph = g.build(&[("y", y)]);
                let mut v = common::floats(&g.inputs[0].1.bytes);
                (v[40], v[111]) = (f32::NAN, f32::INFINITY);
                g.inputs[0].1.bytes = common::bytes(&v);
                assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "axis {axis} exclusive {exclusive} reversed {reversed}");
            }
        }
    }
}

