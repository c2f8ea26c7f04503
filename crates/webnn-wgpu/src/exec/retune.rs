//! Following a dynamic dimension whose size changed without lowering the whole graph again.
//! A decoder's context grows by one at every step: of SmolLM2's 2,749 nodes, the attention
//! kernels and the views of the caches read that size, and relowering all of them (a
//! resolved copy of the graph, every node's kernels and blocks, 128 KB of uniforms) took
//! about 6 ms of host time per step. Here only the nodes that read a changed dimension are
//! lowered at the new sizes, and only their steps' uniform blocks and grids are rewritten;
//! a change that would pick other kernels or windows goes the full way (`WgpuGraph::select`).

use super::build::{block_stride, grid};
use super::{keep_kernels, lower_node, operand_bytes, WgpuGraph};
use crate::fuse::Fusion;
use crate::lower::Lowering;
use std::sync::Arc;
use webnn_core::{Dim, DimBindings, Graph, Op, Operand, Result};

/// What a size change needs, kept with a dynamic graph.
pub(super) struct Retune {
    /// Per dynamic dimension (as `Dynamic::names`): the operands whose shapes name it, the
    /// nodes whose payloads name it, and the nodes whose kernels read one of those operands
    /// or name it in their payload.
    operands: Vec<Vec<usize>>,
    payloads: Vec<Vec<usize>>,
    nodes: Vec<Vec<usize>>,
    /// The graph resolved at `Dynamic::sizes`, patched as they change, and its operands'
    /// buffer bytes; `None` when a change failed midway (the full path resets them).
    current: Option<(Graph, Vec<u64>)>,
    fusion: Fusion,
}

/// Whether `d` is dimension `name` or a derived one with it among its terms (`past+1`).
fn names_dim(d: &Dim, name: &str) -> bool {
    matches!(d, Dim::Dynamic { name: n, .. } if n.split('+').any(|term| term == name))
}

/// The dimensions a node's payload holds (the rest of a payload holds numbers or operands).
fn payload_dims(op: &Op) -> &[Dim] {
    match op {
        Op::Reshape(a) => &a.new_shape,
        Op::Expand(a) => &a.new_shape,
        Op::Slice(a) => &a.sizes,
        _ => &[],
    }
}

impl Retune {
    /// For `graph` (dynamic dimensions unresolved) resolved at its bounds as `bound`, with
    /// the operands each node's kernels read besides its own (`Patterns::reads`).
    pub(super) fn new(graph: &Graph, names: &[Arc<str>], reads: &[Vec<Operand>], bound: Graph, bytes: Vec<u64>, fusion: Fusion) -> Retune {
        let mut operands = Vec::with_capacity(names.len());
        let mut payloads = Vec::with_capacity(names.len());
        let mut nodes = Vec::with_capacity(names.len());
        for name in names {
            let mut named = vec![false; graph.operands.len()];
            for (i, info) in graph.operands.iter().enumerate() {
                named[i] = info.desc.shape.iter().any(|d| names_dim(d, name));
            }
            let readers: Vec<usize> = graph
                .nodes
                .iter()
                .enumerate()
                .filter(|(k, node)| {
                    let touched = node.op.operands().into_iter().chain(node.outputs.iter().copied()).chain(reads[*k].iter().copied());
                    payload_dims(&node.op).iter().any(|d| names_dim(d, name)) || touched.into_iter().any(|o| named[o.index()])
                })
                .map(|(k, _)| k)
                .collect();
            operands.push((0..named.len()).filter(|&i| named[i]).collect());
            payloads.push(readers.iter().copied().filter(|&k| payload_dims(&graph.nodes[k].op).iter().any(|d| names_dim(d, name))).collect());
            nodes.push(readers);
        }
        Retune { operands, payloads, nodes, current: Some((bound, bytes)), fusion }
    }

    /// After the full path lowered `graph` (resolved at the new sizes) with `bytes`.
    pub(super) fn reset(&mut self, graph: Graph, bytes: Vec<u64>) {
        self.current = Some((graph, bytes));
    }
}

