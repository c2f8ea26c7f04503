//! Float16 graphs on the fast backend: computed in float32 inside (fast kernels), float16 at
//! the edges, within float16's precision of the reference interpreter's float16 arithmetic.

mod common;

use common::G;
use half::f16;
use webnn_core::ops::*;
use webnn_core::passes::{retype_float, Edges};
use webnn_core::{Backend, DataType, Graph, HostTensor, OperandDescriptor};
use webnn_fast::FastBackend;

fn halves(t: &HostTensor) -> Vec<f32> {
    assert_eq!(t.desc.data_type, DataType::Float16);
    t.bytes.chunks_exact(2).map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32()).collect()
}

/// A float32 input tensor's float16 twin.
fn narrow(t: &HostTensor) -> HostTensor {
    let v = common::floats(&t.bytes);
    HostTensor {
        desc: OperandDescriptor { data_type: DataType::Float16, shape: t.desc.shape.clone() },
        bytes: v.iter().flat_map(|x| f16::from_f32(*x).to_le_bytes()).collect(),
    }
}

fn outputs(backend: &dyn Backend, graph: &Graph, inputs: &[(String, HostTensor)]) -> Vec<Vec<f32>> {
    let mut exe = backend.compile(graph).unwrap();
    let feeds: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (n.as_str(), t)).collect();
    exe.dispatch(&feeds).unwrap().iter().map(|(_, t)| halves(t)).collect()
}

/// conv2d (bias, relu6) -> depthwise conv2d -> residual add -> average pool -> gemm, built in
/// float32 and converted to float16 as a page's float16 model is.
#[test]
fn float16_graphs_take_the_fast_kernels() {
    let mut g = G::new(5);
    let x = g.input("x", &[1, 8, 10, 10]);
    let w = g.constant(&[8, 8, 3, 3]);
    let bias = g.constant(&[8]);
    let conv = Conv2dOptions { padding: Some(vec![1, 1, 1, 1]), bias: Some(bias), ..Default::default() };
    let y = g.b.conv2d(x, w, conv).unwrap();
    let y = g.b.clamp(y, ClampOptions { min_value: Some(MLNumber::Double(0.0)), max_value: Some(MLNumber::Double(6.0)), ..Default::default() }).unwrap();
    let dw = g.constant(&[8, 1, 3, 3]);
    let depthwise = Conv2dOptions { padding: Some(vec![1, 1, 1, 1]), groups: 8, ..Default::default() };
    let z = g.b.conv2d(y, dw, depthwise).unwrap();
    let z = g.b.add(z, y, OpOptions::default()).unwrap();
    let p = g.b.average_pool2d(z, Pool2dOptions::default()).unwrap();
    let p = g.b.reshape(p, vec![1u32.into(), 8u32.into()], OpOptions::default()).unwrap();
    let fc = g.constant(&[8, 4]);
    let out = g.b.gemm(p, fc, GemmOptions::default()).unwrap();
    let g32 = g.build(&[("features", z), ("out", out)]);
    let g16 = retype_float(&g32, DataType::Float32, DataType::Float16, Edges::Retype).unwrap();
    let inputs: Vec<(String, HostTensor)> = g.inputs.iter().map(|(n, t)| (n.clone(), narrow(t))).collect();

    let fast = FastBackend::new(2);
    let (fast_steps, reference_steps) = fast.compile_graph(&g16).unwrap().step_counts();
    let (f32_steps, _) = fast.compile_graph(&g32).unwrap().step_counts();
    // The float32 graph's steps, and a cast (a fast step too) at the input and each output.
    assert_eq!((fast_steps, reference_steps), (f32_steps + 3, 0), "the float16 graph gets the float32 graph's fast steps");

    let want = outputs(&webnn_cpu::CpuBackend, &g16, &inputs);
    let got = outputs(&fast, &g16, &inputs);
    for (k, (w, g)) in want.iter().zip(&got).enumerate() {
        for (i, (a, b)) in w.iter().zip(g).enumerate() {
            // The reference rounds every intermediate to float16; these sums of up to 72
            // terms may differ from float32 accumulation by a few float16 ulps.
            assert!((a - b).abs() <= 1e-2 * (1.0 + a.abs()), "output {k}[{i}]: reference {a}, fast {b}");
        }
    }
}

