//! Graph rewrites shared by the backends. `expand` replaces the ops a backend does not run
//! itself by their decompositions into primitive ops (the spec's own decompositions), so
//! every backend lowers composite ops the same way instead of re-implementing them.

mod recurrent;
mod retype;

pub use retype::{retype_float, Edges};

use crate::builder::GraphBuilder;
use crate::error::{Error, Result};
use crate::graph::{Graph, Operand, Source};
use crate::ops::OpKind;

/// Whether `expand` rewrites ops of this kind: the recurrent networks, whose decompositions
/// are matrix products and element-wise ops.
pub fn is_expandable(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Gru | OpKind::GruCell | OpKind::Lstm | OpKind::LstmCell
    )
}

/// `graph` with every node whose kind `select` picks (among `is_expandable` kinds) replaced
/// by its decomposition. Inputs, constants (shared, not copied), output names and the other
/// nodes are kept; the result is validated like any built graph.
pub fn expand(graph: &Graph, select: &dyn Fn(OpKind) -> bool) -> Result<Graph> {
    let picked = |kind: OpKind| is_expandable(kind) && select(kind);
    if !graph.nodes.iter().any(|n| picked(n.op.kind())) {
        return Ok(graph.clone());
    }
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
        for o in node.op.operands() {
            map[o.index()].ok_or_else(missing)?;
        }
        let mut op = node.op.clone();
        let lookup = |o: Operand| map[o.index()].unwrap_or(o);
        op.remap_operands(&lookup);
        let outputs = if picked(op.kind()) {
            recurrent::expand(&mut b, &op).map_err(|e| e.at(op.name(), op.label()))?
        } else {
            b.add_op(op)?
        };
        if outputs.len() != node.outputs.len() {
            return Err(Error::operation_error(format!(
                "the expansion of {} gives {} outputs, not {}",
                node.op.name(),
                outputs.len(),
                node.outputs.len()
            )));
        }
        for (o, n) in node.outputs.iter().zip(outputs) {
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
