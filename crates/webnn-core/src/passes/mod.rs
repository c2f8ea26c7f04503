//! Graph rewrites shared by the backends. `expand` replaces the ops a backend does not run
//! itself by their decompositions into primitive ops (the spec's own decompositions), so
//! every backend lowers composite ops the same way instead of re-implementing them.

mod recurrent;
mod retype;
mod round_trips;

pub use retype::{retype_float, Edges};
pub use round_trips::drop_round_trips;

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
    rebuild(graph, |b, _, op| {
        if picked(op.kind()) {
            recurrent::expand(b, &op).map_err(|e| e.at(op.name(), op.label()))
        } else {
            b.add_op(op)
        }
    })
}

/// The skeleton every graph rewrite shares: `graph` rebuilt through a new builder, so the
/// result is validated like any built graph. Inputs and constants (their data shared, not
/// copied) come first; then, in order, `node(b, n, op)` gives node `n`'s outputs in the new
/// graph from its op with operands already mapped there: `b.add_op(op)` keeps it; a rewrite
/// adds other ops, makes constants, or returns operands it already has (a node folded into
/// its input returns that input). Output names are kept.
pub fn rebuild(
    graph: &Graph,
    mut node: impl FnMut(&mut GraphBuilder, usize, crate::ops::Op) -> Result<Vec<Operand>>,
) -> Result<Graph> {
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
    for (n, old) in graph.nodes.iter().enumerate() {
        for o in old.op.operands() {
            map[o.index()].ok_or_else(missing)?;
        }
        let mut op = old.op.clone();
        op.remap_operands(&|o: Operand| map[o.index()].unwrap_or(o));
        let outputs = node(&mut b, n, op)?;
        if outputs.len() != old.outputs.len() {
            return Err(Error::operation_error(format!(
                "the rewrite of {} gives {} outputs, not {}",
                old.op.name(),
                outputs.len(),
                old.outputs.len()
            )));
        }
        for (o, m) in old.outputs.iter().zip(outputs) {
            map[o.index()] = Some(m);
        }
    }
    let outputs: Vec<(&str, Operand)> = graph
        .outputs
        .iter()
        .map(|(name, o)| Ok((name.as_str(), map[o.index()].ok_or_else(missing)?)))
        .collect::<Result<_>>()?;
    b.build(&outputs)
}
