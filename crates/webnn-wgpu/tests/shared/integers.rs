//! Integer ops on every integer type with their extremes (wrapping, saturation, 64-bit order)
//! and every cast, compared exactly with the cpu backend. Shared by the test suites of every
//! backend: each includes this file next to its own `common` module (`run_both`, `values`...).

use crate::common::*;
use webnn_core::ops::*;
use webnn_core::{DataType, GraphBuilder, HostTensor, OperandDescriptor};

pub(crate) const INTS: [DataType; 6] = [
    DataType::Int32,
    DataType::Uint32,
    DataType::Int64,
    DataType::Uint64,
    DataType::Int8,
    DataType::Uint8,
];

/// `n` values of `t` as little-endian bytes: extremes, small numbers and random bit patterns.
pub(crate) fn int_bytes(t: DataType, n: usize, seed: u32) -> Vec<u8> {
    let size = t.bits() as usize / 8;
    let extremes: [i128; 10] = [0, 1, -1, 2, -2, 7, i128::MAX, i128::MIN, 100, -100];
    let small = values(n, -40.0, 40.0, seed);
    let random = values(n * size, 0.0, 256.0, seed + 1);
    let mut out = Vec::with_capacity(n * size);
    for k in 0..n {
        let v: Vec<u8> = match k % 3 {
            0 => {
                let x = extremes[(k / 3) % extremes.len()];
                // Saturate the extremes to the type, else take the low bytes.
                let x = match t {
                    DataType::Int8 => x.clamp(-128, 127),
                    DataType::Uint8 => x.clamp(0, 255),
                    DataType::Int32 => x.clamp(i32::MIN as i128, i32::MAX as i128),
                    DataType::Uint32 => x.clamp(0, u32::MAX as i128),
                    DataType::Int64 => x.clamp(i64::MIN as i128, i64::MAX as i128),
                    _ => x.clamp(0, u64::MAX as i128),
                };
                x.to_le_bytes()[..size].to_vec()
            }
            1 => (small[k] as i128).to_le_bytes()[..size].to_vec(),
            _ => random[k * size..(k + 1) * size]
                .iter()
                .map(|&b| b as u8)
                .collect(),
        };
        out.extend(v);
    }
    out
}

pub(crate) fn tensor(t: DataType, n: u32, bytes: Vec<u8>) -> HostTensor {
    HostTensor {
        desc: OperandDescriptor::new(t, &[n]),
        bytes,
    }
}

#[test]
fn binary_ops_on_every_integer_type() {
    let n = 300u32;
    for t in INTS {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(t, &[n])).unwrap();
        let y = b.input("y", OperandDescriptor::new(t, &[n])).unwrap();
        let o = OpOptions::default;
        let outs = vec![
            ("add", b.add(x, y, o()).unwrap()),
            ("sub", b.sub(x, y, o()).unwrap()),
            ("mul", b.mul(x, y, o()).unwrap()),
            ("div", b.div(x, y, o()).unwrap()),
            ("max", b.max(x, y, o()).unwrap()),
            ("min", b.min(x, y, o()).unwrap()),
            ("pow", b.pow(x, y, o()).unwrap()),
            ("equal", b.equal(x, y, o()).unwrap()),
            ("greater", b.greater(x, y, o()).unwrap()),
            ("lesserOrEqual", b.lesser_or_equal(x, y, o()).unwrap()),
        ];
        let g = b.build(&outs).unwrap();
        let xv = tensor(t, n, int_bytes(t, n as usize, 5));
        let yv = tensor(t, n, int_bytes(t, n as usize, 9));
        for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv), ("y", &yv)])) {
            assert_eq!(got.bytes, want.bytes, "{name} {t}");
        }
    }
}

#[test]
fn unary_ops_on_signed_integers() {
    let n = 200u32;
    for t in [DataType::Int32, DataType::Int64, DataType::Int8] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(t, &[n])).unwrap();
        let o = OpOptions::default;
        let clamp = ClampOptions {
            min_value: Some(MLNumber::Double(-20.4)),
            max_value: Some(MLNumber::BigInt(33)),
            ..Default::default()
        };
        let outs = vec![
            ("abs", b.abs(x, o()).unwrap()),
            ("neg", b.neg(x, o()).unwrap()),
            ("sign", b.sign(x, o()).unwrap()),
            ("relu", b.relu(x, o()).unwrap()),
            ("clamp", b.clamp(x, clamp).unwrap()),
        ];
        let g = b.build(&outs).unwrap();
        let xv = tensor(t, n, int_bytes(t, n as usize, 3));
        for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv)])) {
            assert_eq!(got.bytes, want.bytes, "{name} {t}");
        }
    }
}

#[test]
fn clamp_unsigned_and_logical() {
    let n = 100u32;
    for t in [DataType::Uint32, DataType::Uint64, DataType::Uint8] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(t, &[n])).unwrap();
        let clamp = ClampOptions {
            min_value: Some(MLNumber::Double(3.0)),
            max_value: None,
            ..Default::default()
        };
        let c = b.clamp(x, clamp).unwrap();
        let g = b.build(&[("c", c)]).unwrap();
        let xv = tensor(t, n, int_bytes(t, n as usize, 7));
        for (got, want) in run_both(&g, &[("x", &xv)]) {
            assert_eq!(got.bytes, want.bytes, "clamp {t}");
        }
    }
    let mut b = GraphBuilder::new();
    let x = b
        .input("x", OperandDescriptor::new(DataType::Uint8, &[3, 7]))
        .unwrap();
    let y = b
        .input("y", OperandDescriptor::new(DataType::Uint8, &[7]))
        .unwrap();
    let o = OpOptions::default;
    let outs = vec![
        ("and", b.logical_and(x, y, o()).unwrap()),
        ("or", b.logical_or(x, y, o()).unwrap()),
        ("xor", b.logical_xor(x, y, o()).unwrap()),
        ("not", b.logical_not(x, o()).unwrap()),
    ];
    let g = b.build(&outs).unwrap();
    let xv = HostTensor {
        desc: OperandDescriptor::new(DataType::Uint8, &[3, 7]),
        bytes: (0..21).map(|k| (k * 7 % 3) as u8 * 100).collect(),
    };
    let yv = HostTensor {
        desc: OperandDescriptor::new(DataType::Uint8, &[7]),
        bytes: vec![0, 1, 0, 255, 0, 2, 0],
    };
    for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv), ("y", &yv)])) {
        assert_eq!(got.bytes, want.bytes, "{name}");
    }
}

