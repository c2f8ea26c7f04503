//! conv2d on the fast backend against the reference: every input and filter layout, dense
//! and depthwise windows with odd sizes, strides, dilations and asymmetric padding, with and
//! without bias, each fused activation and a fused residual add.

mod common;

use common::{check, G};
use webnn_core::ops::*;
use webnn_core::Operand;

#[derive(Clone, Copy, Debug)]
enum Act {
    None,
    Relu,
    Relu6,
    Clamp,
}

#[derive(Clone, Debug)]
struct Case {
    n: u32,
    c: u32,
    h: u32,
    w: u32,
    oc: u32,
    k: [u32; 2],
    strides: [u32; 2],
    dilations: [u32; 2],
    padding: [u32; 4],
    groups: u32,
    bias: bool,
    act: Act,
    residual: bool,
    /// The filter and bias are inputs of the graph, not constants.
    computed: bool,
}

fn base(c: u32, oc: u32, k: u32) -> Case {
    Case {
        n: 1,
        c,
        h: 9,
        w: 11,
        oc,
        k: [k, k],
        strides: [1, 1],
        dilations: [1, 1],
        padding: [k / 2; 4],
        groups: 1,
        bias: true,
        act: Act::None,
        residual: false,
        computed: false,
    }
}

fn activate(g: &mut G, y: Operand, act: Act) -> Operand {
    let clamp = |lo: f64, hi: f64| ClampOptions {
        min_value: Some(MLNumber::Double(lo)),
        max_value: Some(MLNumber::Double(hi)),
        ..Default::default()
    };
    match act {
        Act::None => y,
        Act::Relu => g.b.relu(y, OpOptions::default()).unwrap(),
        Act::Relu6 => g.b.clamp(y, clamp(0.0, 6.0)).unwrap(),
        Act::Clamp => g.b.clamp(y, clamp(-0.5, 0.25)).unwrap(),
    }
}

/// Builds and checks one case in one layout pair; returns (fast, reference) step counts.
fn run_case(case: &Case, layout: InputLayout, filter_layout: Conv2dFilterLayout) -> (usize, usize) {
    let mut g = G::new(u64::from(case.c * 131 + case.oc * 7 + case.h));
    let in_shape = match layout {
        InputLayout::Nchw => [case.n, case.c, case.h, case.w],
        InputLayout::Nhwc => [case.n, case.h, case.w, case.c],
    };
    let x = g.input("x", &in_shape);
    let (o, i, [kh, kw]) = (case.oc, case.c / case.groups, case.k);
    let f_shape = match filter_layout {
        Conv2dFilterLayout::Oihw => [o, i, kh, kw],
        Conv2dFilterLayout::Hwio => [kh, kw, i, o],
        Conv2dFilterLayout::Ohwi => [o, kh, kw, i],
        Conv2dFilterLayout::Ihwo => [i, kh, kw, o],
    };
    let (filter, bias) = match case.computed {
        true => (g.input("f", &f_shape), case.bias.then(|| g.input("b", &[o]))),
        false => (g.constant(&f_shape), case.bias.then(|| g.constant(&[o]))),
    };
    let options = Conv2dOptions {
        padding: Some(case.padding.to_vec()),
        strides: Some(case.strides.to_vec()),
        dilations: Some(case.dilations.to_vec()),
        groups: case.groups,
        input_layout: layout,
        filter_layout,
        bias,
        ..Default::default()
    };
    let mut y = g.b.conv2d(x, filter, options).unwrap();
    if case.residual {
        y = g.b.add(y, x, OpOptions::default()).unwrap();
    }
    y = activate(&mut g, y, case.act);
    let graph = g.build(&[("y", y)]);
    check(&graph, &g.inputs, 1e-4)
}

const LAYOUTS: [InputLayout; 2] = [InputLayout::Nchw, InputLayout::Nhwc];
const FILTERS: [Conv2dFilterLayout; 4] = [
    Conv2dFilterLayout::Oihw,
    Conv2dFilterLayout::Hwio,
    Conv2dFilterLayout::Ohwi,
    Conv2dFilterLayout::Ihwo,
];

fn all_layouts(case: &Case, fast: bool) {
    for layout in LAYOUTS {
        for filter in FILTERS {
            let (f, r) = run_case(case, layout, filter);
            if fast {
                assert_eq!(
                    r, 0,
                    "{case:?} {layout:?} {filter:?} fell back to the reference"
                );
                assert!(f >= 1);
            }
        }
    }
}

