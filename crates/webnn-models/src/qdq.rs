//! A float32 model in the QDQ form ONNX Runtime's static quantizer writes (and its WebNN
//! execution provider passes on): each conv2d and gemm reads its weights through
//! `dequantizeLinear` of int8 constants (one scale per output channel, zero point 0) and its
//! input activation through a `quantizeLinear` → `dequantizeLinear` pair (uint8, one scale
//! for the tensor). The activation scale is fixed, not calibrated: the graph has the QDQ
//! model's shape and cost, for benchmarks and backend agreement tests, not its accuracy.

use webnn_core::ops::{Op, OpOptions};
use webnn_core::{DataType, Error, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

/// The activation scale: uint8 with zero point 128 covers [-6.4, 6.35].
const ACTIVATION_SCALE: f32 = 0.05;

/// `graph` with its float32 conv2d filters and gemm B matrices quantized to int8 and its
/// conv2d/gemm inputs quantized to uint8, as described above.
pub fn qdq(graph: &Graph) -> Result<Graph> {
    let weights = |o: Operand| graph.constant_data(o).filter(|_| graph.desc(o).data_type == DataType::Float32);
    webnn_core::passes::rebuild(graph, |b, n, mut op| {
        // The old graph's operands say which weights are constants; `op` holds the new ones.
        let (input, weight) = match &graph.nodes[n].op {
            Op::Conv2d(c) => (c.input, c.filter),
            Op::Gemm(g) => (g.a, g.b),
            _ => return b.add_op(op),
        };
        if let Some(data) = weights(weight).filter(|_| input != weight) {
            let (x, w) = match &mut op {
                Op::Conv2d(c) => (&mut c.input, &mut c.filter),
                Op::Gemm(g) => (&mut g.a, &mut g.b),
                _ => unreachable!("matched above"),
            };
            *x = fake_quantize(b, *x, graph.desc(input))?;
            *w = dequantized_weight(b, graph.desc(weight), data)?;
        }
        b.add_op(op)
    })
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

#[cfg(test)]
mod tests {
    use webnn_core::ops::Op;

    /// Every conv2d and gemm of MobileNetV2 reads a fake-quantized input and dequantized
    /// int8 weights; the rest of the graph is as it was.
    #[test]
    fn mobilenet_gets_a_qdq_pair_per_product() {
        let g = crate::mobilenet_v2(1).unwrap();
        let q = super::qdq(&g).unwrap();
        let count = |g: &webnn_core::Graph, f: &dyn Fn(&Op) -> bool| g.nodes.iter().filter(|n| f(&n.op)).count();
        let products = count(&g, &|op| matches!(op, Op::Conv2d(_) | Op::Gemm(_)));
        assert!(products > 50);
        assert_eq!(count(&q, &|op| matches!(op, Op::QuantizeLinear(_))), products);
        assert_eq!(count(&q, &|op| matches!(op, Op::DequantizeLinear(_))), 2 * products);
        assert_eq!(q.nodes.len(), g.nodes.len() + 3 * products);
        for n in &q.nodes {
            if let Op::Conv2d(c) = &n.op {
                let producer = |o: webnn_core::Operand| q.nodes.iter().find(|m| m.outputs.contains(&o)).map(|m| m.op.kind());
                assert_eq!(producer(c.input), Some(webnn_core::OpKind::DequantizeLinear));
                assert_eq!(producer(c.filter), Some(webnn_core::OpKind::DequantizeLinear));
            }
        }
    }
}
