//! Flexible inputs on the cpu backend: one graph with a bounded dynamic dimension dispatched
//! at several sizes gives exactly what the same graph built with that size static gives.

use webnn_core::ops::*;
use webnn_core::{Backend, DataType, Dim, ErrorKind, GraphBuilder, HostTensor, OperandDescriptor};

const F: DataType = DataType::Float32;

fn values(n: usize, seed: u32) -> Vec<u8> {
    (0..n).flat_map(|k| ((((k as u32) * 37 + seed * 11) % 23) as f32 / 4.0 - 2.5).to_le_bytes()).collect()
}

/// Element-wise, matmul, normalization, reductions, softmax, transpose, reshape naming the
/// dynamic dimension, concat along a static axis, gather, where: over `[seq, 8]`.
fn graph(seq: Dim) -> webnn_core::Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::with_dims(F, vec![seq.clone(), Dim::Static(8)])).unwrap();
    let w = b.constant(OperandDescriptor::new(F, &[8, 8]), values(64, 1)).unwrap();
    let bias = b.constant(OperandDescriptor::new(F, &[8]), values(8, 2)).unwrap();
    let none = OpOptions::default;
    let h = b.matmul(x, w, none()).unwrap();
    let h = b.add(h, bias, none()).unwrap();
    let h = b.relu(h, none()).unwrap();
    let n = b.layer_normalization(h, LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() }).unwrap();
    let s = b.softmax(n, 1, none()).unwrap();
    let mean = b.reduce_mean(s, ReduceOptions { axes: Some(vec![1]), keep_dimensions: true, ..Default::default() }).unwrap();
    let centered = b.sub(s, mean, none()).unwrap();
    let t = b.transpose(centered, TransposeOptions::default()).unwrap();
    let r = b.reshape(x, vec![seq.clone(), Dim::Static(2), Dim::Static(4)], none()).unwrap();
    let c = b.concat(&[x, h], 1, none()).unwrap();
    let idx = b.constant(OperandDescriptor::new(DataType::Int32, &[3]), [0i32, 5, 7].iter().flat_map(|v| v.to_le_bytes()).collect()).unwrap();
    let g = b.gather(c, idx, GatherOptions { axis: 1, ..Default::default() }).unwrap();
    let zero = b.constant_scalar(F, MLNumber::Double(0.0)).unwrap();
    let cond = b.greater(x, zero, none()).unwrap();
    let wh = b.where_(cond, x, h, none()).unwrap();
    let col = b.reduce_sum(wh, ReduceOptions { axes: Some(vec![0]), ..Default::default() }).unwrap();
    b.build(&[("t", t), ("r", r), ("g", g), ("wh", wh), ("col", col)]).unwrap()
}

#[test]
fn one_graph_serves_every_size_within_its_bound() {
    let dynamic = graph(Dim::Dynamic { name: "seq".into(), max_size: 16 });
    let mut exe = webnn_cpu::CpuBackend.compile(&dynamic).unwrap();
    for seq in [1u32, 5, 16] {
        let x = HostTensor { desc: OperandDescriptor::new(F, &[seq, 8]), bytes: values(seq as usize * 8, 3) };
        let got = exe.dispatch(&[("x", &x)]).unwrap();
        let want = webnn_cpu::CpuBackend.compile(&graph(Dim::Static(seq))).unwrap().dispatch(&[("x", &x)]).unwrap();
        assert_eq!(got, want, "seq {seq}");
    }
}

#[test]
fn sizes_outside_the_bounds_are_type_errors() {
    let dynamic = graph(Dim::Dynamic { name: "seq".into(), max_size: 16 });
    let mut exe = webnn_cpu::CpuBackend.compile(&dynamic).unwrap();
    for shape in [[17u32, 8], [3, 7]] {
        let x = HostTensor { desc: OperandDescriptor::new(F, &shape), bytes: values((shape[0] * shape[1]) as usize, 3) };
        assert_eq!(exe.dispatch(&[("x", &x)]).unwrap_err().kind, ErrorKind::TypeError, "{shape:?}");
    }
}