#[test]
fn pointwise() {
    all_layouts(
        &Case {
            padding: [0; 4],
            ..base(13, 37, 1)
        },
        true,
    );
    all_layouts(
        &Case {
            padding: [0; 4],
            n: 2,
            act: Act::Relu6,
            bias: false,
            ..base(40, 9, 1)
        },
        true,
    );
}

#[test]
fn pointwise_with_residual() {
    for act in [Act::None, Act::Relu, Act::Clamp] {
        all_layouts(
            &Case {
                padding: [0; 4],
                residual: true,
                act,
                ..base(24, 24, 1)
            },
            true,
        );
    }
}

#[test]
fn one_by_one_strided_and_padded() {
    all_layouts(
        &Case {
            padding: [1, 0, 0, 2],
            strides: [2, 3],
            ..base(5, 17, 1)
        },
        true,
    );
}

#[test]
fn dense_windows() {
    for act in [Act::None, Act::Relu, Act::Relu6, Act::Clamp] {
        all_layouts(
            &Case {
                act,
                ..base(3, 32, 3)
            },
            true,
        );
    }
    all_layouts(
        &Case {
            strides: [2, 2],
            padding: [0, 1, 0, 1],
            ..base(7, 19, 3)
        },
        true,
    );
    all_layouts(
        &Case {
            k: [2, 3],
            dilations: [2, 1],
            padding: [2, 1, 0, 3],
            bias: false,
            ..base(6, 11, 3)
        },
        true,
    );
    all_layouts(
        &Case {
            n: 2,
            h: 20,
            w: 17,
            strides: [2, 1],
            ..base(4, 70, 5)
        },
        true,
    );
}

#[test]
fn dense_with_residual() {
    all_layouts(
        &Case {
            residual: true,
            act: Act::Relu,
            ..base(16, 16, 3)
        },
        true,
    );
}

#[test]
fn depthwise() {
    for act in [Act::None, Act::Relu, Act::Relu6, Act::Clamp] {
        all_layouts(
            &Case {
                groups: 45,
                act,
                ..base(45, 45, 3)
            },
            true,
        );
    }
    all_layouts(
        &Case {
            groups: 37,
            strides: [2, 2],
            padding: [0, 1, 1, 0],
            bias: false,
            ..base(37, 37, 3)
        },
        true,
    );
    all_layouts(
        &Case {
            groups: 64,
            dilations: [2, 3],
            k: [3, 2],
            padding: [2, 2, 1, 3],
            ..base(64, 64, 3)
        },
        true,
    );
    all_layouts(
        &Case {
            groups: 8,
            n: 2,
            h: 14,
            w: 5,
            strides: [1, 2],
            ..base(8, 8, 5)
        },
        true,
    );
    all_layouts(
        &Case {
            groups: 33,
            residual: true,
            act: Act::Relu6,
            ..base(33, 33, 3)
        },
        true,
    );
}

#[test]
fn other_groupings_fall_back_correctly() {
    // Two groups, and a depthwise channel multiplier of 2: reference kernel, same results.
    all_layouts(
        &Case {
            groups: 2,
            ..base(6, 10, 3)
        },
        false,
    );
    all_layouts(
        &Case {
            groups: 4,
            ..base(4, 8, 3)
        },
        false,
    );
}

/// A conv whose output is also a graph output is not fused with the relu after it, and an
/// NCHW conv's NHWC result feeds a reference op (a layer normalization over the channel
/// axis) through one conversion.
#[test]
fn outputs_and_reference_readers_see_nchw() {
    let mut g = G::new(5);
    let x = g.input("x", &[1, 6, 7, 8]);
    let f = g.constant(&[10, 6, 3, 3]);
    let options = Conv2dOptions {
        padding: Some(vec![1; 4]),
        ..Default::default()
    };
    let y = g.b.conv2d(x, f, options).unwrap();
    let r = g.b.relu(y, OpOptions::default()).unwrap();
    let norm = LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() };
    let flat = g.b.layer_normalization(r, norm).unwrap();
    let f2 = g.constant(&[4, 10, 1, 1]);
    let z = g.b.conv2d(r, f2, Conv2dOptions::default()).unwrap();
    let graph = g.build(&[("y", y), ("flat", flat), ("z", z)]);
    let (fast, reference) = check(&graph, &g.inputs, 1e-4);
    assert_eq!(reference, 1, "only the layer normalization runs on the reference");
    assert!(fast >= 3);
}

