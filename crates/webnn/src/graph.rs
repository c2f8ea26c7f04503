//! `MLGraph`: a graph compiled for its context's backend.

use crate::context::{next_id, Context};
use std::cell::RefCell;
use std::rc::Rc;
use webnn_core::{Bound, Error, Executable, Graph as CoreGraph, GraphStats, OperandDescriptor, Pending, Result};

pub(crate) struct GraphInner {
    pub(crate) context: u64,
    pub(crate) inputs: Vec<(String, OperandDescriptor)>,
    pub(crate) outputs: Vec<(String, OperandDescriptor)>,
    /// (input, output) names one tensor may serve at once (`Graph::in_place_pairs`).
    pub(crate) in_place: Vec<(String, String)>,
    /// `None` once destroyed.
    compiled: RefCell<Option<Box<dyn Executable>>>,
    id: u64,
}

/// `MLGraph`. Cloning gives another handle to the same graph.
#[derive(Clone)]
pub struct Graph(pub(crate) Rc<GraphInner>);

impl Graph {
    pub(crate) fn new(ctx: &Context, graph: &CoreGraph, compiled: Box<dyn Executable>) -> Graph {
        let named = |v: &[(String, webnn_core::Operand)]| -> Vec<(String, OperandDescriptor)> {
            v.iter().map(|(n, o)| (n.clone(), graph.desc(*o).clone())).collect()
        };
        Graph(Rc::new(GraphInner {
            context: ctx.0.id,
            inputs: named(&graph.inputs),
            outputs: named(&graph.outputs),
            in_place: graph
                .in_place_pairs()
                .into_iter()
                .map(|(i, o)| (graph.inputs[i].0.clone(), graph.outputs[o].0.clone()))
                .collect(),
            compiled: RefCell::new(Some(compiled)),
            id: next_id(),
        }))
    }

    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The graph's inputs with their descriptors.
    pub fn inputs(&self) -> &[(String, OperandDescriptor)] {
        &self.0.inputs
    }

    pub fn outputs(&self) -> &[(String, OperandDescriptor)] {
        &self.0.outputs
    }

    /// The (input, output) pairs one tensor may be bound to in one dispatch: outputs that are
    /// in-place updates (`scatterND`/`scatterElements`) of an input nothing else reads.
    pub fn in_place_pairs(&self) -> &[(String, String)] {
        &self.0.in_place
    }

    /// Counters the backend keeps for the compiled graph (kernel dispatches per run, shapes
    /// built, bytes copied by the last dispatch); empty once destroyed.
    pub fn stats(&self) -> GraphStats {
        self.0.compiled.borrow().as_ref().map(|g| g.stats()).unwrap_or_default()
    }

    /// On WebGPU, the sets of kernel steps and bind groups built for the sizes met so far
    /// (one unless a size needed other kernels); None elsewhere or once destroyed.
    pub fn shapes_built(&self) -> Option<usize> {
        self.stats().shapes_built
    }

    /// On WebGPU, the bytes the last dispatch copied between GPU buffers (0 when the graph
    /// reads and writes the bound tensors directly); None elsewhere.
    pub fn copied_bytes(&self) -> Option<u64> {
        self.stats().copied_bytes
    }

    /// On WebGPU, the kernel dispatches one run records; None elsewhere.
    pub fn dispatch_count(&self) -> Option<usize> {
        self.stats().dispatches
    }

    pub fn is_destroyed(&self) -> bool {
        self.0.compiled.borrow().is_none()
    }

    /// `MLGraph.destroy()`: frees the compiled graph (and its GPU buffers) now.
    pub fn destroy(&self) {
        self.0.compiled.borrow_mut().take();
    }

    /// Runs on bound tensors whose names, descriptors and sharing the context has checked.
    pub(crate) fn run(&self, bound: &mut Bound<'_>) -> Result<Option<Pending>> {
        match self.0.compiled.borrow_mut().as_mut() {
            None => Err(Error::invalid_state("dispatch: the graph is destroyed")),
            Some(g) => g.dispatch_bound(bound),
        }
    }
}
