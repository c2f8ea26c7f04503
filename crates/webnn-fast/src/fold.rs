//! Constant folding at compile: a node whose operands are all constants is evaluated once,
//! by the reference interpreter, and its results become constants of the graph the plan is
//! made from. A quantized model's `dequantizeLinear` of int8/uint8 weights (ONNX Runtime's
//! QDQ format) thus gives the float32 weights that conv2d and gemm pack, instead of a
//! reference node dequantizing them on every dispatch with the convolution on the reference
//! kernel too.
//!
//! The integer values behind each folded dequantization of 8-bit constants are kept too
//! ([`QuantizedConstant`]), for the kernels that multiply integers (`qconv`).
//!
//! Not folded: nodes whose results outgrow their operands (`expand`, `tile`, `pad`...: the
//! graph would hold the expansion for its lifetime) and the dequantizations the quantized
//! linear kernels read packed (`fusion::quantized_linears`), which stay narrow in memory.

use std::collections::HashMap;
use std::sync::Arc;
use webnn_core::graph::Source;
use webnn_core::ops::Op;
use webnn_core::{Backend, DataType, Graph, GraphBuilder, Operand, Result};

/// A folded `dequantizeLinear` of an 8-bit constant: its integers, scales and zero points
/// as the node read them, expanded element by element only when a kernel asks
/// ([`QuantizedConstant::elements`]), so graphs no integer kernel runs pay nothing.
pub(crate) struct QuantizedConstant {
    signed: bool,
    shape: Vec<usize>,
    q: Vec<u8>,
    scale: (Vec<usize>, Vec<f32>),
    zero: (Vec<usize>, Vec<u8>),
}

impl QuantizedConstant {
    /// Per element, in the constant's layout: the integer less its zero point, and its
    /// scale. The folded float32 value of element `i` is their product (in f64, rounded
    /// once), as the reference computes it.
    pub(crate) fn elements(&self) -> Option<(Vec<i32>, Vec<f32>)> {
        use webnn_cpu::kernels::quantization::block_map;
        let int = |b: u8| if self.signed { b as i8 as i32 } else { b as i32 };
        let scale_map = block_map(&self.scale.0, &self.shape).ok()?;
        let zero_map = block_map(&self.zero.0, &self.shape).ok()?;
        let values = self.q.iter().zip(&zero_map).map(|(&q, &z)| int(q) - int(self.zero.1[z])).collect();
        let scale = scale_map.iter().map(|&i| self.scale.1[i]).collect();
        Some((values, scale))
    }
}

/// The folded graph's quantized constants, by the address of their folded data ([`key`]):
/// building the graph renumbers its operands (it drops the ones no node reads), but its
/// constants keep their data.
pub(crate) type QuantizedConstants = HashMap<usize, QuantizedConstant>;

/// The key of a constant's data in [`QuantizedConstants`].
pub(crate) fn key(data: &Arc<[u8]>) -> usize {
    Arc::as_ptr(data) as *const u8 as usize
}

