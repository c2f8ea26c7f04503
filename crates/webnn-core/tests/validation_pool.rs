//! Validation of averagePool2d, l2Pool2d, maxPool2d and resample2d.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::*;
use webnn_core::{DataType, GraphBuilder, Operand, Result};

const F32: DataType = DataType::Float32;

type PoolFn = fn(&mut GraphBuilder, Operand, Pool2dOptions) -> Result<Operand>;
const POOLS: [PoolFn; 3] = [GraphBuilder::average_pool2d, GraphBuilder::l2_pool2d, GraphBuilder::max_pool2d];

/// The output shape of `f` (a pooling op or resample2d), which must keep the data type.
fn pool<O>(
    f: fn(&mut GraphBuilder, Operand, O) -> Result<Operand>,
    data_type: DataType,
    shape: &[u32],
    opts: O,
) -> Result<Vec<u32>> {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, data_type, shape);
    let y = f(&mut b, x, opts)?;
    let d = desc(&b, y);
    assert_eq!(d.data_type, data_type);
    Ok(d.static_shape().expect("static"))
}

#[test]
fn pool_output_shapes() {
    use Pool2dOptions as O;
    let win = |w: u32| Some(vec![w, w]);
    let strided = labelled!(O { window_dimensions: win(4), padding: Some(vec![1; 4]), strides: Some(vec![2, 2]) });
    let ok: Vec<(&[u32], O, &[u32])> = vec![
        (&[1, 3, 4, 4], labelled!(O), &[1, 3, 1, 1]),
        (&[1, 3, 4, 4], labelled!(O { window_dimensions: win(3) }), &[1, 3, 2, 2]),
        (&[1, 3, 5, 5], labelled!(O { window_dimensions: win(5), padding: Some(vec![2; 4]) }), &[1, 3, 5, 5]),
        (
            &[1, 3, 7, 7],
            labelled!(O { window_dimensions: win(4), padding: Some(vec![2, 1, 2, 1]), strides: Some(vec![2, 2]) }),
            &[1, 3, 4, 4],
        ),
        (&[1, 3, 7, 7], O { output_shape_rounding: RoundingType::Ceil, ..strided.clone() }, &[1, 3, 4, 4]),
        // outputSizes win over the rounding and may be either the floor or the ceiling.
        (
            &[1, 3, 7, 7],
            O { output_shape_rounding: RoundingType::Ceil, output_sizes: Some(vec![3, 3]), ..strided.clone() },
            &[1, 3, 3, 3],
        ),
        (&[1, 3, 7, 7], O { output_sizes: Some(vec![4, 4]), ..strided.clone() }, &[1, 3, 4, 4]),
        (&[1, 5, 5, 2], labelled!(O { window_dimensions: win(3), layout: InputLayout::Nhwc }), &[1, 3, 3, 2]),
        (&[1, 2, 7, 7], labelled!(O { window_dimensions: win(3), dilations: Some(vec![2, 3]) }), &[1, 2, 3, 1]),
    ];
    for f in POOLS {
        for (shape, o, want) in &ok {
            assert_eq!(pool(f, F32, shape, o.clone()).unwrap(), *want);
        }
    }
}

#[test]
fn pool_rejects_bad_options() {
    use Pool2dOptions as O;
    let window = || Some(vec![2, 2]);
    let strided = labelled!(O { window_dimensions: window(), padding: Some(vec![2; 4]), strides: Some(vec![2, 2]) });
    let bad = vec![
        labelled!(O { window_dimensions: Some(vec![1, 1, 1]) }),
        labelled!(O { window_dimensions: Some(vec![0, 2]) }),
        labelled!(O { window_dimensions: Some(vec![6, 3]) }),
        labelled!(O { window_dimensions: Some(vec![3, 8]) }),
        labelled!(O { padding: Some(vec![2, 2]) }),
        labelled!(O { strides: Some(vec![2]) }),
        labelled!(O { strides: Some(vec![0, 2]) }),
        labelled!(O { dilations: Some(vec![1, 1, 2]) }),
        labelled!(O { dilations: Some(vec![1, 0]) }),
        labelled!(O { padding: Some(vec![u32::MAX, u32::MAX, 0, 0]) }),
        // outputSizes: wrong length, zero, neither the floor nor the ceiling, or mixed.
        labelled!(O { window_dimensions: window(), output_sizes: Some(vec![1, 2, 4]) }),
        labelled!(O { window_dimensions: window(), output_sizes: Some(vec![0, 4]) }),
        O { output_sizes: Some(vec![3, 3]), ..strided.clone() },
        O { output_sizes: Some(vec![4, 5]), ..strided.clone() },
    ];
    for f in POOLS {
        type_error(pool(f, F32, &[1, 5, 5], labelled!(O)));
        for o in &bad {
            type_error(pool(f, F32, &[1, 2, 5, 5], o.clone()));
        }
    }
}