/// Dense windows with at most four output channels (an image network's RGB output layer)
/// take dot products along the window rows: every layout, strides, dilations, asymmetric
/// padding, no bias, each activation and a residual add.
#[test]
fn few_output_channels() {
    for oc in [1, 3, 4] {
        all_layouts(&base(13, oc, 3), true);
        all_layouts(&Case { k: [5, 3], strides: [2, 1], dilations: [1, 2], padding: [0, 2, 3, 1], bias: false, ..base(9, oc, 3) }, true);
        // A residual needs the input's channel count.
        all_layouts(&Case { act: Act::Relu6, residual: true, ..base(oc, oc, 3) }, true);
        all_layouts(&Case { act: Act::Clamp, n: 2, ..base(7, oc, 9) }, true);
    }
}

/// Such windows with stride 1 and no padding over NCHW images (a style transfer network's
/// last layer, after an explicit pad) take the planes kernel, pixels side by side in a
/// vector: rows wide enough for whole blocks, single vectors and single pixels, every
/// channel count, two images, an input stored NHWC by the convolution before it.
#[test]
fn few_output_channels_without_padding() {
    for oc in [1, 2, 3, 4] {
        for (w, k) in [(150, 9), (21, 3), (6, 5)] {
            let case = Case { w, k: [k, k], padding: [0; 4], act: Act::Clamp, n: 1 + u32::from(oc == 2), ..base(5, oc, k) };
            all_layouts(&case, true);
        }
    }
    let mut g = G::new(43);
    let x = g.input("x", &[1, 3, 20, 40]);
    let f1 = g.constant(&[8, 3, 3, 3]);
    let y = g.b.conv2d(x, f1, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let f2 = g.constant(&[3, 8, 5, 5]);
    let y = g.b.conv2d(y, f2, Conv2dOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 1e-4).1, 0);
    let described = common::steps(&graph, &g);
    assert!(described.iter().any(|s| s.starts_with("conv planes 5x5/1 nchw")), "{described:?}");
}

/// Dense windows over at most four input channels (an image network's first layer) run on
/// the stem kernel, reading NCHW inputs where they lie: strides, dilations, asymmetric
/// padding, output channels that fill no vector, two images.
#[test]
fn few_input_channels() {
    for c in [1, 3, 4] {
        all_layouts(&Case { strides: [2, 2], padding: [0, 1, 0, 1], act: Act::Relu6, ..base(c, 32, 3) }, true);
        all_layouts(&Case { k: [2, 3], dilations: [2, 1], padding: [2, 1, 0, 3], bias: false, ..base(c, 37, 3) }, true);
        all_layouts(&Case { n: 2, strides: [1, 2], act: Act::Clamp, ..base(c, 9, 5) }, true);
    }
    // The step is the stem kernel, without a transpose of the NCHW input.
    let mut g = G::new(42);
    let x = g.input("x", &[1, 3, 16, 16]);
    let f = g.constant(&[32, 3, 3, 3]);
    let y = g.b.conv2d(x, f, Conv2dOptions { padding: Some(vec![1; 4]), strides: Some(vec![2, 2]), ..Default::default() }).unwrap();
    let graph = g.build(&[("y", y)]);
    let described = common::steps(&graph, &g);
    assert!(described[0].starts_with("conv stem 3x3/2 nchw"), "{described:?}");
}

