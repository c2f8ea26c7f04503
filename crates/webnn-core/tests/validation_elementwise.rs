//! Validation of the element-wise ops, cast, clamp, prelu, the activations with options, and
//! quantizeLinear/dequantizeLinear.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::{
    ClampOptions, EluOptions, HardSigmoidOptions, LeakyReluOptions, LinearOptions, MLNumber, OpOptions,
};
use webnn_core::{DataType, Dim, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result};

use DataType::{
    Float16 as F16, Float32 as F32, Int32 as I32, Int4, Int64 as I64, Int8 as I8, Uint32 as U32, Uint4, Uint8 as U8,
};

type G = GraphBuilder;

#[test]
fn binary_broadcasts_bidirectionally_and_needs_one_type() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[8, 1, 6, 1]);
    let y = input(&mut b, F32, &[7, 1, 5]);
    assert_eq!(out_desc(b.add(x, y, label()), &b), OperandDescriptor::new(F32, &[8, 7, 6, 5]));
    let s = input(&mut b, F32, &[]);
    assert_eq!(out_desc(b.pow(x, s, label()), &b), OperandDescriptor::new(F32, &[8, 1, 6, 1]));

    let p = input(&mut b, F32, &[4, 2]);
    let q = input(&mut b, F32, &[4]);
    type_error(b.sub(p, q, label()));
    let r = input(&mut b, I32, &[1]);
    type_error(b.mul(p, r, label()));
    // Every data type is allowed, pow included.
    let u = input(&mut b, U8, &[3]);
    let v = input(&mut b, U8, &[1]);
    assert_eq!(out_desc(b.pow(u, v, label()), &b).data_type, U8);
    let l = input(&mut b, I64, &[2]);
    b.div(l, l, label()).unwrap();
}

#[test]
fn binary_keeps_dynamic_dimensions() {
    let mut b = GraphBuilder::new();
    let n = dyn_dim("n", 8);
    let x = input_dims(&mut b, F32, vec![n.clone(), Dim::Static(3)]);
    let y = input(&mut b, F32, &[1, 3]);
    assert_eq!(out_desc(b.max(x, y, label()), &b).shape, vec![n, Dim::Static(3)]);
}

#[test]
fn comparisons_output_uint8_and_logical_ops_take_uint8() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F16, &[2, 1]);
    let y = input(&mut b, F16, &[3]);
    assert_eq!(out_desc(b.greater_or_equal(x, y, label()), &b), OperandDescriptor::new(U8, &[2, 3]));
    let i = input(&mut b, I32, &[3]);
    type_error(b.equal(y, i, label()));
    let w = input(&mut b, F32, &[2]);
    type_error(b.lesser(w, y, label()));

    type_error(b.logical_and(x, x, label()));
    type_error(b.logical_not(i, label()));
    let u = input(&mut b, U8, &[2, 2]);
    let v = input(&mut b, U8, &[3]);
    type_error(b.logical_or(u, v, label()));
    assert_eq!(out_desc(b.logical_not(u, label()), &b), OperandDescriptor::new(U8, &[2, 2]));

    type_error(b.is_nan(i, label()));
    type_error(b.is_infinite(u, label()));
    assert_eq!(out_desc(b.is_nan(y, label()), &b), OperandDescriptor::new(U8, &[3]));
}

type UnaryFn = fn(&mut GraphBuilder, Operand, OpOptions) -> Result<Operand>;

#[test]
fn unary_data_types() {
    let mut b = GraphBuilder::new();
    let i = input(&mut b, I32, &[2]);
    let u = input(&mut b, U32, &[2]);
    let f = input(&mut b, F16, &[2, 3]);
    let bad: [(UnaryFn, Operand); 9] = [
        (G::sqrt, i),
        (G::erf, i),
        (G::round_even, u),
        (G::abs, u),
        (G::neg, u),
        (G::sign, u),
        (G::relu, u),
        (G::gelu, i),
        (G::tanh, i),
    ];
    for (op, x) in bad {
        type_error(op(&mut b, x, label()));
    }
    let ok: [(UnaryFn, Operand, DataType, &[u32]); 6] = [
        (G::abs, i, I32, &[2]),
        (G::neg, i, I32, &[2]),
        (G::sign, i, I32, &[2]),
        (G::relu, i, I32, &[2]),
        (G::identity, u, U32, &[2]),
        (G::softplus, f, F16, &[2, 3]),
    ];
    for (op, x, dt, shape) in ok {
        assert_eq!(out_desc(op(&mut b, x, label()), &b), OperandDescriptor::new(dt, shape));
    }
}

#[test]
fn activation_options_must_be_finite() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[2]);
    type_error(b.elu(x, labelled!(EluOptions { alpha: f64::NAN })));
    type_error(b.leaky_relu(x, labelled!(LeakyReluOptions { alpha: f64::INFINITY })));
    type_error(b.hard_sigmoid(x, labelled!(HardSigmoidOptions { beta: f64::NEG_INFINITY })));
    type_error(b.linear(x, labelled!(LinearOptions { alpha: f64::NAN })));
    // Negative and zero values are fine.
    b.elu(x, labelled!(EluOptions { alpha: -1.0 })).unwrap();
    b.linear(x, labelled!(LinearOptions { alpha: 0.0, beta: -3.0 })).unwrap();
    let i = input(&mut b, I32, &[2]);
    type_error(b.elu(i, labelled!(EluOptions)));
    type_error(b.hard_sigmoid(i, labelled!(HardSigmoidOptions)));
}

