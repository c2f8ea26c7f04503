//! `MLGraph`: a graph compiled for its context's backend.

use crate::context::{next_id, Context};
use crate::tensor::{Storage, Tensor};
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use webnn_core::{Error, Graph as CoreGraph, OperandDescriptor, Result};
use webnn_cpu::CpuGraph;
use webnn_wgpu::WgpuGraph;

pub(crate) enum Compiled {
    Reference(CpuGraph),
    Wgpu(Box<WgpuGraph>),
    /// A backend that computes on host tensors (the fast CPU backend, ONNX Runtime, CoreML).
    Host(Box<dyn webnn_core::Executable>),
}

pub(crate) struct GraphInner {
    pub(crate) context: u64,
    pub(crate) inputs: Vec<(String, OperandDescriptor)>,
    pub(crate) outputs: Vec<(String, OperandDescriptor)>,
    /// (input, output) names one tensor may serve at once (`Graph::in_place_pairs`).
    pub(crate) in_place: Vec<(String, String)>,
    /// `None` once destroyed.
    compiled: RefCell<Option<Compiled>>,
    id: u64,
}

/// `MLGraph`. Cloning gives another handle to the same graph.
#[derive(Clone)]
pub struct Graph(pub(crate) Rc<GraphInner>);

type Pending = Pin<Box<dyn Future<Output = Result<()>>>>;

