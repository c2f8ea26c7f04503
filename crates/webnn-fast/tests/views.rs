//! slice, expand, tile, split, gather and cast on their fast steps against the reference,
//! bit for bit: slices with and without strides at every offset kind, broadcasts of every
//! axis pattern (a new leading axis too), tiles of every axis pattern, splits in equal and
//! given parts along each axis, gathers along each axis with negative and out-of-range
//! indices of every index type, and casts between float32 and float16 and the integer
//! types.

mod common;

use common::{check, check_any, G};
use webnn_core::ops::*;
use webnn_core::{DataType, Dim, OperandDescriptor};

/// The plan's step counts: every case below must run on fast steps only.
const ALL_FAST: usize = 0;

#[test]
fn slices_match_the_reference() {
    let cases: [(&[u32], &[u32], Option<Vec<u32>>); 4] = [
        (&[0, 0, 0], &[2, 3, 4], None),
        (&[1, 1, 2], &[1, 2, 2], None),
        (&[0, 1, 0], &[2, 2, 4], Some(vec![1, 2, 3])),
        (&[1, 0, 1], &[1, 3, 3], Some(vec![2, 1, 2])),
    ];
    for (starts, sizes, strides) in cases {
        let mut g = G::new(20);
        let x = g.input("x", &[2, 3, 4]);
        let options = SliceOptions { strides: strides.clone(), ..Default::default() };
        let y = g.b.slice(x, starts.to_vec(), sizes.to_vec(), options).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0).1, ALL_FAST, "{starts:?} {sizes:?} {strides:?}");
    }
    // Trailing axes of one element (an unsqueezed value, sliced whole or in part).
    for (starts, sizes) in [([0u32, 0, 0, 0], [2u32, 30, 4, 1]), ([1, 3, 1, 0], [1, 20, 2, 1])] {
        let mut g = G::new(23);
        let x = g.input("x", &[2, 30, 4, 1]);
        let y = g.b.slice(x, starts.to_vec(), sizes.to_vec(), SliceOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0).1, ALL_FAST, "{starts:?} {sizes:?}");
    }
}

#[test]
fn expands_match_the_reference() {
    let cases: [(&[u32], &[u32]); 4] = [(&[3, 1], &[3, 4]), (&[1, 4], &[3, 4]), (&[1], &[2, 3, 4]), (&[2, 1, 4], &[3, 2, 5, 4])];
    for (from, to) in cases {
        let mut g = G::new(21);
        let x = g.input("x", from);
        let y = g.b.expand(x, to.iter().map(|&d| Dim::Static(d)).collect(), OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0).1, ALL_FAST, "{from:?} to {to:?}");
    }
}

/// tile as a walk over (repetition, input index) per axis: repetitions of one, of every
/// axis, of axes of one element, a scalar-like input, and an input stored NHWC by a conv.
#[test]
fn tiles_match_the_reference() {
    let cases: [(&[u32], &[u32]); 5] = [(&[2, 3], &[2, 2]), (&[2, 3, 4], &[1, 3, 1]), (&[1, 5], &[4, 1]), (&[1], &[7]), (&[3, 1, 2], &[2, 3, 2])];
    for (shape, reps) in cases {
        let mut g = G::new(22);
        let x = g.input("x", shape);
        let y = g.b.tile(x, reps.to_vec(), OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check(&graph, &g.inputs, 0.0).1, ALL_FAST, "{shape:?} by {reps:?}");
    }
    let mut g = G::new(23);
    let x = g.input("x", &[1, 3, 5, 6]);
    let f = g.constant(&[4, 3, 3, 3]);
    let y = g.b.conv2d(x, f, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let y = g.b.tile(y, vec![2, 1, 2, 3], OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 1e-4).1, ALL_FAST);
}

#[test]
fn splits_match_the_reference() {
    for axis in 0..3u32 {
        for splits in [Splits::Count(2), Splits::Sizes(vec![1, 3])] {
            let mut g = G::new(22);
            let mut shape = [3u32, 3, 3];
            shape[axis as usize] = 4;
            let x = g.input("x", &shape);
            let parts = g.b.split(x, splits.clone(), SplitOptions { axis, ..Default::default() }).unwrap();
            let graph = g.build(&[("a", parts[0]), ("b", parts[1])]);
            assert_eq!(check(&graph, &g.inputs, 0.0).1, ALL_FAST, "axis {axis}, {splits:?}");
        }
    }
}