#[test]
fn cast_to_any_spec_type() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F16, &[2, 3]);
    for dt in [F32, F16, I32, U32, I64, DataType::Uint64, I8, U8] {
        assert_eq!(out_desc(b.cast(x, dt, label()), &b), OperandDescriptor::new(dt, &[2, 3]));
    }
    // int4/uint4 are an extension limited to quantization.
    type_error(b.cast(x, Int4, label()));
}

#[test]
fn clamp_compares_bounds_cast_to_the_input_type() {
    use MLNumber::{BigInt, Double};
    let mut b = GraphBuilder::new();
    let f = input(&mut b, F32, &[2]);
    let u = input(&mut b, U8, &[2]);
    let l = input(&mut b, I64, &[2]);
    let h = input(&mut b, F16, &[2]);
    let bad = [
        (f, Some(Double(3.0)), Some(Double(1.0))),
        (u, Some(Double(3.0)), Some(Double(1.0))),
        (l, Some(BigInt((1 << 60) + 1)), Some(BigInt(1 << 60))),
        (h, Some(Double(1.01)), Some(Double(1.0))),
    ];
    for (x, min_value, max_value) in bad {
        type_error(b.clamp(x, labelled!(ClampOptions { min_value, max_value })));
    }
    let ok = [
        // Equal bounds, one bound, no bound, infinite and NaN bounds are all accepted.
        (f, Some(Double(0.0)), Some(Double(0.0))),
        (f, Some(Double(1.0)), None),
        (f, None, Some(Double(-1.0))),
        (f, None, None),
        (h, Some(Double(f64::NEG_INFINITY)), Some(Double(f64::INFINITY))),
        (f, Some(Double(f64::NAN)), Some(Double(1.0))),
        // After casting to uint8, -5 and -1 both become 0; 1.4 and 1.2 both round to 1.
        (u, Some(Double(-1.0)), Some(Double(-5.0))),
        (u, Some(Double(1.4)), Some(Double(1.2))),
        // After casting to float16, 1.0001 and 1.00005 are both 1.
        (h, Some(Double(1.0001)), Some(Double(1.00005))),
        (l, Some(BigInt(-3)), Some(Double(1e30))),
    ];
    for (x, min_value, max_value) in ok {
        assert_eq!(out_desc(b.clamp(x, labelled!(ClampOptions { min_value, max_value })), &b), desc(&b, x));
    }
}

#[test]
fn prelu_broadcasts_bidirectionally() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[3, 2, 5]);
    for (shape, out) in [
        (&[3u32, 2, 5][..], &[3u32, 2, 5][..]),
        (&[5], &[3, 2, 5]),
        (&[], &[3, 2, 5]),
        (&[2, 5], &[3, 2, 5]),
        // The spec broadcasts both ways: the output may be larger than the input.
        (&[4, 1, 1, 1], &[4, 3, 2, 5]),
    ] {
        let s = input(&mut b, F32, shape);
        assert_eq!(out_desc(b.prelu(x, s, label()), &b), OperandDescriptor::new(F32, out));
    }
    let s = input(&mut b, F32, &[2]);
    type_error(b.prelu(x, s, label()));
    let s = input(&mut b, I32, &[3, 2, 5]);
    type_error(b.prelu(x, s, label()));
    let u = input(&mut b, U8, &[2]);
    type_error(b.prelu(u, u, label()));
    let i = input(&mut b, I8, &[2]);
    b.prelu(i, i, label()).unwrap();
}

type QuantFn = fn(&mut GraphBuilder, Operand, Operand, Operand, OpOptions) -> Result<Operand>;
/// The (data type, shape) of input, scale and zeroPoint.
type QuantCase<'a> = [TypedShape<'a>; 3];

/// quantizeLinear or dequantizeLinear of new inputs of the given descriptors.
fn quant(f: QuantFn, b: &mut GraphBuilder, [x, s, z]: QuantCase) -> Result<Operand> {
    let (x, s, z) = (input(b, x.0, x.1), input(b, s.0, s.1), input(b, z.0, z.1));
    f(b, x, s, z, label())
}

