//! The graph IR: operands, nodes in build (hence topological) order, inputs, constants, outputs.

use crate::error::{Error, Result};
use crate::ops::Op;
use crate::shape::{Dim, OperandDescriptor};
use std::sync::Arc;

/// A handle to an operand of one builder (`MLOperand`). It names its builder so an operand
/// passed to another builder is rejected instead of silently aliasing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Operand {
    pub(crate) builder: u32,
    pub(crate) index: u32,
}

impl Operand {
    /// The operand's index in `Graph::operands`.
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// The builder id and index, for bindings that hand operands to another language.
    pub fn to_raw(self) -> (u32, u32) {
        (self.builder, self.index)
    }

    /// The inverse of `to_raw`. A forged pair is still rejected by the builder's own check
    /// (`the operand was not created by this builder`).
    pub fn from_raw(builder: u32, index: u32) -> Operand {
        Operand { builder, index }
    }
}

/// Where an operand's value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A graph input bound at dispatch.
    Input(String),
    /// Constant data, packed as the data type is laid out in memory (int4 two per byte).
    Constant(Arc<[u8]>),
    /// Output `index` of node `node`.
    Node { node: usize, index: usize },
}

#[derive(Clone, Debug, PartialEq)]
pub struct OperandInfo {
    pub desc: OperandDescriptor,
    pub source: Source,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub op: Op,
    pub outputs: Vec<Operand>,
}

/// A graph. While building it holds everything created so far; `GraphBuilder::build` returns
/// one holding only what the named outputs depend on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    pub operands: Vec<OperandInfo>,
    pub nodes: Vec<Node>,
    pub inputs: Vec<(String, Operand)>,
    pub outputs: Vec<(String, Operand)>,
}

impl Graph {
    pub fn info(&self, o: Operand) -> &OperandInfo {
        &self.operands[o.index()]
    }
    pub fn desc(&self, o: Operand) -> &OperandDescriptor {
        &self.operands[o.index()].desc
    }
    /// The constant data of an operand, if it is a constant.
    pub fn constant_data(&self, o: Operand) -> Option<&[u8]> {
        match &self.operands[o.index()].source {
            Source::Constant(d) => Some(d),
            Source::Input(_) | Source::Node { .. } => None,
        }
    }
    pub fn input_desc(&self, name: &str) -> Option<&OperandDescriptor> {
        self.inputs.iter().find(|(n, _)| n == name).map(|(_, o)| self.desc(*o))
    }
    pub fn output_desc(&self, name: &str) -> Option<&OperandDescriptor> {
        self.outputs.iter().find(|(n, _)| n == name).map(|(_, o)| self.desc(*o))
    }

    /// Whether any input has a dynamic dimension (flexible inputs).
    pub fn is_dynamic(&self) -> bool {
        self.inputs.iter().any(|(_, o)| !self.desc(*o).is_static())
    }

