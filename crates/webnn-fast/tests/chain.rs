//! Element-wise chains fused into one pass: equal to the ops one by one (bit for bit where
//! the chain's input is exact, but exp, sigmoid, tanh and elu, within one ULP, and gelu and
//! erf, within 8), with 1 and 3 threads and every ISA; what must and must not join a
//! chain.

mod common;

use common::{check, steps, G};
use webnn_core::ops::*;
use webnn_core::{DataType, OperandDescriptor};
use webnn_fast::FastBackend;

fn scalar(g: &mut G, v: f32) -> webnn_core::Operand {
    g.b.constant(
        OperandDescriptor::new(DataType::Float32, &[1]),
        v.to_le_bytes().to_vec(),
    )
    .unwrap()
}

/// The polynomial links (exp, sigmoid, tanh, elu, gelu, erf) over inputs from -100 to 100:
/// within one ULP of the reference (8 for gelu's float32 form, a few for erf), and the same
/// bits on every ISA the machine has (no fused multiply-adds in any variant).
#[test]
fn polynomial_links_are_close_and_the_same_on_every_isa() {
    let n = 20_001;
    let values: Vec<f32> = (0..n).map(|i| (i as f32 - 10_000.0) * 0.01).collect();
    let desc = OperandDescriptor::new(DataType::Float32, &[n as u32]);
    let inputs = vec![("x".to_owned(), webnn_core::HostTensor { desc: desc.clone(), bytes: common::bytes(&values) })];
    type Link = fn(&mut webnn_core::GraphBuilder, webnn_core::Operand) -> webnn_core::Operand;
    let links: [(&str, Link, u32); 6] = [
        ("exp", |b, x| b.exp(x, OpOptions::default()).unwrap(), 1),
        ("sigmoid", |b, x| b.sigmoid(x, OpOptions::default()).unwrap(), 1),
        ("tanh", |b, x| b.tanh(x, OpOptions::default()).unwrap(), 1),
        ("elu", |b, x| b.elu(x, EluOptions { alpha: 0.7, ..Default::default() }).unwrap(), 1),
        ("gelu", |b, x| b.gelu(x, OpOptions::default()).unwrap(), 8),
        ("erf", |b, x| b.erf(x, OpOptions::default()).unwrap(), 4),
    ];
    for (name, link, ulps) in links {
        let mut b = webnn_core::GraphBuilder::new();
        let x = b.input("x", desc.clone()).unwrap();
        let y = link(&mut b, x);
        let graph = b.build(&[("y", y)]).unwrap();
        let want = common::run(&webnn_cpu::CpuBackend, &graph, &inputs);
        let isas = webnn_gemm::Isa::available();
        let got: Vec<_> = isas.iter().map(|&isa| common::run(&FastBackend::with_isa(1, isa), &graph, &inputs)).collect();
        for (k, (w, g)) in want[0].iter().zip(&got[0][0]).enumerate() {
            let key = |v: f32| if v.to_bits() as i32 >= 0 { v.to_bits() as i64 } else { -((v.to_bits() & 0x7fff_ffff) as i64) };
            let close = (w.is_nan() && g.is_nan()) || w == g || key(*w).abs_diff(key(*g)) <= ulps as u64;
            assert!(close, "{name}({}): reference {w}, fast {g}", values[k]);
        }
        for (isa, other) in isas.iter().zip(&got) {
            let same = other[0].iter().zip(&got[0][0]).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{name}: {isa} differs from {}", isas[0]);
        }
    }
}

/// float32 → float16 → float32 round trips (a float16 model exported for runtimes without
/// float16 kernels) are links of the chain, exact: float16's rounding to nearest even, its
/// overflow to infinity and its subnormals.
#[test]
fn float16_round_trips_are_exact_links() {
    let mut g = G::new(6);
    let x = g.input("x", &[3, 1000]);
    let big = scalar(&mut g, 70_000.0);
    let none = OpOptions::default;
    // Values up to ±70,000 (beyond float16's 65504) and down to float16's subnormals.
    let mut v = g.b.mul(x, big, none()).unwrap();
    let round_trip = |g: &mut G, v| {
        let h = g.b.cast(v, DataType::Float16, none()).unwrap();
        g.b.cast(h, DataType::Float32, none()).unwrap()
    };
    v = round_trip(&mut g, v);
    v = round_trip(&mut g, v);
    let tiny = scalar(&mut g, 1e-9);
    v = g.b.mul(v, tiny, none()).unwrap();
    v = round_trip(&mut g, v);
    let graph = g.build(&[("y", v)]);
    assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0));
    // mul, round trip (twice, kept once), mul, round trip.
    assert!(steps(&graph, &g)[0].starts_with("element-wise chain of 4"), "{:?}", steps(&graph, &g));
}