#[test]
fn quantize_linear_rules() {
    let mut b = GraphBuilder::new();
    let mut ok: Vec<QuantCase> = vec![
        [(F32, &[3, 2, 5]), (F32, &[3, 2, 5]), (I8, &[3, 2, 5])],
        // Blockwise: [2, 2, 1] blocks of [3, 2, 5].
        [(F16, &[6, 4, 5]), (F16, &[2, 2, 1]), (U8, &[2, 2, 1])],
        [(F32, &[]), (F32, &[]), (I8, &[])],
        // A lower-rank scale aligns to the trailing axes (an extension the WPT vectors rely on).
        [(F32, &[3, 2, 5]), (F32, &[5]), (I8, &[5])],
        [(F32, &[3, 2, 5]), (F32, &[]), (I8, &[])],
        // A zeroPoint differing from the scale only by leading 1s (ONNX Runtime's quantizer:
        // a bias scale [1], its zero point []) is reshaped to the scale's shape: an extension.
        [(F32, &[4]), (F32, &[1]), (I8, &[])],
        [(F32, &[3, 2, 5]), (F32, &[5]), (I8, &[1, 1, 5])],
    ];
    ok.extend([U32, I32, Int4, Uint4].map(|zt| [(F32, &[4][..]), (F32, &[1]), (zt, &[1])]));
    for case @ [x, _, z] in ok {
        // The output has the zeroPoint's type and the input's shape.
        assert_eq!(out_desc(quant(G::quantize_linear, &mut b, case), &b), OperandDescriptor::new(z.0, x.1));
    }
    let bad: [QuantCase; 9] = [
        // Sizes that do not divide.
        [(F32, &[3, 2, 5]), (F32, &[2, 1, 5]), (I8, &[2, 1, 5])],
        // A scale of higher rank, or a zeroPoint of another shape.
        [(F32, &[2, 5]), (F32, &[1, 2, 5]), (I8, &[1, 2, 5])],
        [(F32, &[3, 2, 5]), (F32, &[2, 5]), (I8, &[1, 5])],
        [(F32, &[3, 2, 5]), (F32, &[1, 1, 5]), (I8, &[1, 2, 5])],
        // Data types.
        [(F32, &[3, 2, 5]), (F16, &[3, 1, 5]), (I8, &[3, 1, 5])],
        [(I32, &[3, 2, 5]), (F32, &[1, 1, 5]), (I8, &[1, 1, 5])],
        [(F32, &[3, 2, 5]), (I32, &[1, 1, 5]), (U8, &[1, 1, 5])],
        [(F32, &[3, 2, 5]), (F32, &[1, 1, 5]), (F16, &[1, 1, 5])],
        [(F32, &[3, 2, 5]), (F32, &[1, 1, 5]), (I64, &[1, 1, 5])],
    ];
    for case in bad {
        type_error(quant(G::quantize_linear, &mut b, case));
    }
}

#[test]
fn dequantize_linear_rules() {
    let mut b = GraphBuilder::new();
    let mut ok: Vec<QuantCase> = vec![
        [(I8, &[3, 2, 5]), (F32, &[3, 2, 5]), (I8, &[3, 2, 5])],
        [(U8, &[6, 4, 5]), (F16, &[3, 2, 1]), (U8, &[3, 2, 1])],
        [(U8, &[3, 2, 5]), (F32, &[5]), (U8, &[5])],
    ];
    ok.extend([U32, I32, Int4, Uint4].map(|it| [(it, &[2, 4][..]), (F32, &[1, 2]), (it, &[1, 2])]));
    for case @ [x, s, _] in ok {
        // The output has the scale's type and the input's shape.
        assert_eq!(out_desc(quant(G::dequantize_linear, &mut b, case), &b), OperandDescriptor::new(s.0, x.1));
    }
    let bad: [QuantCase; 8] = [
        [(U8, &[3, 2, 5]), (F32, &[1, 1, 2]), (U8, &[1, 1, 2])],
        [(U8, &[3, 2, 5]), (F32, &[4, 5]), (U8, &[4, 5])],
        [(U8, &[3, 2, 5]), (F32, &[1, 1, 5]), (U8, &[1, 2, 5])],
        [(I8, &[3, 2, 5]), (F32, &[1, 1, 5]), (U8, &[1, 1, 5])],
        [(F16, &[3, 2, 5]), (F32, &[1, 1, 5]), (I8, &[1, 1, 5])],
        [(I8, &[3, 2, 5]), (F32, &[1, 1, 5]), (I32, &[1, 1, 5])],
        [(U8, &[3, 2, 5]), (I32, &[1, 1, 5]), (U8, &[1, 1, 5])],
        [(I64, &[3, 2, 5]), (F32, &[1, 1, 5]), (I64, &[1, 1, 5])],
    ];
    for case in bad {
        type_error(quant(G::dequantize_linear, &mut b, case));
    }
}

#[test]
fn quantization_with_dynamic_input_dimensions() {
    let mut b = GraphBuilder::new();
    let n = dyn_dim("n", 8);
    let x = input_dims(&mut b, F32, vec![n.clone(), Dim::Static(4)]);
    let s = input(&mut b, F32, &[1, 2]);
    let z = input(&mut b, I8, &[1, 2]);
    assert_eq!(out_desc(b.quantize_linear(x, s, z, label()), &b).shape, vec![n, Dim::Static(4)]);
    // A scale dimension above 1 against a dynamic one needs the size.
    let s = input(&mut b, F32, &[2, 2]);
    let z = input(&mut b, I8, &[2, 2]);
    error_of(b.quantize_linear(x, s, z, label()), ErrorKind::NotSupportedError);
}
