//! Activation fusion: a clamp or relu whose input is a convolution's or matrix product's
//! output that nothing else reads runs in that kernel's epilogue, and the activation node
//! becomes an alias of the fused result (relu6 after every MobileNet convolution, for one).

use crate::lower::float_option;
use webnn_core::{Graph, Node, Op, Source};

/// Per node: the clamp bounds fused into its epilogue, and whether it is an activation that
/// a producer absorbed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fusion {
    pub clamp: Vec<Option<[f32; 2]>>,
    pub absorbed: Vec<bool>,
}

/// The [low, high] bounds of a float clamp or relu node.
fn bounds(graph: &Graph, node: &Node) -> Option<[f32; 2]> {
    let (input, low, high) = match &node.op {
        Op::Relu(a) => (a.input, Some(0.0), None),
        Op::Clamp(a) => (
            a.input,
            a.options.min_value.map(|v| v.as_f64()),
            a.options.max_value.map(|v| v.as_f64()),
        ),
        _ => return None,
    };
    let t = graph.desc(input).data_type;
    if !t.is_float() {
        return None;
    }
    Some([
        low.map_or(f32::NEG_INFINITY, |v| float_option(t, v)),
        high.map_or(f32::INFINITY, |v| float_option(t, v)),
    ])
}

fn fusable(op: &Op) -> bool {
    matches!(
        op,
        Op::Conv2d(_) | Op::ConvTranspose2d(_) | Op::Matmul(_) | Op::Gemm(_)
    )
}

pub fn fuse(graph: &Graph) -> Fusion {
    let n = graph.nodes.len();
    let mut f = Fusion {
        clamp: vec![None; n],
        absorbed: vec![false; n],
    };
    let mut uses = vec![0usize; graph.operands.len()];
    for node in &graph.nodes {
        for o in node.op.operands() {
            uses[o.index()] += 1;
        }
    }
    for (_, o) in &graph.outputs {
        uses[o.index()] += 1;
    }
    for (k, node) in graph.nodes.iter().enumerate() {
        let Some(b) = bounds(graph, node) else {
            continue;
        };
        let input = node.op.operands()[0];
        let Source::Node { node: p, .. } = graph.info(input).source else {
            continue;
        };
        if uses[input.index()] == 1 && fusable(&graph.nodes[p].op) && f.clamp[p].is_none() {
            f.clamp[p] = Some(b);
            f.absorbed[k] = true;
        }
    }
    f
}
