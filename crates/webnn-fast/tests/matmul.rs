//! gemm and matmul on the fast backend against the reference, and the element-wise ops with a
//! fast path.

mod common;

use common::{check, G};
use webnn_core::ops::*;

/// Which of gemm's B and C the graph computes (inputs) rather than holds (constants).
#[derive(Clone, Copy, Default)]
struct Computed {
    b: bool,
    c: bool,
}

fn gemm_case(m: u32, k: u32, n: u32, options: GemmOptions, c_shape: Option<&[u32]>, relu: bool) -> (usize, usize) {
    gemm_case_with(m, k, n, options, c_shape, relu, Computed::default())
}

fn gemm_case_with(m: u32, k: u32, n: u32, options: GemmOptions, c_shape: Option<&[u32]>, relu: bool, computed: Computed) -> (usize, usize) {
    let mut g = G::new(u64::from(m * 1000 + k * 10 + n));
    let a_shape = if options.a_transpose { [k, m] } else { [m, k] };
    let b_shape = if options.b_transpose { [n, k] } else { [k, n] };
    let a = g.input("a", &a_shape);
    let b = if computed.b { g.input("b", &b_shape) } else { g.constant(&b_shape) };
    let c = c_shape.map(|s| if computed.c { g.input("c", s) } else { g.constant(s) });
    let mut y = g.b.gemm(a, b, GemmOptions { c, ..options }).unwrap();
    if relu {
        y = g.b.relu(y, OpOptions::default()).unwrap();
    }
    let graph = g.build(&[("y", y)]);
    check(&graph, &g.inputs, 1e-4)
}

#[test]
fn gemm_variants() {
    for (m, k, n) in [(7, 13, 37), (1, 50, 9), (20, 3, 64), (33, 70, 17)] {
        for at in [false, true] {
            for bt in [false, true] {
                let o = GemmOptions {
                    a_transpose: at,
                    b_transpose: bt,
                    ..Default::default()
                };
                assert_eq!(gemm_case(m, k, n, o, None, false).1, 0);
                let o = GemmOptions {
                    a_transpose: at,
                    b_transpose: bt,
                    alpha: 0.5,
                    beta: -2.0,
                    ..Default::default()
                };
                assert_eq!(gemm_case(m, k, n, o.clone(), Some(&[n]), true).1, 0);
                assert_eq!(gemm_case(m, k, n, o.clone(), Some(&[1, n]), false).1, 0);
                assert_eq!(gemm_case(m, k, n, o.clone(), Some(&[]), true).1, 0);
                // A C that differs per row is added after the product, whatever follows
                // the gemm a step of its own; so is a computed C; a computed B is packed
                // per dispatch.
                for c_shape in [[m, n], [m, 1]] {
                    assert_eq!(gemm_case(m, k, n, o.clone(), Some(&c_shape), true), (1 + usize::from(m > 1), 0));
                }
                let both = Computed { b: true, c: true };
                assert_eq!(gemm_case_with(m, k, n, o.clone(), Some(&[m, n]), false, both), (1, 0));
                assert_eq!(gemm_case_with(m, k, n, o.clone(), Some(&[n]), true, Computed { b: false, c: true }), (2, 0));
                assert_eq!(gemm_case_with(m, k, n, o.clone(), Some(&[n]), true, Computed { b: true, c: false }), (1, 0));
                assert_eq!(gemm_case_with(m, k, n, o, None, false, Computed { b: true, c: false }), (1, 0));
            }
        }
    }
}

#[test]
fn matmul_constant_and_computed_b() {
    let shapes: [(&[u32], &[u32]); 5] = [
        (&[7, 13], &[13, 37]),
        (&[1, 64], &[64, 100]),
        (&[2, 3, 5, 9], &[3, 9, 11]),
        (&[5, 9], &[2, 9, 11]),
        (&[4, 1, 6, 8], &[1, 3, 8, 20]),
    ];
    for (sa, sb) in shapes {
        for constant_b in [true, false] {
            let mut g = G::new(sa.len() as u64 * 31 + sb[sb.len() - 1] as u64);
            let a = g.input("a", sa);
            let b = if constant_b {
                g.constant(sb)
            } else {
                g.input("b", sb)
            };
            let y = g.b.matmul(a, b, OpOptions::default()).unwrap();
            let z = g.b.relu(y, OpOptions::default()).unwrap();
            let graph = g.build(&[("z", z)]);
            let (fast, reference) = check(&graph, &g.inputs, 1e-4);
            assert_eq!((fast, reference), (1, 0), "{sa:?} x {sb:?}");
        }
    }
}

