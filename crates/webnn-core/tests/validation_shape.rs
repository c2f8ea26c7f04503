//! Validation of concat, expand, pad, reshape, reverse, slice, split, tile, transpose,
//! triangular and where.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::{
    MLNumber, PadOptions, PaddingMode, ReverseOptions, SliceOptions, SplitOptions, Splits, TransposeOptions,
    TriangularOptions,
};
use webnn_core::{DataType, Dim, ErrorKind, GraphBuilder};

#[test]
fn concat_rules() {
    let mut b = GraphBuilder::new();
    let a = f32_in(&mut b, &[3, 5, 1]);
    let c = f32_in(&mut b, &[3, 5, 2]);
    let d = f32_in(&mut b, &[3, 5, 3]);
    let y = b.concat(&[a, c, d], 2, label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![3, 5, 6]);
    type_error(b.concat(&[], 0, label()));
    type_error(b.concat(&[a, c], 3, label()));
    type_error(b.concat(&[a, c], 1, label()));
    let i = input(&mut b, DataType::Int32, &[3, 5, 1]);
    type_error(b.concat(&[a, i], 2, label()));
    let r2 = f32_in(&mut b, &[3, 5]);
    type_error(b.concat(&[a, r2], 0, label()));
    let s = f32_in(&mut b, &[]);
    type_error(b.concat(&[s, s], 0, label()));
    // The summed axis must stay a valid dimension.
    let big = input(&mut b, DataType::Uint8, &[1 << 30]);
    type_error(b.concat(&[big, big], 0, label()));
}

#[test]
fn expand_rules() {
    let mut b = GraphBuilder::new();
    let s = f32_in(&mut b, &[]);
    let y = b.expand(s, dims(&[3, 4, 5]), label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![3, 4, 5]);
    let x = f32_in(&mut b, &[2, 5]);
    let y = b.expand(x, dims(&[3, 2, 5]), label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![3, 2, 5]);
    let x = f32_in(&mut b, &[3, 6, 2]);
    type_error(b.expand(x, dims(&[4, 3, 5]), label()));
    let x = f32_in(&mut b, &[5, 4]);
    type_error(b.expand(x, dims(&[5]), label()));
    let x = f32_in(&mut b, &[1, 2, 1, 1]);
    type_error(b.expand(x, dims(&[1, 2, u32::MAX, u32::MAX]), label()));
    type_error(b.expand(x, dims(&[1, 2, 0, 1]), label()));
}

#[test]
fn pad_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[2, 3]);
    let opts = |mode| labelled!(PadOptions { mode, value: MLNumber::Double(0.0) });
    let y = b.pad(x, vec![1, 2], vec![1, 2], opts(PaddingMode::Constant)).unwrap();
    assert_eq!(shape_of(&b, y), vec![4, 7]);
    type_error(b.pad(x, vec![1], vec![1, 2], opts(PaddingMode::Edge)));
    type_error(b.pad(x, vec![1, 0], vec![1, 2, 0], opts(PaddingMode::Reflection)));
    // Reflection padding must be smaller than the dimension.
    type_error(b.pad(x, vec![2, 0], vec![0, 0], opts(PaddingMode::Reflection)));
    type_error(b.pad(x, vec![0, 0], vec![0, 3], opts(PaddingMode::Reflection)));
    assert!(b.pad(x, vec![1, 2], vec![1, 2], opts(PaddingMode::Reflection)).is_ok());
    assert!(b.pad(x, vec![5, 5], vec![5, 5], opts(PaddingMode::Edge)).is_ok());
    type_error(b.pad(x, vec![u32::MAX, 0], vec![u32::MAX, 2], opts(PaddingMode::Constant)));
    // The spec allows any rank, so a 0-D input with empty paddings is an identity.
    let s = f32_in(&mut b, &[]);
    let y = b.pad(s, vec![], vec![], opts(PaddingMode::Constant)).unwrap();
    assert_eq!(shape_of(&b, y), Vec::<u32>::new());
}

#[test]
fn reshape_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[2, 3, 4]);
    let y = b.reshape(x, dims(&[3, 8]), label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![3, 8]);
    type_error(b.reshape(x, dims(&[]), label()));
    type_error(b.reshape(x, dims(&[3, 9]), label()));
    type_error(b.reshape(x, dims(&[2, 4, 0]), label()));
    type_error(b.reshape(x, dims(&[1; 9]), label()));
    let one = f32_in(&mut b, &[1]);
    let y = b.reshape(one, dims(&[]), label()).unwrap();
    assert_eq!(shape_of(&b, y), Vec::<u32>::new());
}

#[test]
fn reshape_keeps_matching_dynamic_dims() {
    let mut b = GraphBuilder::new();
    let x = input_dims(&mut b, DataType::Float32, vec![dyn_dim("batch", 8), Dim::Static(6)]);
    let y = b.reshape(x, vec![dyn_dim("batch", 8), Dim::Static(2), Dim::Static(3)], label()).unwrap();
    assert_eq!(desc(&b, y).shape[0], dyn_dim("batch", 8));
    type_error(b.reshape(x, vec![dyn_dim("batch", 8), Dim::Static(5)], label()));
    error_of(b.reshape(x, dims(&[48]), label()), ErrorKind::NotSupportedError);
}

#[test]
fn reverse_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[1, 2, 3, 4]);
    let opts = |axes: Option<Vec<u32>>| labelled!(ReverseOptions { axes });
    assert!(b.reverse(x, opts(None)).is_ok());
    assert!(b.reverse(x, opts(Some(vec![]))).is_ok());
    type_error(b.reverse(x, opts(Some(vec![4]))));
    type_error(b.reverse(x, opts(Some(vec![2, 2, 3]))));
}

