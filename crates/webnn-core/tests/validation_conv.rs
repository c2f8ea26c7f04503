//! Validation of conv2d, convTranspose2d, matmul and gemm.

#[macro_use]
mod support;

use support::*;
use webnn_core::ops::*;
use webnn_core::{DataType, Dim, GraphBuilder, Operand, Result};

const F32: DataType = DataType::Float32;

type ConvFn<O> = fn(&mut GraphBuilder, Operand, Operand, O) -> Result<Operand>;
/// Input shape, filter shape, options and the output shape they give.
type ShapeCase<'a, O> = (&'a [u32], &'a [u32], O, &'a [u32]);

/// The output shape of conv2d or convTranspose2d on a float32 input and filter.
fn conv_shape<O>(f: ConvFn<O>, in_shape: &[u32], f_shape: &[u32], opts: O) -> Result<Vec<u32>> {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, in_shape);
    let w = input(&mut b, F32, f_shape);
    let y = f(&mut b, x, w, opts)?;
    Ok(shape_of(&b, y))
}

#[test]
fn conv2d_output_shapes() {
    use Conv2dOptions as O;
    let ok: Vec<ShapeCase<O>> = vec![
        (&[1, 1, 5, 5], &[1, 1, 3, 3], labelled!(O), &[1, 1, 3, 3]),
        (
            &[1, 1, 5, 5],
            &[1, 1, 4, 2],
            labelled!(O { padding: Some(vec![1, 2, 0, 1]), strides: Some(vec![2, 2]) }),
            &[1, 1, 3, 3],
        ),
        (
            &[1, 65, 65, 1],
            &[1, 3, 3, 1],
            labelled!(O {
                input_layout: InputLayout::Nhwc,
                filter_layout: Conv2dFilterLayout::Ihwo,
                dilations: Some(vec![4, 4])
            }),
            &[1, 57, 57, 1],
        ),
        // Depthwise.
        (
            &[2, 4, 3, 3],
            &[2, 2, 1, 4],
            labelled!(O { groups: 4, filter_layout: Conv2dFilterLayout::Hwio }),
            &[2, 4, 2, 2],
        ),
        (&[1, 2, 5, 5], &[3, 3, 3, 2], labelled!(O { filter_layout: Conv2dFilterLayout::Ohwi }), &[1, 3, 3, 3]),
    ];
    for (x, w, opts, want) in ok {
        assert_eq!(conv_shape(GraphBuilder::conv2d, x, w, opts).unwrap(), want);
    }
}

#[test]
fn conv2d_rejects_bad_operands_and_options() {
    use Conv2dOptions as O;
    let (x, w): (&[u32], &[u32]) = (&[1, 1, 5, 5], &[1, 1, 2, 2]);
    let (x4, w4): (&[u32], &[u32]) = (&[1, 4, 5, 5], &[1, 1, 2, 2]);
    let bad: Vec<(&[u32], &[u32], O)> = vec![
        (&[1, 5, 5], w, labelled!(O)),
        (x, &[2, 2], labelled!(O)),
        (x, w, labelled!(O { padding: Some(vec![1, 1]) })),
        (x, w, labelled!(O { strides: Some(vec![1]) })),
        (x, w, labelled!(O { strides: Some(vec![0, 1]) })),
        (x, w, labelled!(O { dilations: Some(vec![1, 0]) })),
        (x4, w4, labelled!(O { groups: 0 })),
        (x4, w4, labelled!(O { groups: 3 })),
        (x4, w4, labelled!(O { groups: 2 })),
        // Output channels not divisible by groups.
        (x4, &[3, 2, 2, 2], labelled!(O { groups: 2 })),
        // The filter does not fit: non-positive output size, and huge dilations.
        (x, &[1, 1, 6, 2], labelled!(O)),
        (x, &[1, 1, 3, 3], labelled!(O { dilations: Some(vec![u32::MAX, 1]) })),
        (x, &[1, 1, 434983, 2], labelled!(O { dilations: Some(vec![328442, 1]) })),
        // An output size beyond the range of long.
        (x, &[1, 1, 1, 1], labelled!(O { padding: Some(vec![u32::MAX, u32::MAX, 0, 0]) })),
    ];
    for (x, w, opts) in bad {
        type_error(conv_shape(GraphBuilder::conv2d, x, w, opts));
    }
}

