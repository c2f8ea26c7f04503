//! Constant folding at compile: a node whose operands are all constants is evaluated once,
//! by the reference interpreter, and its results become constants of the graph the plan is
//! made from. A quantized model's `dequantizeLinear` of int8/uint8 weights (ONNX Runtime's
//! QDQ format) thus gives the float32 weights that conv2d and gemm pack, instead of a
//! reference node dequantizing them on every dispatch with the convolution on the reference
//! kernel too.
//!
//! Not folded: nodes whose results outgrow their operands (`expand`, `tile`, `pad`...: the
//! graph would hold the expansion for its lifetime) and the dequantizations the quantized
//! linear kernels read packed (`fusion::quantized_linears`), which stay narrow in memory.

use std::collections::HashMap;
use webnn_core::graph::Source;
use webnn_core::{Backend, Graph, GraphBuilder, Operand, Result};

/// `graph` with its constant nodes folded, or `None` when it has none.
pub(crate) fn fold_constants(graph: &Graph) -> Result<Option<Graph>> {
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
        return Ok(None);
    }
    // The folded values by operand index, for the folded nodes that read them.
    let mut known: HashMap<usize, Vec<u8>> = HashMap::new();
    webnn_core::passes::rebuild(graph, |b, n, op| {
        if !folded[n] {
            return b.add_op(op);
        }
        let mut outs = Vec::new();
        for ((desc, bytes), o) in evaluate(graph, n, &known)?.into_iter().zip(&graph.nodes[n].outputs) {
            outs.push(b.constant(desc, bytes.clone())?);
            known.insert(o.index(), bytes);
        }
        Ok(outs)
    })
    .map(Some)
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