#[test]
fn elementwise_binary_and_clamp() {
    type Method = fn(
        &mut webnn_core::GraphBuilder,
        webnn_core::Operand,
        webnn_core::Operand,
        OpOptions,
    ) -> webnn_core::Result<webnn_core::Operand>;
    let ops: [Method; 6] = [
        webnn_core::GraphBuilder::add,
        webnn_core::GraphBuilder::sub,
        webnn_core::GraphBuilder::mul,
        webnn_core::GraphBuilder::div,
        webnn_core::GraphBuilder::max,
        webnn_core::GraphBuilder::min,
    ];
    for op in ops {
        let mut g = G::new(3);
        let a = g.input("a", &[3, 5, 70001]);
        let b = g.input("b", &[3, 5, 70001]);
        let y = op(&mut g.b, a, b, OpOptions::default()).unwrap();
        let clamp = ClampOptions {
            min_value: Some(MLNumber::Double(-0.3)),
            ..Default::default()
        };
        let z = g.b.clamp(y, clamp).unwrap();
        let graph = g.build(&[("z", z)]);
        assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0));
    }
    // Broadcasting one block of the dimensions (a column here) runs as an element-wise
    // chain; broadcasting around a middle axis as a broadcast step.
    let mut g = G::new(4);
    let a = g.input("a", &[3, 5, 7]);
    let b = g.input("b", &[5, 1]);
    let y = g.b.add(a, b, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0));
    let mut g = G::new(4);
    let a = g.input("a", &[3, 5, 7]);
    let b = g.input("b", &[3, 1, 7]);
    let y = g.b.add(a, b, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0));
}

/// NHWC-stored results of NCHW convs meet in an add with a logical NCHW tensor: the add
/// reads both in one layout.
#[test]
fn mixed_storage_add() {
    let mut g = G::new(9);
    let x = g.input("x", &[2, 4, 6, 5]);
    let other = g.input("o", &[2, 8, 6, 5]);
    let f = g.constant(&[8, 4, 1, 1]);
    let y = g.b.conv2d(x, f, Conv2dOptions::default()).unwrap();
    let s = g.b.sigmoid(y, OpOptions::default()).unwrap();
    let z = g.b.add(y, other, OpOptions::default()).unwrap();
    let w = g.b.mul(z, s, OpOptions::default()).unwrap();
    let graph = g.build(&[("w", w)]);
    let (fast, reference) = check(&graph, &g.inputs, 1e-5);
    assert_eq!(reference, 0, "the sigmoid is a one-link chain");
    assert!(fast >= 3);
}

/// A batch-1 fully connected layer is split into column blocks; they must join up exactly.
#[test]
fn gemv_column_blocks() {
    for (k, n) in [(1280, 1000), (33, 257), (7, 513)] {
        let o = GemmOptions {
            b_transpose: true,
            ..Default::default()
        };
        assert_eq!(gemm_case(1, k, n, o, Some(&[n]), true), (1, 0));
    }
}

/// Global average pooling, on a logical tensor and on an NCHW conv's NHWC-stored result, in
/// both layouts; a pool with a smaller window stays on the reference.
#[test]
fn global_average_pool() {
    for layout in [InputLayout::Nchw, InputLayout::Nhwc] {
        for after_conv in [false, true] {
            let mut g = G::new(12);
            let shape = match layout {
                InputLayout::Nchw => [2, 40, 7, 5],
                InputLayout::Nhwc => [2, 7, 5, 40],
            };
            let mut x = g.input("x", &shape);
            if after_conv {
                let f = g.constant(&[40, 1, 1, 40]);
                let conv = Conv2dOptions {
                    input_layout: layout,
                    filter_layout: Conv2dFilterLayout::Ohwi,
                    ..Default::default()
                };
                x = g.b.conv2d(x, f, conv).unwrap();
            }
            let pool = Pool2dOptions {
                layout,
                ..Default::default()
            };
            let y = g.b.average_pool2d(x, pool).unwrap();
            let graph = g.build(&[("y", y)]);
            let (fast, reference) = check(&graph, &g.inputs, 1e-6);
            assert_eq!(
                (fast, reference),
                (1 + usize::from(after_conv), 0),
                "{layout:?} {after_conv}"
            );
        }
    }
    let mut g = G::new(13);
    let x = g.input("x", &[1, 3, 6, 6]);
    let pool = Pool2dOptions {
        window_dimensions: Some(vec![3, 3]),
        strides: Some(vec![3, 3]),
        ..Default::default()
    };
    let y = g.b.average_pool2d(x, pool).unwrap();
    let graph = g.build(&[("y", y)]);
    // Not global: the windowed pool's step (tests/window.rs) takes it.
    assert_eq!(check(&graph, &g.inputs, 1e-6), (1, 0));
}