#[test]
fn conv2d_operand_types_and_bias() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[1, 1, 5, 5]);
    let fi = input(&mut b, DataType::Int32, &[1, 1, 2, 2]);
    type_error(b.conv2d(x, fi, labelled!(Conv2dOptions)));
    let xi = input(&mut b, DataType::Int32, &[1, 1, 5, 5]);
    type_error(b.conv2d(xi, fi, labelled!(Conv2dOptions)));
    let xh = input(&mut b, DataType::Float16, &[1, 1, 5, 5]);
    let f = input(&mut b, F32, &[2, 1, 2, 2]);
    type_error(b.conv2d(xh, f, labelled!(Conv2dOptions)));
    for (dt, shape) in [(F32, &[1, 2][..]), (F32, &[3]), (DataType::Float16, &[2])] {
        let bias = input(&mut b, dt, shape);
        type_error(b.conv2d(x, f, labelled!(Conv2dOptions { bias: Some(bias) })));
    }
    let bias = input(&mut b, F32, &[2]);
    assert_eq!(out_shape(b.conv2d(x, f, labelled!(Conv2dOptions { bias: Some(bias) })), &b), [1, 2, 4, 4]);
}

#[test]
fn conv2d_keeps_a_dynamic_batch() {
    let mut b = GraphBuilder::new();
    let batch = dyn_dim("batch", 8);
    let x = input_dims(&mut b, F32, vec![batch.clone(), Dim::Static(1), Dim::Static(5), Dim::Static(5)]);
    let f = input(&mut b, F32, &[1, 1, 3, 3]);
    let y = b.conv2d(x, f, labelled!(Conv2dOptions)).unwrap();
    assert_eq!(desc(&b, y).shape[0], batch);
}

#[test]
fn conv_transpose2d_output_shapes() {
    use ConvTranspose2dOptions as O;
    let (x, w): (&[u32], &[u32]) = (&[1, 1, 3, 3], &[1, 2, 3, 3]);
    let ok: Vec<ShapeCase<O>> = vec![
        (x, &[1, 1, 3, 3], labelled!(O), &[1, 1, 5, 5]),
        (x, w, labelled!(O { strides: Some(vec![3, 2]), output_padding: Some(vec![1, 1]) }), &[1, 2, 10, 8]),
        // outputSizes override outputPadding, which then need not be smaller than the strides.
        (
            x,
            w,
            labelled!(O {
                strides: Some(vec![3, 2]),
                output_padding: Some(vec![3, 3]),
                output_sizes: Some(vec![10, 8])
            }),
            &[1, 2, 10, 8],
        ),
        (
            &[1, 3, 3, 2],
            &[3, 3, 2, 2],
            labelled!(O {
                input_layout: InputLayout::Nhwc,
                filter_layout: ConvTranspose2dFilterLayout::Hwoi,
                groups: 3
            }),
            &[1, 5, 5, 6],
        ),
    ];
    for (x, w, opts, want) in ok {
        assert_eq!(conv_shape(GraphBuilder::conv_transpose2d, x, w, opts).unwrap(), want);
    }
}

#[test]
fn conv_transpose2d_rejects_bad_options() {
    use ConvTranspose2dOptions as O;
    let (x, w, w3): (&[u32], &[u32], &[u32]) = (&[1, 1, 3, 3], &[1, 1, 2, 2], &[1, 1, 3, 3]);
    let bad: Vec<(&[u32], &[u32], O)> = vec![
        (x, &[1, 1, 2], labelled!(O)),
        (x, w, labelled!(O { padding: Some(vec![0; 3]) })),
        (x, w, labelled!(O { strides: Some(vec![1, 0]) })),
        (x, w, labelled!(O { dilations: Some(vec![1]) })),
        (x, w, labelled!(O { groups: 0 })),
        (x, w, labelled!(O { output_padding: Some(vec![1, 1, 1]) })),
        // outputPadding must be smaller than the strides.
        (x, w, labelled!(O { output_padding: Some(vec![1, 0]) })),
        (x, w, labelled!(O { output_sizes: Some(vec![4]) })),
        // outputSizes must lie in [computed, computed + stride).
        (x, w3, labelled!(O { padding: Some(vec![1; 4]), strides: Some(vec![2, 2]), output_sizes: Some(vec![4, 4]) })),
        (x, w3, labelled!(O { padding: Some(vec![1; 4]), strides: Some(vec![2, 2]), output_sizes: Some(vec![5, 7]) })),
        // Input channels must equal the filter's.
        (&[1, 3, 3, 3], w3, labelled!(O)),
        // Output channels overflow.
        (&[1, 4, 5, 5], &[4, 2, 2, 2], labelled!(O { groups: u32::MAX })),
        // Padding larger than the output.
        (&[1, 1, 2, 2], w3, labelled!(O { padding: Some(vec![4, 4, 0, 0]), strides: Some(vec![2, 2]) })),
        // Effective filter size overflow.
        (&[1, 1, 5, 5], &[1, 1, 3, 2], labelled!(O { dilations: Some(vec![u32::MAX, 1]) })),
    ];
    for (x, w, opts) in bad {
        type_error(conv_shape(GraphBuilder::conv_transpose2d, x, w, opts));
    }
}