#[test]
fn slice_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[3, 4, 5]);
    let opts = |strides: Option<Vec<u32>>| labelled!(SliceOptions { strides });
    let y = b.slice(x, vec![0, 1, 2], vec![1, 2, 3], opts(None)).unwrap();
    assert_eq!(shape_of(&b, y), vec![1, 2, 3]);
    let y = b.slice(x, vec![0, 0, 0], vec![3, 4, 5], opts(Some(vec![2, 3, 1]))).unwrap();
    assert_eq!(shape_of(&b, y), vec![2, 2, 5]);
    type_error(b.slice(x, vec![1, 2, 3], vec![1, 1], opts(None)));
    type_error(b.slice(x, vec![1, 2, 1, 3], vec![1, 1, 1], opts(None)));
    type_error(b.slice(x, vec![0, 4, 4], vec![1, 1, 1], opts(None)));
    type_error(b.slice(x, vec![1, 2, 3], vec![1, 0, 1], opts(None)));
    type_error(b.slice(x, vec![0, 1, 2], vec![3, 4, 1], opts(None)));
    type_error(b.slice(x, vec![1, 2, 3], vec![1, 1, 1], opts(Some(vec![1, 1, 1, 1]))));
    type_error(b.slice(x, vec![1, 2, 3], vec![1, 1, 1], opts(Some(vec![0, 0, 0]))));
    type_error(b.slice(x, vec![2, 0, 0], vec![u32::MAX, 1, 1], opts(None)));
    let s = f32_in(&mut b, &[]);
    type_error(b.slice(s, vec![0], vec![1], opts(None)));
}

#[test]
fn split_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[2, 6]);
    let opts = |axis| labelled!(SplitOptions { axis });
    let ys = b.split(x, Splits::Sizes(vec![1, 2, 3]), opts(1)).unwrap();
    let shapes: Vec<Vec<u32>> = ys.iter().map(|&y| shape_of(&b, y)).collect();
    assert_eq!(shapes, vec![vec![2, 1], vec![2, 2], vec![2, 3]]);
    let ys = b.split(x, Splits::Count(3), opts(1)).unwrap();
    assert_eq!(ys.len(), 3);
    assert_eq!(shape_of(&b, ys[2]), vec![2, 2]);
    type_error(b.split(x, Splits::Count(2), opts(2)));
    type_error(b.split(x, Splits::Count(0), opts(0)));
    type_error(b.split(x, Splits::Sizes(vec![0]), opts(0)));
    type_error(b.split(x, Splits::Sizes(vec![]), opts(0)));
    type_error(b.split(x, Splits::Count(4), opts(1)));
    type_error(b.split(x, Splits::Sizes(vec![2, 2, 3]), opts(1)));
    type_error(b.split(x, Splits::Sizes(vec![u32::MAX, u32::MAX, 8]), opts(1)));
    let s = f32_in(&mut b, &[]);
    type_error(b.split(s, Splits::Count(1), opts(0)));
}

#[test]
fn tile_rules() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, DataType::Uint32, &[1, 2, 3, 4]);
    let y = b.tile(x, vec![1, 2, 3, 4], label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![1, 4, 9, 16]);
    type_error(b.tile(x, vec![1, 2, 3], label()));
    type_error(b.tile(x, vec![0, 1, 2, 3], label()));
    type_error(b.tile(x, vec![1, 1, u32::MAX, 3], label()));
}

#[test]
fn transpose_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[1, 2, 3, 4]);
    let opts = |permutation: Option<Vec<u32>>| labelled!(TransposeOptions { permutation });
    let y = b.transpose(x, opts(Some(vec![0, 2, 3, 1]))).unwrap();
    assert_eq!(shape_of(&b, y), vec![1, 3, 4, 2]);
    let y = b.transpose(x, opts(None)).unwrap();
    assert_eq!(shape_of(&b, y), vec![4, 3, 2, 1]);
    type_error(b.transpose(x, opts(Some(vec![0, 2, 1]))));
    type_error(b.transpose(x, opts(Some(vec![0, 2, 3, 2]))));
    type_error(b.transpose(x, opts(Some(vec![0, 1, 2, 4]))));
}

#[test]
fn triangular_needs_rank_two() {
    let mut b = GraphBuilder::new();
    let opts = || labelled!(TriangularOptions { upper: false, diagonal: -3 });
    let v = f32_in(&mut b, &[4]);
    type_error(b.triangular(v, opts()));
    let m = f32_in(&mut b, &[2, 3, 4]);
    let y = b.triangular(m, opts()).unwrap();
    assert_eq!(shape_of(&b, y), vec![2, 3, 4]);
}

#[test]
fn where_rules() {
    let mut b = GraphBuilder::new();
    let c = input(&mut b, DataType::Uint8, &[2, 1, 4]);
    let t = input(&mut b, DataType::Int32, &[2, 3, 4]);
    let f = input(&mut b, DataType::Int32, &[1, 4]);
    let y = b.where_(c, t, f, label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![2, 3, 4]);
    assert_eq!(desc(&b, y).data_type, DataType::Int32);
    let c32 = f32_in(&mut b, &[2, 4]);
    let t32 = f32_in(&mut b, &[2, 4]);
    type_error(b.where_(c32, t32, t32, label()));
    let c8 = input(&mut b, DataType::Uint8, &[2, 4]);
    let f16 = input(&mut b, DataType::Float16, &[2, 4]);
    type_error(b.where_(c8, f16, t32, label()));
    let t23 = f32_in(&mut b, &[2, 3]);
    type_error(b.where_(c8, t32, t23, label()));
    let f21 = f32_in(&mut b, &[2, 1]);
    type_error(b.where_(c8, t23, f21, label()));
}
