//! A QDQ model's activation pair (`quantizeLinear → dequantizeLinear`, one scale and zero
//! point each) right after a conv, matmul or gemm (and its clamp or residual add) runs on the
//! step's output while it is in cache: the step's result, then the reference kernels' pair,
//! bit for bit, on every ISA and thread count, in one step. Pointwise convolutions and gemms
//! of int8 weights run in integers; activations between convolutions are stored as bytes.

mod common;

use common::{run, steps, G};
use webnn_core::ops::*;
use webnn_core::{DataType, Graph, GraphBuilder, HostTensor, Operand, OperandDescriptor};
use webnn_fast::FastBackend;

/// The pair's constants: a float32 scale and a zero point of `zero_type`.
fn pair(b: &mut GraphBuilder, x: Operand, scale: f32, zero_type: DataType, zero: u8) -> Operand {
    let s = b.constant(OperandDescriptor::new(DataType::Float32, &[1]), scale.to_le_bytes().to_vec()).unwrap();
    let z = b.constant(OperandDescriptor::new(zero_type, &[1]), vec![zero]).unwrap();
    let q = b.quantize_linear(x, s, z, OpOptions::default()).unwrap();
    b.dequantize_linear(q, s, z, OpOptions::default()).unwrap()
}

/// The reference's pair over `values`.
fn reference_pair(values: &[f32], scale: f32, zero_type: DataType, zero: u8) -> Vec<f32> {
    let mut b = GraphBuilder::new();
    let desc = OperandDescriptor::new(DataType::Float32, &[values.len() as u32]);
    let x = b.input("x", desc.clone()).unwrap();
    let y = pair(&mut b, x, scale, zero_type, zero);
    let graph = b.build(&[("y", y)]).unwrap();
    let input = vec![("x".to_owned(), HostTensor { desc, bytes: common::bytes(values) })];
    run(&webnn_cpu::CpuBackend, &graph, &input).remove(0)
}

/// `op` (building on `g`, returning the value the pair reads) with and without the pair:
/// the fused result equals the reference pair over the unfused result, on every ISA, with
/// 1 and 3 threads, and the plan has one step more for the unfused pair than for the op.
fn check_fused(seed: u64, op: impl Fn(&mut G) -> Operand, want_step: &str) {
    for (zero_type, zero, scale) in [(DataType::Uint8, 0u8, 0.02f32), (DataType::Int8, (-5i8) as u8, 0.0075)] {
        let mut g = G::new(seed);
        let plain = op(&mut g);
        let graph: Graph = g.build(&[("y", plain)]);
        let mut g2 = G::new(seed);
        let v = op(&mut g2);
        let y = pair(&mut g2.b, v, scale, zero_type, zero);
        let fused = g2.build(&[("y", y)]);
        for isa in webnn_gemm::Isa::available() {
            for threads in [1, 3] {
                let backend = FastBackend::with_isa(threads, isa);
                let before = run(&backend, &graph, &g.inputs).remove(0);
                let want = reference_pair(&before, scale, zero_type, zero);
                let got = run(&backend, &fused, &g2.inputs).remove(0);
                for (i, (w, o)) in want.iter().zip(&got).enumerate() {
                    assert_eq!(w.to_bits(), o.to_bits(), "{want_step} {zero_type} on {isa}, {threads} threads: [{i}] {w} vs {o}");
                }
            }
        }
        let fast = FastBackend::new(1);
        let counts = |g: &Graph| fast.compile_graph(g).unwrap().step_counts();
        assert_eq!(counts(&fused), counts(&graph), "{want_step}: the pair is a step of its own");
        let described = steps(&fused, &g2);
        assert!(described.iter().any(|d| d.contains(want_step) && d.contains("+fake-quant")), "{described:?}");
    }
}

fn conv(g: &mut G, c: u32, oc: u32, k: u32, groups: u32, act: bool) -> Operand {
    let x = g.input("x", &[1, c, 12, 10]);
    let f = g.constant(&[oc, c / groups, k, k]);
    let options = Conv2dOptions { padding: Some(vec![k / 2; 4]), groups, ..Default::default() };
    let y = g.b.conv2d(x, f, options).unwrap();
    if !act {
        return y;
    }
    let clamp = ClampOptions { min_value: Some(MLNumber::Double(0.0)), max_value: Some(MLNumber::Double(6.0)), ..Default::default() };
    g.b.clamp(y, clamp).unwrap()
}