/// An infinite weight meeting the zero padding gives NaN (0 * inf), as in the reference: a
/// few-channel convolution with such a filter takes the GEMM, which multiplies the padding.
#[test]
fn infinite_weights_meet_the_padding() {
    let mut g = G::new(41);
    let x = g.input("x", &[1, 2, 4, 4]);
    let mut w = vec![0.5f32; 2 * 9];
    w[0] = f32::INFINITY;
    let filter = g.b.constant(webnn_core::OperandDescriptor::new(webnn_core::DataType::Float32, &[1, 2, 3, 3]), common::bytes(&w)).unwrap();
    let y = g.b.conv2d(x, filter, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let graph = g.build(&[("y", y)]);
    let (_, reference) = check(&graph, &g.inputs, 1e-5);
    assert_eq!(reference, 0);
    // The same for a few input channels and many output ones (the stem kernel's shape).
    let mut g = G::new(43);
    let x = g.input("x", &[1, 2, 4, 4]);
    let mut w = vec![0.5f32; 8 * 2 * 9];
    w[20] = f32::NEG_INFINITY;
    let filter = g.b.constant(webnn_core::OperandDescriptor::new(webnn_core::DataType::Float32, &[8, 2, 3, 3]), common::bytes(&w)).unwrap();
    let y = g.b.conv2d(x, filter, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let graph = g.build(&[("y", y)]);
    let (_, reference) = check(&graph, &g.inputs, 1e-5);
    assert_eq!(reference, 0);
}

/// A pointwise convolution whose result only a depthwise one reads runs inside it, its rows
/// expanded as the window moves down (`expand`): strides, dilations, asymmetric padding,
/// 3x3 and 5x5 windows, two images, rows whose width leaves single-pixel GEMM tiles, each
/// activation of the expansion, a residual after the depthwise one, both layouts; and where
/// it must not
/// fuse (a second reader, a graph output, a window taller than the ring), it does not.
#[test]
fn expansions_fuse_into_depthwise() {
    struct Pair {
        n: u32,
        h: u32,
        w: u32,
        c: u32,
        cm: u32,
        k: [u32; 2],
        strides: [u32; 2],
        dilations: [u32; 2],
        padding: [u32; 4],
        act: Act,
        residual: bool,
    }
    let base = Pair { n: 1, h: 12, w: 17, c: 5, cm: 24, k: [3, 3], strides: [1, 1], dilations: [1, 1], padding: [1; 4], act: Act::Relu6, residual: false };
    let cases = [
        Pair { ..base },
        Pair { strides: [2, 2], padding: [0, 1, 0, 1], act: Act::None, ..base },
        Pair { n: 2, h: 9, w: 9, k: [5, 5], padding: [2; 4], act: Act::Clamp, ..base },
        Pair { dilations: [2, 1], k: [3, 2], padding: [2, 1, 0, 3], strides: [1, 2], act: Act::Relu, ..base },
        Pair { cm: 40, c: 40, residual: true, ..base },
        Pair { h: 30, w: 8, cm: 96, c: 16, strides: [2, 2], padding: [0, 1, 0, 1], ..base },
    ];
    for (k, p) in cases.iter().enumerate() {
        for layout in LAYOUTS {
            let mut g = G::new(60 + k as u64);
            let shape = match layout {
                InputLayout::Nchw => [p.n, p.c, p.h, p.w],
                InputLayout::Nhwc => [p.n, p.h, p.w, p.c],
            };
            let x0 = g.input("x", &shape);
            // A convolution first, as in a network: its result is stored NHWC in either
            // layout, which is what an expansion reads.
            let f0 = g.constant(&[p.c, p.c, 3, 3]);
            let x = g.b.conv2d(x0, f0, Conv2dOptions { input_layout: layout, padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
            let (f1, b1) = (g.constant(&[p.cm, p.c, 1, 1]), g.constant(&[p.cm]));
            let e = g.b.conv2d(x, f1, Conv2dOptions { input_layout: layout, bias: Some(b1), ..Default::default() }).unwrap();
            let e = activate(&mut g, e, p.act);
            let (f2, b2) = (g.constant(&[p.cm, 1, p.k[0], p.k[1]]), g.constant(&[p.cm]));
            let options = Conv2dOptions {
                padding: Some(p.padding.to_vec()),
                strides: Some(p.strides.to_vec()),
                dilations: Some(p.dilations.to_vec()),
                groups: p.cm,
                input_layout: layout,
                bias: Some(b2),
                ..Default::default()
            };
            let mut y = g.b.conv2d(e, f2, options).unwrap();
            if p.residual {
                y = g.b.add(y, x, OpOptions::default()).unwrap();
            }
            let y = activate(&mut g, y, Act::Relu6);
            let graph = g.build(&[("y", y)]);
            assert_eq!(check(&graph, &g.inputs, 1e-4).1, 0);
            let described = common::steps(&graph, &g);
            assert!(described.iter().any(|s| s.contains(&format!("pointwise {}->{}", p.c, p.cm)) && s.contains("then depthwise")), "case {k} {layout:?}: {described:?}");
        }
    }
    // Not fused: the expansion read twice, an output itself, a window of 17 rows.
    for variant in 0..3 {
        let mut g = G::new(70 + variant);
        let x = g.input("x", &[1, 20, 19, 6]);
        let f1 = g.constant(&[16, 6, 1, 1]);
        let e = g.b.conv2d(x, f1, Conv2dOptions { input_layout: InputLayout::Nhwc, ..Default::default() }).unwrap();
        let (k, dilation) = if variant == 2 { (9, 2) } else { (3, 1) };
        let f2 = g.constant(&[16, 1, k, k]);
        let pad = (k - 1) * dilation / 2;
        let options = Conv2dOptions { padding: Some(vec![pad; 4]), dilations: Some(vec![dilation; 2]), groups: 16, input_layout: InputLayout::Nhwc, ..Default::default() };
        let y = g.b.conv2d(e, f2, options).unwrap();
        let graph = match variant {
            0 => {
                let s = g.b.sigmoid(e, OpOptions::default()).unwrap();
                g.build(&[("y", y), ("s", s)])
            }
            1 => g.build(&[("y", y), ("e", e)]),
            _ => g.build(&[("y", y)]),
        };
        assert_eq!(check(&graph, &g.inputs, 1e-4).1, 0);
        let described = common::steps(&graph, &g);
        assert!(described.iter().all(|s| !s.contains("then depthwise")), "variant {variant}: {described:?}");
    }
}

/// 3x3 stride-1 convolutions with many channels take Winograd's F(2x2, 3x3): odd output
/// sizes (a last tile half outside), asymmetric and no padding, two images, every
/// activation and a residual, both layouts; an input holding infinities or NaN takes the
/// im2col GEMM in that dispatch, and gives the reference's infinities and NaN.
#[test]
fn winograd_for_many_channels() {
    let cases = [
        Case { h: 11, w: 9, ..base(16, 24, 3) },
        Case { padding: [0, 1, 2, 0], act: Act::Relu6, n: 2, ..base(20, 33, 3) },
        Case { padding: [0; 4], act: Act::Clamp, bias: false, ..base(17, 16, 3) },
        Case { residual: true, act: Act::Relu, h: 6, w: 13, ..base(32, 32, 3) },
    ];
    for case in &cases {
        for layout in LAYOUTS {
            assert_eq!(run_case(case, layout, Conv2dFilterLayout::Oihw).1, 0, "{case:?}");
        }
    }
    let mut g = G::new(81);
    let x = g.input("x", &[1, 16, 7, 8]);
    let f = g.constant(&[16, 16, 3, 3]);
    let y = g.b.conv2d(x, f, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let graph = g.build(&[("y", y)]);
    let described = common::steps(&graph, &g);
    assert!(described[0].starts_with("conv winograd 3x3/1"), "{described:?}");
    let mut values: Vec<f32> = (0..16 * 7 * 8).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.01).collect();
    values[5] = f32::INFINITY;
    values[300] = f32::NAN;
    values[600] = f32::NEG_INFINITY;
    let desc = webnn_core::OperandDescriptor::new(webnn_core::DataType::Float32, &[1, 16, 7, 8]);
    let inputs = vec![("x".to_owned(), webnn_core::HostTensor { desc, bytes: common::bytes(&values) })];
    assert_eq!(check(&graph, &inputs, 1e-4).1, 0);
}

/// Dense convolutions whose filter and bias the graph computes (here inputs) are packed per
/// dispatch into the kernel a constant filter gets: pointwise, windows with strides,
/// dilations and padding, every layout. Grouped ones stay on the reference.
#[test]
fn filters_the_graph_computes() {
    all_layouts(&Case { computed: true, ..base(8, 12, 1) }, true);
    all_layouts(&Case { computed: true, strides: [2, 2], residual: false, ..base(5, 7, 3) }, true);
    all_layouts(&Case { computed: true, dilations: [2, 1], padding: [1, 0, 2, 1], act: Act::Relu, bias: false, ..base(3, 16, 3) }, true);
    all_layouts(&Case { computed: true, n: 2, act: Act::Relu6, residual: true, ..base(6, 6, 3) }, true);
    let grouped = Case { computed: true, groups: 2, ..base(4, 4, 3) };
    assert_eq!(run_case(&grouped, InputLayout::Nchw, Conv2dFilterLayout::Oihw).1, 1);
}
