//! Validation of the element-wise ops, cast, clamp, prelu, the activations with options, and
//! quantizeLinear/dequantizeLinear.

use webnn_core::ops::{
    ClampOptions, EluOptions, HardSigmoidOptions, LeakyReluOptions, LinearOptions, MLNumber,
    OpOptions,
};
use webnn_core::{
    DataType, Dim, Error, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result,
};

const LABEL: &str = "mylabel";

fn input(b: &mut GraphBuilder, dt: DataType, shape: &[u32]) -> Operand {
    let name = format!("in{}", b.graph().operands.len());
    b.input(&name, OperandDescriptor::new(dt, shape)).unwrap()
}

fn error_of<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind) {
    let err: Error = r.unwrap_err();
    assert_eq!(err.kind, kind, "{err}");
    assert!(err.to_string().contains("[mylabel]"), "{err}");
}

fn type_error<T: std::fmt::Debug>(r: Result<T>) {
    error_of(r, ErrorKind::TypeError)
}

fn label() -> OpOptions {
    OpOptions {
        label: LABEL.into(),
    }
}

fn desc(b: &GraphBuilder, o: Operand) -> OperandDescriptor {
    b.desc(o).unwrap().clone()
}

use DataType::{
    Float16 as F16, Float32 as F32, Int32 as I32, Int4, Int64 as I64, Int8 as I8, Uint32 as U32,
    Uint4, Uint8 as U8,
};

#[test]
fn binary_broadcasts_bidirectionally_and_needs_one_type() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[8, 1, 6, 1]);
    let y = input(&mut b, F32, &[7, 1, 5]);
    let z = b.add(x, y, label()).unwrap();
    assert_eq!(desc(&b, z), OperandDescriptor::new(F32, &[8, 7, 6, 5]));
    let s = input(&mut b, F32, &[]);
    let z = b.pow(x, s, label()).unwrap();
    assert_eq!(desc(&b, z), OperandDescriptor::new(F32, &[8, 1, 6, 1]));

    let p = input(&mut b, F32, &[4, 2]);
    let q = input(&mut b, F32, &[4]);
    type_error(b.sub(p, q, label()));
    let r = input(&mut b, I32, &[1]);
    type_error(b.mul(p, r, label()));
    // Every data type is allowed, pow included.
    let u = input(&mut b, U8, &[3]);
    let v = input(&mut b, U8, &[1]);
    let w = b.pow(u, v, label()).unwrap();
    assert_eq!(desc(&b, w).data_type, U8);
    let l = input(&mut b, I64, &[2]);
    b.div(l, l, label()).unwrap();
}

#[test]
fn binary_keeps_dynamic_dimensions() {
    let mut b = GraphBuilder::new();
    let n = Dim::Dynamic {
        name: "n".into(),
        max_size: 8,
    };
    let x = b
        .input(
            "x",
            OperandDescriptor::with_dims(F32, vec![n.clone(), Dim::Static(3)]),
        )
        .unwrap();
    let y = input(&mut b, F32, &[1, 3]);
    let z = b.max(x, y, label()).unwrap();
    assert_eq!(desc(&b, z).shape, vec![n, Dim::Static(3)]);
}

#[test]
fn comparisons_output_uint8_and_logical_ops_take_uint8() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F16, &[2, 1]);
    let y = input(&mut b, F16, &[3]);
    let z = b.greater_or_equal(x, y, label()).unwrap();
    assert_eq!(desc(&b, z), OperandDescriptor::new(U8, &[2, 3]));
    let i = input(&mut b, I32, &[3]);
    type_error(b.equal(y, i, label()));
    let w = input(&mut b, F32, &[2]);
    type_error(b.lesser(w, y, label()));

    type_error(b.logical_and(x, x, label()));
    type_error(b.logical_not(i, label()));
    let u = input(&mut b, U8, &[2, 2]);
    let v = input(&mut b, U8, &[3]);
    type_error(b.logical_or(u, v, label()));
    let n = b.logical_not(u, label()).unwrap();
    assert_eq!(desc(&b, n), OperandDescriptor::new(U8, &[2, 2]));

    type_error(b.is_nan(i, label()));
    type_error(b.is_infinite(u, label()));
    let f = b.is_nan(y, label()).unwrap();
    assert_eq!(desc(&b, f), OperandDescriptor::new(U8, &[3]));
}

