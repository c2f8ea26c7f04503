//! What the quantized-linear recogniser must and must not match.

use webnn_core::fusion::quantized_linears;
use webnn_core::ops::{GemmOptions, OpOptions};
use webnn_core::{DataType, Dim, Graph, GraphBuilder, Operand, OperandDescriptor};

const F: DataType = DataType::Float32;

/// `x [m, k] · W^T` with W `[n, k]` dequantized from `t` in blocks of `block`, with an offset
/// per block when `offset`; `tweak` changes one thing about the pattern.
fn graph(t: DataType, block: u32, offset: bool, tweak: &str) -> Graph {
    let (n, k) = (6u32, 64u32);
    let blocks = k / block;
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let x = b.input("x", OperandDescriptor::with_dims(F, vec![Dim::Dynamic { name: "m".into(), max_size: 4 }, k.into()])).unwrap();
    let qd = OperandDescriptor::new(t, &[n, k]);
    let q = b.constant(qd.clone(), vec![0x21; qd.max_byte_length().unwrap() as usize]).unwrap();
    let sd = OperandDescriptor::new(F, &[n, blocks]);
    let scale = b.constant(sd, vec![0; (n * blocks * 4) as usize]).unwrap();
    let zd = OperandDescriptor::new(t, &[n, blocks]);
    let zero = b.constant(zd.clone(), vec![0; zd.max_byte_length().unwrap() as usize]).unwrap();
    let mut w = b.dequantize_linear(q, scale, zero, none()).unwrap();
    if offset {
        let r = b.reshape(w, vec![n.into(), blocks.into(), block.into()], none()).unwrap();
        let m = b.constant(OperandDescriptor::new(F, &[n, blocks, 1]), vec![0; (n * blocks * 4) as usize]).unwrap();
        let sum = b.add(r, m, none()).unwrap();
        w = b.reshape(sum, vec![n.into(), k.into()], none()).unwrap();
    }
    let opts = GemmOptions { b_transpose: tweak != "no transpose", alpha: if tweak == "alpha" { 2.0 } else { 1.0 }, ..Default::default() };
    let w = if tweak == "no transpose" { b.transpose(w, Default::default()).unwrap() } else { w };
    let y = b.gemm(x, w, opts).unwrap();
    let mut outputs: Vec<(&str, Operand)> = vec![("y", y)];
    if tweak == "weight read twice" {
        outputs.push(("w", w));
    }
    b.build(&outputs).unwrap()
}

#[test]
fn matches_the_dequantize_gemm_patterns() {
    for t in [DataType::Int4, DataType::Uint4, DataType::Int8, DataType::Uint8] {
        for offset in [false, true] {
            let g = graph(t, 32, offset, "");
            let found = quantized_linears(&g);
            assert_eq!(found.len(), 1, "{t} offset {offset}");
            let q = &found[0];
            assert_eq!((q.n, q.k, q.block, q.offset.is_some()), (6, 64, 32, offset));
            assert_eq!(q.absorbed.len(), if offset { 4 } else { 1 });
        }
    }
    assert_eq!(quantized_linears(&graph(DataType::Uint4, 16, true, ""))[0].block, 16);
}

#[test]
fn leaves_other_graphs_alone() {
    for tweak in ["alpha", "no transpose", "weight read twice"] {
        assert!(quantized_linears(&graph(DataType::Uint4, 32, true, tweak)).is_empty(), "{tweak}");
    }
    // A weight that is an input, not a constant.
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(F, &[1, 32])).unwrap();
    let q = b.input("q", OperandDescriptor::new(DataType::Uint8, &[4, 32])).unwrap();
    let s = b.constant(OperandDescriptor::new(F, &[4, 1]), vec![0; 16]).unwrap();
    let z = b.constant(OperandDescriptor::new(DataType::Uint8, &[4, 1]), vec![0; 4]).unwrap();
    let w = b.dequantize_linear(q, s, z, OpOptions::default()).unwrap();
    let y = b.gemm(x, w, GemmOptions { b_transpose: true, ..Default::default() }).unwrap();
    assert!(quantized_linears(&b.build(&[("y", y)]).unwrap()).is_empty());
}

