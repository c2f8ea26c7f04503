//! What every backend implements, so the facade (`webnn`), the browser binding and the WPT
//! harness drive any of them through one interface.
//!
//! A backend compiles validated graphs ([`Backend::compile`]) and runs them on tensors it
//! owns ([`Backend::create_tensor`], [`Executable::dispatch_bound`]). A backend that computes
//! in host memory implements only `name`, `capabilities` and `compile` (and
//! [`Executable::dispatch`]): its tensors are [`HostTensor`]s and the default methods bind
//! them, update in-place pairs without copies and read them back. A device backend (WebGPU)
//! overrides the tensor and dispatch methods to keep data on the device.

use crate::error::Result;
use crate::graph::Graph;
use crate::limits::Capabilities;
use crate::shape::OperandDescriptor;
use std::future::Future;
use std::pin::Pin;

pub use crate::device::{Bound, DeviceTensor, Pending, ReadFuture};

/// A future the facade awaits. Not `Send`: the browser runs everything on one thread.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// A tensor in host memory: a static descriptor and its bytes as laid out in memory
/// (little-endian, int4/uint4 two per byte).
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub desc: OperandDescriptor,
    pub bytes: Vec<u8>,
}

/// What runs a context's work, as `MLContext` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// What runs it, for people: `fast cpu (avx2, 2 threads)`, a GPU adapter's name.
    pub name: String,
    /// `MLContext.accelerated`: the work runs on a hardware GPU or NPU.
    pub accelerated: bool,
}

/// A backend compiles validated graphs and owns the tensors they run on.
pub trait Backend {
    fn name(&self) -> &'static str;
    /// What the backend supports; `opSupportLimits()` is derived from it and the op table.
    fn capabilities(&self) -> Capabilities;
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>>;
    /// Whether compiled graphs run with bounded dynamic dimensions at any size within their
    /// bounds (the flexible-input extension); backends without it reject such graphs.
    fn dynamic_dimensions(&self) -> bool {
        false
    }

    /// The device, as `MLContext` reports it. Host backends are not accelerated.
    fn device(&self) -> DeviceInfo {
        DeviceInfo { name: self.name().to_owned(), accelerated: false }
    }

    /// `compile` for callers that cannot block: a device whose compilation completes
    /// asynchronously (WebGPU in the browser reports its errors from the event loop)
    /// overrides it.
    fn compile_async<'a>(&'a self, graph: &'a Graph) -> LocalFuture<'a, Result<Box<dyn Executable>>> {
        let compiled = self.compile(graph);
        Box::pin(async move { compiled })
    }

    /// A tensor of `desc` (static), holding `data` or zeros (`MLContext.createTensor`).
    /// The facade has validated the descriptor and the data's length. Host backends keep a
    /// [`HostTensor`].
    fn create_tensor(&self, desc: &OperandDescriptor, data: Option<&[u8]>) -> Result<Box<dyn DeviceTensor>> {
        crate::device::host_tensor(desc, data)
    }

    /// Compute pipelines the device has created so far, where that means something (WebGPU).
    fn pipelines(&self) -> Option<usize> {
        None
    }
}

/// Counters a compiled graph keeps for tests and benchmarks; `None` where they mean nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphStats {
    /// Kernel dispatches one run records (WebGPU).
    pub dispatches: Option<usize>,
    /// Sets of kernel steps built for the sizes met so far (WebGPU, dynamic dimensions).
    pub shapes_built: Option<usize>,
    /// Bytes the last dispatch copied between device buffers for its outputs and in-place
    /// inputs (0: every large binding was direct).
    pub copied_bytes: Option<u64>,
    /// Bind groups made so far for the tensors dispatches bound (WebGPU): a decode loop that
    /// makes none per step adds none.
    pub bind_groups: Option<u64>,
    /// Steps of the plan on the backend's own kernels and on the reference interpreter's
    /// (the fast CPU): how much of a graph runs at kernel speed.
    pub kernel_steps: Option<(usize, usize)>,
    /// Host nanoseconds the last dispatch on tensors took to check its bindings, pick its
    /// sizes and record its kernels, up to the submit (WebGPU, natively): what a decode
    /// step costs the host before the device takes over.
    pub encode_nanos: Option<u64>,
}

/// A compiled graph.
pub trait Executable {
    /// Runs the graph once. `inputs` are named as the graph's inputs; returns every output
    /// in the graph's output order. With dynamic dimensions, the inputs' shapes give their
    /// sizes (`DimBindings`) and the outputs come at the sizes those imply.
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>>;

    /// Like `dispatch`, with the tensors of in-place pairs (`Graph::in_place_pairs`: a KV
    /// cache and its scatter update) passed once, as `inout`: each holds the input's value
    /// and is left holding the output's. Returns the other outputs. A backend that can update
    /// such a tensor where it lies overrides this; the default copies through `dispatch`.
    fn dispatch_in_place(
        &mut self,
        inputs: &[(&str, &HostTensor)],
        inout: &mut [InPlace<'_>],
    ) -> Result<Vec<(String, HostTensor)>> {
        let mut all = inputs.to_vec();
        all.extend(inout.iter().map(|p| (p.input, &*p.tensor)));
        let outputs = self.dispatch(&all)?;
        let mut rest = Vec::with_capacity(outputs.len());
        for (name, value) in outputs {
            match inout.iter_mut().find(|p| p.output == name) {
                Some(p) => *p.tensor = value,
                None => rest.push((name, value)),
            }
        }
        Ok(rest)
    }

    /// `MLContext.dispatch()` on the backend's own tensors, whose names, descriptors and
    /// sharing the facade has checked (one tensor serves an input and an output only as an
    /// in-place pair). Returns before device work finishes where the device allows it; the
    /// returned completion reports the device's errors (a later read awaits it). The default
    /// runs host tensors through `dispatch_in_place`, lending in-place tensors' bytes.
    fn dispatch_bound(&mut self, bound: &mut Bound<'_>) -> Result<Option<Pending>> {
        crate::device::dispatch_host(self, bound).map(|()| None)
    }

    fn stats(&self) -> GraphStats {
        GraphStats::default()
    }
}

/// One tensor bound to an input and to the output that updates it in place.
pub struct InPlace<'a> {
    pub input: &'a str,
    pub output: &'a str,
    pub tensor: &'a mut HostTensor,
}

/// A shared backend (the process's CPU contexts share one thread pool) is a backend.
impl<B: Backend + ?Sized> Backend for std::sync::Arc<B> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        (**self).compile(graph)
    }
    fn dynamic_dimensions(&self) -> bool {
        (**self).dynamic_dimensions()
    }
    fn device(&self) -> DeviceInfo {
        (**self).device()
    }
    fn compile_async<'a>(&'a self, graph: &'a Graph) -> LocalFuture<'a, Result<Box<dyn Executable>>> {
        (**self).compile_async(graph)
    }
    fn create_tensor(&self, desc: &OperandDescriptor, data: Option<&[u8]>) -> Result<Box<dyn DeviceTensor>> {
        (**self).create_tensor(desc, data)
    }
    fn pipelines(&self) -> Option<usize> {
        (**self).pipelines()
    }
}
