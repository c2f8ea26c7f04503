//! Behaviours the WPT vectors do not cover: integer wrapping and division, integer pow,
//! casts out of range, clamp bounds cast to integer types, NaN handling.

use crate::tensor::{Data, Tensor};
use crate::CpuGraph;
use std::collections::HashMap;
use webnn_core::ops::{ClampOptions, MLNumber, OpOptions};
use webnn_core::{DataType, GraphBuilder, Operand, OperandDescriptor, Result};

/// Builds a one-op graph over `inputs` (named x0, x1, ...) and runs it on the CPU.
pub(crate) fn run(
    inputs: &[Tensor],
    build: impl FnOnce(&mut GraphBuilder, &[Operand]) -> Result<Operand>,
) -> Result<Tensor> {
    let mut b = GraphBuilder::new();
    let mut ops = Vec::new();
    let mut feeds = HashMap::new();
    for (i, t) in inputs.iter().enumerate() {
        let shape: Vec<u32> = t.shape.iter().map(|&d| d as u32).collect();
        let name = format!("x{i}");
        ops.push(b.input(&name, OperandDescriptor::new(t.data_type(), &shape))?);
        feeds.insert(name, t.clone());
    }
    let out = build(&mut b, &ops)?;
    let g = b.build(&[("out", out)])?;
    let mut outs = CpuGraph::new(g)?.run(&feeds)?;
    Ok(outs.remove(0).1)
}

fn t(data: Data) -> Tensor {
    Tensor::new(vec![data.len()], data)
}

fn o() -> OpOptions {
    OpOptions::default()
}

#[test]
fn integer_arithmetic_wraps() {
    let a = t(Data::I32(vec![i32::MAX, i32::MIN, 7, -7, i32::MIN]));
    let b = t(Data::I32(vec![1, 1, -2, 0, -1]));
    let add = run(&[a.clone(), b.clone()], |g, x| g.add(x[0], x[1], o())).unwrap();
    assert_eq!(
        add.data,
        Data::I32(vec![i32::MIN, i32::MIN + 1, 5, -7, i32::MAX])
    );
    let mul = run(&[a.clone(), b.clone()], |g, x| g.mul(x[0], x[1], o())).unwrap();
    assert_eq!(
        mul.data,
        Data::I32(vec![i32::MAX, i32::MIN, -14, 0, i32::MIN])
    );
    // Truncation toward zero; x / 0 gives 0; MIN / -1 wraps to MIN.
    let div = run(&[a, b], |g, x| g.div(x[0], x[1], o())).unwrap();
    assert_eq!(
        div.data,
        Data::I32(vec![i32::MAX, i32::MIN, -3, 0, i32::MIN])
    );
    let u = t(Data::U64(vec![u64::MAX, 3]));
    let v = t(Data::U64(vec![u64::MAX, u64::MAX]));
    let mul = run(&[u.clone(), v.clone()], |g, x| g.mul(x[0], x[1], o())).unwrap();
    assert_eq!(mul.data, Data::U64(vec![1, u64::MAX - 2]));
    let sub = run(&[u, v], |g, x| g.sub(x[1], x[0], o())).unwrap();
    assert_eq!(sub.data, Data::U64(vec![0, u64::MAX - 3]));
}

#[test]
fn integer_pow() {
    let a = t(Data::I32(vec![3, 2, -1, 0, 2, -2]));
    let b = t(Data::I32(vec![4, -1, -3, -1, 31, 3]));
    let p = run(&[a, b], |g, x| g.pow(x[0], x[1], o())).unwrap();
    assert_eq!(p.data, Data::I32(vec![81, 0, -1, 0, i32::MIN, -8]));
    let a = t(Data::U8(vec![2, 3]));
    let b = t(Data::U8(vec![8, 5]));
    let p = run(&[a, b], |g, x| g.pow(x[0], x[1], o())).unwrap();
    assert_eq!(p.data, Data::U8(vec![0, 243]));
}