/// RMSNorm as Llama's decomposition writes it; `tweak` breaks one part of the pattern.
fn rms_graph(tweak: &str) -> Graph {
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let x = b.input("x", OperandDescriptor::new(F, &[3, 8])).unwrap();
    let exponent = if tweak == "cube" { 3.0 } else { 2.0 };
    let two = b.constant_scalar(F, webnn_core::ops::MLNumber::Double(exponent)).unwrap();
    let eps = b.constant_scalar(F, webnn_core::ops::MLNumber::Double(1e-5)).unwrap();
    let w = b.constant(OperandDescriptor::new(F, &[8]), vec![0; 32]).unwrap();
    let sq = b.pow(x, two, none()).unwrap();
    let axes = if tweak == "first axis" { vec![0] } else { vec![1] };
    let mean = b.reduce_mean(sq, webnn_core::ops::ReduceOptions { axes: Some(axes), keep_dimensions: true, ..Default::default() }).unwrap();
    let var = b.add(mean, eps, none()).unwrap();
    let rms = b.sqrt(var, none()).unwrap();
    let y = b.div(x, rms, none()).unwrap();
    let out = b.mul(y, w, none()).unwrap();
    let mut outputs: Vec<(&str, Operand)> = vec![("y", out)];
    if tweak == "rms read twice" {
        outputs.push(("rms", rms));
    }
    b.build(&outputs).unwrap()
}

#[test]
fn rms_norm_pattern() {
    let found = webnn_core::fusion::rms_norms(&rms_graph(""));
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].absorbed.len(), found[0].epsilon), (5, 1e-5));
    for tweak in ["cube", "first axis", "rms read twice"] {
        assert!(webnn_core::fusion::rms_norms(&rms_graph(tweak)).is_empty(), "{tweak}");
    }
}

/// Rotary embedding on adjacent pairs as webnn-llm writes it; `tweak` breaks one part.
fn rope_graph(tweak: &str) -> Graph {
    use webnn_core::ops::SliceOptions;
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let x = b.input("x", OperandDescriptor::new(F, &[3, 2, 4, 2])).unwrap();
    let cos = b.input("cos", OperandDescriptor::new(F, &[3, 1, 4, 1])).unwrap();
    let sin = b.input("sin", OperandDescriptor::new(F, &[3, 1, 4, 1])).unwrap();
    let part = |b: &mut GraphBuilder, k: u32| b.slice(x, vec![0, 0, 0, k], vec![3, 2, 4, 1], SliceOptions::default()).unwrap();
    let (even, odd) = (part(&mut b, 0), part(&mut b, if tweak == "same half" { 0 } else { 1 }));
    let ec = b.mul(even, cos, none()).unwrap();
    let os = b.mul(odd, sin, none()).unwrap();
    let es = b.mul(sin, even, none()).unwrap();
    let oc = b.mul(odd, cos, none()).unwrap();
    let first = if tweak == "add" { b.add(ec, os, none()).unwrap() } else { b.sub(ec, os, none()).unwrap() };
    let second = b.add(oc, es, none()).unwrap();
    let y = b.concat(&[first, second], 3, none()).unwrap();
    b.build(&[("y", y)]).unwrap()
}

#[test]
fn rope_pattern() {
    let found = webnn_core::fusion::ropes(&rope_graph(""));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].absorbed.len(), 8);
    for tweak in ["same half", "add"] {
        assert!(webnn_core::fusion::ropes(&rope_graph(tweak)).is_empty(), "{tweak}");
    }
}

