//! A compiled graph: buffers, uniforms, pipelines and bind groups made once at compile
//! (`build`); each dispatch uploads the inputs, records one command encoder (every kernel in
//! one compute pass, then the output copies), submits once and reads the outputs back by
//! asynchronous buffer mapping (`run`). `profile` times each kernel with timestamp queries.

mod build;
mod profile;
mod retune;
mod run;
mod tensor;

pub use profile::StepTime;
pub use tensor::WgpuTensor;

use crate::cache::PipelineCache;
use crate::fuse::{fuse, Fusion};
use crate::gpu::Gpu;
use crate::lower::{lower_fused, Lowering};
use crate::patterns::{Fused, Patterns};
use crate::plan::{plan, BufferPlan, Loc};
use crate::storage::Storage;
use crate::support::supported;
use crate::Options;
use std::sync::Arc;
use webnn_core::{
    Bound, Dim, DimBindings, Error, Executable, Graph, GraphStats, HostTensor, OpKind, OperandDescriptor, Pending,
    Result,
};

/// One recorded kernel dispatch.
pub(crate) struct Step {
    pipeline: Arc<wgpu::ComputePipeline>,
    layout: Arc<wgpu::BindGroupLayout>,
    /// Over the graph's own buffers; None until the host buffers it binds exist.
    bind_group: Option<wgpu::BindGroup>,
    /// The buffers it binds (output first), their windows, and its uniform block: what a
    /// bind group over bound tensors is made from.
    bound: Vec<Loc>,
    ranges: Vec<(u64, u64)>,
    uniform: (u64, u64),
    /// The copy of a scatter's input into its output, skipped when both are one tensor (the
    /// in-place update).
    pre_copy: bool,
    /// Bytes a pre-copy moves.
    copy_bytes: u64,
    /// Bind groups over tensors met before, by the ids bound in each slot (0: the graph's
    /// own buffer), most recent last.
    tensor_groups: Vec<(Vec<u64>, wgpu::BindGroup)>,
    key: crate::kernel::KernelKey,
    /// The call runs in one window (so new sizes can reuse the step in place).
    single_window: bool,
    groups: [u32; 3],
    /// The node it belongs to (`retune` finds a node's steps by it).
    node: usize,
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

/// The graph's own input and output buffers and its readback buffer, at the bounds: what a
/// dispatch of host tensors uploads to and reads from.
pub(crate) struct HostBuffers {
    inputs: Vec<wgpu::Buffer>,
    outputs: Vec<wgpu::Buffer>,
    staging: wgpu::Buffer,
}

pub(crate) struct HostSizes {
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    staging: u64,
}

/// What depends on the sizes a graph runs at: kernel steps (uniform blocks, grids, bind
/// groups) and output reads. A static graph has one; a graph with dynamic dimensions gets one
/// per set of sizes it meets, over the same buffers (planned at the bounds).
#[derive(Default)]
pub(crate) struct Shaped {
    steps: Vec<Step>,
    outputs: Vec<OutputRead>,
    /// Bytes of each input at these sizes.
    input_bytes: Vec<u64>,
    _uniforms: Option<wgpu::Buffer>,
    /// The uniform buffer's contents, kept so that a size change rewrites only the blocks
    /// that changed, in one write (`retune`).
    blocks: Vec<u8>,
    /// How each step binds for tensor sets met before (by the tensor ids at each bound
    /// location), most recent last: a decoder's steps bind the same few sets over and over,
    /// and finding their bind groups step by step cost about 0.2 ms per dispatch.
    plans: Vec<tensor::BindPlan>,
}

/// The graph's dynamic dimensions: what a new set of sizes is lowered from.
struct Dynamic {
    graph: Graph,
    /// The fused patterns found at the bounds.
    patterns: Patterns,
    names: Vec<Arc<str>>,
    alias: Vec<Option<webnn_core::Operand>>,
    cache: Arc<PipelineCache>,
    options: Options,
    /// The kernels chosen at the bounds, per node: every size keeps them (`tuned_like`).
    keys: Vec<Vec<crate::kernel::KernelKey>>,
    /// The sizes `shaped` is for (one per name).
    sizes: Vec<u32>,
    /// What `retune` needs to follow one size's change without lowering the whole graph.
    retune: retune::Retune,
}

/// Shapes kept for sizes met before (a decoder cycles through few; each holds bind groups).
const SHAPES_KEPT: usize = 8;

pub struct WgpuGraph {
    gpu: Arc<Gpu>,
    /// Inputs as declared (dynamic dimensions included).
    inputs: Vec<(String, OperandDescriptor)>,
    constants: Vec<wgpu::Buffer>,
    slots: Vec<wgpu::Buffer>,
    /// Buffers for host inputs and outputs, made by the first host dispatch.
    host: Option<HostBuffers>,
    host_sizes: HostSizes,
    /// The shape of the last dispatch (the bounds' at first).
    shaped: Shaped,
    dynamic: Option<Dynamic>,
    others: Vec<(Vec<u32>, Shaped)>,
    /// Shapes built so far (steps and bind groups; sizes served in place do not count).
    shapes_built: usize,
    /// The largest buffer binding (single-window calls bind whole buffers up to it).
    max_binding: u64,
    /// (input, output) positions that may share one tensor (`Graph::in_place_pairs`).
    in_place: Vec<(usize, usize)>,
    /// Bytes the last dispatch on tensors copied between buffers (copy commands and the
    /// scatters' pre-copies that ran), for benchmarks.
    copied: u64,
    /// Statistics of the buffer plan, for tests.
    pub plan: BufferPlan,
    /// Per input, the graph's own copy of small inputs bound from tensors
    /// (`submit_tensors`); empty until the first dispatch on tensors.
    copy_buffers: Vec<Option<WgpuTensor>>,
    /// Bind groups made for tensors so far (`GraphStats::bind_groups`).
    bind_groups_made: u64,
    /// Host time of the last `submit_tensors` up to its submit (`GraphStats::encode_nanos`).
    encode_nanos: Option<u64>,
    /// Kernel dispatches the last dispatch on tensors recorded (the in-place scatters'
    /// copies skipped); 0 before the first.
    recorded: usize,
}

/// GPU memory goes back when the graph does (`MLGraph.destroy()`), not when the browser's
/// garbage collector gets to the buffers' JavaScript wrappers.
impl Drop for WgpuGraph {
    fn drop(&mut self) {
        let host = self.host.iter().flat_map(|h| h.inputs.iter().chain(&h.outputs).chain([&h.staging]));
        let owned = self.constants.iter().chain(&self.slots).chain(host);
        let uniforms = std::iter::once(&self.shaped).chain(self.others.iter().map(|(_, s)| s));
        for b in owned.chain(uniforms.filter_map(|s| s._uniforms.as_ref())) {
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

/// The size a dynamic dimension is planned at: its bound.
fn bound_size(graph: &Graph, name: &str) -> u32 {
    let dims = graph
        .inputs
        .iter()
        .flat_map(|(_, o)| graph.desc(*o).shape.iter());
    dims.filter_map(|d| match d {
        Dim::Dynamic { name: n, max_size } if &**n == name => Some(*max_size),
        _ => None,
    })
    .next()
    .unwrap_or(0)
}

/// Which nodes are buffer aliases (the buffer plan follows them).
fn aliases(lowered: &[Lowering]) -> Vec<Option<webnn_core::Operand>> {
    lowered
        .iter()
        .map(|l| match l {
            Lowering::Alias(o) => Some(*o),
            Lowering::Kernels(_) => None,
        })
        .collect()
}

/// The kernel of every call, per node.
fn kernel_keys(lowered: &[Lowering]) -> Vec<Vec<crate::kernel::KernelKey>> {
    lowered
        .iter()
        .map(|l| match l {
            Lowering::Kernels(calls) => calls.iter().map(|c| c.key).collect(),
            Lowering::Alias(_) => Vec::new(),
        })
        .collect()
}

/// Gives each call the kernel chosen at the bounds where only tuning differs.
fn keep_kernels(lowered: &mut [Lowering], keys: &[Vec<crate::kernel::KernelKey>]) {
    for (l, keys) in lowered.iter_mut().zip(keys) {
        if let Lowering::Kernels(calls) = l {
            if calls.len() == keys.len() {
                for (call, bound) in calls.iter_mut().zip(keys) {
                    if let Some(k) = call.key.tuned_like(*bound) {
                        call.key = k;
                    }
                }
            }
        }
    }
}

/// Each operand's buffer bytes; NotSupportedError past the device's largest buffer.
fn byte_sizes(gpu: &Gpu, graph: &Graph) -> Result<Vec<u64>> {
    graph.operands.iter().map(|info| operand_bytes(gpu, &info.desc)).collect()
}

/// The value named `name` in `given`, looked for first at `k` (callers mostly pass a
/// graph's inputs and outputs in its own order, and a decoder has some 64 of them).
fn named<'g, T>(given: &'g [(&str, T)], k: usize, name: &str) -> Option<&'g T> {
    match given.get(k) {
        Some((n, t)) if *n == name => Some(t),
        _ => given.iter().find(|(n, _)| *n == name).map(|(_, t)| t),
    }
}

/// The buffer bytes of an operand of static shape `desc`; NotSupportedError past the
/// device's largest buffer.
fn operand_bytes(gpu: &Gpu, desc: &OperandDescriptor) -> Result<u64> {
    let max = gpu.limits.max_buffer_size;
    // Without the static shape's allocation: `retune` sizes some 300 operands per step.
    let mut n = Some(1u64);
    for d in &desc.shape {
        match d {
            Dim::Static(d) => n = n.and_then(|n| n.checked_mul(*d as u64)),
            Dim::Dynamic { .. } => {
                desc.require_static("the wgpu backend's operands")?;
            }
        }
    }
    match n.and_then(|n| Storage::of(desc.data_type).buffer_bytes(n)) {
        Some(b) if b <= max => Ok(b),
        _ => Err(Error::not_supported(format!("{desc} exceeds the device's largest buffer ({max} bytes)"))),
    }
}

/// What each node of `graph` runs: its fused activations absorbed, every other node lowered.
pub fn lower_graph(graph: &Graph) -> Result<Vec<Lowering>> {
    lower_graph_with(graph, &Patterns::find(graph), false)
}

/// `lower_graph` with the fused kernels of `patterns` (`Patterns::none` for every op as its
/// own kernels), tuned for a CPU adapter when `cpu_adapter`.
pub fn lower_graph_with(graph: &Graph, patterns: &Patterns, cpu_adapter: bool) -> Result<Vec<Lowering>> {
    check_support(graph)?;
    let fusion = fuse(graph);
    (0..graph.nodes.len()).map(|k| lower_node(graph, k, patterns, &fusion, cpu_adapter)).collect()
}

/// What node `k` runs, given the graph's fused patterns and activations.
pub(crate) fn lower_node(graph: &Graph, k: usize, patterns: &Patterns, fusion: &Fusion, cpu_adapter: bool) -> Result<Lowering> {
    let node = &graph.nodes[k];
    let at = |e: webnn_core::Error| e.at(node.op.name(), node.op.label());
    // A fused kernel's scratch keeps its buffer (no kernel writes it but that one).
    if patterns.scratch[k] {
        return Ok(Lowering::Kernels(Vec::new()));
    }
    // A fused kernel's absorbed nodes become aliases nothing reads, or of the product
    // whose epilogue computed them.
    if fusion.absorbed[k] || patterns.absorbed[k] {
        return Ok(Lowering::Alias(patterns.alias[k].unwrap_or(node.op.operands()[0])));
    }
    let l = match &patterns.at[k] {
        Some(Fused::Quantized(q)) => crate::lower::lower_quantized(graph, node, fusion.clamp[k], q, patterns.takeover(k), cpu_adapter),
        // Its readers normalise x themselves (GPUs).
        Some(Fused::RmsNorm(_)) if patterns.norm_in_readers[k] => Ok(Lowering::Kernels(Vec::new())),
        Some(Fused::RmsNorm(r)) => crate::lower::lower_rms_norm(graph, node, r),
        Some(Fused::Rope(r)) => crate::lower::lower_rope(graph, node, r),
        Some(Fused::SiluGate(s)) => crate::lower::lower_silu_gate(graph, node, s),
        Some(Fused::Attention(a, layout)) => crate::lower::lower_attention(graph, node, a, layout, cpu_adapter),
        None => lower_fused(graph, node, fusion.clamp[k]),
    };
    l.map_err(at)
}

impl WgpuGraph {
    /// Compiles `graph` (recurrent ops already expanded), waiting for the device to report
    /// any error; native targets only.
    pub fn new(
        gpu: Arc<Gpu>,
        cache: &Arc<PipelineCache>,
        graph: &Graph,
        options: Options,
    ) -> Result<WgpuGraph> {
        crate::gpu::block_on(WgpuGraph::new_async(gpu, cache, graph, options))?
    }