#[test]
fn pool_data_types() {
    use DataType::{Float16, Int32, Int64, Uint8};
    let x: &[u32] = &[1, 1, 2, 2];
    // averagePool2d and l2Pool2d take floats only; maxPool2d takes any data type.
    type_error(pool(GraphBuilder::average_pool2d, Int32, x, labelled!(Pool2dOptions)));
    type_error(pool(GraphBuilder::l2_pool2d, Uint8, x, labelled!(Pool2dOptions)));
    assert_eq!(pool(GraphBuilder::max_pool2d, Int64, x, labelled!(Pool2dOptions)).unwrap(), [1, 1, 1, 1]);
    assert_eq!(pool(GraphBuilder::average_pool2d, Float16, x, labelled!(Pool2dOptions)).unwrap(), [1, 1, 1, 1]);
}

#[test]
fn resample2d_output_shapes() {
    use Resample2dOptions as O;
    let x: &[u32] = &[1, 1, 2, 4];
    let ok: Vec<(&[u32], O, &[u32])> = vec![
        (x, labelled!(O), x),
        (x, labelled!(O { scales: Some(vec![2.0, 2.0]) }), &[1, 1, 4, 8]),
        (&[1, 1, 5, 5], labelled!(O { scales: Some(vec![0.5, 0.5]) }), &[1, 1, 2, 2]),
        (x, labelled!(O { scales: Some(vec![1.0, 2.0]), axes: Some(vec![0, 1]) }), &[1, 2, 2, 4]),
        (x, labelled!(O { scales: Some(vec![2.0, 2.0]), axes: Some(vec![1, 2]) }), &[1, 2, 4, 4]),
        (x, labelled!(O { scales: Some(vec![2.0, 2.0]), sizes: Some(vec![3, 6]) }), &[1, 1, 3, 6]),
        (x, labelled!(O { sizes: Some(vec![3, 6]), axes: Some(vec![3, 0]) }), &[6, 1, 2, 3]),
        (x, labelled!(O { axes: Some(vec![0, 2]) }), x),
    ];
    for (shape, o, want) in ok {
        assert_eq!(pool(GraphBuilder::resample2d, F32, shape, o).unwrap(), want);
    }
    assert_eq!(pool(GraphBuilder::resample2d, DataType::Uint8, &[1, 1, 2, 2], labelled!(O)).unwrap(), [1, 1, 2, 2]);
}

#[test]
fn resample2d_rejects_bad_options() {
    use Resample2dOptions as O;
    let shape = [1, 1, 2, 4];
    type_error(pool(GraphBuilder::resample2d, DataType::Int32, &shape, labelled!(O)));
    type_error(pool(GraphBuilder::resample2d, F32, &[2, 4], labelled!(O)));
    let bad = vec![
        labelled!(O { scales: Some(vec![1.0, 1.0, 2.0]) }),
        labelled!(O { scales: Some(vec![1.0, -2.0]) }),
        labelled!(O { scales: Some(vec![0.0, 2.0]) }),
        labelled!(O { scales: Some(vec![f32::NAN, 2.0]) }),
        labelled!(O { scales: Some(vec![f32::INFINITY, 2.0]) }),
        labelled!(O { scales: Some(vec![4294967295.0, 1.0]) }),
        // floor(2 * 0.02) = 0 is not a valid dimension.
        labelled!(O { scales: Some(vec![0.02, 0.8]) }),
        labelled!(O { sizes: Some(vec![1, 1, 4]) }),
        labelled!(O { sizes: Some(vec![0, 1]) }),
        labelled!(O { sizes: Some(vec![u32::MAX, 1]) }),
        labelled!(O { axes: Some(vec![0, 1, 2]) }),
        labelled!(O { axes: Some(vec![3, 4]) }),
        labelled!(O { axes: Some(vec![1, 1]) }),
    ];
    for o in bad {
        type_error(pool(GraphBuilder::resample2d, F32, &shape, o));
    }
}