impl WgpuGraph {
    /// Moves the current steps to sizes `key` (per dynamic dimension) bound as `dims`, when
    /// the dimensions that changed are read by few nodes and those keep their kernels, each
    /// in one window; false (nothing changed) otherwise.
    pub(super) fn retune(&mut self, key: &[u32], dims: &DimBindings) -> Result<bool> {
        let Some(d) = &mut self.dynamic else { return Ok(false) };
        let changed: Vec<usize> = (0..key.len()).filter(|&i| key[i] != d.sizes[i]).collect();
        let mut nodes: Vec<usize> = changed.iter().flat_map(|&i| d.retune.nodes[i].iter().copied()).collect();
        nodes.sort_unstable();
        nodes.dedup();
        // A prompt's new length changes most nodes: lowering them all is no dearer there.
        if nodes.len() * 4 > d.graph.nodes.len() {
            return Ok(false);
        }
        // A node a fused kernel absorbed (or keeps as its scratch) lowers to the same alias
        // (or to nothing) at every size: of the 360 nodes a decode step of SmolLM2 changes,
        // 240 are, and they are not lowered again.
        let (patterns, fusion) = (&d.patterns, &d.retune.fusion);
        nodes.retain(|&k| !(patterns.scratch[k] || patterns.absorbed[k] || fusion.absorbed[k]));
        let Some((mut current, mut bytes)) = d.retune.current.take() else { return Ok(false) };
        // In place: the resolved shapes keep their ranks.
        let refix = |to: &mut [Dim], from: &[Dim]| {
            for (t, f) in to.iter_mut().zip(from) {
                *t = dims.fixed(f);
            }
        };
        for &i in &changed {
            for &o in &d.retune.operands[i] {
                let desc = &mut current.operands[o].desc;
                refix(&mut desc.shape, &d.graph.operands[o].desc.shape);
                bytes[o] = operand_bytes(&self.gpu, desc)?;
            }
            for &k in &d.retune.payloads[i] {
                let from = payload_dims(&d.graph.nodes[k].op);
                match &mut current.nodes[k].op {
                    Op::Reshape(a) => refix(&mut a.new_shape, from),
                    Op::Expand(a) => refix(&mut a.new_shape, from),
                    Op::Slice(a) => refix(&mut a.sizes, from),
                    _ => {}
                }
            }
        }
        // Each node's new calls against its steps: the same kernels, one window each.
        let cpu_adapter = d.options.cpu_adapter;
        let mut steps_of: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (s, step) in self.shaped.steps.iter().enumerate() {
            if let Ok(i) = nodes.binary_search(&step.node) {
                steps_of[i].push(s);
            }
        }
        let mut blocks = Vec::new();
        for (&k, steps) in nodes.iter().zip(&steps_of) {
            let mut lowered = [lower_node(&current, k, &d.patterns, &d.retune.fusion, cpu_adapter)?];
            keep_kernels(&mut lowered, std::slice::from_ref(&d.keys[k]));
            let calls = match (&lowered[0], d.alias[k]) {
                (Lowering::Alias(_), Some(_)) => continue,
                (Lowering::Kernels(calls), None) if calls.len() == steps.len() => calls,
                _ => return Ok(false),
            };
            for (call, &s) in calls.iter().zip(steps) {
                let step = &self.shaped.steps[s];
                let mut bound = std::iter::once(call.output).chain(call.inputs.iter().copied());
                let one = bound.all(|o| bytes[o.index()] <= self.max_binding);
                if call.key != step.key || !step.single_window || !one {
                    return Ok(false);
                }
                blocks.push((s, call.key, call.uniform));
            }
        }
        // The blocks that changed, patched into the kept contents and written as one span
        // (a decode step changes a few dozen, of SmolLM2's 309 steps).
        let stride = block_stride(&self.gpu) as usize;
        let mut span: Option<(usize, usize)> = None;
        for (s, key, uniform) in blocks {
            let b = uniform.bytes();
            let at = s * stride;
            if let Some(old) = self.shaped.blocks.get_mut(at..at + b.len()).filter(|old| *old != b) {
                old.copy_from_slice(b);
                span = Some(span.map_or((at, at + b.len()), |(lo, hi)| (lo.min(at), hi.max(at + b.len()))));
            }
            self.shaped.steps[s].groups = grid(key, &uniform);
        }
        if let (Some(u), Some((lo, hi))) = (&self.shaped._uniforms, span) {
            self.gpu.queue.write_buffer(u, lo as u64, &self.shaped.blocks[lo..hi]);
        }
        self.update_output_reads(&current, &bytes);
        self.shaped.input_bytes = current.inputs.iter().map(|(_, o)| bytes[o.index()]).collect();
        if let Some(d) = &mut self.dynamic {
            d.sizes = key.to_vec();
            d.retune.current = Some((current, bytes));
        }
        Ok(true)
    }
}