    /// Compiles `graph`; the device's error report arrives asynchronously (on the web, from
    /// the event loop).
    pub async fn new_async(
        gpu: Arc<Gpu>,
        cache: &Arc<PipelineCache>,
        graph: &Graph,
        options: Options,
    ) -> Result<WgpuGraph> {
        // Dynamic dimensions: buffers are planned, and the first shape built, at the bounds.
        let bound = graph.resolved(&DimBindings::default());
        // The fused patterns, found once at the bounds and kept for every size.
        let patterns = match options.fuse {
            true => Patterns::find_for(&bound, options.max_storage, options.cpu_adapter),
            false => Patterns::none(&bound),
        };
        let lowered = lower_graph_with(&bound, &patterns, options.cpu_adapter)?;
        let sizes = byte_sizes(&gpu, &bound)?;
        let alias = aliases(&lowered);
        let keys = kernel_keys(&lowered);
        let reads = patterns.reads();
        let plan = plan(&bound, &alias, &reads, &|i| sizes[i]);
        let scope = gpu.scope();
        let built = WgpuGraph::build(gpu.clone(), cache, &bound, lowered, plan, &sizes, options);
        gpu.close(scope, "compile").await?;
        let mut built = built?;
        built.in_place = graph.in_place_pairs();
        built.inputs = graph
            .inputs
            .iter()
            .map(|(n, o)| (n.clone(), graph.desc(*o).clone()))
            .collect();
        if graph.is_dynamic() {
            let mut names: Vec<Arc<str>> = Vec::new();
            for (_, d) in &built.inputs {
                for dim in &d.shape {
                    if let Dim::Dynamic { name, .. } = dim {
                        if !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                }
            }
            let dims = names.iter().map(|n| bound_size(graph, n)).collect();
            let retune = retune::Retune::new(graph, &names, &reads, bound.clone(), sizes, fuse(&bound));
            built.dynamic = Some(Dynamic {
                graph: graph.clone(),
                patterns,
                names,
                alias,
                cache: cache.clone(),
                options,
                keys,
                sizes: dims,
                retune,
            });
        }
        Ok(built)
    }

    /// Makes the shape for the inputs' sizes current (`shapes` as the inputs are named),
    /// after checking them as `DimBindings` does: a TypeError names the input and dimension.
    pub(super) fn select(&mut self, shapes: &[(&str, Vec<u32>)]) -> Result<()> {
        let mut dims = DimBindings::default();
        for (k, (name, desc)) in self.inputs.iter().enumerate() {
            let actual = named(shapes, k, name)
                .ok_or_else(|| Error::type_error(format!("no tensor given for input '{name}'")))?;
            dims.bind(name, desc, actual)?;
        }
        let Some(dynamic) = &self.dynamic else {
            return Ok(());
        };
        let key: Vec<u32> = dynamic
            .names
            .iter()
            .map(|n| dims.get(n).unwrap_or(0))
            .collect();
        if key == dynamic.sizes || self.retune(&key, &dims)? {
            return Ok(());
        }
        self.select_fully(key, &dims)?;
        // The full path leaves `retune` the graph resolved at the new sizes.
        if let Some(d) = &mut self.dynamic {
            let g = d.graph.resolved(&dims);
            let bytes = byte_sizes(&self.gpu, &g)?;
            d.retune.reset(g, bytes);
        }
        Ok(())
    }

    /// `select` for sizes whose steps `retune` cannot reach from the current ones: kept
    /// steps of sizes met before, the current or a kept set reshaped in place, or new steps.
    fn select_fully(&mut self, key: Vec<u32>, dims: &DimBindings) -> Result<()> {
        let Some(dynamic) = &mut self.dynamic else {
            return Ok(());
        };
        let shaped = match self.others.iter().position(|(k, _)| *k == key) {
            Some(i) => self.others.remove(i).1,
            None => {
                let g = dynamic.graph.resolved(dims);
                let mut lowered = lower_graph_with(&g, &dynamic.patterns, dynamic.options.cpu_adapter)?;
                keep_kernels(&mut lowered, &dynamic.keys);
                if aliases(&lowered) != dynamic.alias {
                    return Err(Error::not_supported(format!(
                        "the graph lowers differently at sizes {key:?} than at its bounds on the wgpu backend"
                    )));
                }
                let sizes = byte_sizes(&self.gpu, &g)?;
                let (cache, options) = (dynamic.cache.clone(), dynamic.options);
                if self.reshape_in_place(&g, &lowered, &sizes, options)? {
                    if let Some(dynamic) = &mut self.dynamic {
                        dynamic.sizes = key;
                    }
                    return Ok(());
                }
                // A kept set with these kernels takes the sizes in place: a decoder switches
                // between its prompt steps (tiled products) and its decode steps (gemv)
                // without building either again.
                for i in (0..self.others.len()).rev() {
                    let (kept_key, kept) = self.others.remove(i);
                    let current = std::mem::replace(&mut self.shaped, kept);
                    if self.reshape_in_place(&g, &lowered, &sizes, options)? {
                        if let Some(dynamic) = &mut self.dynamic {
                            let old_key = std::mem::replace(&mut dynamic.sizes, key);
                            self.others.push((old_key, current));
                        }
                        return Ok(());
                    }
                    let kept = std::mem::replace(&mut self.shaped, current);
                    self.others.insert(i, (kept_key, kept));
                }
                self.shapes_built += 1;
                self.make_shaped(&cache, &g, &lowered, &sizes, options)?
            }
        };
        let Some(dynamic) = &mut self.dynamic else {
            return Ok(());
        };
        let old = std::mem::replace(&mut self.shaped, shaped);
        let old_key = std::mem::replace(&mut dynamic.sizes, key);
        self.others.push((old_key, old));
        if self.others.len() > SHAPES_KEPT {
            self.others.remove(0);
        }
        Ok(())
    }

    /// How many sets of steps and bind groups the graph has built: 1 for a static graph; a
    /// dynamic one builds another only for sizes whose kernels differ from the current ones.
    pub fn shapes_built(&self) -> usize {
        self.shapes_built
    }

    /// Bytes the last `dispatch_tensors` copied between GPU buffers: outputs copied out and
    /// scatter inputs copied into their outputs (0 when every update ran in place). The
    /// small inputs copied into the graph's own buffers (`input_copies`) are not counted.
    pub fn copied_bytes(&self) -> u64 {
        self.copied
    }

    /// GPU buffers this graph holds for intermediate values.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Kernel dispatches per run: as the last dispatch on tensors recorded them (in-place
    /// updates skip their scatters' copies), or every step before one.
    pub fn dispatch_count(&self) -> usize {
        match self.recorded {
            0 => self.shaped.steps.len(),
            n => n,
        }
    }

    /// The graph's buffer at `loc` (None for host buffers not made yet).
    fn buffer(&self, loc: Loc) -> Option<&wgpu::Buffer> {
        match loc {
            Loc::Input(k) => self.host.as_ref().map(|h| &h.inputs[k]),
            Loc::Constant(k) => Some(&self.constants[k]),
            Loc::Output(k) => self.host.as_ref().map(|h| &h.outputs[k]),
            Loc::Slot(k) => Some(&self.slots[k]),
        }
    }

    /// Whether the host buffers exist (a host dispatch has run).
    pub fn has_host_buffers(&self) -> bool {
        self.host.is_some()
    }

    /// Makes the host buffers, and the bind groups over them, on the first host dispatch.
    fn ensure_host(&mut self) {
        if self.host.is_some() {
            return;
        }
        let gpu = &self.gpu;
        let sizes = &self.host_sizes;
        let names = self.inputs.iter().map(|(n, _)| n.as_str());
        self.host = Some(HostBuffers {
            inputs: names.zip(&sizes.inputs).map(|(n, &b)| build::storage_buffer(gpu, n, b)).collect(),
            outputs: sizes.outputs.iter().map(|&b| build::storage_buffer(gpu, "output", b)).collect(),
            staging: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: sizes.staging,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        });
        let mut shapes: Vec<Shaped> = std::iter::once(std::mem::take(&mut self.shaped))
            .chain(self.others.iter_mut().map(|(_, s)| std::mem::take(s)))
            .collect();
        for shaped in &mut shapes {
            let Some(uniform) = shaped._uniforms.clone() else { continue };
            for step in shaped.steps.iter_mut().filter(|s| s.bind_group.is_none()) {
                let buffers: Option<Vec<&wgpu::Buffer>> = step.bound.iter().map(|l| self.buffer(*l)).collect();
                step.bind_group = buffers.map(|b| {
                    build::bind_group(&self.gpu, &step.layout, &step.kernel, &uniform, step.uniform, &b, self.ranges(step), step.key.uniform_input())
                });
            }
        }
        let mut shapes = shapes.into_iter();
        self.shaped = shapes.next().unwrap_or_default();
        for ((_, s), new) in self.others.iter_mut().zip(shapes) {
            *s = new;
        }
    }
}

impl Executable for WgpuGraph {
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
        crate::gpu::block_on(self.dispatch_async(inputs))?
    }

    /// The kernels read and write the bound tensors' buffers: nothing leaves the device.
    fn dispatch_bound(&mut self, bound: &mut Bound<'_>) -> Result<Option<Pending>> {
        let (inputs, outputs) = bound.typed::<WgpuTensor>()?;
        self.submit_tensors(&inputs, &outputs).map(Some)
    }

    fn stats(&self) -> GraphStats {
        GraphStats {
            dispatches: Some(self.dispatch_count()),
            shapes_built: Some(self.shapes_built()),
            copied_bytes: Some(self.copied_bytes()),
            bind_groups: Some(self.bind_groups_made),
            kernel_steps: None,
            encode_nanos: self.encode_nanos,
        }
    }
}
