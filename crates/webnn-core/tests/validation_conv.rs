//! Validation of conv2d, convTranspose2d, matmul and gemm.

use webnn_core::ops::*;
use webnn_core::{DataType, Dim, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result};

const LABEL: &str = "mylabel";
const F32: DataType = DataType::Float32;

fn input(b: &mut GraphBuilder, data_type: DataType, shape: &[u32]) -> Operand {
    let name = format!("x{}", b.graph().operands.len());
    b.input(&name, OperandDescriptor::new(data_type, shape))
        .expect("valid input")
}

fn assert_type_error(r: Result<Operand>) {
    let err = r.expect_err("building should fail");
    assert_eq!(err.kind, ErrorKind::TypeError, "{err}");
    assert!(err.to_string().contains("[mylabel]"), "{err}");
}

fn out_shape(b: &GraphBuilder, r: Result<Operand>) -> Vec<u32> {
    let o = r.expect("building should succeed");
    b.desc(o)
        .expect("own operand")
        .static_shape()
        .expect("static")
}

fn conv_opts() -> Conv2dOptions {
    Conv2dOptions {
        label: LABEL.into(),
        ..Default::default()
    }
}

fn conv(in_shape: &[u32], f_shape: &[u32], opts: Conv2dOptions) -> Result<Vec<u32>> {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, in_shape);
    let f = input(&mut b, F32, f_shape);
    let y = b.conv2d(x, f, opts)?;
    Ok(b.desc(y)?.static_shape().expect("static"))
}

#[test]
fn conv2d_output_shapes() {
    assert_eq!(
        conv(&[1, 1, 5, 5], &[1, 1, 3, 3], conv_opts()).unwrap(),
        [1, 1, 3, 3]
    );
    let padded = Conv2dOptions {
        padding: Some(vec![1, 2, 0, 1]),
        strides: Some(vec![2, 2]),
        ..conv_opts()
    };
    assert_eq!(
        conv(&[1, 1, 5, 5], &[1, 1, 4, 2], padded).unwrap(),
        [1, 1, 3, 3]
    );
    let nhwc = Conv2dOptions {
        input_layout: InputLayout::Nhwc,
        filter_layout: Conv2dFilterLayout::Ihwo,
        dilations: Some(vec![4, 4]),
        ..conv_opts()
    };
    assert_eq!(
        conv(&[1, 65, 65, 1], &[1, 3, 3, 1], nhwc).unwrap(),
        [1, 57, 57, 1]
    );
    let depthwise = Conv2dOptions {
        groups: 4,
        filter_layout: Conv2dFilterLayout::Hwio,
        ..conv_opts()
    };
    assert_eq!(
        conv(&[2, 4, 3, 3], &[2, 2, 1, 4], depthwise).unwrap(),
        [2, 4, 2, 2]
    );
    let ohwi = Conv2dOptions {
        filter_layout: Conv2dFilterLayout::Ohwi,
        ..conv_opts()
    };
    assert_eq!(
        conv(&[1, 2, 5, 5], &[3, 3, 3, 2], ohwi).unwrap(),
        [1, 3, 3, 3]
    );
}