#[test]
fn gathers_match_the_reference() {
    // Negative indices count from the end; out-of-range ones are clamped, as the reference does.
    let values = [0i64, -1, 2, 7, -9, 1];
    let types = [DataType::Int32, DataType::Int64, DataType::Uint32];
    for axis in 0..3u32 {
        for t in types {
            let mut g = G::new(23);
            let x = g.input("x", &[3, 4, 2]);
            let v: Vec<i64> = values.iter().map(|&i| if t == DataType::Uint32 { i.abs() } else { i }).collect();
            let bytes: Vec<u8> = match t {
                DataType::Int64 => v.iter().flat_map(|i| i.to_le_bytes()).collect(),
                _ => v.iter().flat_map(|&i| (i as i32).to_le_bytes()).collect(),
            };
            let indices = g.b.constant(OperandDescriptor::new(t, &[2, 3]), bytes).unwrap();
            let y = g.b.gather(x, indices, GatherOptions { axis, ..Default::default() }).unwrap();
            let graph = g.build(&[("y", y)]);
            assert_eq!(check(&graph, &g.inputs, 0.0).1, ALL_FAST, "axis {axis}, {t} indices");
        }
    }
}

#[test]
fn casts_match_the_reference() {
    let types = [DataType::Float16, DataType::Int8, DataType::Uint8, DataType::Int32, DataType::Uint32, DataType::Int64, DataType::Uint64];
    for t in types {
        // float32 -> t -> float32, over values that overflow, truncate and go negative.
        let mut g = G::new(24);
        let x = g.input("x", &[5, 7]);
        let big = g.b.constant(OperandDescriptor::new(DataType::Float32, &[1]), 300.5f32.to_le_bytes().to_vec()).unwrap();
        let scaled = g.b.mul(x, big, OpOptions::default()).unwrap();
        let narrow = g.b.cast(scaled, t, OpOptions::default()).unwrap();
        let back = g.b.cast(narrow, DataType::Float32, OpOptions::default()).unwrap();
        let graph = g.build(&[("narrow", narrow), ("back", back)]);
        let (fast, reference) = check_any(&graph, &g.inputs);
        assert_eq!(reference, ALL_FAST, "{t}: {fast} fast steps");
    }
    // Between any two of them: integers wrap, floats truncate and saturate, NaN gives 0.
    for from in types {
        for to in types.into_iter().filter(|&to| to != from) {
            let mut g = G::new(25);
            let x = g.input("x", &[6, 9]);
            let big = g.b.constant(OperandDescriptor::new(DataType::Float32, &[1]), 70000.25f32.to_le_bytes().to_vec()).unwrap();
            let scaled = g.b.mul(x, big, OpOptions::default()).unwrap();
            let source = g.b.cast(scaled, from, OpOptions::default()).unwrap();
            let y = g.b.cast(source, to, OpOptions::default()).unwrap();
            let graph = g.build(&[("y", y)]);
            let mut v = common::floats(&g.inputs[0].1.bytes);
            (v[0], v[1], v[2]) = (f32::NAN, f32::INFINITY, -1e-3);
            g.inputs[0].1.bytes = common::bytes(&v);
            let (fast, reference) = check_any(&graph, &g.inputs);
            assert_eq!(reference, ALL_FAST, "{from} to {to}: {fast} fast steps");
        }
    }
}

/// triangular over matrices of several shapes (wide, tall, batched), upper and lower, with
/// diagonals inside and beyond the matrix, on float32, float16 and integer values.
#[test]
fn triangular_matches_the_reference() {
    let types = [DataType::Float32, DataType::Float16, DataType::Int32, DataType::Uint8, DataType::Int64];
    for t in types {
        for shape in [[1u32, 4, 7], [2, 6, 3], [3, 1, 5]] {
            for upper in [true, false] {
                for diagonal in [0, 2, -1, -9, 9] {
                    let mut g = G::new(26);
                    let x = g.input("x", &shape);
                    let x = match t {
                        DataType::Float32 => x,
                        t => g.b.cast(x, t, OpOptions::default()).unwrap(),
                    };
                    let y = g.b.triangular(x, TriangularOptions { upper, diagonal, ..Default::default() }).unwrap();
                    let graph = g.build(&[("y", y)]);
                    let (_, reference) = check_any(&graph, &g.inputs);
                    assert_eq!(reference, ALL_FAST, "{t} {shape:?} upper {upper} diagonal {diagonal}");
                }
            }
        }
    }
}

/// reverse along every subset of three axes (none listed: all of them), on float32, float16
/// and integer values.
#[test]
fn reverse_matches_the_reference() {
    let types = [DataType::Float32, DataType::Float16, DataType::Int64, DataType::Uint8];
    let axes: [Option<Vec<u32>>; 6] = [None, Some(vec![]), Some(vec![2]), Some(vec![0]), Some(vec![1, 2]), Some(vec![0, 2])];
    for t in types {
        for ax in &axes {
            let mut g = G::new(27);
            let x = g.input("x", &[3, 4, 5]);
            let x = match t {
                DataType::Float32 => x,
                t => g.b.cast(x, t, OpOptions::default()).unwrap(),
            };
            let y = g.b.reverse(x, ReverseOptions { axes: ax.clone(), ..Default::default() }).unwrap();
            let graph = g.build(&[("y", y)]);
            let (_, reference) = check_any(&graph, &g.inputs);
            assert_eq!(reference, ALL_FAST, "{t} {ax:?}");
        }
    }
}

