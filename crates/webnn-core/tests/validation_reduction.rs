//! Validation of the reductions, argMin/argMax, cumulativeSum and softmax.

use webnn_core::ops::*;
use webnn_core::{DataType, Error, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result};

const LABEL: &str = "mylabel";

fn input(b: &mut GraphBuilder, data_type: DataType, shape: &[u32]) -> Operand {
    let name = format!("x{}", b.graph().operands.len());
    b.input(&name, OperandDescriptor::new(data_type, shape))
        .expect("valid input")
}

fn assert_type_error(r: Result<Operand>) {
    let err: Error = r.expect_err("building should fail");
    assert_eq!(err.kind, ErrorKind::TypeError, "{err}");
    assert!(err.to_string().contains("[mylabel]"), "{err}");
}

fn out_desc(r: Result<Operand>, b: &GraphBuilder) -> OperandDescriptor {
    let o = r.expect("building should succeed");
    b.desc(o).expect("own operand").clone()
}

fn reduce_opts(axes: Option<Vec<u32>>, keep_dimensions: bool) -> ReduceOptions {
    ReduceOptions {
        axes,
        keep_dimensions,
        label: LABEL.into(),
    }
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
        let d = out_desc(f(&mut b, x, reduce_opts(None, true)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Float32, &[1, 1, 1, 1]));
        let d = out_desc(f(&mut b, x, reduce_opts(None, false)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Float32, &[]));
        let d = out_desc(f(&mut b, x, reduce_opts(Some(vec![0, 1]), false)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Float32, &[4, 4]));
        let d = out_desc(f(&mut b, x, reduce_opts(Some(vec![3, 1]), true)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Float32, &[1, 1, 4, 1]));
        // An empty list reduces nothing.
        let d = out_desc(f(&mut b, x, reduce_opts(Some(vec![]), false)), &b);
        assert_eq!(d, OperandDescriptor::new(DataType::Float32, &[1, 3, 4, 4]));
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
        assert_type_error(f(&mut b, x, reduce_opts(Some(vec![4]), false)));
        assert_type_error(f(&mut b, x, reduce_opts(Some(vec![0, 1, 1]), false)));
        assert_type_error(f(&mut b, x, reduce_opts(Some(vec![u32::MAX]), true)));
        let s = input(&mut b, DataType::Float32, &[]);
        assert_type_error(f(&mut b, s, reduce_opts(Some(vec![0]), false)));
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
        assert_type_error(f(&mut b, i32x, reduce_opts(None, false)));
    }
    // float32, float16, int32, uint32, int64, uint64.
    for f in [
        GraphBuilder::reduce_l1,
        GraphBuilder::reduce_product,
        GraphBuilder::reduce_sum,
        GraphBuilder::reduce_sum_square,
    ] {
        assert_type_error(f(&mut b, i8x, reduce_opts(None, false)));
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
    ArgMinMaxOptions {
        keep_dimensions,
        output_data_type,
        label: LABEL.into(),
    }
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

        assert_type_error(f(&mut b, x, 4, arg_opts(false, DataType::Int32)));
        assert_type_error(f(&mut b, x, 0, arg_opts(false, DataType::Float32)));
        assert_type_error(f(&mut b, x, 0, arg_opts(false, DataType::Uint32)));
        let s = input(&mut b, DataType::Float32, &[]);
        assert_type_error(f(&mut b, s, 0, arg_opts(false, DataType::Int32)));
    }
}

fn cumsum_opts() -> CumulativeSumOptions {
    CumulativeSumOptions {
        label: LABEL.into(),
        ..Default::default()
    }
}

#[test]
fn cumulative_sum() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, DataType::Float32, &[3, 2, 5]);
    let d = out_desc(b.cumulative_sum(x, 1, cumsum_opts()), &b);
    assert_eq!(d, OperandDescriptor::new(DataType::Float32, &[3, 2, 5]));
    assert_type_error(b.cumulative_sum(x, 3, cumsum_opts()));
    let s = input(&mut b, DataType::Float32, &[]);
    assert_type_error(b.cumulative_sum(s, 0, cumsum_opts()));
    let i8x = input(&mut b, DataType::Int8, &[4]);
    assert_type_error(b.cumulative_sum(i8x, 0, cumsum_opts()));
    let i64x = input(&mut b, DataType::Int64, &[4]);
    let d = out_desc(
        b.cumulative_sum(
            i64x,
            0,
            CumulativeSumOptions {
                exclusive: true,
                reversed: true,
                ..cumsum_opts()
            },
        ),
        &b,
    );
    assert_eq!(d, OperandDescriptor::new(DataType::Int64, &[4]));
}

#[test]
fn softmax() {
    let opts = || OpOptions {
        label: LABEL.into(),
    };
    let mut b = GraphBuilder::new();
    let x = input(&mut b, DataType::Float16, &[3, 1, 5, 2]);
    let d = out_desc(b.softmax(x, 2, opts()), &b);
    assert_eq!(d, OperandDescriptor::new(DataType::Float16, &[3, 1, 5, 2]));
    assert_type_error(b.softmax(x, 4, opts()));
    let i = input(&mut b, DataType::Int32, &[3, 2]);
    assert_type_error(b.softmax(i, 1, opts()));
    let s = input(&mut b, DataType::Float32, &[]);
    assert_type_error(b.softmax(s, 0, opts()));
}
