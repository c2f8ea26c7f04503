//! A compiled graph: buffers, uniforms, pipelines and bind groups made once at compile
//! (`build`); each dispatch uploads the inputs, records one command encoder (every kernel in
//! one compute pass, then the output copies), submits once and reads the outputs back by
//! asynchronous buffer mapping (`run`). `profile` times each kernel with timestamp queries.

mod build;
mod profile;
mod run;
mod tensor;

pub use profile::StepTime;
pub use tensor::WgpuTensor;

use crate::cache::PipelineCache;
use crate::fuse::fuse;
use crate::gpu::Gpu;
use crate::lower::{lower_fused, Lowering};
use crate::plan::{plan, BufferPlan, Loc};
use crate::storage::Storage;
use crate::support::supported;
use crate::Options;
use std::sync::Arc;
use webnn_core::{Error, Executable, Graph, HostTensor, OpKind, OperandDescriptor, Result};

/// One recorded kernel dispatch.
pub(crate) struct Step {
    pipeline: Arc<wgpu::ComputePipeline>,
    bind_group: wgpu::BindGroup,
    groups: [u32; 3],
    /// The op it belongs to and the kernel's label, for profiles.
    op: OpKind,
    kernel: String,
}

/// A graph output: where it is read from and where it lands in the staging buffer.
struct OutputRead {
    name: String,
    desc: OperandDescriptor,
    loc: Loc,
    bytes: u64,
    staging_offset: u64,
}

pub struct WgpuGraph {
    gpu: Arc<Gpu>,
    inputs: Vec<(String, OperandDescriptor)>,
    input_buffers: Vec<wgpu::Buffer>,
    constants: Vec<wgpu::Buffer>,
    output_buffers: Vec<wgpu::Buffer>,
    slots: Vec<wgpu::Buffer>,
    _uniforms: Option<wgpu::Buffer>,
    steps: Vec<Step>,
    outputs: Vec<OutputRead>,
    staging: wgpu::Buffer,
    /// Statistics of the buffer plan, for tests.
    pub plan: BufferPlan,
}

/// GPU memory goes back when the graph does (`MLGraph.destroy()`), not when the browser's
/// garbage collector gets to the buffers' JavaScript wrappers.
impl Drop for WgpuGraph {
    fn drop(&mut self) {
        let owned = self.input_buffers.iter().chain(&self.constants).chain(&self.output_buffers).chain(&self.slots);
        for b in owned.chain(self._uniforms.iter()).chain(std::iter::once(&self.staging)) {
            b.destroy();
        }
    }
}

/// Checks every node's op and data types against the support table.
fn check_support(graph: &Graph) -> Result<()> {
    for node in &graph.nodes {
        let kind = node.op.kind();
        let have = supported(kind);
        for o in node.op.operands().iter().chain(&node.outputs) {
            let t = graph.desc(*o).data_type;
            if !have.contains(t) {
                let what = if have.is_empty() {
                    format!("{} is not implemented on the wgpu backend", kind.name())
                } else {
                    format!(
                        "{} does not support {t} on the wgpu backend (supported: {have})",
                        kind.name()
                    )
                };
                return Err(Error::not_supported(what).at(kind.name(), node.op.label()));
            }
        }
    }
    Ok(())
}

/// What each node of `graph` runs: its fused activations absorbed, every other node lowered.
pub fn lower_graph(graph: &Graph) -> Result<Vec<Lowering>> {
    check_support(graph)?;
    let fusion = fuse(graph);
    let mut lowered = Vec::with_capacity(graph.nodes.len());
    for (k, node) in graph.nodes.iter().enumerate() {
        lowered.push(if fusion.absorbed[k] {
            Lowering::Alias(node.op.operands()[0])
        } else {
            lower_fused(graph, node, fusion.clamp[k])
                .map_err(|e| e.at(node.op.name(), node.op.label()))?
        });
    }
    Ok(lowered)
}

impl WgpuGraph {
    /// Compiles `graph` (recurrent ops already expanded), waiting for the device to report
    /// any error; native targets only.
    pub fn new(
        gpu: Arc<Gpu>,
        cache: &PipelineCache,
        graph: &Graph,
        options: Options,
    ) -> Result<WgpuGraph> {
        crate::gpu::block_on(WgpuGraph::new_async(gpu, cache, graph, options))?
    }

    /// Compiles `graph`; the device's error report arrives asynchronously (on the web, from
    /// the event loop).
    pub async fn new_async(
        gpu: Arc<Gpu>,
        cache: &PipelineCache,
        graph: &Graph,
        options: Options,
    ) -> Result<WgpuGraph> {
        let lowered = lower_graph(graph)?;
        let max = gpu.limits.max_buffer_size;
        let mut sizes = Vec::with_capacity(graph.operands.len());
        for info in &graph.operands {
            let shape = info.desc.require_static("the wgpu backend's operands")?;
            let n = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
            let bytes = n.and_then(|n| Storage::of(info.desc.data_type).buffer_bytes(n));
            match bytes {
                Some(b) if b <= max => sizes.push(b),
                _ => {
                    return Err(Error::not_supported(format!(
                        "{} exceeds the device's largest buffer ({max} bytes)",
                        info.desc
                    )))
                }
            }
        }
        let alias: Vec<_> = lowered
            .iter()
            .map(|l| match l {
                Lowering::Alias(o) => Some(*o),
                Lowering::Kernels(_) => None,
            })
            .collect();
        let plan = plan(graph, &alias, &|i| sizes[i]);
        let scope = gpu.scope();
        let built = WgpuGraph::build(gpu.clone(), cache, graph, lowered, plan, &sizes, options);
        gpu.close(scope, "compile").await?;
        built
    }

    /// GPU buffers this graph holds for intermediate values.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Kernel dispatches per run.
    pub fn dispatch_count(&self) -> usize {
        self.steps.len()
    }

    fn buffer(&self, loc: Loc) -> &wgpu::Buffer {
        match loc {
            Loc::Input(k) => &self.input_buffers[k],
            Loc::Constant(k) => &self.constants[k],
            Loc::Output(k) => &self.output_buffers[k],
            Loc::Slot(k) => &self.slots[k],
        }
    }
}

impl Executable for WgpuGraph {
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
        crate::gpu::block_on(self.dispatch_async(inputs))?
    }
}
