//! The buffer plan: which GPU buffer holds each operand. Graph inputs, constants and graph
//! outputs have buffers of their own; intermediates share a pool of slots, a slot being free
//! again after the last node reading its value has run (nodes run in graph order, which is
//! topological). Aliases (reshape, identity) share their input's buffer.

use webnn_core::graph::Source;
use webnn_core::{Graph, Operand};

/// Where an operand's value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// The buffer of graph input k (`Graph::inputs` order).
    Input(usize),
    /// The buffer of constant k (operand order).
    Constant(usize),
    /// Dedicated buffer k of a value some graph output reads.
    Output(usize),
    /// Pool slot k.
    Slot(usize),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BufferPlan {
    /// Per operand: its buffer (None for operands no buffer holds, e.g. unused).
    pub loc: Vec<Option<Loc>>,
    /// Operand index of each constant buffer, in `Loc::Constant` order.
    pub constants: Vec<usize>,
    /// Byte size of each dedicated output buffer.
    pub output_bytes: Vec<u64>,
    /// Byte size of each pool slot (the largest value it ever holds).
    pub slot_bytes: Vec<u64>,
    /// Intermediate values placed in the pool.
    pub intermediates: usize,
}

/// Plans buffers for `graph`. `alias[n]` is the operand node n's output aliases (None when
/// the node writes a buffer of its own); `reads[n]` (when given) are operands node n's kernels
/// read besides its own (a fused kernel reads the inputs of the nodes it absorbed, which
/// come earlier); `bytes(i)` is the buffer size operand index i needs.
pub fn plan(graph: &Graph, alias: &[Option<Operand>], reads: &[Vec<Operand>], bytes: &dyn Fn(usize) -> u64) -> BufferPlan {
    let count = graph.operands.len();
    // The operand whose buffer each operand uses.
    let mut root: Vec<usize> = (0..count).collect();
    for (n, node) in graph.nodes.iter().enumerate() {
        if let Some(src) = alias.get(n).copied().flatten() {
            for o in &node.outputs {
                root[o.index()] = root[src.index()];
            }
        }
    }
    let mut p = BufferPlan {
        loc: vec![None; count],
        ..BufferPlan::default()
    };
    for (k, (_, o)) in graph.inputs.iter().enumerate() {
        p.loc[o.index()] = Some(Loc::Input(k));
    }
    for (i, info) in graph.operands.iter().enumerate() {
        if matches!(info.source, Source::Constant(_)) {
            p.loc[i] = Some(Loc::Constant(p.constants.len()));
            p.constants.push(i);
        }
    }
    // Values read by graph outputs live to the end in buffers of their own.
    for (_, o) in &graph.outputs {
        let r = root[o.index()];
        if p.loc[r].is_none() {
            p.loc[r] = Some(Loc::Output(p.output_bytes.len()));
            p.output_bytes.push(bytes(r));
        }
    }
    // The last node reading each root (a value nobody reads dies where it is made).
    let mut last_use: Vec<usize> = vec![0; count];
    for (n, node) in graph.nodes.iter().enumerate() {
        for o in &node.outputs {
            last_use[root[o.index()]] = last_use[root[o.index()]].max(n);
        }
        for o in node.op.operands().iter().chain(reads.get(n).into_iter().flatten()) {
            last_use[root[o.index()]] = last_use[root[o.index()]].max(n);
        }
    }
    let mut free: Vec<usize> = Vec::new();
    let mut dies_at: Vec<Vec<usize>> = vec![Vec::new(); graph.nodes.len()];
    for (n, node) in graph.nodes.iter().enumerate() {
        if alias.get(n).copied().flatten().is_none() {
            for o in &node.outputs {
                let r = o.index();
                if p.loc[r].is_some() {
                    continue;
                }
                let slot = take_slot(&mut free, &mut p.slot_bytes, bytes(r));
                p.loc[r] = Some(Loc::Slot(slot));
                p.intermediates += 1;
                dies_at[last_use[r]].push(slot);
            }
        }
        // Freed only after this node's outputs are placed: a kernel never writes a buffer
        // it reads.
        free.append(&mut dies_at[n]);
    }
    for (i, &r) in root.iter().enumerate() {
        if p.loc[i].is_none() && r != i {
            p.loc[i] = p.loc[r];
        }
    }
    p
}