/// An explicit cast to float16 inside a float16 graph still rounds there: 1 + 2^-12 is not a
/// float16, so (x + 2^-12 -> float16) - x is 0, where float32 arithmetic would keep 2^-12.
#[test]
fn casts_to_float16_round_where_the_graph_says() {
    let mut b = webnn_core::GraphBuilder::new();
    let desc = OperandDescriptor::new(DataType::Float32, &[1]);
    let x = b.input("x", desc.clone()).unwrap();
    let tiny = b.constant(desc, 2f32.powi(-12).to_le_bytes().to_vec()).unwrap();
    let h = b.cast(x, DataType::Float16, OpOptions::default()).unwrap();
    let t = b.cast(tiny, DataType::Float16, OpOptions::default()).unwrap();
    let s = b.add(h, t, OpOptions::default()).unwrap();
    let s = b.cast(s, DataType::Float16, OpOptions::default()).unwrap();
    let d = b.sub(s, h, OpOptions::default()).unwrap();
    let graph = b.build(&[("d", d)]).unwrap();
    let input = HostTensor { desc: OperandDescriptor::new(DataType::Float32, &[1]), bytes: 1f32.to_le_bytes().to_vec() };
    let got = outputs(&FastBackend::new(1), &graph, &[("x".into(), input)]);
    assert_eq!(got, [vec![0.0]]);
}

/// Values in multiples of 1/8 up to ±6: a convolution's products and sums of them are exact
/// in float32 in any order, so every difference a fused rounding could make shows bit for bit.
fn eighths(g: &mut G, n: usize) -> Vec<f32> {
    g.rng.fill(n, -6.0, 6.0).iter().map(|v| (v * 8.0).round() / 8.0).collect()
}

fn eighths_constant(g: &mut G, shape: &[u32]) -> webnn_core::Operand {
    let v = eighths(g, shape.iter().product::<u32>() as usize);
    g.b.constant(OperandDescriptor::new(DataType::Float32, shape), common::bytes(&v)).unwrap()
}