/// `graph` with its constant nodes folded (`None` when it has none), and the quantized
/// constants among the folded values.
pub(crate) fn fold_constants(graph: &Graph) -> Result<(Option<Graph>, QuantizedConstants)> {
    let keep: Vec<usize> = webnn_core::fusion::quantized_linears(graph).into_iter().flat_map(|q| q.absorbed).collect();
    let mut constant = vec![false; graph.operands.len()];
    for (i, info) in graph.operands.iter().enumerate() {
        constant[i] = matches!(info.source, Source::Constant(_));
    }
    let mut folded = vec![false; graph.nodes.len()];
    for (n, node) in graph.nodes.iter().enumerate() {
        let operands = node.op.operands();
        let largest = operands.iter().map(|o| graph.desc(*o).max_elements()).max().unwrap_or(0);
        let grows = node.outputs.iter().any(|o| graph.desc(*o).max_elements() > largest);
        // A graph output stays a node: a built graph's outputs are op results, and
        // computing one per dispatch costs what copying it out would.
        let output = node.outputs.iter().any(|o| graph.outputs.iter().any(|(_, y)| y == o));
        let all_constant = !operands.is_empty() && operands.iter().all(|o| constant[o.index()]);
        if all_constant && !grows && !output && !keep.contains(&n) {
            folded[n] = true;
            node.outputs.iter().for_each(|o| constant[o.index()] = true);
        }
    }
    if !folded.contains(&true) {
        return Ok((None, HashMap::new()));
    }
    let mut quantized = HashMap::new();
    // The folded values by operand index, for the folded nodes that read them.
    let mut known: HashMap<usize, Vec<u8>> = HashMap::new();
    webnn_core::passes::rebuild(graph, |b, n, op| {
        if !folded[n] {
            return b.add_op(op);
        }
        // A dequantizeLinear has one output: its integers go with that constant.
        let mut integers = quantized_constant(graph, n, &known);
        let mut outs = Vec::new();
        for ((desc, bytes), o) in evaluate(graph, n, &known)?.into_iter().zip(&graph.nodes[n].outputs) {
            let data: Arc<[u8]> = bytes.as_slice().into();
            if let Some(q) = integers.take() {
                quantized.insert(key(&data), q);
            }
            outs.push(b.constant_shared(desc, data)?);
            known.insert(o.index(), bytes);
        }
        Ok(outs)
    })
    .map(|g| (Some(g), quantized))
}

/// Node `n` as a dequantizeLinear of 8-bit constants (or folded values: an importer may
/// reshape the scales first) with float32 scales: the integers and scales behind its result.
fn quantized_constant(graph: &Graph, n: usize, known: &HashMap<usize, Vec<u8>>) -> Option<QuantizedConstant> {
    let Op::DequantizeLinear(d) = &graph.nodes[n].op else { return None };
    let data = |o: Operand| match &graph.info(o).source {
        Source::Constant(data) => Some(&data[..]),
        _ => known.get(&o.index()).map(Vec::as_slice),
    };
    let t = graph.desc(d.input).data_type;
    let signed = match t {
        DataType::Int8 => true,
        DataType::Uint8 => false,
        _ => return None,
    };
    if graph.desc(d.scale).data_type != DataType::Float32 || graph.desc(d.zero_point).data_type != t {
        return None;
    }
    let shape = |o: Operand| graph.desc(o).static_shape().map(|s| s.iter().map(|&d| d as usize).collect::<Vec<_>>());
    let scale = data(d.scale)?.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some(QuantizedConstant {
        signed,
        shape: shape(d.input)?,
        q: data(d.input)?.to_vec(),
        scale: (shape(d.scale)?, scale),
        zero: (shape(d.zero_point)?, data(d.zero_point)?.to_vec()),
    })
}

/// Node `n` (all of whose operands are constants, or folded values in `known`) on the
/// reference interpreter: its outputs' descriptors and bytes.
fn evaluate(graph: &Graph, n: usize, known: &HashMap<usize, Vec<u8>>) -> Result<Vec<(webnn_core::OperandDescriptor, Vec<u8>)>> {
    let node = &graph.nodes[n];
    let mut b = GraphBuilder::new();
    let mut op = node.op.clone();
    let mut values = Vec::new();
    for o in op.operands() {
        let data = match (&graph.info(o).source, known.get(&o.index())) {
            (Source::Constant(data), _) => data.to_vec(),
            (_, Some(bytes)) => bytes.clone(),
            _ => return Err(webnn_core::Error::operation_error("folding read a value not yet folded")),
        };
        values.push((o.index(), b.constant(graph.desc(o).clone(), data)?));
    }
    op.remap_operands(&|o: Operand| values.iter().find(|(i, _)| *i == o.index()).map_or(o, |(_, m)| *m));
    let outs = b.add_op(op)?;
    let names: Vec<String> = (0..outs.len()).map(|k| format!("y{k}")).collect();
    let named: Vec<(&str, Operand)> = names.iter().map(String::as_str).zip(outs).collect();
    let mini = b.build(&named)?;
    let mut exe = webnn_cpu::CpuBackend.compile(&mini)?;
    Ok(exe.dispatch(&[])?.into_iter().map(|(_, t)| (t.desc, t.bytes)).collect())
}
