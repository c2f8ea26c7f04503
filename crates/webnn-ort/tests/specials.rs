//! Float specials (NaN, ±Infinity, -0) through the ops whose ONNX Runtime kernels treat them
//! differently from WebNN's definitions, against the cpu backend.

mod common;

use common::{mismatch, run_both, tensor_of};
use webnn_core::ops::*;
use webnn_core::{DataType, GraphBuilder, OperandDescriptor};

#[test]
fn nan_wins_maxima_and_minima() {
    for t in [DataType::Float32, DataType::Float16] {
        let mut b = GraphBuilder::new();
        let x = b
            .input("x", OperandDescriptor::new(t, &[1, 2, 3, 4]))
            .unwrap();
        let y = b.input("y", OperandDescriptor::new(t, &[4])).unwrap();
        let o = OpOptions::default;
        let axes = |a: Vec<u32>| ReduceOptions {
            axes: Some(a),
            ..Default::default()
        };
        let window = Pool2dOptions {
            window_dimensions: Some(vec![2, 2]),
            ..Default::default()
        };
        let outs = vec![
            ("reduceMax", b.reduce_max(x, axes(vec![3])).unwrap()),
            ("reduceMin", b.reduce_min(x, axes(vec![1, 2])).unwrap()),
            ("reduceMaxNone", b.reduce_max(x, axes(vec![])).unwrap()),
            ("maxPool2d", b.max_pool2d(x, window).unwrap()),
            ("max", b.max(x, y, o()).unwrap()),
            ("min", b.min(x, y, o()).unwrap()),
            (
                "argMax",
                b.arg_max(x, 3, ArgMinMaxOptions::default()).unwrap(),
            ),
            (
                "argMin",
                b.arg_min(x, 3, ArgMinMaxOptions::default()).unwrap(),
            ),
            ("relu", b.relu(x, o()).unwrap()),
            (
                "clamp",
                b.clamp(
                    x,
                    ClampOptions {
                        min_value: Some(MLNumber::Double(-1.0)),
                        ..Default::default()
                    },
                )
                .unwrap(),
            ),
        ];
        let g = b.build(&outs).unwrap();
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let xs = [
            1.0, nan, 3.0, -2.0, -inf, 0.5, inf, -0.0, nan, nan, 2.0, 7.0, //
            -1.5, 4.0, nan, 2.5, 9.0, -9.0, 0.0, 1.0, inf, -inf, 3.0, nan,
        ];
        let ys = [nan, 0.0, -1.0, 10.0];
        let bytes = |v: &[f64]| -> Vec<u8> {
            match t {
                DataType::Float32 => v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
                _ => v
                    .iter()
                    .flat_map(|x| half::f16::from_f64(*x).to_le_bytes())
                    .collect(),
            }
        };
        let xv = tensor_of(t, &[1, 2, 3, 4], bytes(&xs));
        let yv = tensor_of(t, &[4], bytes(&ys));
        for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv), ("y", &yv)])) {
            assert_eq!(mismatch(&got, &want, 0), None, "{name} {t}");
        }
    }
}