#[test]
fn conv2d_rejects_bad_operands_and_options() {
    let bad: Vec<(&[u32], &[u32], Conv2dOptions)> = vec![
        (&[1, 5, 5], &[1, 1, 2, 2], conv_opts()),
        (&[1, 1, 5, 5], &[2, 2], conv_opts()),
        (
            &[1, 1, 5, 5],
            &[1, 1, 2, 2],
            Conv2dOptions {
                padding: Some(vec![1, 1]),
                ..conv_opts()
            },
        ),
        (
            &[1, 1, 5, 5],
            &[1, 1, 2, 2],
            Conv2dOptions {
                strides: Some(vec![1]),
                ..conv_opts()
            },
        ),
        (
            &[1, 1, 5, 5],
            &[1, 1, 2, 2],
            Conv2dOptions {
                strides: Some(vec![0, 1]),
                ..conv_opts()
            },
        ),
        (
            &[1, 1, 5, 5],
            &[1, 1, 2, 2],
            Conv2dOptions {
                dilations: Some(vec![1, 0]),
                ..conv_opts()
            },
        ),
        (
            &[1, 4, 5, 5],
            &[1, 1, 2, 2],
            Conv2dOptions {
                groups: 0,
                ..conv_opts()
            },
        ),
        (
            &[1, 4, 5, 5],
            &[1, 1, 2, 2],
            Conv2dOptions {
                groups: 3,
                ..conv_opts()
            },
        ),
        (
            &[1, 4, 5, 5],
            &[1, 1, 2, 2],
            Conv2dOptions {
                groups: 2,
                ..conv_opts()
            },
        ),
        // Output channels not divisible by groups.
        (
            &[1, 4, 5, 5],
            &[3, 2, 2, 2],
            Conv2dOptions {
                groups: 2,
                ..conv_opts()
            },
        ),
        // The filter does not fit: non-positive output size, and huge dilations.
        (&[1, 1, 5, 5], &[1, 1, 6, 2], conv_opts()),
        (
            &[1, 1, 5, 5],
            &[1, 1, 3, 3],
            Conv2dOptions {
                dilations: Some(vec![u32::MAX, 1]),
                ..conv_opts()
            },
        ),
        (
            &[1, 1, 5, 5],
            &[1, 1, 434983, 2],
            Conv2dOptions {
                dilations: Some(vec![328442, 1]),
                ..conv_opts()
            },
        ),
        // An output size beyond the range of long.
        (
            &[1, 1, 5, 5],
            &[1, 1, 1, 1],
            Conv2dOptions {
                padding: Some(vec![u32::MAX, u32::MAX, 0, 0]),
                ..conv_opts()
            },
        ),
    ];
    for (i, f, opts) in bad {
        let err = conv(i, f, opts).expect_err("should fail");
        assert_eq!(err.kind, ErrorKind::TypeError, "{err}");
        assert!(err.to_string().contains("[mylabel]"), "{err}");
    }
}

#[test]
fn conv2d_operand_types_and_bias() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[1, 1, 5, 5]);
    let fi = input(&mut b, DataType::Int32, &[1, 1, 2, 2]);
    assert_type_error(b.conv2d(x, fi, conv_opts()));
    let xi = input(&mut b, DataType::Int32, &[1, 1, 5, 5]);
    assert_type_error(b.conv2d(xi, fi, conv_opts()));
    let xh = input(&mut b, DataType::Float16, &[1, 1, 5, 5]);
    let f = input(&mut b, F32, &[2, 1, 2, 2]);
    assert_type_error(b.conv2d(xh, f, conv_opts()));
    for (dt, shape) in [(F32, &[1, 2][..]), (F32, &[3]), (DataType::Float16, &[2])] {
        let bias = input(&mut b, dt, shape);
        assert_type_error(b.conv2d(
            x,
            f,
            Conv2dOptions {
                bias: Some(bias),
                ..conv_opts()
            },
        ));
    }
    let bias = input(&mut b, F32, &[2]);
    let y = b.conv2d(
        x,
        f,
        Conv2dOptions {
            bias: Some(bias),
            ..conv_opts()
        },
    );
    assert_eq!(out_shape(&b, y), [1, 2, 4, 4]);
}

#[test]
fn conv2d_keeps_a_dynamic_batch() {
    let mut b = GraphBuilder::new();
    let batch = Dim::Dynamic {
        name: "batch".into(),
        max_size: 8,
    };
    let shape = vec![
        batch.clone(),
        Dim::Static(1),
        Dim::Static(5),
        Dim::Static(5),
    ];
    let x = b
        .input("x", OperandDescriptor::with_dims(F32, shape))
        .unwrap();
    let f = input(&mut b, F32, &[1, 1, 3, 3]);
    let y = b.conv2d(x, f, conv_opts()).unwrap();
    assert_eq!(b.desc(y).unwrap().shape[0], batch);
}

fn ct_opts() -> ConvTranspose2dOptions {
    ConvTranspose2dOptions {
        label: LABEL.into(),
        ..Default::default()
    }
}

fn conv_t(in_shape: &[u32], f_shape: &[u32], opts: ConvTranspose2dOptions) -> Result<Vec<u32>> {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, in_shape);
    let f = input(&mut b, F32, f_shape);
    let y = b.conv_transpose2d(x, f, opts)?;
    Ok(b.desc(y)?.static_shape().expect("static"))
}