/// pow by a constant 2, 3 or 0.5 computes as products and a square root: the reference's
/// values, signed zeros, infinities and NaN included.
#[test]
fn pow_by_small_constants_matches_the_reference() {
    for e in [2.0f32, 3.0, 0.5] {
        let mut g = G::new(7);
        let x = g.input("x", &[4, 250]);
        let none = OpOptions::default;
        let scale = scalar(&mut g, 1e13);
        // Magnitudes from tiny to past float32's range when cubed.
        let v = g.b.mul(x, scale, none()).unwrap();
        let desc = OperandDescriptor::new(DataType::Float32, &[8]);
        let values = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -2.5, 1e-30, -1e20];
        g.inputs.push(("s".into(), webnn_core::HostTensor { desc: desc.clone(), bytes: common::bytes(&values) }));
        let specials = g.b.input("s", desc).unwrap();
        let exponent = scalar(&mut g, e);
        let a = g.b.pow(v, exponent, none()).unwrap();
        let b = g.b.pow(specials, exponent, none()).unwrap();
        let graph = g.build(&[("a", a), ("b", b)]);
        assert_eq!(check(&graph, &g.inputs, 0.0).1, 0, "exponent {e}");
    }
}

/// prelu is a link: its slope a scalar, a full-size tensor, a trailing row or a per-channel
/// [C, 1, 1] (on a graph input, and on a convolution's NHWC-stored output); exact.
#[test]
fn prelu_is_an_exact_link() {
    let slopes: [&[u32]; 4] = [&[1], &[2, 4, 5, 6], &[6], &[4, 1, 1]];
    for slope_shape in slopes {
        for after_conv in [false, true] {
            let mut g = G::new(8);
            let x = g.input("x", &[2, 4, 5, 6]);
            let x = match after_conv {
                false => x,
                true => {
                    let w = g.constant(&[4, 4, 1, 1]);
                    g.b.conv2d(x, w, Conv2dOptions::default()).unwrap()
                }
            };
            let slope = g.constant(slope_shape);
            let y = g.b.prelu(x, slope, OpOptions::default()).unwrap();
            let quarter = scalar(&mut g, 0.25);
            let y = g.b.add(y, quarter, OpOptions::default()).unwrap();
            let graph = g.build(&[("y", y)]);
            let tol = if after_conv { 1e-6 } else { 0.0 };
            assert_eq!(check(&graph, &g.inputs, tol).1, 0, "slope {slope_shape:?}, after a convolution {after_conv}");
        }
    }
}

#[test]
fn swish_is_one_pass_and_exact() {
    let mut g = G::new(1);
    let x = g.input("x", &[3, 1000]);
    let s = g.b.sigmoid(x, OpOptions::default()).unwrap();
    let y = g.b.mul(x, s, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0));
    assert!(steps(&graph, &g)[0].starts_with("element-wise chain of 2"));
}

#[test]
fn a_long_chain_with_scalars_and_a_second_input() {
    let mut g = G::new(2);
    let x = g.input("x", &[2, 3, 50, 7]);
    let z = g.input("z", &[2, 3, 50, 7]);
    let none = OpOptions::default;
    let half = scalar(&mut g, 0.5);
    let one = scalar(&mut g, 1.0);
    let mut v = g.b.add(x, z, none()).unwrap();
    v = g.b.mul(v, half, none()).unwrap();
    v = g.b.tanh(v, none()).unwrap();
    v = g.b.sub(one, v, none()).unwrap();
    let clamp = ClampOptions {
        min_value: Some(MLNumber::Double(0.2)),
        max_value: Some(MLNumber::Double(1.5)),
        ..Default::default()
    };
    v = g.b.clamp(v, clamp).unwrap();
    v =
        g.b.elu(
            v,
            EluOptions {
                alpha: 0.7,
                ..Default::default()
            },
        )
        .unwrap();
    v = g.b.div(v, z, none()).unwrap();
    v = g.b.gelu(v, none()).unwrap();
    let graph = g.build(&[("y", v)]);
    // Exact but for the last link: gelu's approximation is within a few ULP.
    assert_eq!(check(&graph, &g.inputs, 1e-6), (1, 0));
    assert!(steps(&graph, &g)[0].starts_with("element-wise chain of 8"));
}