/// Bytes of `t` for float-ish values: specials, fractions, and values beyond every range.
fn float_bytes(t: DataType, v: &[f64]) -> Vec<u8> {
    match t {
        DataType::Float32 => v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
        _ => v
            .iter()
            .flat_map(|x| half::f16::from_f64(*x).to_le_bytes())
            .collect(),
    }
}

#[test]
fn every_cast() {
    let specials = [
        0.0,
        -0.0,
        0.4,
        -0.6,
        1.5,
        -2.5,
        127.9,
        128.0,
        -129.0,
        255.5,
        256.0,
        65504.0,
        70000.0,
        -70000.0,
        1e9,
        -3e9,
        4.3e9,
        1e12,
        -1e12,
        9.3e18,
        -9.3e18,
        1.9e19,
        1e30,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e-3,
        6e-8,
    ];
    let spec = webnn_core::DataTypeSet::SPEC;
    for from in spec.iter() {
        let n = if from.is_float() {
            specials.len() as u32
        } else {
            90
        };
        let bytes = if from.is_float() {
            float_bytes(from, &specials)
        } else {
            int_bytes(from, n as usize, 17)
        };
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(from, &[n])).unwrap();
        let outs: Vec<(String, _)> = spec
            .iter()
            .map(|to| {
                (
                    format!("{from}->{to}"),
                    b.cast(x, to, OpOptions::default()).unwrap(),
                )
            })
            .collect();
        let named: Vec<(&str, _)> = outs.iter().map(|(n, o)| (n.as_str(), *o)).collect();
        let g = b.build(&named).unwrap();
        let xv = tensor(from, n, bytes);
        for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv)])) {
            if got.desc.data_type.is_float() {
                assert_close(name, &got, &want, 0);
            } else {
                assert_eq!(got.bytes, want.bytes, "{name}");
            }
        }
    }
}

/// Folds over integers with the types' extremes (so identities and wrapping show), ties (the
/// first position wins) and every integer type the row kernels take.
#[test]
fn row_kernels_on_integer_extremes() {
    // 6 rows of 37: sums wrap, maxima and minima sit at the bounds, positions tie.
    let (rows, len) = (6u32, 37u32);
    for t in INTS {
        let mut b = GraphBuilder::new();
        let x = b
            .input("x", OperandDescriptor::new(t, &[rows, len]))
            .unwrap();
        let axis1 = || ReduceOptions {
            axes: Some(vec![1]),
            ..Default::default()
        };
        let mut outs = vec![
            ("reduceMax", b.reduce_max(x, axis1()).unwrap()),
            ("reduceMin", b.reduce_min(x, axis1()).unwrap()),
            (
                "argMax",
                b.arg_max(x, 1, ArgMinMaxOptions::default()).unwrap(),
            ),
            (
                "argMin",
                b.arg_min(
                    x,
                    0,
                    ArgMinMaxOptions {
                        output_data_type: DataType::Int64,
                        ..Default::default()
                    },
                )
                .unwrap(),
            ),
        ];
        if !matches!(t, DataType::Int8 | DataType::Uint8) {
            outs.push(("reduceSum", b.reduce_sum(x, axis1()).unwrap()));
            outs.push(("reduceL1", b.reduce_l1(x, axis1()).unwrap()));
            outs.push(("reduceSumSquare", b.reduce_sum_square(x, axis1()).unwrap()));
            outs.push((
                "cumulativeSum",
                b.cumulative_sum(
                    x,
                    1,
                    CumulativeSumOptions {
                        reversed: true,
                        ..Default::default()
                    },
                )
                .unwrap(),
            ));
        }
        let pooled = b
            .reshape(
                x,
                vec![1.into(), rows.into(), 1.into(), len.into()],
                OpOptions::default(),
            )
            .unwrap();
        let window = Pool2dOptions {
            window_dimensions: Some(vec![1, 5]),
            strides: Some(vec![1, 3]),
            padding: Some(vec![0, 0, 2, 2]),
            ..Default::default()
        };
        outs.push(("maxPool2d", b.max_pool2d(pooled, window).unwrap()));
        let g = b.build(&outs).unwrap();
        // Extremes, small values and random bits; every third row repeats one value (ties).
        let mut bytes = int_bytes(t, (rows * len) as usize, 9);
        let size = t.bits() as usize / 8;
        for r in (0..rows as usize).step_by(3) {
            let first = bytes[r * len as usize * size..][..size].to_vec();
            for k in 0..len as usize {
                bytes[(r * len as usize + k) * size..][..size].copy_from_slice(&first);
            }
        }
        let xv = HostTensor {
            desc: OperandDescriptor::new(t, &[rows, len]),
            bytes,
        };
        for ((name, _), (got, want)) in outs.iter().zip(run_both(&g, &[("x", &xv)])) {
            assert_eq!(got.bytes, want.bytes, "{name} on {t}");
        }
    }
}
