//! Float16 round trips of values already on float16's grid. A float16 model exported to
//! compute in float32 (ONNX Runtime's float16 converter with its keep-float32 lists, this
//! project's own float16 export) writes `cast(cast(x, 'float16'), 'float32')` after every
//! op, and its importer often widens a value to float32 only to round it again for the next
//! op. Rounding a value that is already on the grid gives the value back, so those round
//! trips are dropped here instead of being computed.

use crate::dtype::DataType;
use crate::error::Result;
use crate::graph::{Graph, Operand, Source};
use crate::ops::Op;
use std::collections::{HashMap, HashSet};

/// `graph` with each float32 → float16 → float32 round trip of a value on float16's grid (a
/// float16 value widened to float32) replaced by that value, or `None` when it has none.
/// Results are bit for bit the same, except that a signalling float16 NaN read through a
/// dropped round trip stays signalling (no float16 op can tell the difference).
pub fn drop_round_trips(graph: &Graph) -> Result<Option<Graph>> {
    let producer = |o: Operand| match graph.info(o).source {
        Source::Node { node, .. } => Some(&graph.nodes[node].op),
        Source::Input(_) | Source::Constant(_) => None,
    };
    let cast_of = |o: Operand, to: DataType| match producer(o) {
        Some(Op::Cast(c)) if c.data_type == to && graph.desc(o).data_type == to => Some(c.input),
        _ => None,
    };
    // A float16 value widened: on the grid.
    let on_grid = |v: Operand| cast_of(v, DataType::Float32).is_some_and(|x| graph.desc(x).data_type == DataType::Float16);
    let outputs: Vec<usize> = graph.outputs.iter().map(|(_, o)| o.index()).collect();
    // Node -> the value its output equals.
    let mut same: HashMap<usize, Operand> = HashMap::new();
    for (n, node) in graph.nodes.iter().enumerate() {
        let y = node.outputs[0];
        if !matches!(&node.op, Op::Cast(_)) || outputs.contains(&y.index()) {
            continue;
        }
        let rounded = cast_of(y, DataType::Float32).and_then(|h| cast_of(h, DataType::Float16));
        if let Some(v) = rounded.filter(|&v| graph.desc(v).data_type == DataType::Float32 && on_grid(v)) {
            same.insert(n, v);
        }
    }
    if same.is_empty() {
        return Ok(None);
    }
    // The new graph's operand for each value a dropped round trip returns, as it is made.
    let wanted: HashSet<usize> = same.values().map(|v| v.index()).collect();
    let mut made: HashMap<usize, Operand> = HashMap::new();
    super::rebuild(graph, |b, n, op| {
        let outputs = match same.get(&n) {
            Some(v) => vec![made[&v.index()]],
            None => b.add_op(op)?,
        };
        for (old, new) in graph.nodes[n].outputs.iter().zip(&outputs) {
            if wanted.contains(&old.index()) {
                made.insert(old.index(), *new);
            }
        }
        Ok(outputs)
    })
    .map(Some)
}

#[cfg(test)]
mod tests {
    use crate::ops::OpOptions;
    use crate::{DataType, GraphBuilder, Op, OperandDescriptor};

    fn casts(g: &crate::Graph) -> usize {
        g.nodes.iter().filter(|n| matches!(n.op, Op::Cast(_))).count()
    }

    /// A round trip of a computed value rounds and stays; one of a value widened from
    /// float16, or of a round trip's result, is that value.
    #[test]
    fn round_trips_of_values_on_the_grid_go() {
        let mut b = GraphBuilder::new();
        let none = OpOptions::default;
        let half = b.input("h", OperandDescriptor::new(DataType::Float16, &[4])).unwrap();
        let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[4])).unwrap();
        let round_trip = |b: &mut GraphBuilder, v| {
            let h = b.cast(v, DataType::Float16, none()).unwrap();
            b.cast(h, DataType::Float32, none()).unwrap()
        };
        let wide = b.cast(half, DataType::Float32, none()).unwrap();
        let a = round_trip(&mut b, wide);
        let y = b.relu(x, none()).unwrap();
        let y = round_trip(&mut b, y);
        let y = round_trip(&mut b, y);
        let sum = b.add(a, y, none()).unwrap();
        let graph = b.build(&[("sum", sum)]).unwrap();
        assert_eq!(casts(&graph), 7);
        let dropped = super::drop_round_trips(&graph).unwrap().expect("two round trips go");
        assert_eq!(casts(&dropped), 3, "the widening and the relu's round trip stay");
        assert!(super::drop_round_trips(&dropped).unwrap().is_none());
    }
}