#[test]
fn after_convolutions() {
    check_fused(1, |g| conv(g, 16, 24, 1, 1, true), "pointwise");
    check_fused(2, |g| conv(g, 8, 16, 3, 1, true), "im2col");
    check_fused(3, |g| conv(g, 16, 16, 3, 16, true), "depthwise");
    check_fused(4, |g| conv(g, 8, 3, 3, 1, false), "narrow");
}

#[test]
fn after_a_residual_add() {
    check_fused(
        5,
        |g| {
            // The residual is an earlier conv's output, stored as the conv stores its own.
            let r = conv(g, 16, 16, 1, 1, false);
            let f = g.constant(&[16, 16, 1, 1]);
            let y = g.b.conv2d(r, f, Conv2dOptions::default()).unwrap();
            g.b.add(y, r, OpOptions::default()).unwrap()
        },
        "+residual",
    );
}

#[test]
fn after_products() {
    check_fused(
        6,
        |g| {
            let a = g.input("a", &[7, 40]);
            let b = g.constant(&[40, 33]);
            g.b.matmul(a, b, OpOptions::default()).unwrap()
        },
        "matmul",
    );
    check_fused(
        7,
        |g| {
            let a = g.input("a", &[1, 64]);
            let b = g.constant(&[10, 64]);
            let c = g.constant(&[10]);
            g.b.gemm(a, b, GemmOptions { c: Some(c), b_transpose: true, ..Default::default() }).unwrap()
        },
        "gemm",
    );
}

/// Values of every range through a fused pair equal the reference's: a 1x1 conv with an
/// identity filter passes finite inputs through exactly, so ties of the scale reach the pair
/// (NaN and infinities spread to their pixel's other channels: 0 * inf).
#[test]
fn ties_and_saturation_after_a_conv() {
    let c = 8u32;
    let n = (c * 16 * 16) as usize;
    let mut v: Vec<f32> = (0..n).map(|i| (i as f32 - n as f32 / 2.0) * 0.025).collect();
    v[..5].copy_from_slice(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e-30]);
    let desc = OperandDescriptor::new(DataType::Float32, &[1, c, 16, 16]);
    let inputs = vec![("x".to_owned(), HostTensor { desc: desc.clone(), bytes: common::bytes(&v) })];
    let graph = |with_pair: bool| {
        let mut b = GraphBuilder::new();
        let x = b.input("x", desc.clone()).unwrap();
        let mut eye = vec![0.0f32; (c * c) as usize];
        (0..c as usize).for_each(|i| eye[i * c as usize + i] = 1.0);
        let f = b.constant(OperandDescriptor::new(DataType::Float32, &[c, c, 1, 1]), common::bytes(&eye)).unwrap();
        let mut y = b.conv2d(x, f, Conv2dOptions::default()).unwrap();
        if with_pair {
            y = pair(&mut b, y, 0.05, DataType::Uint8, 100);
        }
        b.build(&[("y", y)]).unwrap()
    };
    let fast = FastBackend::new(1);
    let before = run(&fast, &graph(false), &inputs).remove(0);
    let exact = before.iter().zip(&v).enumerate().all(|(i, (a, b))| i % 256 < 5 || a == b);
    assert!(exact, "the identity conv passes finite values through");
    let want = reference_pair(&before, 0.05, DataType::Uint8, 100);
    let got = run(&fast, &graph(true), &inputs).remove(0);
    for (i, (w, o)) in want.iter().zip(&got).enumerate() {
        assert_eq!(w.to_bits(), o.to_bits(), "[{i}] x = {}: {w} vs {o}", v[i]);
    }
}

