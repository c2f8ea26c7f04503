//! Validation of the reductions, argMin/argMax, cumulativeSum and softmax.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::*;
use webnn_core::{DataType, GraphBuilder, Operand, OperandDescriptor, Result};

fn reduce_opts(axes: Option<Vec<u32>>, keep_dimensions: bool) -> ReduceOptions {
    labelled!(ReduceOptions { axes, keep_dimensions })
}

type ReduceFn = fn(&mut GraphBuilder, Operand, ReduceOptions) -> Result<Operand>;

const REDUCTIONS: [ReduceFn; 10] = [
    GraphBuilder::reduce_l1,
    GraphBuilder::reduce_l2,
    GraphBuilder::reduce_log_sum,
    GraphBuilder::reduce_log_sum_exp,
    GraphBuilder::reduce_max,
    GraphBuilder::reduce_mean,
    GraphBuilder::reduce_min,
    GraphBuilder::reduce_product,
    GraphBuilder::reduce_sum,
    GraphBuilder::reduce_sum_square,
];

#[test]
fn reduce_output_shapes() {
    for f in REDUCTIONS {
        let mut b = GraphBuilder::new();
        let x = input(&mut b, DataType::Float32, &[1, 3, 4, 4]);
        // (axes, keepDimensions, output shape)
        let cases: [(_, _, &[u32]); 5] = [
            (None, true, &[1, 1, 1, 1]),
            (None, false, &[]),
            (Some(vec![0, 1]), false, &[4, 4]),
            (Some(vec![3, 1]), true, &[1, 1, 4, 1]),
            // An empty list reduces nothing.
            (Some(vec![]), false, &[1, 3, 4, 4]),
        ];
        for (axes, keep_dimensions, want) in cases {
            let d = out_desc(f(&mut b, x, reduce_opts(axes, keep_dimensions)), &b);
            assert_eq!(d, OperandDescriptor::new(DataType::Float32, want));
        }
        let s = input(&mut b, DataType::Float16, &[]);
        let d = out_desc(f(&mut b, s, reduce_opts(None, false)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Float16, &[]));
    }
}

#[test]
fn reduce_rejects_bad_axes() {
    for f in REDUCTIONS {
        let mut b = GraphBuilder::new();
        let x = input(&mut b, DataType::Float32, &[1, 2, 5, 5]);
        type_error(f(&mut b, x, reduce_opts(Some(vec![4]), false)));
        type_error(f(&mut b, x, reduce_opts(Some(vec![0, 1, 1]), false)));
        type_error(f(&mut b, x, reduce_opts(Some(vec![u32::MAX]), true)));
        let s = input(&mut b, DataType::Float32, &[]);
        type_error(f(&mut b, s, reduce_opts(Some(vec![0]), false)));
    }
}

#[test]
fn reduce_data_types() {
    let mut b = GraphBuilder::new();
    let i32x = input(&mut b, DataType::Int32, &[2, 3]);
    let i8x = input(&mut b, DataType::Int8, &[2, 3]);
    let u64x = input(&mut b, DataType::Uint64, &[2, 3]);
    // Float only.
    for f in [
        GraphBuilder::reduce_l2,
        GraphBuilder::reduce_log_sum,
        GraphBuilder::reduce_log_sum_exp,
        GraphBuilder::reduce_mean,
    ] {
        type_error(f(&mut b, i32x, reduce_opts(None, false)));
    }
    // float32, float16, int32, uint32, int64, uint64.
    for f in [
        GraphBuilder::reduce_l1,
        GraphBuilder::reduce_product,
        GraphBuilder::reduce_sum,
        GraphBuilder::reduce_sum_square,
    ] {
        type_error(f(&mut b, i8x, reduce_opts(None, false)));
        let d = out_desc(f(&mut b, u64x, reduce_opts(Some(vec![1]), false)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Uint64, &[2]));
    }
    // Any data type.
    for f in [GraphBuilder::reduce_max, GraphBuilder::reduce_min] {
        let d = out_desc(f(&mut b, i8x, reduce_opts(Some(vec![0]), true)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Int8, &[1, 3]));
    }
}

fn arg_opts(keep_dimensions: bool, output_data_type: DataType) -> ArgMinMaxOptions {
    labelled!(ArgMinMaxOptions { keep_dimensions, output_data_type })
}

type ArgFn = fn(&mut GraphBuilder, Operand, u32, ArgMinMaxOptions) -> Result<Operand>;

#[test]
fn arg_min_max() {
    for f in [GraphBuilder::arg_min as ArgFn, GraphBuilder::arg_max] {
        let mut b = GraphBuilder::new();
        let x = input(&mut b, DataType::Float32, &[1, 2, 3, 4]);
        let d = out_desc(f(&mut b, x, 0, arg_opts(false, DataType::Int32)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Int32, &[2, 3, 4]));
        let d = out_desc(f(&mut b, x, 1, arg_opts(true, DataType::Int64)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Int64, &[1, 1, 3, 4]));
        let v = input(&mut b, DataType::Uint8, &[7]);
        let d = out_desc(f(&mut b, v, 0, arg_opts(false, DataType::Int32)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Int32, &[]));

        type_error(f(&mut b, x, 4, arg_opts(false, DataType::Int32)));
        type_error(f(&mut b, x, 0, arg_opts(false, DataType::Float32)));
        type_error(f(&mut b, x, 0, arg_opts(false, DataType::Uint32)));
        let s = input(&mut b, DataType::Float32, &[]);
        type_error(f(&mut b, s, 0, arg_opts(false, DataType::Int32)));
    }
}

#[test]
fn cumulative_sum() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, DataType::Float32, &[3, 2, 5]);
    let d = out_desc(b.cumulative_sum(x, 1, labelled!(CumulativeSumOptions)), &b);
    assert_eq!(d, OperandDescriptor::new(DataType::Float32, &[3, 2, 5]));
    type_error(b.cumulative_sum(x, 3, labelled!(CumulativeSumOptions)));
    let s = input(&mut b, DataType::Float32, &[]);
    type_error(b.cumulative_sum(s, 0, labelled!(CumulativeSumOptions)));
    let i8x = input(&mut b, DataType::Int8, &[4]);
    type_error(b.cumulative_sum(i8x, 0, labelled!(CumulativeSumOptions)));
    let i64x = input(&mut b, DataType::Int64, &[4]);
    let d =
        out_desc(b.cumulative_sum(i64x, 0, labelled!(CumulativeSumOptions { exclusive: true, reversed: true })), &b);
    assert_eq!(d, OperandDescriptor::new(DataType::Int64, &[4]));
}

#[test]
fn softmax() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, DataType::Float16, &[3, 1, 5, 2]);
    let d = out_desc(b.softmax(x, 2, label()), &b);
    assert_eq!(d, OperandDescriptor::new(DataType::Float16, &[3, 1, 5, 2]));
    type_error(b.softmax(x, 4, label()));
    let i = input(&mut b, DataType::Int32, &[3, 2]);
    type_error(b.softmax(i, 1, label()));
    let s = input(&mut b, DataType::Float32, &[]);
    type_error(b.softmax(s, 0, label()));
}