impl Graph {
    pub(crate) fn new(ctx: &Context, graph: &CoreGraph, compiled: Compiled) -> Graph {
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

    /// On WebGPU, the sets of kernel steps and bind groups built for the sizes met so far
    /// (one unless a size needed other kernels); None elsewhere or once destroyed.
    pub fn shapes_built(&self) -> Option<usize> {
        match self.0.compiled.borrow().as_ref() {
            Some(Compiled::Wgpu(g)) => Some(g.shapes_built()),
            _ => None,
        }
    }

    /// On WebGPU, the bytes the last dispatch copied between GPU buffers (0 when the graph
    /// reads and writes the bound tensors directly); None elsewhere.
    pub fn copied_bytes(&self) -> Option<u64> {
        match self.0.compiled.borrow().as_ref() {
            Some(Compiled::Wgpu(g)) => Some(g.copied_bytes()),
            _ => None,
        }
    }

    /// On WebGPU, the kernel dispatches one run records; None elsewhere.
    pub fn dispatch_count(&self) -> Option<usize> {
        match self.0.compiled.borrow().as_ref() {
            Some(Compiled::Wgpu(g)) => Some(g.dispatch_count()),
            _ => None,
        }
    }

    pub fn is_destroyed(&self) -> bool {
        self.0.compiled.borrow().is_none()
    }

    /// `MLGraph.destroy()`: frees the compiled graph (and its GPU buffers) now.
    pub fn destroy(&self) {
        self.0.compiled.borrow_mut().take();
    }

    /// Runs on bound tensors whose names and descriptors the context has checked.
    pub(crate) fn run(&self, inputs: &[(&str, &Tensor)], outputs: &[(&str, &Tensor)]) -> Result<Option<Pending>> {
        let mut compiled = self.0.compiled.borrow_mut();
        match compiled.as_mut() {
            None => Err(Error::invalid_state("dispatch: the graph is destroyed")),
            Some(Compiled::Reference(g)) => {
                let mut feeds = HashMap::new();
                for (name, t) in inputs {
                    let storage = t.0.storage.borrow();
                    let Some(Storage::Host(bytes)) = &*storage else {
                        return Err(Error::type_error(format!("dispatch: input '{name}' is not a CPU tensor")));
                    };
                    feeds.insert((*name).to_owned(), webnn_cpu::Tensor::from_bytes(t.desc(), bytes)?);
                }
                for (name, value) in g.run(&feeds)? {
                    let t = outputs.iter().find(|(n, _)| *n == name).map(|(_, t)| *t);
                    if let Some(t) = t {
                        t.write(&value.to_bytes())?;
                    }
                }
                Ok(None)
            }
            Some(Compiled::Host(exe)) => {
                // A tensor bound to both sides of an in-place pair is lent to the backend
                // (its bytes moved out and back, never copied); other inputs are copied.
                let shared = |name: &str, t: &Tensor| {
                    self.0.in_place.iter().find(|(i, o)| {
                        i == name && outputs.iter().any(|(n, u)| n == o && Rc::ptr_eq(&u.0, &t.0))
                    })
                };
                let mut feeds = Vec::new();
                let mut lent = Vec::new();
                for (name, t) in inputs {
                    let mut storage = t.0.storage.borrow_mut();
                    let Some(Storage::Host(bytes)) = &mut *storage else {
                        return Err(Error::type_error(format!("dispatch: input '{name}' is not a host tensor")));
                    };
                    let bytes = match shared(name, t) {
                        Some((_, o)) => {
                            lent.push((*name, o.as_str(), *t));
                            continue;
                        }
                        None => bytes.clone(),
                    };
                    feeds.push((*name, webnn_core::HostTensor { desc: t.desc().clone(), bytes }));
                }
                let mut held: Vec<webnn_core::HostTensor> = lent
                    .iter()
                    .map(|(_, _, t)| {
                        let bytes = match &mut *t.0.storage.borrow_mut() {
                            Some(Storage::Host(b)) => std::mem::take(b),
                            _ => Vec::new(),
                        };
                        webnn_core::HostTensor { desc: t.desc().clone(), bytes }
                    })
                    .collect();
                let feeds: Vec<(&str, &webnn_core::HostTensor)> = feeds.iter().map(|(n, t)| (*n, t)).collect();
                let mut inout: Vec<webnn_core::InPlace> = lent
                    .iter()
                    .zip(held.iter_mut())
                    .map(|((input, output, _), tensor)| webnn_core::InPlace { input, output, tensor })
                    .collect();
                let result = exe.dispatch_in_place(&feeds, &mut inout);
                drop(inout);
                let mut resized = None;
                for ((name, _, t), h) in lent.iter().zip(held) {
                    // Back in place whatever happened; a backend that failed midway may have
                    // left part of an update, as a failed GPU dispatch would. One that left
                    // another size is a backend bug: the tensor keeps its size, zeroed.
                    let bytes = match h.bytes.len() == t.0.bytes {
                        true => h.bytes,
                        false => {
                            resized.get_or_insert(*name);
                            vec![0; t.0.bytes]
                        }
                    };
                    *t.0.storage.borrow_mut() = Some(Storage::Host(bytes));
                }
                let result = result?;
                if let Some(name) = resized {
                    return Err(Error::operation_error(format!("dispatch: the backend changed the size of in-place tensor '{name}'")));
                }
                for (name, value) in result {
                    if let Some((_, t)) = outputs.iter().find(|(n, _)| *n == name) {
                        t.write(&value.bytes)?;
                    }
                }
                Ok(None)
            }
            Some(Compiled::Wgpu(g)) => {
                let ins = gpu_tensors(inputs)?;
                let outs = gpu_tensors(outputs)?;
                let ins: Vec<(&str, &webnn_wgpu::WgpuTensor)> = ins.iter().map(|(n, t)| (*n, &**t)).collect();
                let outs: Vec<(&str, &webnn_wgpu::WgpuTensor)> = outs.iter().map(|(n, t)| (*n, &**t)).collect();
                g.submit_tensors(&ins, &outs).map(Some)
            }
        }
    }
}

type GpuRef<'a> = std::cell::Ref<'a, webnn_wgpu::WgpuTensor>;

fn gpu_tensors<'a>(bound: &[(&'a str, &'a Tensor)]) -> Result<Vec<(&'a str, GpuRef<'a>)>> {
    bound
        .iter()
        .map(|(name, t)| {
            let r = std::cell::Ref::filter_map(t.0.storage.borrow(), |s| match s {
                Some(Storage::Gpu(g)) => Some(g),
                _ => None,
            })
            .map_err(|_| Error::type_error(format!("dispatch: '{name}' is not a WebGPU tensor")))?;
            Ok((*name, r))
        })
        .collect()
}