#[test]
fn unary_data_types() {
    let mut b = GraphBuilder::new();
    let i = input(&mut b, I32, &[2]);
    let u = input(&mut b, U32, &[2]);
    let f = input(&mut b, F16, &[2, 3]);
    type_error(b.sqrt(i, label()));
    type_error(b.erf(i, label()));
    type_error(b.round_even(u, label()));
    type_error(b.abs(u, label()));
    type_error(b.neg(u, label()));
    type_error(b.sign(u, label()));
    type_error(b.relu(u, label()));
    type_error(b.gelu(i, label()));
    type_error(b.tanh(i, label()));
    for op in [
        GraphBuilder::abs,
        GraphBuilder::neg,
        GraphBuilder::sign,
        GraphBuilder::relu,
    ] {
        let y = op(&mut b, i, label()).unwrap();
        assert_eq!(desc(&b, y), OperandDescriptor::new(I32, &[2]));
    }
    let y = b.identity(u, label()).unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(U32, &[2]));
    let y = b.softplus(f, label()).unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(F16, &[2, 3]));
}

#[test]
fn activation_options_must_be_finite() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[2]);
    let l = || LABEL.to_string();
    type_error(b.elu(
        x,
        EluOptions {
            alpha: f64::NAN,
            label: l(),
        },
    ));
    type_error(b.leaky_relu(
        x,
        LeakyReluOptions {
            alpha: f64::INFINITY,
            label: l(),
        },
    ));
    type_error(b.hard_sigmoid(
        x,
        HardSigmoidOptions {
            beta: f64::NEG_INFINITY,
            label: l(),
            ..Default::default()
        },
    ));
    type_error(b.linear(
        x,
        LinearOptions {
            alpha: f64::NAN,
            label: l(),
            ..Default::default()
        },
    ));
    // Negative and zero values are fine.
    b.elu(
        x,
        EluOptions {
            alpha: -1.0,
            label: l(),
        },
    )
    .unwrap();
    b.linear(
        x,
        LinearOptions {
            alpha: 0.0,
            beta: -3.0,
            label: l(),
        },
    )
    .unwrap();
    let i = input(&mut b, I32, &[2]);
    type_error(b.elu(
        i,
        EluOptions {
            label: l(),
            ..Default::default()
        },
    ));
    type_error(b.hard_sigmoid(
        i,
        HardSigmoidOptions {
            label: l(),
            ..Default::default()
        },
    ));
}

#[test]
fn cast_to_any_spec_type() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F16, &[2, 3]);
    for dt in [F32, F16, I32, U32, I64, DataType::Uint64, I8, U8] {
        let y = b.cast(x, dt, label()).unwrap();
        assert_eq!(desc(&b, y), OperandDescriptor::new(dt, &[2, 3]));
    }
    // int4/uint4 are an extension limited to quantization.
    type_error(b.cast(x, Int4, label()));
}

fn clamp_opts(min: Option<MLNumber>, max: Option<MLNumber>) -> ClampOptions {
    ClampOptions {
        min_value: min,
        max_value: max,
        label: LABEL.into(),
    }
}

