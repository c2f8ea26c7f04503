//! The comparisons and `where` on their fast steps against the reference, bit for bit: every
//! test, with broadcasting along leading, inner and trailing axes, on float32 with NaN,
//! infinities and signed zeros, and on int32 and int64; the logical ops on uint8; `where`
//! with each operand broadcast.

mod common;

use common::{check_any, G};
use webnn_core::ops::*;
use webnn_core::{DataType, HostTensor, OperandDescriptor};

type Test = fn(&mut webnn_core::GraphBuilder, webnn_core::Operand, webnn_core::Operand) -> webnn_core::Operand;

const TESTS: [(&str, Test); 6] = [
    ("equal", |b, x, y| b.equal(x, y, OpOptions::default()).unwrap()),
    ("notEqual", |b, x, y| b.not_equal(x, y, OpOptions::default()).unwrap()),
    ("greater", |b, x, y| b.greater(x, y, OpOptions::default()).unwrap()),
    ("greaterOrEqual", |b, x, y| b.greater_or_equal(x, y, OpOptions::default()).unwrap()),
    ("lesser", |b, x, y| b.lesser(x, y, OpOptions::default()).unwrap()),
    ("lesserOrEqual", |b, x, y| b.lesser_or_equal(x, y, OpOptions::default()).unwrap()),
];

/// An input of `t` and `shape` holding `values` repeated.
fn input(g: &mut G, name: &str, t: DataType, shape: &[u32], values: &[f64]) -> webnn_core::Operand {
    let n: u32 = shape.iter().product();
    let desc = OperandDescriptor::new(t, shape);
    let v = (0..n as usize).map(|i| values[i % values.len()]);
    let bytes = match t {
        DataType::Float32 => v.flat_map(|x| (x as f32).to_le_bytes()).collect(),
        DataType::Int32 => v.flat_map(|x| (x as i32).to_le_bytes()).collect(),
        DataType::Uint8 => v.map(|x| x as u8).collect(),
        _ => v.flat_map(|x| (x as i64).to_le_bytes()).collect(),
    };
    g.inputs.push((name.into(), HostTensor { desc: desc.clone(), bytes }));
    g.b.input(name, desc).unwrap()
}

#[test]
fn comparisons_match_the_reference() {
    let floats = [0.0, -0.0, 1.5, -2.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5, 3.0];
    let shapes: [(&[u32], &[u32]); 4] = [(&[2, 3, 4], &[2, 3, 4]), (&[2, 1, 4], &[3, 1]), (&[4], &[2, 3, 4]), (&[], &[5, 2])];
    for t in [DataType::Float32, DataType::Int32, DataType::Int64] {
        for (sa, sb) in shapes {
            for (name, test) in TESTS {
                let mut g = G::new(30);
                let a = input(&mut g, "a", t, sa, &floats);
                let b = input(&mut g, "b", t, sb, &floats[3..]);
                let y = test(&mut g.b, a, b);
                let graph = g.build(&[("y", y)]);
                assert_eq!(check_any(&graph, &g.inputs).1, 0, "{name} {t} {sa:?} {sb:?}");
            }
        }
    }
}

/// The logical ops on uint8 (any nonzero value is true) with broadcasting, and logicalNot.
#[test]
fn logical_ops_match_the_reference() {
    let bytes = [0.0, 1.0, 2.0, 255.0, 0.0, 7.0, 0.0];
    let logical: [(&str, Test); 4] = [
        ("logicalAnd", |b, x, y| b.logical_and(x, y, OpOptions::default()).unwrap()),
        ("logicalOr", |b, x, y| b.logical_or(x, y, OpOptions::default()).unwrap()),
        ("logicalXor", |b, x, y| b.logical_xor(x, y, OpOptions::default()).unwrap()),
        ("logicalNot", |b, x, _| b.logical_not(x, OpOptions::default()).unwrap()),
    ];
    let shapes: [(&[u32], &[u32]); 3] = [(&[3, 5, 7], &[3, 5, 7]), (&[3, 1, 7], &[5, 1]), (&[], &[4, 9])];
    for (sa, sb) in shapes {
        for (name, test) in logical {
            let mut g = G::new(31);
            let a = input(&mut g, "a", DataType::Uint8, sa, &bytes);
            let b = input(&mut g, "b", DataType::Uint8, sb, &bytes[2..]);
            let y = test(&mut g.b, a, b);
            let graph = g.build(&[("y", y)]);
            assert_eq!(check_any(&graph, &g.inputs), (1, 0), "{name} {sa:?} {sb:?}");
        }
    }
}

/// where: a uint8 condition (any non-zero is true) and float32 values, each broadcast.
#[test]
fn where_matches_the_reference() {
    let shapes: [[&[u32]; 3]; 4] = [
        [&[2, 3, 4], &[2, 3, 4], &[2, 3, 4]],
        [&[3, 1], &[2, 1, 4], &[4]],
        [&[], &[2, 3], &[3, 2, 3]],
        [&[2, 3, 4], &[1], &[3, 4]],
    ];
    for [sc, st, sf] in shapes {
        let mut g = G::new(31);
        let n: u32 = sc.iter().product();
        let desc = OperandDescriptor::new(DataType::Uint8, sc);
        g.inputs.push(("c".into(), HostTensor { desc: desc.clone(), bytes: (0..n).map(|i| [0u8, 1, 0, 7, 255][i as usize % 5]).collect() }));
        let c = g.b.input("c", desc).unwrap();
        let t = g.input("t", st);
        let f = input(&mut g, "f", DataType::Float32, sf, &[f64::NAN, -0.0, 2.5]);
        let y = g.b.where_(c, t, f, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check_any(&graph, &g.inputs).1, 0, "{sc:?} {st:?} {sf:?}");
    }
}

/// argMin and argMax along each axis against the reference: ties (the first wins), signed
/// zeros, infinities and NaN (a lane's first NaN wins), int32 and int64 indices, a long
/// contiguous lane (a vocabulary's logits).
#[test]
fn arg_min_max_match_the_reference() {
    let values = [1.0, -0.0, 0.0, 3.0, 3.0, f64::NEG_INFINITY, 2.0, f64::NAN, 3.0, -5.0, f64::INFINITY, 0.5];
    let shapes: [&[u32]; 3] = [&[3, 4, 5], &[2, 7], &[1, 50_000]];
    for shape in shapes {
        for axis in 0..shape.len() as u32 {
            for (max, int64) in [(true, false), (false, true), (true, true)] {
                let mut g = G::new(32);
                // Without NaN in the long lane, whose maximum must then be found.
                let v = if shape[1] == 50_000 { &values[..7] } else { &values[..] };
                let x = input(&mut g, "x", DataType::Float32, shape, v);
                let t = if int64 { DataType::Int64 } else { DataType::Int32 };
                let options = ArgMinMaxOptions { output_data_type: t, ..Default::default() };
                let y = if max { g.b.arg_max(x, axis, options) } else { g.b.arg_min(x, axis, options) }.unwrap();
                let graph = g.build(&[("y", y)]);
                assert_eq!(check_any(&graph, &g.inputs).1, 0, "{shape:?} axis {axis} max {max} {t}");
            }
        }
    }
}