#[test]
fn chains_stop_at_a_second_reader_and_at_late_operands() {
    let mut g = G::new(3);
    let x = g.input("x", &[64, 33]);
    let none = OpOptions::default;
    let a = g.b.exp(x, none()).unwrap();
    let b = g.b.neg(a, none()).unwrap(); // b is also an output: the chain ends here
    let c = g.b.abs(b, none()).unwrap();
    let d = g.b.sqrt(c, none()).unwrap();
    // e reads d and `late`, which is computed after the chain of c, d starts.
    let late = g.b.sin(x, none()).unwrap();
    let e = g.b.add(d, late, none()).unwrap();
    let graph = g.build(&[("b", b), ("e", e)]);
    let (fast, reference) = check(&graph, &g.inputs, 0.0);
    let s = steps(&graph, &g);
    assert!(
        s.iter().any(|d| d.starts_with("element-wise chain of 2")),
        "{s:?}"
    );
    assert_eq!(fast + reference, s.len());
    // exp→neg (neg is an output), abs→sqrt (the add's other operand comes later), and
    // sin→add (whose other operand, d, exists by then).
    assert_eq!(
        s.iter()
            .filter(|d| d.starts_with("element-wise chain of 2"))
            .count(),
        3,
        "{s:?}"
    );
}

#[test]
fn a_chain_over_a_convolution_kept_in_nhwc() {
    // swish after a conv, as in EfficientNet-B0: the conv's result has two readers (so no
    // fused clamp) and is stored NHWC; the chain runs there and the output converts once.
    let mut g = G::new(4);
    let x = g.input("x", &[1, 8, 12, 12]);
    let w = g.constant(&[16, 8, 3, 3]);
    let conv =
        g.b.conv2d(
            x,
            w,
            Conv2dOptions {
                padding: Some(vec![1; 4]),
                ..Default::default()
            },
        )
        .unwrap();
    let s = g.b.sigmoid(conv, OpOptions::default()).unwrap();
    let y = g.b.mul(conv, s, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    check(&graph, &g.inputs, 1e-5);
    let s = steps(&graph, &g);
    assert!(
        s.iter().any(|d| d.starts_with("element-wise chain of 2")),
        "{s:?}"
    );
}

#[test]
fn a_binary_op_and_relu_keep_their_simd_step() {
    let mut g = G::new(5);
    let x = g.input("x", &[4, 100]);
    let z = g.input("z", &[4, 100]);
    let a = g.b.add(x, z, OpOptions::default()).unwrap();
    let y = g.b.relu(a, OpOptions::default()).unwrap();
    let graph = g.build(&[("y", y)]);
    check(&graph, &g.inputs, 0.0);
    let s = steps(&graph, &g);
    assert_eq!(s.len(), 1);
    assert!(
        s[0].contains("Add") && s[0].contains("clamp[0, inf]"),
        "{s:?}"
    );
}

/// An activation's quantizeLinear → dequantizeLinear pair (a QDQ model's, one scale and zero
/// point each) joins a chain as one link, equal to the two reference kernels bit for bit:
/// ties round half to even, NaN gives the zero point, out-of-range values saturate.
#[test]
fn fake_quantization_pairs_join_chains_exactly() {
    for (zero_type, zero) in [(DataType::Uint8, vec![128u8]), (DataType::Int8, vec![(-3i8) as u8])] {
        let mut g = G::new(9);
        let x = g.input("x", &[4, 300]);
        let scale = scalar(&mut g, 0.05);
        let zp = g.b.constant(OperandDescriptor::new(zero_type, &[1]), zero.clone()).unwrap();
        let q = g.b.quantize_linear(x, scale, zp, OpOptions::default()).unwrap();
        let d = g.b.dequantize_linear(q, scale, zp, OpOptions::default()).unwrap();
        let y = g.b.relu(d, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        // Ties at multiples of 0.025, values past both ends of the range, NaN, infinities.
        let mut v: Vec<f32> = (0..1200).map(|i| (i as f32 - 600.0) * 0.025).collect();
        v[..6].copy_from_slice(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, 1e-30]);
        g.inputs[0].1.bytes = common::bytes(&v);
        assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0), "{zero_type}");
        assert!(steps(&graph, &g)[0].starts_with("element-wise chain of 2"), "{:?}", steps(&graph, &g));
    }
}

