//! A float32 model in the QDQ form ONNX Runtime's static quantizer writes (and its WebNN
//! execution provider passes on): each conv2d and gemm reads its weights through
//! `dequantizeLinear` of int8 constants (one scale per output channel, zero point 0) and its
//! input activation through a `quantizeLinear` → `dequantizeLinear` pair (uint8, one scale
//! for the tensor). The activation scale is fixed, not calibrated: the graph has the QDQ
//! model's shape and cost, for benchmarks and backend agreement tests, not its accuracy.

use webnn_core::graph::Source;
use webnn_core::ops::{Op, OpOptions};
use webnn_core::{DataType, Error, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

/// The activation scale: uint8 with zero point 128 covers [-6.4, 6.35].
const ACTIVATION_SCALE: f32 = 0.05;

/// `graph` with its float32 conv2d filters and gemm B matrices quantized to int8 and its
/// conv2d/gemm inputs quantized to uint8, as described above.
pub fn qdq(graph: &Graph) -> Result<Graph> {
    let mut b = GraphBuilder::new();
    let mut map: Vec<Option<Operand>> = vec![None; graph.operands.len()];
    for (i, info) in graph.operands.iter().enumerate() {
        map[i] = match &info.source {
            Source::Input(name) => Some(b.input(name, info.desc.clone())?),
            Source::Constant(data) => Some(b.constant_shared(info.desc.clone(), data.clone())?),
            Source::Node { .. } => None,
        };
    }
    let missing = || Error::operation_error("the graph is not in topological order");
    for node in &graph.nodes {
        let mut op = node.op.clone();
        for o in op.operands() {
            map[o.index()].ok_or_else(missing)?;
        }
        let weights = |o: Operand| graph.constant_data(o).filter(|_| graph.desc(o).data_type == DataType::Float32);
        let (input, weight) = match &node.op {
            Op::Conv2d(c) => (c.input, c.filter),
            Op::Gemm(g) => (g.a, g.b),
            _ => (node.outputs[0], node.outputs[0]),
        };
        let fresh = |o: Operand| map[o.index()].ok_or_else(missing);
        let replaced = match weights(weight) {
            Some(data) if input != weight => {
                let x = fake_quantize(&mut b, fresh(input)?, graph.desc(input))?;
                let w = dequantized_weight(&mut b, graph.desc(weight), data)?;
                Some((x, w))
            }
            _ => None,
        };
        op.remap_operands(&|o: Operand| match replaced {
            Some((x, _)) if o == input => x,
            Some((_, w)) if o == weight => w,
            _ => map[o.index()].unwrap_or(o),
        });
        for (o, n) in node.outputs.iter().zip(b.add_op(op)?) {
            map[o.index()] = Some(n);
        }
    }
    let outputs: Vec<(&str, Operand)> = graph
        .outputs
        .iter()
        .map(|(name, o)| Ok((name.as_str(), map[o.index()].ok_or_else(missing)?)))
        .collect::<Result<_>>()?;
    b.build(&outputs)
}

/// A scale (and zero point) of `value` for every element of a tensor of `rank`.
fn per_tensor(b: &mut GraphBuilder, rank: usize, data_type: DataType, bytes: Vec<u8>) -> Result<Operand> {
    b.constant(OperandDescriptor::new(data_type, &vec![1; rank]), bytes)
}

/// `dequantizeLinear(quantizeLinear(x))` with uint8 values around zero point 128.
fn fake_quantize(b: &mut GraphBuilder, x: Operand, desc: &OperandDescriptor) -> Result<Operand> {
    let rank = desc.rank();
    let scale = per_tensor(b, rank, DataType::Float32, ACTIVATION_SCALE.to_le_bytes().to_vec())?;
    let zero = per_tensor(b, rank, DataType::Uint8, vec![128])?;
    let q = b.quantize_linear(x, scale, zero, OpOptions::default())?;
    b.dequantize_linear(q, scale, zero, OpOptions::default())
}

/// int8 weights with one scale per output channel (the first dimension), dequantized.
fn dequantized_weight(b: &mut GraphBuilder, desc: &OperandDescriptor, data: &[u8]) -> Result<Operand> {
    let shape = desc.static_shape().ok_or_else(|| Error::type_error("weights must be static"))?;
    let w: Vec<f32> = data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let rows = shape[0] as usize;
    let per = w.len() / rows;
    let mut scales = Vec::with_capacity(rows);
    let mut q = Vec::with_capacity(w.len());
    for row in w.chunks_exact(per) {
        let s = row.iter().fold(0f32, |m, v| m.max(v.abs())).max(f32::MIN_POSITIVE) / 127.0;
        scales.push(s);
        q.extend(row.iter().map(|v| (v / s).round_ties_even().clamp(-127.0, 127.0) as i8 as u8));
    }
    let q = b.constant(OperandDescriptor::new(DataType::Int8, &shape), q)?;
    let mut scale_shape = vec![1; shape.len()];
    scale_shape[0] = shape[0];
    let scale_bytes: Vec<u8> = scales.iter().flat_map(|s| s.to_le_bytes()).collect();
    let scale = b.constant(OperandDescriptor::new(DataType::Float32, &scale_shape), scale_bytes)?;
    let zero = b.constant(OperandDescriptor::new(DataType::Int8, &scale_shape), vec![0; rows])?;
    b.dequantize_linear(q, scale, zero, OpOptions::default())
}
