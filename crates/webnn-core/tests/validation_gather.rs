//! Validation of gather, gatherElements, gatherND, scatterElements and scatterND.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::{GatherOptions, ScatterOptions};
use webnn_core::{DataType, Dim, ErrorKind, GraphBuilder};

fn gopts(axis: u32) -> GatherOptions {
    labelled!(GatherOptions { axis })
}

fn sopts(axis: u32) -> ScatterOptions {
    labelled!(ScatterOptions { axis })
}

#[test]
fn gather_shapes() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[1, 2, 3, 4]);
    let i = input(&mut b, DataType::Int64, &[5, 6]);
    let y = b.gather(x, i, gopts(2)).unwrap();
    assert_eq!(shape_of(&b, y), vec![1, 2, 5, 6, 4]);
    // 1-D input and 0-D indices give a 0-D output.
    let x1 = input(&mut b, DataType::Int32, &[3]);
    let s = input(&mut b, DataType::Uint32, &[]);
    let y = b.gather(x1, s, gopts(0)).unwrap();
    assert_eq!(shape_of(&b, y), Vec::<u32>::new());
    assert_eq!(desc(&b, y).data_type, DataType::Int32);
}

#[test]
fn gather_errors() {
    let mut b = GraphBuilder::new();
    let scalar = f32_in(&mut b, &[]);
    let x = f32_in(&mut b, &[1, 2, 3]);
    let i = i32_in(&mut b, &[5, 6]);
    type_error(b.gather(scalar, i, gopts(0)));
    type_error(b.gather(x, i, gopts(3)));
    let bad = f32_in(&mut b, &[5, 6]);
    type_error(b.gather(x, bad, gopts(0)));
    let u64_idx = input(&mut b, DataType::Uint64, &[2]);
    type_error(b.gather(x, u64_idx, gopts(0)));
    // Output rank beyond the limit.
    let deep = f32_in(&mut b, &[1, 1, 1, 1, 1]);
    let deep_idx = i32_in(&mut b, &[1, 1, 1, 1, 1]);
    type_error(b.gather(deep, deep_idx, gopts(0)));
}

#[test]
fn gather_elements_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[1, 2, 3, 4]);
    let i = i32_in(&mut b, &[1, 2, 1, 4]);
    let y = b.gather_elements(x, i, gopts(2)).unwrap();
    assert_eq!(shape_of(&b, y), vec![1, 2, 1, 4]);
    // Indices shape must match except along the axis.
    let wrong = i32_in(&mut b, &[3, 2, 3, 4]);
    type_error(b.gather_elements(x, wrong, gopts(3)));
    let lower_rank = i32_in(&mut b, &[1, 2]);
    type_error(b.gather_elements(x, lower_rank, gopts(0)));
    let ok_idx = i32_in(&mut b, &[1, 2, 3, 4]);
    type_error(b.gather_elements(x, ok_idx, gopts(4)));
    let float_idx = f32_in(&mut b, &[1, 2, 3, 4]);
    type_error(b.gather_elements(x, float_idx, gopts(0)));
    let s = f32_in(&mut b, &[]);
    let si = i32_in(&mut b, &[]);
    type_error(b.gather_elements(s, si, gopts(0)));
}

#[test]
fn gather_nd_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[2, 2, 3, 3, 4]);
    let i = i32_in(&mut b, &[5, 4, 3]);
    let y = b.gather_nd(x, i, label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![5, 4, 3, 4]);
    // A full coordinate gives single elements.
    let x2 = f32_in(&mut b, &[2, 2]);
    let full = i32_in(&mut b, &[2]);
    let y = b.gather_nd(x2, full, label()).unwrap();
    assert_eq!(shape_of(&b, y), Vec::<u32>::new());
    let too_long = i32_in(&mut b, &[1, 3]);
    type_error(b.gather_nd(x2, too_long, label()));
    let scalar_idx = i32_in(&mut b, &[]);
    type_error(b.gather_nd(x2, scalar_idx, label()));
    let float_idx = f32_in(&mut b, &[1, 1]);
    type_error(b.gather_nd(x2, float_idx, label()));
    let s = f32_in(&mut b, &[]);
    let one = i32_in(&mut b, &[1, 1]);
    type_error(b.gather_nd(s, one, label()));
}

#[test]
fn gather_nd_dynamic_coordinate_size_is_not_supported() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[2, 2]);
    let i = input_dims(&mut b, DataType::Int32, vec![Dim::Static(3), dyn_dim("n", 2)]);
    error_of(b.gather_nd(x, i, label()), ErrorKind::NotSupportedError);
}

#[test]
fn scatter_elements_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[3, 3]);
    let i = i32_in(&mut b, &[3, 2]);
    let u = f32_in(&mut b, &[3, 2]);
    let y = b.scatter_elements(x, i, u, sopts(1)).unwrap();
    assert_eq!(shape_of(&b, y), vec![3, 3]);
    type_error(b.scatter_elements(x, i, u, sopts(0)));
    type_error(b.scatter_elements(x, i, u, sopts(2)));
    let u16 = input(&mut b, DataType::Float16, &[3, 2]);
    type_error(b.scatter_elements(x, i, u16, sopts(1)));
    let u_other = f32_in(&mut b, &[3, 1]);
    type_error(b.scatter_elements(x, i, u_other, sopts(1)));
    let i3 = i32_in(&mut b, &[2, 3, 3]);
    let u3 = f32_in(&mut b, &[2, 3, 3]);
    type_error(b.scatter_elements(x, i3, u3, sopts(0)));
    let i2 = i32_in(&mut b, &[2, 3]);
    type_error(b.scatter_elements(x, i2, u3, sopts(0)));
}

#[test]
fn scatter_nd_rules() {
    let mut b = GraphBuilder::new();
    let x = f32_in(&mut b, &[4, 4, 4]);
    let i = i32_in(&mut b, &[2, 1]);
    let u = f32_in(&mut b, &[2, 4, 4]);
    let y = b.scatter_nd(x, i, u, label()).unwrap();
    assert_eq!(shape_of(&b, y), vec![4, 4, 4]);
    let u16 = input(&mut b, DataType::Float16, &[2, 4, 4]);
    type_error(b.scatter_nd(x, i, u16, label()));
    let bad_u = f32_in(&mut b, &[2, 3, 4]);
    type_error(b.scatter_nd(x, i, bad_u, label()));
    let too_long = i32_in(&mut b, &[2, 4]);
    type_error(b.scatter_nd(x, too_long, u, label()));
    let scalar_idx = i32_in(&mut b, &[]);
    type_error(b.scatter_nd(x, scalar_idx, u, label()));
    // Full coordinates scatter single elements: updates are 1-D.
    let full = i32_in(&mut b, &[5, 3]);
    let u5 = f32_in(&mut b, &[5]);
    assert!(b.scatter_nd(x, full, u5, label()).is_ok());
}