/// Grouped-query attention over a [total, kv_heads * head_dim] cache, as webnn-llm writes it.
fn attention_graph(tweak: &str) -> Graph {
    use webnn_core::ops::{MLNumber, TransposeOptions};
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let q = b.input("q", OperandDescriptor::new(F, &[2, 3, 4, 8])).unwrap();
    // "float16": caches kept in float16, widened by a cast before the view.
    let cache = if tweak.starts_with("float16") { DataType::Float16 } else { F };
    let keys = b.input("keys", OperandDescriptor::new(cache, &[5, 16])).unwrap();
    let values = b.input("values", OperandDescriptor::new(cache, &[5, 16])).unwrap();
    let (keys, values) = match cache {
        DataType::Float16 => (b.cast(keys, F, none()).unwrap(), b.cast(values, F, none()).unwrap()),
        _ => (keys, values),
    };
    let mask = b.input("mask", OperandDescriptor::new(DataType::Uint8, &[4, 5])).unwrap();
    let view = |b: &mut GraphBuilder, x, perm: Vec<u32>| {
        let r = b.reshape(x, vec![5.into(), 2.into(), 1.into(), 8.into()], OpOptions::default()).unwrap();
        b.transpose(r, TransposeOptions { permutation: Some(perm), ..Default::default() }).unwrap()
    };
    let kh = view(&mut b, keys, vec![1, 2, 3, 0]);
    let vh = view(&mut b, values, vec![1, 2, 0, 3]);
    let scale = b.constant_scalar(F, MLNumber::Double(0.125)).unwrap();
    let masked = b.constant_scalar(F, MLNumber::Double(-1e30)).unwrap();
    let s = b.matmul(q, kh, none()).unwrap();
    let s = b.mul(s, scale, none()).unwrap();
    let s = b.where_(mask, s, masked, none()).unwrap();
    let p = b.softmax(s, if tweak == "axis" { 2 } else { 3 }, none()).unwrap();
    let y = b.matmul(p, vh, none()).unwrap();
    match tweak {
        // The widened keys are read elsewhere too: the cast cannot be absorbed.
        "float16 shared" => b.build(&[("y", y), ("keys", keys)]).unwrap(),
        _ => b.build(&[("y", y)]).unwrap(),
    }
}

#[test]
fn attention_pattern() {
    let found = webnn_core::fusion::attentions(&attention_graph(""));
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].absorbed.len(), found[0].scale, found[0].masked), (8, 0.125, -1e30));
    assert!(webnn_core::fusion::attentions(&attention_graph("axis")).is_empty());
    let half = webnn_core::fusion::attentions(&attention_graph("float16"));
    assert_eq!(half.len(), 1, "float16 caches widened by casts");
    let g = attention_graph("float16");
    assert_eq!(half[0].absorbed.len(), 10, "the two casts are absorbed");
    assert_eq!((g.desc(half[0].keys).data_type, g.desc(half[0].values).data_type), (DataType::Float16, DataType::Float16));
    assert!(webnn_core::fusion::attentions(&attention_graph("float16 shared")).is_empty());
}

#[test]
fn silu_gate_pattern() {
    let build = |tweak: &str| {
        let mut b = GraphBuilder::new();
        let none = OpOptions::default;
        let gate = b.input("g", OperandDescriptor::new(F, &[2, 6])).unwrap();
        let up = b.input("u", OperandDescriptor::new(F, &[2, 6])).unwrap();
        let other = b.input("o", OperandDescriptor::new(F, &[2, 6])).unwrap();
        let s = b.sigmoid(gate, none()).unwrap();
        let silu = b.mul(if tweak == "other" { other } else { gate }, s, none()).unwrap();
        let y = b.mul(up, silu, none()).unwrap();
        b.build(&[("y", y)]).unwrap()
    };
    let found = webnn_core::fusion::silu_gates(&build(""));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].absorbed.len(), 2);
    assert!(webnn_core::fusion::silu_gates(&build("other")).is_empty(), "x * sigmoid(g) is not SiLU");
}