/// A bias row and a mask broadcast along the leading dimensions join a chain (either side of
/// the op), read in the logical layout, equal to the ops one by one; so does a column.
#[test]
fn broadcast_rows_join_chains() {
    // tanh's one ULP below 1 (`vmath::tanh_f32`).
    const TANH: f32 = 1.2e-7;
    let mut g = G::new(31);
    let x = g.input("x", &[4, 16, 24]);
    let bias = g.constant(&[24]);
    let mask = g.input("mask", &[1, 16, 24]);
    let none = OpOptions::default;
    let v = g.b.add(bias, x, none()).unwrap();
    let v = g.b.mul(v, mask, none()).unwrap();
    let v = g.b.tanh(v, none()).unwrap();
    let graph = g.build(&[("y", v)]);
    assert_eq!(check(&graph, &g.inputs, TANH), (1, 0));
    assert!(steps(&graph, &g)[0].starts_with("element-wise chain of 3"), "{:?}", steps(&graph, &g));
    // A column (broadcast along the trailing dimension too) joins as a repeat.
    let mut g = G::new(32);
    let x = g.input("x", &[4, 16, 24]);
    let column = g.constant(&[16, 1]);
    let v = g.b.add(x, column, none()).unwrap();
    let v = g.b.tanh(v, none()).unwrap();
    let graph = g.build(&[("y", v)]);
    assert_eq!(check(&graph, &g.inputs, TANH), (1, 0), "the column add joins the chain");
    // One that matches no block of the value's dimensions stays out: a broadcast step of
    // its own, before a chain of the tanh.
    let mut g = G::new(33);
    let x = g.input("x", &[4, 16, 24]);
    let odd = g.constant(&[4, 1, 24]);
    let v = g.b.add(x, odd, none()).unwrap();
    let v = g.b.tanh(v, none()).unwrap();
    let graph = g.build(&[("y", v)]);
    assert_eq!(check(&graph, &g.inputs, TANH), (2, 0));
    assert!(steps(&graph, &g)[0].starts_with("Add broadcast to [4, 16, 24]"), "{:?}", steps(&graph, &g));
}

/// Chains of correctly rounded links (a hard-swish as add, clamp, mul and div by 6; sub,
/// max, min, a square, a square root, leaky relu) compute in float32 lanes: bit for bit the
/// reference's, over values of every magnitude with NaN, infinities, signed zeros and
/// values below float32's normal range.
#[test]
fn correctly_rounded_chains_in_float32() {
    let mut g = G::new(61);
    let x = g.input("x", &[4, 33, 41]);
    let other = g.input("other", &[4, 33, 41]);
    let mut v: Vec<f32> = (0..4 * 33 * 41u32).map(|i| f32::from_bits(i.wrapping_mul(2_654_435_761))).collect();
    v[..8].copy_from_slice(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1e-40, -3.0, 6.0]);
    g.inputs[0].1.bytes = common::bytes(&v);
    let none = OpOptions::default;
    let (three, six, two, half) = (scalar(&mut g, 3.0), scalar(&mut g, 6.0), scalar(&mut g, 2.0), scalar(&mut g, 0.5));
    let clamp = ClampOptions { min_value: Some(MLNumber::Double(0.0)), max_value: Some(MLNumber::Double(6.0)), ..Default::default() };
    let hs = g.b.add(x, three, none()).unwrap();
    let hs = g.b.clamp(hs, clamp).unwrap();
    let hs = g.b.mul(x, hs, none()).unwrap();
    let hs = g.b.div(hs, six, none()).unwrap();
    let y = g.b.sub(other, hs, none()).unwrap();
    let y = g.b.max(y, other, none()).unwrap();
    let y = g.b.min(half, y, none()).unwrap();
    let y = g.b.pow(y, two, none()).unwrap();
    let y = g.b.pow(y, half, none()).unwrap();
    let y = g.b.leaky_relu(y, LeakyReluOptions { alpha: 0.25, ..Default::default() }).unwrap();
    let graph = g.build(&[("y", y)]);
    assert_eq!(check(&graph, &g.inputs, 0.0), (1, 0));
}