/// A free slot for `need` bytes: the smallest free one that fits, else the largest free one
/// (grown), else a new one.
fn take_slot(free: &mut Vec<usize>, sizes: &mut Vec<u64>, need: u64) -> usize {
    let fits = free
        .iter()
        .enumerate()
        .filter(|(_, &s)| sizes[s] >= need)
        .min_by_key(|(_, &s)| sizes[s]);
    let pick = fits
        .or_else(|| free.iter().enumerate().max_by_key(|(_, &s)| sizes[s]))
        .map(|(k, _)| k);
    match pick {
        Some(k) => {
            let s = free.swap_remove(k);
            sizes[s] = sizes[s].max(need);
            s
        }
        None => {
            sizes.push(need);
            sizes.len() - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use webnn_core::ops::OpOptions;
    use webnn_core::{DataType, GraphBuilder, OperandDescriptor};

    fn no_alias(g: &Graph) -> Vec<Option<Operand>> {
        vec![None; g.nodes.len()]
    }

    /// Per node, the operand a reshape aliases (as lowering decides for reshape).
    fn reshape_aliases(g: &webnn_core::Graph) -> Vec<Option<Operand>> {
        g.nodes
            .iter()
            .map(|n| matches!(n.op, webnn_core::Op::Reshape(_)).then(|| n.op.operands()[0]))
            .collect()
    }

    #[test]
    fn a_chain_reuses_slots() {
        let mut b = GraphBuilder::new();
        let x = b
            .input("x", OperandDescriptor::new(DataType::Float32, &[4, 4]))
            .unwrap();
        let mut v = x;
        for _ in 0..6 {
            v = b.relu(v, OpOptions::default()).unwrap();
        }
        let g = b.build(&[("y", v)]).unwrap();
        let p = plan(&g, &no_alias(&g), &[], &|_| 64);
        // Five intermediates alternate between two slots; the sixth result is the output.
        assert_eq!(p.intermediates, 5);
        assert_eq!(p.slot_bytes.len(), 2);
        assert_eq!(p.output_bytes, vec![64]);
        assert_eq!(p.loc[x.index()], Some(Loc::Input(0)));
        // No node writes the slot it reads.
        for node in &g.nodes {
            let out = p.loc[node.outputs[0].index()];
            for i in node.op.operands() {
                assert_ne!(p.loc[i.index()], out);
            }
        }
    }

    /// `t3 = abs(neg(t1 = exp(x)))`: a builder and t1, t2, t3.
    fn three_steps() -> (GraphBuilder, [Operand; 3]) {
        let mut b = GraphBuilder::new();
        let x = b
            .input("x", OperandDescriptor::new(DataType::Float32, &[8]))
            .unwrap();
        let t1 = b.exp(x, OpOptions::default()).unwrap();
        let t2 = b.neg(t1, OpOptions::default()).unwrap();
        let t3 = b.abs(t2, OpOptions::default()).unwrap();
        (b, [t1, t2, t3])
    }

    #[test]
    fn a_value_read_later_keeps_its_slot() {
        let (mut b, [t1, t2, t3]) = three_steps();
        let y = b.add(t3, t1, OpOptions::default()).unwrap();
        let g = b.build(&[("y", y)]).unwrap();
        let p = plan(&g, &no_alias(&g), &[], &|_| 32);
        let slot = |o: Operand| p.loc[o.index()];
        assert_ne!(slot(t1), slot(t2));
        assert_ne!(slot(t1), slot(t3));
        // t2 is dead once t3 exists, so t3 can take t2's slot only after abs ran: not here.
        assert_ne!(slot(t2), slot(t3));
        assert_eq!(p.slot_bytes.len(), 3);
    }

    /// A fused kernel at node n reads a value whose named readers (the absorbed nodes) all
    /// come earlier: its slot stays its own until n, so the kernel never writes what it reads.
    #[test]
    fn a_fused_kernel_keeps_what_it_reads() {
        let (mut b, [t1, t2, t3]) = three_steps();
        let t4 = b.relu(t3, OpOptions::default()).unwrap();
        let y = b.relu(t4, OpOptions::default()).unwrap();
        let g = b.build(&[("y", y)]).unwrap();
        let slot = |p: &BufferPlan, o: Operand| p.loc[o.index()];
        // Without the extra read, t1's slot is free again once neg ran, and t3 takes it.
        let p = plan(&g, &no_alias(&g), &[], &|_| 32);
        assert_eq!(slot(&p, t1), slot(&p, t3));
        let reads = vec![vec![], vec![], vec![], vec![t1], vec![]];
        let p = plan(&g, &no_alias(&g), &reads, &|_| 32);
        for o in [t2, t3, t4] {
            assert_ne!(slot(&p, t1), slot(&p, o));
        }
    }

    #[test]
    fn slots_grow_to_their_largest_value_and_aliases_share() {
        let mut b = GraphBuilder::new();
        let x = b
            .input("x", OperandDescriptor::new(DataType::Float32, &[2, 3]))
            .unwrap();
        let t1 = b.relu(x, OpOptions::default()).unwrap();
        let r = b.reshape(t1, vec![6.into()], OpOptions::default()).unwrap();
        let t2 = b.exp(r, OpOptions::default()).unwrap();
        let t3 = b.cast(t2, DataType::Int64, OpOptions::default()).unwrap();
        let y = b.neg(t3, OpOptions::default()).unwrap();
        let g = b.build(&[("y", y)]).unwrap();
        let alias = reshape_aliases(&g);
        let size = |i: usize| g.operands[i].desc.max_byte_length().unwrap_or(0);
        let p = plan(&g, &alias, &[], &size);
        assert_eq!(p.loc[r.index()], p.loc[t1.index()]);
        assert_eq!(p.intermediates, 3);
        // t1 (24 bytes) dies at exp; t3 (48 bytes) takes its slot, grown.
        assert_eq!(p.slot_bytes.len(), 2);
        assert!(p.slot_bytes.contains(&48));
    }

    #[test]
    fn outputs_read_through_an_alias_get_their_own_buffer() {
        let mut b = GraphBuilder::new();
        let x = b
            .input("x", OperandDescriptor::new(DataType::Float32, &[2, 2]))
            .unwrap();
        let t = b.relu(x, OpOptions::default()).unwrap();
        let r = b.reshape(t, vec![4.into()], OpOptions::default()).unwrap();
        let y = b.exp(t, OpOptions::default()).unwrap();
        let g = b.build(&[("r", r), ("y", y)]).unwrap();
        let alias = reshape_aliases(&g);
        let p = plan(&g, &alias, &[], &|_| 16);
        assert_eq!(p.loc[r.index()], Some(Loc::Output(0)));
        assert_eq!(p.loc[t.index()], Some(Loc::Output(0)));
        assert_eq!(p.loc[y.index()], Some(Loc::Output(1)));
        assert_eq!(p.intermediates, 0);
    }
}