#[test]
fn comparisons_with_nan_and_broadcasting() {
    let a = Tensor::new(vec![2, 1], Data::F32(vec![f32::NAN, 1.0]));
    let b = t(Data::F32(vec![f32::NAN, 1.0, 2.0]));
    let eq = run(&[a.clone(), b.clone()], |g, x| g.equal(x[0], x[1], o())).unwrap();
    assert_eq!(eq.shape, vec![2, 3]);
    assert_eq!(eq.data, Data::U8(vec![0, 0, 0, 0, 1, 0]));
    let ne = run(&[a.clone(), b.clone()], |g, x| g.not_equal(x[0], x[1], o())).unwrap();
    assert_eq!(ne.data, Data::U8(vec![1, 1, 1, 1, 0, 1]));
    let ge = run(&[a, b], |g, x| g.greater_or_equal(x[0], x[1], o())).unwrap();
    assert_eq!(ge.data, Data::U8(vec![0, 0, 0, 0, 1, 0]));
    let big = t(Data::I64(vec![(1 << 53) + 1]));
    let near = t(Data::I64(vec![1 << 53]));
    let gt = run(&[big, near], |g, x| g.greater(x[0], x[1], o())).unwrap();
    assert_eq!(
        gt.data,
        Data::U8(vec![1]),
        "64-bit integers compare exactly"
    );
}

#[test]
fn casts_out_of_range() {
    let f = t(Data::F32(vec![
        -1.5,
        300.7,
        f32::NAN,
        f32::INFINITY,
        2.9,
        -2.9,
    ]));
    let u8s = run(std::slice::from_ref(&f), |g, x| {
        g.cast(x[0], DataType::Uint8, o())
    })
    .unwrap();
    assert_eq!(u8s.data, Data::U8(vec![0, 255, 0, 255, 2, 0]));
    let i64s = run(&[f], |g, x| g.cast(x[0], DataType::Int64, o())).unwrap();
    assert_eq!(i64s.data, Data::I64(vec![-1, 300, 0, i64::MAX, 2, -2]));
    let i = t(Data::I32(vec![300, -1, -129]));
    let i8s = run(std::slice::from_ref(&i), |g, x| {
        g.cast(x[0], DataType::Int8, o())
    })
    .unwrap();
    assert_eq!(i8s.data, Data::I8(vec![44, -1, 127]));
    let u8s = run(&[i], |g, x| g.cast(x[0], DataType::Uint8, o())).unwrap();
    assert_eq!(u8s.data, Data::U8(vec![44, 255, 127]));
    // i64 -> f32 rounds once: 2^60 + 2^36 + 1 is just above the midpoint 2^60 + 2^36.
    let big = t(Data::I64(vec![(1 << 60) + (1 << 36) + 1, i64::MIN]));
    let f32s = run(&[big], |g, x| g.cast(x[0], DataType::Float32, o())).unwrap();
    assert_eq!(
        f32s.data,
        Data::F32(vec![((1u64 << 60) + (1 << 37)) as f32, -9.223372e18])
    );
    let h = t(Data::F32(vec![65520.0, 1e-8]));
    let f16s = run(&[h], |g, x| g.cast(x[0], DataType::Float16, o())).unwrap();
    assert_eq!(
        f16s.data,
        Data::F16(vec![half::f16::INFINITY, half::f16::from_f64(1e-8)])
    );
}

#[test]
fn clamp_casts_its_bounds() {
    let x = t(Data::U8(vec![0, 7, 255]));
    let opts = ClampOptions {
        min_value: Some(MLNumber::Double(-5.0)),
        max_value: Some(MLNumber::Double(6.5)),
        ..Default::default()
    };
    // -5 casts to 0, 6.5 rounds half to even: 6.
    let c = run(&[x], |g, x| g.clamp(x[0], opts)).unwrap();
    assert_eq!(c.data, Data::U8(vec![0, 6, 6]));
    let x = t(Data::I64(vec![i64::MIN, 0, i64::MAX]));
    let opts = ClampOptions {
        min_value: Some(MLNumber::BigInt(-(1 << 62))),
        ..Default::default()
    };
    let c = run(std::slice::from_ref(&x), |g, x| g.clamp(x[0], opts)).unwrap();
    assert_eq!(c.data, Data::I64(vec![-(1 << 62), 0, i64::MAX]));
    // +Infinity casts to i64::MAX (not to 2^63, which would wrap).
    let opts = ClampOptions {
        max_value: Some(MLNumber::Double(f64::INFINITY)),
        ..Default::default()
    };
    let c = run(std::slice::from_ref(&x), |g, x| g.clamp(x[0], opts)).unwrap();
    assert_eq!(c.data, x.data);
    let x = t(Data::F32(vec![f32::NAN, -3.0, 3.0]));
    let opts = ClampOptions {
        min_value: Some(MLNumber::Double(f64::NAN)),
        max_value: Some(MLNumber::Double(1.0)),
        ..Default::default()
    };
    let c = run(&[x], |g, x| g.clamp(x[0], opts)).unwrap();
    let Data::F32(v) = c.data else {
        panic!("float32 expected")
    };
    assert!(v[0].is_nan());
    assert_eq!(&v[1..], &[-3.0, 1.0]);
}