/// A QDQ pointwise conv (activations through a pair, int8 weights with a scale per output
/// channel dequantized from constants, a bias): on machines with AVX-512 VNNI it runs in
/// integers, within float32 rounding of the reference's float sums, for uint8 and int8
/// activations and channel counts that fill no vector.
#[test]
fn pointwise_convs_in_integers() {
    for (zero_type, zero, (c, oc)) in [(DataType::Uint8, 128u8, (16usize, 96usize)), (DataType::Int8, (-3i8) as u8, (13, 37))] {
        let mut g = G::new(11);
        let x = g.input("x", &[1, c as u32, 9, 7]);
        let x = pair(&mut g.b, x, 0.01, zero_type, zero);
        let mut rng = webnn_models::Rng::new(5);
        let q: Vec<u8> = rng.fill(oc * c, -128.0, 127.0).iter().map(|v| *v as i8 as u8).collect();
        let scales: Vec<f32> = rng.fill(oc, 0.001, 0.01);
        let w = g.b.constant(OperandDescriptor::new(DataType::Int8, &[oc as u32, c as u32, 1, 1]), q).unwrap();
        let s = g.b.constant(OperandDescriptor::new(DataType::Float32, &[oc as u32, 1, 1, 1]), common::bytes(&scales)).unwrap();
        let z = g.b.constant(OperandDescriptor::new(DataType::Int8, &[oc as u32, 1, 1, 1]), vec![0; oc]).unwrap();
        let filter = g.b.dequantize_linear(w, s, z, OpOptions::default()).unwrap();
        let bias = g.constant(&[oc as u32]);
        let y = g.b.conv2d(x, filter, Conv2dOptions { bias: Some(bias), ..Default::default() }).unwrap();
        let y = g.b.relu(y, OpOptions::default()).unwrap();
        let graph = g.build(&[("y", y)]);
        common::check(&graph, &g.inputs, 1e-5);
        let fast = FastBackend::new(1);
        let steps = steps(&graph, &g);
        let integer = steps.iter().any(|d| d.contains("int8"));
        assert_eq!(integer, fast.isa() == webnn_gemm::Isa::Avx512 && vnni(), "{steps:?}");
    }
}

/// A QDQ gemm (an image network's classifier: one row, the input through a pair and a
/// reshape, int8 weights per output column, either B layout) runs in integers the same way.
#[test]
fn gemms_in_integers() {
    for (b_transpose, m) in [(true, 1usize), (false, 5)] {
        let (k, n) = (70usize, 45usize);
        let mut g = G::new(12);
        let x = g.input("x", &[m as u32, 2, k as u32 / 2]);
        let x = pair(&mut g.b, x, 0.02, DataType::Uint8, 3);
        let x = g.b.reshape(x, vec![(m as u32).into(), (k as u32).into()], OpOptions::default()).unwrap();
        let mut rng = webnn_models::Rng::new(6);
        let q: Vec<u8> = rng.fill(n * k, -128.0, 127.0).iter().map(|v| *v as i8 as u8).collect();
        let scales: Vec<f32> = rng.fill(n, 0.001, 0.01);
        let (shape, scale_shape) = if b_transpose { ([n as u32, k as u32], [n as u32, 1]) } else { ([k as u32, n as u32], [1, n as u32]) };
        // Transposed or not, q is [rows][columns] of B's shape; the scale follows the output column.
        let w = g.b.constant(OperandDescriptor::new(DataType::Int8, &shape), q).unwrap();
        let s = g.b.constant(OperandDescriptor::new(DataType::Float32, &scale_shape), common::bytes(&scales)).unwrap();
        let z = g.b.constant(OperandDescriptor::new(DataType::Int8, &scale_shape), vec![0; n]).unwrap();
        let b = g.b.dequantize_linear(w, s, z, OpOptions::default()).unwrap();
        let c = g.constant(&[n as u32]);
        let y = g.b.gemm(x, b, GemmOptions { c: Some(c), b_transpose, ..Default::default() }).unwrap();
        let graph = g.build(&[("y", y)]);
        common::check(&graph, &g.inputs, 1e-5);
        let fast = FastBackend::new(1);
        let steps = steps(&graph, &g);
        let integer = steps.iter().any(|d| d.starts_with("gemm") && d.contains("int8"));
        assert_eq!(integer, fast.isa() == webnn_gemm::Isa::Avx512 && vnni(), "{steps:?}");
    }
}

/// An integer pointwise conv followed by an activation pair (the pair applied in the
/// kernel's registers on AVX-512 VNNI): the reference's pair over the unfused conv's
/// output, bit for bit, on every ISA and thread count.
#[test]
fn a_pair_after_an_integer_conv() {
    check_fused(
        13,
        |g| {
            let x = g.input("x", &[1, 24, 10, 9]);
            let x = pair(&mut g.b, x, 0.01, DataType::Uint8, 128);
            let mut rng = webnn_models::Rng::new(8);
            let q: Vec<u8> = rng.fill(40 * 24, -128.0, 127.0).iter().map(|v| *v as i8 as u8).collect();
            let scales: Vec<f32> = rng.fill(40, 0.001, 0.01);
            let w = g.b.constant(OperandDescriptor::new(DataType::Int8, &[40, 24, 1, 1]), q).unwrap();
            let s = g.b.constant(OperandDescriptor::new(DataType::Float32, &[40, 1, 1, 1]), common::bytes(&scales)).unwrap();
            let z = g.b.constant(OperandDescriptor::new(DataType::Int8, &[40, 1, 1, 1]), vec![0; 40]).unwrap();
            let filter = g.b.dequantize_linear(w, s, z, OpOptions::default()).unwrap();
            g.b.conv2d(x, filter, Conv2dOptions::default()).unwrap()
        },
        "pointwise",
    );
}