/// Binary ops whose operands both broadcast (an outer product's `[1, 1, C] * [1, R, 1]`,
/// repeats along leading, middle and trailing axes, a rank-1 operand against a column, an
/// operand of one element) run on fast steps (broadcast steps, where neither side is
/// a chain's running value or scalar), bit for bit the reference's, NaN
/// included, and so does a relu after one.
#[test]
fn operands_broadcast_against_each_other_match_the_reference() {
    type Method = fn(&mut webnn_core::GraphBuilder, webnn_core::Operand, webnn_core::Operand, OpOptions) -> webnn_core::Result<webnn_core::Operand>;
    use webnn_core::GraphBuilder as B;
    let kinds: [Method; 6] = [B::add, B::sub, B::mul, B::div, B::max, B::min];
    let shapes: [(&[u32], &[u32]); 6] = [
        (&[1, 1, 37], &[1, 20, 1]),
        (&[3, 1], &[1, 40]),
        (&[2, 1, 3, 1], &[1, 4, 1, 50]),
        (&[33], &[5, 1]),
        (&[4, 1, 24], &[4, 16, 24]),
        (&[1], &[1, 1]),
    ];
    for (k, kind) in kinds.iter().enumerate() {
        for (a_shape, b_shape) in shapes {
            for relu in [false, true] {
                let mut g = G::new(40 + k as u64);
                let a = g.input("a", a_shape);
                let b = g.input("b", b_shape);
                let mut v = common::floats(&g.inputs[0].1.bytes);
                v[0] = f32::NAN;
                g.inputs[0].1.bytes = common::bytes(&v);
                let mut y = kind(&mut g.b, a, b, OpOptions::default()).unwrap();
                if relu {
                    y = g.b.relu(y, OpOptions::default()).unwrap();
                }
                let graph = g.build(&[("y", y)]);
                let label = format!("{k}: {a_shape:?} with {b_shape:?}, relu {relu}");
                assert_eq!(check(&graph, &g.inputs, 0.0).1, 0, "{label}");
                // A chain takes an operand of one element as a scalar.
                if a_shape.iter().product::<u32>() > 1 {
                    assert!(steps(&graph, &g)[0].contains("broadcast to"), "{label}: {:?}", steps(&graph, &g));
                }
            }
        }
    }
}

#[test]
fn per_channel_operands_join_chains_in_either_layout() {
    // Squeeze-excite style: a [C, 1, 1] scale and a [1, C, 1, 1] shift, after a plain input
    // (NCHW storage: a repeat) and after a convolution (NHWC storage: a row of channels).
    let mut g = G::new(5);
    let x = g.input("x", &[2, 6, 5, 7]);
    let scale = g.constant(&[6, 1, 1]);
    let shift = g.input("shift", &[1, 6, 1, 1]);
    let none = OpOptions::default;
    let a = g.b.mul(x, scale, none()).unwrap();
    let a = g.b.add(shift, a, none()).unwrap();
    let a = g.b.tanh(a, none()).unwrap();
    let w = g.constant(&[6, 6, 3, 3]);
    let conv = g.b.conv2d(x, w, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let s = g.b.sigmoid(conv, none()).unwrap();
    let c = g.b.mul(s, scale, none()).unwrap();
    let c = g.b.sub(c, shift, none()).unwrap();
    let graph = g.build(&[("a", a), ("c", c)]);
    let (_, reference) = check(&graph, &g.inputs, 1e-5);
    assert_eq!(reference, 0);
    let s = steps(&graph, &g);
    assert_eq!(s.iter().filter(|d| d.starts_with("element-wise chain of 3")).count(), 2, "{s:?}");
}