#[test]
fn sign_abs_neg_relu_on_integers_and_nan() {
    let x = t(Data::I8(vec![-128, -3, 0, 5]));
    let abs = run(std::slice::from_ref(&x), |g, x| g.abs(x[0], o())).unwrap();
    assert_eq!(abs.data, Data::I8(vec![-128, 3, 0, 5]));
    let neg = run(std::slice::from_ref(&x), |g, x| g.neg(x[0], o())).unwrap();
    assert_eq!(neg.data, Data::I8(vec![-128, 3, 0, -5]));
    let sign = run(std::slice::from_ref(&x), |g, x| g.sign(x[0], o())).unwrap();
    assert_eq!(sign.data, Data::I8(vec![-1, -1, 0, 1]));
    let relu = run(&[x], |g, x| g.relu(x[0], o())).unwrap();
    assert_eq!(relu.data, Data::I8(vec![0, 0, 0, 5]));
    let f = t(Data::F32(vec![f32::NAN, -0.0]));
    let sign = run(&[f], |g, x| g.sign(x[0], o())).unwrap();
    assert_eq!(sign.data, Data::F32(vec![0.0, 0.0]));
}

#[test]
fn prelu_broadcasts_both_ways() {
    let x = t(Data::F32(vec![-1.0, 2.0, -3.0]));
    let s = Tensor::new(vec![2, 1], Data::F32(vec![0.5, 2.0]));
    let p = run(&[x, s], |g, x| g.prelu(x[0], x[1], o())).unwrap();
    assert_eq!(p.shape, vec![2, 3]);
    assert_eq!(p.data, Data::F32(vec![-0.5, 2.0, -1.5, -2.0, 2.0, -6.0]));
}

#[test]
fn logical_ops_treat_nonzero_as_true() {
    let a = t(Data::U8(vec![0, 0, 7, 7]));
    let b = t(Data::U8(vec![0, 9, 0, 9]));
    let and = run(&[a.clone(), b.clone()], |g, x| {
        g.logical_and(x[0], x[1], o())
    })
    .unwrap();
    assert_eq!(and.data, Data::U8(vec![0, 0, 0, 1]));
    let xor = run(&[a.clone(), b], |g, x| g.logical_xor(x[0], x[1], o())).unwrap();
    assert_eq!(xor.data, Data::U8(vec![0, 1, 1, 0]));
    let not = run(&[a], |g, x| g.logical_not(x[0], o())).unwrap();
    assert_eq!(not.data, Data::U8(vec![1, 1, 0, 0]));
}

#[test]
fn round_even_is_nan_is_infinite() {
    // The spec's roundEven example.
    let x = t(Data::F32(vec![
        0.1, 0.9, 1.1, 1.9, -3.5, -2.5, -1.5, 1.5, 2.5, 3.5,
    ]));
    let r = run(&[x], |g, x| g.round_even(x[0], o())).unwrap();
    let want = vec![0.0, 1.0, 1.0, 2.0, -4.0, -2.0, -2.0, 2.0, 2.0, 4.0];
    assert_eq!(r.data, Data::F32(want));
    let x = t(Data::F16(
        [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0, 1e6]
            .map(half::f16::from_f64)
            .to_vec(),
    ));
    let nan = run(std::slice::from_ref(&x), |g, x| g.is_nan(x[0], o())).unwrap();
    assert_eq!(nan.data, Data::U8(vec![1, 0, 0, 0, 0]));
    // 1e6 is +Infinity in float16.
    let inf = run(&[x], |g, x| g.is_infinite(x[0], o())).unwrap();
    assert_eq!(inf.data, Data::U8(vec![0, 1, 1, 0, 1]));
}
