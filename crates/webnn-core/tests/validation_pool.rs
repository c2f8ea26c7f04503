//! Validation of averagePool2d, l2Pool2d, maxPool2d and resample2d.

use webnn_core::ops::*;
use webnn_core::{DataType, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result};

const LABEL: &str = "mylabel";
const F32: DataType = DataType::Float32;

type PoolFn = fn(&mut GraphBuilder, Operand, Pool2dOptions) -> Result<Operand>;
const POOLS: [PoolFn; 3] = [
    GraphBuilder::average_pool2d,
    GraphBuilder::l2_pool2d,
    GraphBuilder::max_pool2d,
];

fn opts() -> Pool2dOptions {
    Pool2dOptions {
        label: LABEL.into(),
        ..Default::default()
    }
}

fn pool(f: PoolFn, data_type: DataType, shape: &[u32], opts: Pool2dOptions) -> Result<Vec<u32>> {
    let mut b = GraphBuilder::new();
    let x = b
        .input("x", OperandDescriptor::new(data_type, shape))
        .expect("valid input");
    let y = f(&mut b, x, opts)?;
    let d = b.desc(y)?;
    assert_eq!(d.data_type, data_type);
    Ok(d.static_shape().expect("static"))
}

fn assert_type_error<T: std::fmt::Debug>(r: Result<T>) {
    let err = r.expect_err("building should fail");
    assert_eq!(err.kind, ErrorKind::TypeError, "{err}");
    assert!(err.to_string().contains("[mylabel]"), "{err}");
}

#[test]
fn pool_output_shapes() {
    let win = |w: u32| Some(vec![w, w]);
    let ok: Vec<(&[u32], Pool2dOptions, &[u32])> = vec![
        (&[1, 3, 4, 4], opts(), &[1, 3, 1, 1]),
        (
            &[1, 3, 4, 4],
            Pool2dOptions {
                window_dimensions: win(3),
                ..opts()
            },
            &[1, 3, 2, 2],
        ),
        (
            &[1, 3, 5, 5],
            Pool2dOptions {
                window_dimensions: win(5),
                padding: Some(vec![2; 4]),
                ..opts()
            },
            &[1, 3, 5, 5],
        ),
        (
            &[1, 3, 7, 7],
            Pool2dOptions {
                window_dimensions: win(4),
                padding: Some(vec![2, 1, 2, 1]),
                strides: Some(vec![2, 2]),
                ..opts()
            },
            &[1, 3, 4, 4],
        ),
        (
            &[1, 3, 7, 7],
            Pool2dOptions {
                window_dimensions: win(4),
                padding: Some(vec![1; 4]),
                strides: Some(vec![2, 2]),
                output_shape_rounding: RoundingType::Ceil,
                ..opts()
            },
            &[1, 3, 4, 4],
        ),
        // outputSizes win over the rounding and may be either the floor or the ceiling.
        (
            &[1, 3, 7, 7],
            Pool2dOptions {
                window_dimensions: win(4),
                padding: Some(vec![1; 4]),
                strides: Some(vec![2, 2]),
                output_shape_rounding: RoundingType::Ceil,
                output_sizes: Some(vec![3, 3]),
                ..opts()
            },
            &[1, 3, 3, 3],
        ),
        (
            &[1, 3, 7, 7],
            Pool2dOptions {
                window_dimensions: win(4),
                padding: Some(vec![1; 4]),
                strides: Some(vec![2, 2]),
                output_sizes: Some(vec![4, 4]),
                ..opts()
            },
            &[1, 3, 4, 4],
        ),
        (
            &[1, 5, 5, 2],
            Pool2dOptions {
                window_dimensions: win(3),
                layout: InputLayout::Nhwc,
                ..opts()
            },
            &[1, 3, 3, 2],
        ),
        (
            &[1, 2, 7, 7],
            Pool2dOptions {
                window_dimensions: win(3),
                dilations: Some(vec![2, 3]),
                ..opts()
            },
            &[1, 2, 3, 1],
        ),
    ];
    for f in POOLS {
        for (shape, o, want) in &ok {
            assert_eq!(pool(f, F32, shape, o.clone()).unwrap(), *want);
        }
    }
}

#[test]
fn pool_rejects_bad_options() {
    let base = [1, 2, 5, 5];
    let bad: Vec<(&[u32], Pool2dOptions)> = vec![
        (&[1, 5, 5], opts()),
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![1, 1, 1]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![0, 2]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![6, 3]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![3, 8]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                padding: Some(vec![2, 2]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                strides: Some(vec![2]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                strides: Some(vec![0, 2]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                dilations: Some(vec![1, 1, 2]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                dilations: Some(vec![1, 0]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                padding: Some(vec![u32::MAX, u32::MAX, 0, 0]),
                ..opts()
            },
        ),
        // outputSizes: wrong length, zero, neither the floor nor the ceiling, or mixed.
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![2, 2]),
                output_sizes: Some(vec![1, 2, 4]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![2, 2]),
                output_sizes: Some(vec![0, 4]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![2, 2]),
                padding: Some(vec![2; 4]),
                strides: Some(vec![2, 2]),
                output_sizes: Some(vec![3, 3]),
                ..opts()
            },
        ),
        (
            &base,
            Pool2dOptions {
                window_dimensions: Some(vec![2, 2]),
                padding: Some(vec![2; 4]),
                strides: Some(vec![2, 2]),
                output_sizes: Some(vec![4, 5]),
                ..opts()
            },
        ),
    ];
    for f in POOLS {
        for (shape, o) in &bad {
            assert_type_error(pool(f, F32, shape, o.clone()));
        }
    }
}