/// Unary math and activations at the edges of their domains: signed zeros, infinities,
/// NaN, overflow and values where approximations drift.
#[test]
fn unary_ops_at_the_edges() {
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let xs = [
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-8, -1e-8, 88.0, -88.0, 100.0, -100.0, 1e30,
        -1e30, inf, -inf, nan, 3.0, -6.0, 6.0, 0.0025, 20.0,
    ];
    for t in [DataType::Float32, DataType::Float16] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(t, &[24])).unwrap();
        let o = OpOptions::default;
        let outs = vec![
            ("abs", b.abs(x, o()).unwrap()),
            ("ceil", b.ceil(x, o()).unwrap()),
            ("floor", b.floor(x, o()).unwrap()),
            ("roundEven", b.round_even(x, o()).unwrap()),
            ("neg", b.neg(x, o()).unwrap()),
            ("sign", b.sign(x, o()).unwrap()),
            ("sqrt", b.sqrt(x, o()).unwrap()),
            ("log", b.log(x, o()).unwrap()),
            ("exp", b.exp(x, o()).unwrap()),
            ("reciprocal", b.reciprocal(x, o()).unwrap()),
            ("erf", b.erf(x, o()).unwrap()),
            ("sigmoid", b.sigmoid(x, o()).unwrap()),
            ("tanh", b.tanh(x, o()).unwrap()),
            ("softplus", b.softplus(x, o()).unwrap()),
            ("softsign", b.softsign(x, o()).unwrap()),
            ("elu", b.elu(x, EluOptions::default()).unwrap()),
            ("gelu", b.gelu(x, o()).unwrap()),
            ("hardSwish", b.hard_swish(x, o()).unwrap()),
            ("isNaN", b.is_nan(x, o()).unwrap()),
            ("isInfinite", b.is_infinite(x, o()).unwrap()),
        ];
        let g = b.build(&outs).unwrap();
        let bytes: Vec<u8> = match t {
            DataType::Float32 => xs.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
            _ => xs
                .iter()
                .flat_map(|x| half::f16::from_f64(*x).to_le_bytes())
                .collect(),
        };
        let xv = tensor_of(t, &[24], bytes);
        for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv)])) {
            assert_eq!(mismatch(&got, &want, 0), None, "{name} {t}");
            // Exact ops match to the bit: signed zeros (and NaN passed through) included.
            if ["abs", "ceil", "floor", "roundEven", "neg", "sign"].contains(name) {
                assert_eq!(got.bytes, want.bytes, "{name} {t} bits");
            }
        }
    }
}

/// Binary ops, reductions and softmax with infinities, zeros of both signs and NaN.
#[test]
fn binary_ops_and_reductions_at_the_edges() {
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let xs = [
        0.0, -0.0, inf, -inf, nan, 2.0, -8.0, 1e30, 0.0, 3.0, -inf, 1.0,
    ];
    let ys = [
        0.0, 0.0, inf, 1.0, 2.0, -1.0, 0.5, 1e30, -0.0, inf, -inf, nan,
    ];
    for t in [DataType::Float32, DataType::Float16] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(t, &[3, 4])).unwrap();
        let y = b.input("y", OperandDescriptor::new(t, &[3, 4])).unwrap();
        let o = OpOptions::default;
        let rows = || ReduceOptions {
            axes: Some(vec![1]),
            ..Default::default()
        };
        let outs = vec![
            ("add", b.add(x, y, o()).unwrap()),
            ("sub", b.sub(x, y, o()).unwrap()),
            ("mul", b.mul(x, y, o()).unwrap()),
            ("div", b.div(x, y, o()).unwrap()),
            ("pow", b.pow(x, y, o()).unwrap()),
            ("max", b.max(x, y, o()).unwrap()),
            ("min", b.min(x, y, o()).unwrap()),
            ("equal", b.equal(x, y, o()).unwrap()),
            ("greater", b.greater(x, y, o()).unwrap()),
            ("reduceSum", b.reduce_sum(x, rows()).unwrap()),
            ("reduceMean", b.reduce_mean(x, rows()).unwrap()),
            ("reduceProduct", b.reduce_product(x, rows()).unwrap()),
            ("reduceL1", b.reduce_l1(x, rows()).unwrap()),
            ("reduceL2", b.reduce_l2(x, rows()).unwrap()),
            ("reduceLogSumExp", b.reduce_log_sum_exp(x, rows()).unwrap()),
            ("reduceLogSum", b.reduce_log_sum(x, rows()).unwrap()),
            ("reduceSumSquare", b.reduce_sum_square(x, rows()).unwrap()),
            ("softmax", b.softmax(x, 1, o()).unwrap()),
            (
                "cumulativeSum",
                b.cumulative_sum(x, 1, CumulativeSumOptions::default())
                    .unwrap(),
            ),
        ];
        let g = b.build(&outs).unwrap();
        let bytes = |v: &[f64]| -> Vec<u8> {
            match t {
                DataType::Float32 => v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
                _ => v
                    .iter()
                    .flat_map(|x| half::f16::from_f64(*x).to_le_bytes())
                    .collect(),
            }
        };
        let (xv, yv) = (
            tensor_of(t, &[3, 4], bytes(&xs)),
            tensor_of(t, &[3, 4], bytes(&ys)),
        );
        let mut failures = Vec::new();
        for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv), ("y", &yv)])) {
            if let Some(why) = mismatch(&got, &want, 0) {
                failures.push(format!("{name} {t}: {why}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