#[test]
fn conv_transpose2d_bias() {
    use ConvTranspose2dOptions as O;
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[1, 1, 3, 3]);
    let f = input(&mut b, F32, &[1, 2, 3, 3]);
    for (dt, shape) in [(F32, &[2, 1][..]), (F32, &[4]), (DataType::Int32, &[2])] {
        let bias = input(&mut b, dt, shape);
        type_error(b.conv_transpose2d(x, f, labelled!(O { bias: Some(bias), groups: 1 })));
    }
    let bias = input(&mut b, F32, &[4]);
    assert_eq!(out_shape(b.conv_transpose2d(x, f, labelled!(O { bias: Some(bias), groups: 2 })), &b), [1, 4, 5, 5]);
}

#[test]
fn matmul_rules() {
    let mut b = GraphBuilder::new();
    let cases: [(&[u32], &[u32], &[u32]); 4] = [
        (&[4, 2], &[2, 3], &[4, 3]),
        (&[1, 4], &[2, 2, 4, 2], &[2, 2, 1, 2]),
        (&[2, 3, 4], &[1, 4, 1], &[2, 3, 1]),
        (&[2, 2, 3, 4], &[1, 4, 5], &[2, 2, 3, 5]),
    ];
    for (a, bs, want) in cases {
        let (x, y) = (input(&mut b, F32, a), input(&mut b, F32, bs));
        assert_eq!(out_shape(b.matmul(x, y, label()), &b), want);
    }
    let bad: [(DataType, &[u32], DataType, &[u32]); 6] = [
        (F32, &[2], F32, &[2, 2]),
        (F32, &[2, 2], F32, &[2]),
        (DataType::Uint32, &[2, 3, 4], DataType::Uint32, &[2, 4, 5]),
        (F32, &[2, 3, 4], DataType::Float16, &[2, 4, 5]),
        (F32, &[3, 3, 4], F32, &[2, 4, 1]),
        (F32, &[2, 3], F32, &[2, 4]),
    ];
    for (ta, a, tb, bs) in bad {
        let (x, y) = (input(&mut b, ta, a), input(&mut b, tb, bs));
        type_error(b.matmul(x, y, label()));
    }
}

#[test]
fn gemm_rules() {
    use GemmOptions as O;
    let mut b = GraphBuilder::new();
    let a = input(&mut b, F32, &[2, 3]);
    let b34 = input(&mut b, F32, &[3, 4]);
    let b24 = input(&mut b, F32, &[2, 4]);
    let b43 = input(&mut b, F32, &[4, 3]);
    let ok = [
        (b34, labelled!(O), [2, 4]),
        (b24, labelled!(O { a_transpose: true }), [3, 4]),
        (b43, labelled!(O { b_transpose: true }), [2, 4]),
    ];
    for (bm, opts, want) in ok {
        assert_eq!(out_shape(b.gemm(a, bm, opts), &b), want);
    }
    for (bm, opts) in
        [(b24, labelled!(O)), (b34, labelled!(O { a_transpose: true })), (b34, labelled!(O { b_transpose: true }))]
    {
        type_error(b.gemm(a, bm, opts));
    }
    let a3 = input(&mut b, F32, &[2, 3, 1]);
    type_error(b.gemm(a3, b34, labelled!(O)));
    let bh = input(&mut b, DataType::Float16, &[3, 4]);
    type_error(b.gemm(a, bh, labelled!(O)));
    let ai = input(&mut b, DataType::Int32, &[2, 3]);
    let bi = input(&mut b, DataType::Int32, &[3, 4]);
    type_error(b.gemm(ai, bi, labelled!(O)));
    for shape in [&[][..], &[4], &[1, 4], &[2, 1], &[2, 4]] {
        let c = input(&mut b, F32, shape);
        assert_eq!(out_shape(b.gemm(a, b34, labelled!(O { c: Some(c) })), &b), [2, 4]);
    }
    for (dt, shape) in [(F32, &[2, 3][..]), (F32, &[3]), (F32, &[1, 2, 4]), (DataType::Float16, &[2, 4])] {
        let c = input(&mut b, dt, shape);
        type_error(b.gemm(a, b34, labelled!(O { c: Some(c) })));
    }
}