/// `got`'s first output has `want`'s bits, on every ISA, at 1 and 3 threads.
fn same_bits(want: &Graph, got: &Graph, inputs: &[(String, HostTensor)], label: &str) {
    for isa in webnn_gemm::Isa::available() {
        for threads in [1, 3] {
            let backend = FastBackend::with_isa(threads, isa);
            let (w, o) = (run(&backend, want, inputs).remove(0), run(&backend, got, inputs).remove(0));
            assert!(w.iter().zip(&o).all(|(w, o)| w.to_bits() == o.to_bits()), "{label} on {isa}, {threads} threads");
        }
    }
}

/// A QDQ pointwise conv's filter: int8 weights with a scale per output channel.
fn int8_filter(g: &mut G, oc: usize, c: usize, seed: u64) -> Operand {
    let mut rng = webnn_models::Rng::new(seed);
    let q: Vec<u8> = rng.fill(oc * c, -128.0, 127.0).iter().map(|v| *v as i8 as u8).collect();
    let scales: Vec<f32> = rng.fill(oc, 0.001, 0.01);
    let w = g.b.constant(OperandDescriptor::new(DataType::Int8, &[oc as u32, c as u32, 1, 1]), q).unwrap();
    let s = g.b.constant(OperandDescriptor::new(DataType::Float32, &[oc as u32, 1, 1, 1]), common::bytes(&scales)).unwrap();
    let z = g.b.constant(OperandDescriptor::new(DataType::Int8, &[oc as u32, 1, 1, 1]), vec![0; oc]).unwrap();
    g.b.dequantize_linear(w, s, z, OpOptions::default()).unwrap()
}