#[test]
fn clamp_compares_bounds_cast_to_the_input_type() {
    use MLNumber::{BigInt, Double};
    let mut b = GraphBuilder::new();
    let f = input(&mut b, F32, &[2]);
    let u = input(&mut b, U8, &[2]);
    let l = input(&mut b, I64, &[2]);
    let h = input(&mut b, F16, &[2]);
    type_error(b.clamp(f, clamp_opts(Some(Double(3.0)), Some(Double(1.0)))));
    type_error(b.clamp(u, clamp_opts(Some(Double(3.0)), Some(Double(1.0)))));
    type_error(b.clamp(
        l,
        clamp_opts(Some(BigInt((1 << 60) + 1)), Some(BigInt(1 << 60))),
    ));
    // Equal bounds, one bound, no bound, infinite and NaN bounds are all accepted.
    b.clamp(f, clamp_opts(Some(Double(0.0)), Some(Double(0.0))))
        .unwrap();
    b.clamp(f, clamp_opts(Some(Double(1.0)), None)).unwrap();
    b.clamp(f, clamp_opts(None, Some(Double(-1.0)))).unwrap();
    b.clamp(f, clamp_opts(None, None)).unwrap();
    b.clamp(
        h,
        clamp_opts(Some(Double(f64::NEG_INFINITY)), Some(Double(f64::INFINITY))),
    )
    .unwrap();
    b.clamp(f, clamp_opts(Some(Double(f64::NAN)), Some(Double(1.0))))
        .unwrap();
    // After casting to uint8, -5 and -1 both become 0; 1.4 and 1.2 both round to 1.
    b.clamp(u, clamp_opts(Some(Double(-1.0)), Some(Double(-5.0))))
        .unwrap();
    b.clamp(u, clamp_opts(Some(Double(1.4)), Some(Double(1.2))))
        .unwrap();
    // After casting to float16, 1.0001 and 1.00005 are both 1.
    b.clamp(h, clamp_opts(Some(Double(1.0001)), Some(Double(1.00005))))
        .unwrap();
    type_error(b.clamp(h, clamp_opts(Some(Double(1.01)), Some(Double(1.0)))));
    let y = b
        .clamp(l, clamp_opts(Some(BigInt(-3)), Some(Double(1e30))))
        .unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(I64, &[2]));
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
    ] {
        let s = input(&mut b, F32, shape);
        let y = b.prelu(x, s, label()).unwrap();
        assert_eq!(desc(&b, y), OperandDescriptor::new(F32, out));
    }
    // The spec broadcasts both ways: the output may be larger than the input.
    let s = input(&mut b, F32, &[4, 1, 1, 1]);
    let y = b.prelu(x, s, label()).unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(F32, &[4, 3, 2, 5]));
    let s = input(&mut b, F32, &[2]);
    type_error(b.prelu(x, s, label()));
    let s = input(&mut b, I32, &[3, 2, 5]);
    type_error(b.prelu(x, s, label()));
    let u = input(&mut b, U8, &[2]);
    type_error(b.prelu(u, u, label()));
    let i = input(&mut b, I8, &[2]);
    b.prelu(i, i, label()).unwrap();
}

fn q(
    b: &mut GraphBuilder,
    x: (DataType, &[u32]),
    s: (DataType, &[u32]),
    z: (DataType, &[u32]),
) -> Result<Operand> {
    let (x, s, z) = (input(b, x.0, x.1), input(b, s.0, s.1), input(b, z.0, z.1));
    b.quantize_linear(x, s, z, label())
}

fn dq(
    b: &mut GraphBuilder,
    x: (DataType, &[u32]),
    s: (DataType, &[u32]),
    z: (DataType, &[u32]),
) -> Result<Operand> {
    let (x, s, z) = (input(b, x.0, x.1), input(b, s.0, s.1), input(b, z.0, z.1));
    b.dequantize_linear(x, s, z, label())
}