#[test]
fn conv_transpose2d_output_shapes() {
    assert_eq!(
        conv_t(&[1, 1, 3, 3], &[1, 1, 3, 3], ct_opts()).unwrap(),
        [1, 1, 5, 5]
    );
    let strided = ConvTranspose2dOptions {
        strides: Some(vec![3, 2]),
        output_padding: Some(vec![1, 1]),
        ..ct_opts()
    };
    assert_eq!(
        conv_t(&[1, 1, 3, 3], &[1, 2, 3, 3], strided).unwrap(),
        [1, 2, 10, 8]
    );
    // outputSizes override outputPadding, which then need not be smaller than the strides.
    let sized = ConvTranspose2dOptions {
        strides: Some(vec![3, 2]),
        output_padding: Some(vec![3, 3]),
        output_sizes: Some(vec![10, 8]),
        ..ct_opts()
    };
    assert_eq!(
        conv_t(&[1, 1, 3, 3], &[1, 2, 3, 3], sized).unwrap(),
        [1, 2, 10, 8]
    );
    let nhwc = ConvTranspose2dOptions {
        input_layout: InputLayout::Nhwc,
        filter_layout: ConvTranspose2dFilterLayout::Hwoi,
        groups: 3,
        ..ct_opts()
    };
    assert_eq!(
        conv_t(&[1, 3, 3, 2], &[3, 3, 2, 2], nhwc).unwrap(),
        [1, 5, 5, 6]
    );
}

#[test]
fn conv_transpose2d_rejects_bad_options() {
    let bad: Vec<(&[u32], &[u32], ConvTranspose2dOptions)> = vec![
        (&[1, 1, 3, 3], &[1, 1, 2], ct_opts()),
        (
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            ConvTranspose2dOptions {
                padding: Some(vec![0; 3]),
                ..ct_opts()
            },
        ),
        (
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            ConvTranspose2dOptions {
                strides: Some(vec![1, 0]),
                ..ct_opts()
            },
        ),
        (
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            ConvTranspose2dOptions {
                dilations: Some(vec![1]),
                ..ct_opts()
            },
        ),
        (
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            ConvTranspose2dOptions {
                groups: 0,
                ..ct_opts()
            },
        ),
        (
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            ConvTranspose2dOptions {
                output_padding: Some(vec![1, 1, 1]),
                ..ct_opts()
            },
        ),
        // outputPadding must be smaller than the strides.
        (
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            ConvTranspose2dOptions {
                output_padding: Some(vec![1, 0]),
                ..ct_opts()
            },
        ),
        (
            &[1, 1, 3, 3],
            &[1, 1, 2, 2],
            ConvTranspose2dOptions {
                output_sizes: Some(vec![4]),
                ..ct_opts()
            },
        ),
        // outputSizes must lie in [computed, computed + stride).
        (
            &[1, 1, 3, 3],
            &[1, 1, 3, 3],
            ConvTranspose2dOptions {
                padding: Some(vec![1; 4]),
                strides: Some(vec![2, 2]),
                output_sizes: Some(vec![4, 4]),
                ..ct_opts()
            },
        ),
        (
            &[1, 1, 3, 3],
            &[1, 1, 3, 3],
            ConvTranspose2dOptions {
                padding: Some(vec![1; 4]),
                strides: Some(vec![2, 2]),
                output_sizes: Some(vec![5, 7]),
                ..ct_opts()
            },
        ),
        // Input channels must equal the filter's.
        (&[1, 3, 3, 3], &[1, 1, 3, 3], ct_opts()),
        // Output channels overflow.
        (
            &[1, 4, 5, 5],
            &[4, 2, 2, 2],
            ConvTranspose2dOptions {
                groups: u32::MAX,
                ..ct_opts()
            },
        ),
        // Padding larger than the output.
        (
            &[1, 1, 2, 2],
            &[1, 1, 3, 3],
            ConvTranspose2dOptions {
                padding: Some(vec![4, 4, 0, 0]),
                strides: Some(vec![2, 2]),
                ..ct_opts()
            },
        ),
        // Effective filter size overflow.
        (
            &[1, 1, 5, 5],
            &[1, 1, 3, 2],
            ConvTranspose2dOptions {
                dilations: Some(vec![u32::MAX, 1]),
                ..ct_opts()
            },
        ),
    ];
    for (i, f, opts) in bad {
        let err = conv_t(i, f, opts).expect_err("should fail");
        assert_eq!(err.kind, ErrorKind::TypeError, "{err}");
        assert!(err.to_string().contains("[mylabel]"), "{err}");
    }
}