/// The float32 → float16 → float32 round trips a float16 export writes after every op (a
/// value forked to two readers rounded again on each path, as ONNX exports do) are rounded
/// in the convolutions' epilogues: after the product, after a residual sum, beside a relu;
/// round trips of values already on the grid are dropped. Exact: the same bits as the
/// reference computing every cast. A clamp whose bound is off float16's grid (6.1) does not
/// commute with rounding and stays an element-wise step.
#[test]
fn a_float16_export_s_round_trips_fuse_into_the_convolutions() {
    let mut g = G::new(11);
    let x = g.input("x", &[1, 8, 10, 10]);
    let data = eighths(&mut g, 800);
    g.inputs[0].1.bytes = common::bytes(&data);
    let none = OpOptions::default;
    let round_trip = |g: &mut G, v| {
        let h = g.b.cast(v, DataType::Float16, none()).unwrap();
        g.b.cast(h, DataType::Float32, none()).unwrap()
    };
    let (w, bias) = (eighths_constant(&mut g, &[8, 8, 3, 3]), eighths_constant(&mut g, &[8]));
    let padded = || Conv2dOptions { padding: Some(vec![1, 1, 1, 1]), ..Default::default() };
    let y = g.b.conv2d(x, w, Conv2dOptions { bias: Some(bias), ..padded() }).unwrap();
    let y = round_trip(&mut g, y);
    let y = g.b.relu(y, none()).unwrap();
    let y = round_trip(&mut g, y);
    let dw = eighths_constant(&mut g, &[8, 1, 3, 3]);
    let z = g.b.conv2d(y, dw, Conv2dOptions { groups: 8, ..padded() }).unwrap();
    let z = round_trip(&mut g, z);
    let z = round_trip(&mut g, z);
    let pw = eighths_constant(&mut g, &[8, 8, 1, 1]);
    let p = g.b.conv2d(z, pw, Conv2dOptions::default()).unwrap();
    let p = round_trip(&mut g, p);
    let skip = round_trip(&mut g, y);
    let sum = g.b.add(p, skip, none()).unwrap();
    let sum = round_trip(&mut g, sum);
    let w2 = eighths_constant(&mut g, &[8, 8, 1, 1]);
    let q = g.b.conv2d(sum, w2, Conv2dOptions::default()).unwrap();
    let q = round_trip(&mut g, q);
    let six = Some(MLNumber::Double(6.1));
    let q = g.b.clamp(q, ClampOptions { min_value: Some(MLNumber::Double(0.0)), max_value: six, ..Default::default() }).unwrap();
    let q = round_trip(&mut g, q);
    let graph = g.build(&[("sum", sum), ("q", q)]);

    // Four convolutions, the chain, and the outputs' copies to NCHW.
    assert_eq!(common::check(&graph, &g.inputs, 0.0), (7, 0));
    let steps = common::steps(&graph, &g);
    let convs: Vec<&String> = steps.iter().filter(|s| s.starts_with("conv")).collect();
    assert_eq!(convs.len(), 4, "{steps:?}");
    assert!(convs.iter().all(|s| s.contains(" f16")), "{steps:?}");
    assert!(convs.iter().any(|s| s.contains("clamp[0, inf]")), "the relu is fused: {steps:?}");
    assert!(convs.iter().any(|s| s.contains(" f16 +residual f16")), "{steps:?}");
    // The clamp to 6.1 and the round trip after it.
    let chains: Vec<&String> = steps.iter().filter(|s| s.starts_with("element-wise chain")).collect();
    assert_eq!(chains.len(), 1, "{steps:?}");
}

/// A float16 export's expansion (a pointwise convolution, its round trips and relu) runs
/// inside the depthwise convolution that reads it (`expand`), rounded as its rows are
/// computed: the same bits as the reference computing every cast.
#[test]
fn a_float16_export_s_expansion_fuses_with_its_round_trips() {
    let mut g = G::new(12);
    let x = g.input("x", &[1, 8, 12, 9]);
    let data = eighths(&mut g, 8 * 12 * 9);
    g.inputs[0].1.bytes = common::bytes(&data);
    let none = OpOptions::default;
    let round_trip = |g: &mut G, v| {
        let h = g.b.cast(v, DataType::Float16, none()).unwrap();
        g.b.cast(h, DataType::Float32, none()).unwrap()
    };
    // A first convolution, so that the expansion reads NHWC-stored values.
    let w0 = eighths_constant(&mut g, &[8, 8, 3, 3]);
    let y = g.b.conv2d(x, w0, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let y = round_trip(&mut g, y);
    let (pw, bias) = (eighths_constant(&mut g, &[16, 8, 1, 1]), eighths_constant(&mut g, &[16]));
    let e = g.b.conv2d(y, pw, Conv2dOptions { bias: Some(bias), ..Default::default() }).unwrap();
    let e = round_trip(&mut g, e);
    let e = g.b.relu(e, none()).unwrap();
    let e = round_trip(&mut g, e);
    let dw = eighths_constant(&mut g, &[16, 1, 3, 3]);
    let z = g.b.conv2d(e, dw, Conv2dOptions { groups: 16, padding: Some(vec![1; 4]), strides: Some(vec![2, 2]), ..Default::default() }).unwrap();
    let z = round_trip(&mut g, z);
    let graph = g.build(&[("z", z)]);
    assert_eq!(common::check(&graph, &g.inputs, 0.0).1, 0);
    let steps = common::steps(&graph, &g);
    assert!(steps.iter().any(|s| s.contains("pointwise 8->16 clamp[0, inf] f16 then depthwise")), "{steps:?}");
}