#[test]
fn pool_data_types() {
    // averagePool2d and l2Pool2d take floats only; maxPool2d takes any data type.
    assert_type_error(pool(
        GraphBuilder::average_pool2d,
        DataType::Int32,
        &[1, 1, 2, 2],
        opts(),
    ));
    assert_type_error(pool(
        GraphBuilder::l2_pool2d,
        DataType::Uint8,
        &[1, 1, 2, 2],
        opts(),
    ));
    assert_eq!(
        pool(
            GraphBuilder::max_pool2d,
            DataType::Int64,
            &[1, 1, 2, 2],
            opts()
        )
        .unwrap(),
        [1, 1, 1, 1]
    );
    assert_eq!(
        pool(
            GraphBuilder::average_pool2d,
            DataType::Float16,
            &[1, 1, 2, 2],
            opts()
        )
        .unwrap(),
        [1, 1, 1, 1]
    );
}

fn rs_opts() -> Resample2dOptions {
    Resample2dOptions {
        label: LABEL.into(),
        ..Default::default()
    }
}

fn resample(data_type: DataType, shape: &[u32], opts: Resample2dOptions) -> Result<Vec<u32>> {
    let mut b = GraphBuilder::new();
    let x = b
        .input("x", OperandDescriptor::new(data_type, shape))
        .expect("valid input");
    let y = b.resample2d(x, opts)?;
    Ok(b.desc(y)?.static_shape().expect("static"))
}

#[test]
fn resample2d_output_shapes() {
    let ok: Vec<(&[u32], Resample2dOptions, &[u32])> = vec![
        (&[1, 1, 2, 4], rs_opts(), &[1, 1, 2, 4]),
        (
            &[1, 1, 2, 4],
            Resample2dOptions {
                scales: Some(vec![2.0, 2.0]),
                ..rs_opts()
            },
            &[1, 1, 4, 8],
        ),
        (
            &[1, 1, 5, 5],
            Resample2dOptions {
                scales: Some(vec![0.5, 0.5]),
                ..rs_opts()
            },
            &[1, 1, 2, 2],
        ),
        (
            &[1, 1, 2, 4],
            Resample2dOptions {
                scales: Some(vec![1.0, 2.0]),
                axes: Some(vec![0, 1]),
                ..rs_opts()
            },
            &[1, 2, 2, 4],
        ),
        (
            &[1, 1, 2, 4],
            Resample2dOptions {
                scales: Some(vec![2.0, 2.0]),
                axes: Some(vec![1, 2]),
                ..rs_opts()
            },
            &[1, 2, 4, 4],
        ),
        (
            &[1, 1, 2, 4],
            Resample2dOptions {
                scales: Some(vec![2.0, 2.0]),
                sizes: Some(vec![3, 6]),
                ..rs_opts()
            },
            &[1, 1, 3, 6],
        ),
        (
            &[1, 1, 2, 4],
            Resample2dOptions {
                sizes: Some(vec![3, 6]),
                axes: Some(vec![3, 0]),
                ..rs_opts()
            },
            &[6, 1, 2, 3],
        ),
        (
            &[1, 1, 2, 4],
            Resample2dOptions {
                axes: Some(vec![0, 2]),
                ..rs_opts()
            },
            &[1, 1, 2, 4],
        ),
    ];
    for (shape, o, want) in ok {
        assert_eq!(resample(F32, shape, o).unwrap(), want);
    }
    assert_eq!(
        resample(DataType::Uint8, &[1, 1, 2, 2], rs_opts()).unwrap(),
        [1, 1, 2, 2]
    );
}

#[test]
fn resample2d_rejects_bad_options() {
    let shape = [1, 1, 2, 4];
    assert_type_error(resample(DataType::Int32, &shape, rs_opts()));
    assert_type_error(resample(F32, &[2, 4], rs_opts()));
    let bad = vec![
        Resample2dOptions {
            scales: Some(vec![1.0, 1.0, 2.0]),
            ..rs_opts()
        },
        Resample2dOptions {
            scales: Some(vec![1.0, -2.0]),
            ..rs_opts()
        },
        Resample2dOptions {
            scales: Some(vec![0.0, 2.0]),
            ..rs_opts()
        },
        Resample2dOptions {
            scales: Some(vec![f32::NAN, 2.0]),
            ..rs_opts()
        },
        Resample2dOptions {
            scales: Some(vec![f32::INFINITY, 2.0]),
            ..rs_opts()
        },
        Resample2dOptions {
            scales: Some(vec![4294967295.0, 1.0]),
            ..rs_opts()
        },
        // floor(2 * 0.02) = 0 is not a valid dimension.
        Resample2dOptions {
            scales: Some(vec![0.02, 0.8]),
            ..rs_opts()
        },
        Resample2dOptions {
            sizes: Some(vec![1, 1, 4]),
            ..rs_opts()
        },
        Resample2dOptions {
            sizes: Some(vec![0, 1]),
            ..rs_opts()
        },
        Resample2dOptions {
            sizes: Some(vec![u32::MAX, 1]),
            ..rs_opts()
        },
        Resample2dOptions {
            axes: Some(vec![0, 1, 2]),
            ..rs_opts()
        },
        Resample2dOptions {
            axes: Some(vec![3, 4]),
            ..rs_opts()
        },
        Resample2dOptions {
            axes: Some(vec![1, 1]),
            ..rs_opts()
        },
    ];
    for o in bad {
        assert_type_error(resample(F32, &shape, o));
    }
}