#[test]
fn quantize_linear_rules() {
    let mut b = GraphBuilder::new();
    let y = q(
        &mut b,
        (F32, &[3, 2, 5]),
        (F32, &[3, 2, 5]),
        (I8, &[3, 2, 5]),
    )
    .unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(I8, &[3, 2, 5]));
    // Blockwise: [2, 2, 1] blocks of [3, 2, 5].
    let y = q(
        &mut b,
        (F16, &[6, 4, 5]),
        (F16, &[2, 2, 1]),
        (U8, &[2, 2, 1]),
    )
    .unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(U8, &[6, 4, 5]));
    for zt in [U32, I32, Int4, Uint4] {
        let y = q(&mut b, (F32, &[4]), (F32, &[1]), (zt, &[1])).unwrap();
        assert_eq!(desc(&b, y), OperandDescriptor::new(zt, &[4]));
    }
    let y = q(&mut b, (F32, &[]), (F32, &[]), (I8, &[])).unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(I8, &[]));
    // Sizes that do not divide.
    type_error(q(
        &mut b,
        (F32, &[3, 2, 5]),
        (F32, &[2, 1, 5]),
        (I8, &[2, 1, 5]),
    ));
    // A lower-rank scale aligns to the trailing axes (an extension the WPT vectors rely on);
    // a higher rank, or zeroPoint of another shape, is an error.
    let y = q(&mut b, (F32, &[3, 2, 5]), (F32, &[5]), (I8, &[5])).unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(I8, &[3, 2, 5]));
    assert!(q(&mut b, (F32, &[3, 2, 5]), (F32, &[]), (I8, &[])).is_ok());
    type_error(q(&mut b, (F32, &[2, 5]), (F32, &[1, 2, 5]), (I8, &[1, 2, 5])));
    type_error(q(&mut b, (F32, &[3, 2, 5]), (F32, &[2, 5]), (I8, &[1, 5])));
    type_error(q(
        &mut b,
        (F32, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (I8, &[1, 2, 5]),
    ));
    // Data types.
    type_error(q(
        &mut b,
        (F32, &[3, 2, 5]),
        (F16, &[3, 1, 5]),
        (I8, &[3, 1, 5]),
    ));
    type_error(q(
        &mut b,
        (I32, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (I8, &[1, 1, 5]),
    ));
    type_error(q(
        &mut b,
        (F32, &[3, 2, 5]),
        (I32, &[1, 1, 5]),
        (U8, &[1, 1, 5]),
    ));
    type_error(q(
        &mut b,
        (F32, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (F16, &[1, 1, 5]),
    ));
    type_error(q(
        &mut b,
        (F32, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (I64, &[1, 1, 5]),
    ));
}

#[test]
fn dequantize_linear_rules() {
    let mut b = GraphBuilder::new();
    let y = dq(
        &mut b,
        (I8, &[3, 2, 5]),
        (F32, &[3, 2, 5]),
        (I8, &[3, 2, 5]),
    )
    .unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(F32, &[3, 2, 5]));
    let y = dq(
        &mut b,
        (U8, &[6, 4, 5]),
        (F16, &[3, 2, 1]),
        (U8, &[3, 2, 1]),
    )
    .unwrap();
    assert_eq!(desc(&b, y), OperandDescriptor::new(F16, &[6, 4, 5]));
    for it in [U32, I32, Int4, Uint4] {
        let y = dq(&mut b, (it, &[2, 4]), (F32, &[1, 2]), (it, &[1, 2])).unwrap();
        assert_eq!(desc(&b, y), OperandDescriptor::new(F32, &[2, 4]));
    }
    type_error(dq(
        &mut b,
        (U8, &[3, 2, 5]),
        (F32, &[1, 1, 2]),
        (U8, &[1, 1, 2]),
    ));
    assert!(dq(&mut b, (U8, &[3, 2, 5]), (F32, &[5]), (U8, &[5])).is_ok());
    type_error(dq(&mut b, (U8, &[3, 2, 5]), (F32, &[4, 5]), (U8, &[4, 5])));
    type_error(dq(
        &mut b,
        (U8, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (U8, &[1, 2, 5]),
    ));
    type_error(dq(
        &mut b,
        (I8, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (U8, &[1, 1, 5]),
    ));
    type_error(dq(
        &mut b,
        (F16, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (I8, &[1, 1, 5]),
    ));
    type_error(dq(
        &mut b,
        (I8, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (I32, &[1, 1, 5]),
    ));
    type_error(dq(
        &mut b,
        (U8, &[3, 2, 5]),
        (I32, &[1, 1, 5]),
        (U8, &[1, 1, 5]),
    ));
    type_error(dq(
        &mut b,
        (I64, &[3, 2, 5]),
        (F32, &[1, 1, 5]),
        (I64, &[1, 1, 5]),
    ));
}

#[test]
fn quantization_with_dynamic_input_dimensions() {
    let mut b = GraphBuilder::new();
    let n = Dim::Dynamic {
        name: "n".into(),
        max_size: 8,
    };
    let x = b
        .input(
            "x",
            OperandDescriptor::with_dims(F32, vec![n.clone(), Dim::Static(4)]),
        )
        .unwrap();
    let s = input(&mut b, F32, &[1, 2]);
    let z = input(&mut b, I8, &[1, 2]);
    let y = b.quantize_linear(x, s, z, label()).unwrap();
    assert_eq!(desc(&b, y).shape, vec![n, Dim::Static(4)]);
    // A scale dimension above 1 against a dynamic one needs the size.
    let s = input(&mut b, F32, &[2, 2]);
    let z = input(&mut b, I8, &[2, 2]);
    error_of(
        b.quantize_linear(x, s, z, label()),
        ErrorKind::NotSupportedError,
    );
}