/// Activations between convolutions stored as bytes on AVX-512 (a 3x3 conv and an integer
/// pointwise one writing them, depthwise convs and an integer pointwise one reading them):
/// the same bits as with float32 storage (the same graph with every intermediate value also
/// an output, which keeps it float32), at 1 and 3 threads; uint8 and int8 pairs, two
/// images, strides 1 and 2, padding, dilation.
#[test]
fn activations_stored_as_bytes() {
    for (zero_type, zero, stride, dilation) in [(DataType::Uint8, 7u8, 1u32, 1u32), (DataType::Int8, (-9i8) as u8, 2, 1), (DataType::Uint8, 200, 1, 2)] {
        let build = |all: bool| {
            let mut g = G::new(21);
            let x = g.input("x", &[2, 3, 19, 17]);
            let f = g.constant(&[16, 3, 3, 3]);
            let y1 = g.b.conv2d(x, f, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
            let y1 = pair(&mut g.b, y1, 0.02, zero_type, zero);
            let w1 = g.constant(&[16, 1, 3, 3]);
            let pad = dilation;
            let options = Conv2dOptions { padding: Some(vec![pad; 4]), groups: 16, strides: Some(vec![stride; 2]), dilations: Some(vec![dilation; 2]), ..Default::default() };
            let y2 = g.b.conv2d(y1, w1, options).unwrap();
            let y2 = pair(&mut g.b, y2, 0.03, zero_type, zero);
            let f3 = int8_filter(&mut g, 40, 16, 4);
            let y3 = g.b.conv2d(y2, f3, Conv2dOptions::default()).unwrap();
            let y3 = pair(&mut g.b, y3, 0.01, zero_type, zero);
            let w4 = g.constant(&[40, 1, 3, 3]);
            let y4 = g.b.conv2d(y3, w4, Conv2dOptions { padding: Some(vec![1; 4]), groups: 40, ..Default::default() }).unwrap();
            let graph = match all {
                false => g.build(&[("y", y4)]),
                true => g.build(&[("y", y4), ("y1", y1), ("y2", y2), ("y3", y3)]),
            };
            (graph, g)
        };
        let ((stored, g), (plain, _)) = (build(false), build(true));
        let described = steps(&stored, &g);
        let label = format!("{zero_type}, stride {stride}, dilation {dilation}");
        // Bytes are stored on AVX-512 machines only (`stored::pays`).
        let avx512 = FastBackend::new(1).isa() == webnn_gemm::Isa::Avx512;
        let first = described[0].ends_with("as bytes") && described[1].contains("depthwise 3x3") && described[1].contains("bytes");
        assert_eq!(first, avx512, "{label}: {described:?}");
        assert!(!steps(&plain, &g).iter().any(|d| d.contains("bytes")), "{label}");
        same_bits(&plain, &stored, &g.inputs, &label);
        // Where the pointwise conv runs in integers, it reads bytes and runs inside the
        // depthwise conv that alone reads its result (`expand.rs`): the same bits as the
        // unfused steps of the graph whose intermediate values are all outputs.
        if avx512 && vnni() {
            let fused = |d: &String| d.contains("pointwise 16->40 int8 (VNNI)") && d.contains("then depthwise 3x3/1 bytes");
            assert!(described.iter().any(fused), "{label}: {described:?}");
            assert!(steps(&plain, &g).iter().any(|d| d.contains("int8 (VNNI) 16->40") && !d.contains("then")), "{label}");
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn vnni() -> bool {
    std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vnni")
}

#[cfg(not(target_arch = "x86_64"))]
fn vnni() -> bool {
    false
}

/// An integer pointwise conv whose result only a depthwise conv reads runs inside it, row by
/// row (`expand.rs`): the same bits as the two steps unfused (the same graph with the
/// expansion's result also an output, which keeps it a step of its own), on every ISA, at 1
/// and 3 threads, over two images; strides 1 and 2, dilation 2, a relu6 before the pair,
/// the expansion's input stored as bytes or (a graph output too) float32, uint8 and int8
/// pairs.
#[test]
fn integer_expansions_fuse_into_depthwise() {
    let cases = [
        (DataType::Uint8, 3u8, 1u32, 1u32, false, false),
        (DataType::Int8, (-7i8) as u8, 2, 1, true, false),
        (DataType::Uint8, 250, 1, 2, true, true),
        (DataType::Int8, 0, 2, 1, false, true),
    ];
    for (zero_type, zero, stride, dilation, relu6, float_in) in cases {
        let build = |both: bool| {
            let mut g = G::new(31);
            let x = g.input("x", &[2, 3, 15, 13]);
            let f = g.constant(&[24, 3, 3, 3]);
            let x = g.b.conv2d(x, f, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
            let x = pair(&mut g.b, x, 0.02, zero_type, zero);
            let f = int8_filter(&mut g, 56, 24, 9);
            let bias = g.constant(&[56]);
            let mut e = g.b.conv2d(x, f, Conv2dOptions { bias: Some(bias), ..Default::default() }).unwrap();
            if relu6 {
                let clamp = ClampOptions { min_value: Some(MLNumber::Double(0.0)), max_value: Some(MLNumber::Double(6.0)), ..Default::default() };
                e = g.b.clamp(e, clamp).unwrap();
            }
            let e = pair(&mut g.b, e, 0.015, zero_type, zero);
            let w = g.constant(&[56, 1, 3, 3]);
            let options = Conv2dOptions {
                padding: Some(vec![dilation; 4]),
                groups: 56,
                strides: Some(vec![stride; 2]),
                dilations: Some(vec![dilation; 2]),
                ..Default::default()
            };
            let y = g.b.conv2d(e, w, options).unwrap();
            let y = pair(&mut g.b, y, 0.03, zero_type, zero);
            let mut outputs = vec![("y", y)];
            outputs.extend(both.then_some(("e", e)));
            outputs.extend(float_in.then_some(("x", x)));
            (g.build(&outputs), g)
        };
        let ((fused, g), (apart, _)) = (build(false), build(true));
        let label = format!("{zero_type}, stride {stride}, dilation {dilation}, relu6 {relu6}, float input {float_in}");
        let integer = FastBackend::new(1).isa() == webnn_gemm::Isa::Avx512 && vnni();
        let described = steps(&fused, &g);
        assert_eq!(described.iter().any(|d| d.contains("int8 (VNNI)") && d.contains("then depthwise")), integer, "{label}: {described:?}");
        assert!(!steps(&apart, &g).iter().any(|d| d.contains("then depthwise")), "{label}");
        same_bits(&apart, &fused, &g.inputs, &label);
        // Not against the reference bit for bit: the integer sums round differently from
        // its float32 ones, so a value near a tie may take the next integer
        // (`pointwise_convs_in_integers` bounds the sums).
    }
}