    /// The (input, output) pairs that may be bound to one tensor at dispatch (the in-place
    /// KV-cache update). Output k may alias input j when output k is `scatterND` or
    /// `scatterElements` of input j itself, that scatter is input j's only reader, and no other
    /// output names the same value. Aliasing then cannot change a result: the input's old
    /// contents are read by nothing but the update that replaces them. Indices as
    /// (`inputs` position, `outputs` position).
    pub fn in_place_pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        for (k, (_, out)) in self.outputs.iter().enumerate() {
            let Source::Node { node, .. } = self.info(*out).source else { continue };
            let target = match &self.nodes[node].op {
                Op::ScatterNd(a) => a.input,
                Op::ScatterElements(a) => a.input,
                _ => continue,
            };
            let Some(j) = self.inputs.iter().position(|(_, o)| *o == target) else { continue };
            let readers = self.nodes.iter().filter(|n| n.op.operands().contains(&target)).count();
            let named = self.outputs.iter().filter(|(_, o)| o == out).count();
            // The index tensors and updates must not be the input either (`scatterND(x, i, x)`).
            let reads = self.nodes[node].op.operands().iter().filter(|o| **o == target).count();
            if readers == 1 && named == 1 && reads == 1 {
                pairs.push((j, k));
            }
        }
        pairs
    }

    /// The graph with every dynamic dimension at its size in `dims` (or at its bound where
    /// `dims` does not name it): what a backend that plans with static shapes compiles.
    pub fn resolved(&self, dims: &crate::shape::DimBindings) -> Graph {
        let fix = |d: &Dim| dims.fixed(d);
        let mut g = self.clone();
        for info in &mut g.operands {
            info.desc.shape = info.desc.shape.iter().map(fix).collect();
        }
        // Only these payloads hold dimensions (the rest hold numbers or operands).
        for node in &mut g.nodes {
            if let Op::Reshape(a) = &mut node.op {
                a.new_shape = a.new_shape.iter().map(fix).collect();
            }
            if let Op::Expand(a) = &mut node.op {
                a.new_shape = a.new_shape.iter().map(fix).collect();
            }
            if let Op::Slice(a) = &mut node.op {
                a.sizes = a.sizes.iter().map(fix).collect();
            }
        }
        g
    }

    /// Checks an operand belongs to the graph being built by builder `id`.
    pub(crate) fn check_operand(&self, builder: u32, o: Operand) -> Result<()> {
        if o.builder != builder || o.index() >= self.operands.len() {
            return Err(Error::type_error("the operand was not created by this builder"));
        }
        Ok(())
    }

    /// The subgraph the outputs depend on: unreachable nodes, inputs and constants are dropped
    /// and operands renumbered; node order (topological) is kept.
    pub(crate) fn pruned(&self, outputs: &[(String, Operand)]) -> Graph {
        let mut live = vec![false; self.operands.len()];
        for (_, o) in outputs {
            live[o.index()] = true;
        }
        let mut live_nodes = vec![false; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate().rev() {
            if node.outputs.iter().any(|o| live[o.index()]) {
                live_nodes[i] = true;
                for o in node.op.operands() {
                    live[o.index()] = true;
                }
            }
        }
        // An input that declares a dynamic dimension the kept graph uses stays: its tensor
        // gives the size at dispatch even when no op reads its data.
        let mut used: Vec<&str> = Vec::new();
        for (i, info) in self.operands.iter().enumerate() {
            if live[i] {
                for d in &info.desc.shape {
                    if let Dim::Dynamic { name, .. } = d {
                        used.extend(name.split('+'));
                    }
                }
            }
        }
        for (_, o) in &self.inputs {
            let declares = self.desc(*o).shape.iter().any(|d| match d {
                Dim::Dynamic { name, .. } => used.contains(&&**name),
                Dim::Static(_) => false,
            });
            if declares {
                live[o.index()] = true;
            }
        }
        let mut remap = vec![u32::MAX; self.operands.len()];
        let mut g = Graph::default();
        let builder = outputs.first().map(|(_, o)| o.builder).unwrap_or(0);
        let map = |old: Operand, remap: &mut Vec<u32>, g: &mut Graph, node: Option<(usize, usize)>| {
            let info = &self.operands[old.index()];
            let source = match (node, &info.source) {
                (Some((n, i)), _) => Source::Node { node: n, index: i },
                (None, s) => s.clone(),
            };
            remap[old.index()] = g.operands.len() as u32;
            g.operands.push(OperandInfo { desc: info.desc.clone(), source });
        };
        // Inputs and constants first, in creation order, then node outputs.
        for (i, info) in self.operands.iter().enumerate() {
            if live[i] && !matches!(info.source, Source::Node { .. }) {
                map(Operand { builder, index: i as u32 }, &mut remap, &mut g, None);
            }
        }
        let mut node_index = 0;
        for (i, node) in self.nodes.iter().enumerate() {
            if !live_nodes[i] {
                continue;
            }
            for (k, o) in node.outputs.iter().enumerate() {
                map(*o, &mut remap, &mut g, Some((node_index, k)));
            }
            node_index += 1;
        }
        let re = |o: Operand| Operand { builder: o.builder, index: remap[o.index()] };
        for (i, node) in self.nodes.iter().enumerate() {
            if live_nodes[i] {
                let mut op = node.op.clone();
                op.remap_operands(&re);
                g.nodes.push(Node { op, outputs: node.outputs.iter().map(|o| re(*o)).collect() });
            }
        }
        g.inputs = self
            .inputs
            .iter()
            .filter(|(_, o)| live[o.index()])
            .map(|(n, o)| (n.clone(), re(*o)))
            .collect();
        g.outputs = outputs.iter().map(|(n, o)| (n.clone(), re(*o))).collect();
        g
    }
}