#[test]
fn conv_transpose2d_bias() {
    let mut b = GraphBuilder::new();
    let x = input(&mut b, F32, &[1, 1, 3, 3]);
    let f = input(&mut b, F32, &[1, 2, 3, 3]);
    for (dt, shape) in [(F32, &[2, 1][..]), (F32, &[4]), (DataType::Int32, &[2])] {
        let bias = input(&mut b, dt, shape);
        assert_type_error(b.conv_transpose2d(
            x,
            f,
            ConvTranspose2dOptions {
                bias: Some(bias),
                groups: 1,
                ..ct_opts()
            },
        ));
    }
    let bias = input(&mut b, F32, &[4]);
    let y = b.conv_transpose2d(
        x,
        f,
        ConvTranspose2dOptions {
            bias: Some(bias),
            groups: 2,
            ..ct_opts()
        },
    );
    assert_eq!(out_shape(&b, y), [1, 4, 5, 5]);
}

fn labelled() -> OpOptions {
    OpOptions {
        label: LABEL.into(),
    }
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
        let r = b.matmul(x, y, labelled());
        assert_eq!(out_shape(&b, r), want);
    }
    let bad: [(DataType, &[u32], DataType, &[u32]); 5] = [
        (F32, &[2], F32, &[2, 2]),
        (F32, &[2, 2], F32, &[2]),
        (DataType::Uint32, &[2, 3, 4], DataType::Uint32, &[2, 4, 5]),
        (F32, &[2, 3, 4], DataType::Float16, &[2, 4, 5]),
        (F32, &[3, 3, 4], F32, &[2, 4, 1]),
    ];
    for (ta, a, tb, bs) in bad {
        let (x, y) = (input(&mut b, ta, a), input(&mut b, tb, bs));
        assert_type_error(b.matmul(x, y, labelled()));
    }
    let (x, y) = (input(&mut b, F32, &[2, 3]), input(&mut b, F32, &[2, 4]));
    assert_type_error(b.matmul(x, y, labelled()));
}

fn gemm_opts() -> GemmOptions {
    GemmOptions {
        label: LABEL.into(),
        ..Default::default()
    }
}

#[test]
fn gemm_rules() {
    let mut b = GraphBuilder::new();
    let a = input(&mut b, F32, &[2, 3]);
    let b34 = input(&mut b, F32, &[3, 4]);
    let b24 = input(&mut b, F32, &[2, 4]);
    let b43 = input(&mut b, F32, &[4, 3]);
    let r = b.gemm(a, b34, gemm_opts());
    assert_eq!(out_shape(&b, r), [2, 4]);
    let r = b.gemm(
        a,
        b24,
        GemmOptions {
            a_transpose: true,
            ..gemm_opts()
        },
    );
    assert_eq!(out_shape(&b, r), [3, 4]);
    let r = b.gemm(
        a,
        b43,
        GemmOptions {
            b_transpose: true,
            ..gemm_opts()
        },
    );
    assert_eq!(out_shape(&b, r), [2, 4]);
    assert_type_error(b.gemm(a, b24, gemm_opts()));
    assert_type_error(b.gemm(
        a,
        b34,
        GemmOptions {
            a_transpose: true,
            ..gemm_opts()
        },
    ));
    assert_type_error(b.gemm(
        a,
        b34,
        GemmOptions {
            b_transpose: true,
            ..gemm_opts()
        },
    ));
    let a3 = input(&mut b, F32, &[2, 3, 1]);
    assert_type_error(b.gemm(a3, b34, gemm_opts()));
    let bh = input(&mut b, DataType::Float16, &[3, 4]);
    assert_type_error(b.gemm(a, bh, gemm_opts()));
    let ai = input(&mut b, DataType::Int32, &[2, 3]);
    let bi = input(&mut b, DataType::Int32, &[3, 4]);
    assert_type_error(b.gemm(ai, bi, gemm_opts()));
    for shape in [&[][..], &[4], &[1, 4], &[2, 1], &[2, 4]] {
        let c = input(&mut b, F32, shape);
        let r = b.gemm(
            a,
            b34,
            GemmOptions {
                c: Some(c),
                ..gemm_opts()
            },
        );
        assert_eq!(out_shape(&b, r), [2, 4]);
    }
    for (dt, shape) in [
        (F32, &[2, 3][..]),
        (F32, &[3]),
        (F32, &[1, 2, 4]),
        (DataType::Float16, &[2, 4]),
    ] {
        let c = input(&mut b, dt, shape);
        assert_type_error(b.gemm(
            a,
            b34,
            GemmOptions {
                c: Some(c),
                ..gemm_opts()
            },
        ));
    }
}