/// An index constant of `t` (int32 or int64) and `shape` holding `values`.
fn index_constant(g: &mut G, t: DataType, shape: &[u32], values: &[i64]) -> webnn_core::Operand {
    let bytes: Vec<u8> = match t {
        DataType::Int64 => values.iter().flat_map(|i| i.to_le_bytes()).collect(),
        _ => values.iter().flat_map(|&i| (i as i32).to_le_bytes()).collect(),
    };
    g.b.constant(OperandDescriptor::new(t, shape), bytes).unwrap()
}

/// An index input of `t` (int32 or int64) and `shape`, fed `values`: indices the graph
/// computes, resolved per dispatch.
fn index_input(g: &mut G, t: DataType, shape: &[u32], values: &[i64]) -> webnn_core::Operand {
    let bytes: Vec<u8> = match t {
        DataType::Int64 => values.iter().flat_map(|i| i.to_le_bytes()).collect(),
        _ => values.iter().flat_map(|&i| (i as i32).to_le_bytes()).collect(),
    };
    let desc = OperandDescriptor::new(t, shape);
    g.inputs.push(("i".into(), webnn_core::HostTensor { desc: desc.clone(), bytes }));
    g.b.input("i", desc).unwrap()
}

/// gatherND and gatherElements with indices the graph computes (an input), not constants.
#[test]
fn gathers_with_computed_indices_match_the_reference() {
    for t in [DataType::Int32, DataType::Int64] {
        let mut g = G::new(30);
        let x = g.input("x", &[3, 4, 5]);
        let indices = index_input(&mut g, t, &[3, 2], &[1, 0, -2, 3, 0, -9]);
        let y = g.b.gather_nd(x, indices, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check_any(&graph, &g.inputs).1, ALL_FAST, "gatherND {t}");
        let mut g = G::new(31);
        let x = g.input("x", &[3, 4, 5]);
        let idx: Vec<i64> = (0..30).map(|k| [0, -1, 3, 9, -8, 2][k % 6]).collect();
        let indices = index_input(&mut g, t, &[3, 2, 5], &idx);
        let y = g.b.gather_elements(x, indices, GatherOptions { axis: 1, ..Default::default() }).unwrap();
        let graph = g.build(&[("y", y)]);
        assert_eq!(check_any(&graph, &g.inputs).1, ALL_FAST, "gatherElements {t}");
    }
}

/// gatherND with tuples of one, two and three coordinates (slices of rows, of elements, and
/// single elements), gatherElements along each axis: negative indices and ones out of
/// range (clamped, as the reference does), int32 and int64 indices, float32 and integer
/// values.
#[test]
fn gather_nd_and_elements_match_the_reference() {
    for t in [DataType::Int32, DataType::Int64] {
        for values in [DataType::Float32, DataType::Int32] {
            let cases: [(&[u32], &[i64]); 3] = [(&[4, 1], &[0, -1, 2, 9]), (&[3, 2], &[1, 0, -2, 3, 0, -9]), (&[2, 3], &[1, 2, 3, 0, -1, 4])];
            for (shape, idx) in cases {
                let mut g = G::new(28);
                let x = g.input("x", &[3, 4, 5]);
                let x = match values {
                    DataType::Float32 => x,
                    v => g.b.cast(x, v, OpOptions::default()).unwrap(),
                };
                let indices = index_constant(&mut g, t, shape, idx);
                let y = g.b.gather_nd(x, indices, OpOptions::default()).unwrap();
                let graph = g.build(&[("y", y)]);
                assert_eq!(check_any(&graph, &g.inputs).1, ALL_FAST, "gatherND {t} {values} {shape:?}");
            }
            for axis in 0..3u32 {
                let mut g = G::new(29);
                let x = g.input("x", &[3, 4, 5]);
                let x = match values {
                    DataType::Float32 => x,
                    v => g.b.cast(x, v, OpOptions::default()).unwrap(),
                };
                let mut shape = [3u32, 4, 5];
                shape[axis as usize] = 2;
                let n: u32 = shape.iter().product();
                let idx: Vec<i64> = (0..n as i64).map(|k| [0, -1, 2, 7, -8, 1][(k % 6) as usize]).collect();
                let indices = index_constant(&mut g, t, &shape, &idx);
                let y = g.b.gather_elements(x, indices, GatherOptions { axis, ..Default::default() }).unwrap();
                let graph = g.build(&[("y", y)]);
                assert_eq!(check_any(&graph, &g.inputs).1, ALL_FAST, "gatherElements {t} {values} axis {axis}");
            }
        }
    }
}

