//! A compiled graph: buffers, uniforms, pipelines and bind groups made once at compile; each
//! dispatch uploads the inputs, records one command encoder (every kernel in one compute pass,
//! then the output copies), submits once and reads the outputs back.

use crate::cache::PipelineCache;
use crate::gpu::Gpu;
use crate::kernel::{KernelId, KernelKey, ROW_WORKGROUP, TILE, WORKGROUP_SIZE};
use crate::lower::{lower, KernelCall, Lowering};
use crate::params::{Uniform, MAX_BLOCK};
use crate::plan::{plan, BufferPlan, Loc};
use crate::storage::Storage;
use crate::support::supported;
use crate::window::windows;
use std::sync::Arc;
use webnn_core::{Error, Executable, Graph, HostTensor, OperandDescriptor, Result};

/// One recorded kernel dispatch.
struct Step {
    pipeline: Arc<wgpu::ComputePipeline>,
    bind_group: wgpu::BindGroup,
    groups: [u32; 3],
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
    _constants: Vec<wgpu::Buffer>,
    output_buffers: Vec<wgpu::Buffer>,
    slots: Vec<wgpu::Buffer>,
    _uniforms: Option<wgpu::Buffer>,
    steps: Vec<Step>,
    outputs: Vec<OutputRead>,
    staging: wgpu::Buffer,
    /// Statistics of the buffer plan, for tests.
    pub plan: BufferPlan,
}

/// Workgroups for `units` work units: at most 65535 in x and few enough rows that the thread
/// count fits a u32; the kernels' grid-stride loop covers the rest.
pub fn workgroups(units: u32) -> (u32, u32) {
    let groups = units.div_ceil(WORKGROUP_SIZE).max(1);
    let x = groups.min(65535);
    let y = groups.div_ceil(x).min(512);
    (x, y)
}

/// Invocations per row of a row kernel.
fn lanes(key: KernelKey) -> u32 {
    match key.kernel {
        KernelId::Reduce { lanes, .. }
        | KernelId::ArgReduce { lanes, .. }
        | KernelId::Softmax { lanes }
        | KernelId::Normalize { lanes, .. }
        | KernelId::Pool { lanes, .. } => lanes,
        _ => ROW_WORKGROUP,
    }
}

/// The workgroup grid of one dispatch of `key` with block `uniform`.
fn grid(key: KernelKey, uniform: &Uniform) -> [u32; 3] {
    let rows = |rows: u32| {
        let (x, y) = workgroups((rows.div_ceil(ROW_WORKGROUP / lanes(key))).saturating_mul(WORKGROUP_SIZE));
        [x, y, 1]
    };
    match uniform {
        Uniform::Params(p) => {
            let (x, y) = workgroups(p.units);
            [x, y, 1]
        }
        Uniform::Rows(r) => rows(r.rows),
        Uniform::Pool(p) => rows(p.rows),
        Uniform::Matmul(m) => [m.n.div_ceil(TILE), m.m.div_ceil(TILE), m.pad0],
        Uniform::Conv(c) => [c.n.div_ceil(TILE), c.m.div_ceil(TILE), c.groups],
    }
}

fn storage_buffer(gpu: &Gpu, label: &str, size: u64) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Bytes padded with zeros to whole words (`write_buffer` copies multiples of 4).
fn padded(bytes: &[u8], size: u64) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v.resize(size as usize, 0);
    v
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

impl WgpuGraph {
    pub fn new(
        gpu: Arc<Gpu>,
        cache: &PipelineCache,
        graph: &Graph,
        max_binding: u64,
    ) -> Result<WgpuGraph> {
        check_support(graph)?;
        let mut lowered = Vec::with_capacity(graph.nodes.len());
        for node in &graph.nodes {
            lowered.push(lower(graph, node).map_err(|e| e.at(node.op.name(), node.op.label()))?);
        }
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
        let g = gpu.clone();
        gpu.checked("compile", move || {
            WgpuGraph::build(g, cache, graph, lowered, plan, &sizes, max_binding)
        })
    }

    fn build(
        gpu: Arc<Gpu>,
        cache: &PipelineCache,
        graph: &Graph,
        lowered: Vec<Lowering>,
        plan: BufferPlan,
        sizes: &[u64],
        max_binding: u64,
    ) -> Result<WgpuGraph> {
        let input_buffers: Vec<_> = graph
            .inputs
            .iter()
            .map(|(name, o)| storage_buffer(&gpu, name, sizes[o.index()]))
            .collect();
        let constants: Vec<_> = plan
            .constants
            .iter()
            .map(|&i| {
                let b = storage_buffer(&gpu, "constant", sizes[i]);
                if let webnn_core::graph::Source::Constant(data) = &graph.operands[i].source {
                    gpu.queue.write_buffer(&b, 0, &padded(data, sizes[i]));
                }
                b
            })
            .collect();
        let output_buffers: Vec<_> = plan
            .output_bytes
            .iter()
            .map(|&s| storage_buffer(&gpu, "output", s))
            .collect();
        let slots: Vec<_> = plan
            .slot_bytes
            .iter()
            .map(|&s| storage_buffer(&gpu, "intermediate", s))
            .collect();

        let calls: Vec<(usize, &KernelCall)> = lowered
            .iter()
            .enumerate()
            .flat_map(|(n, l)| match l {
                Lowering::Kernels(calls) => calls.iter().map(|c| (n, c)).collect(),
                Lowering::Alias(_) => Vec::new(),
            })
            .collect();
        let locate = |i: usize| {
            plan.loc[i].ok_or_else(|| Error::operation_error(format!("operand {i} has no buffer")))
        };
        // Per call: the bound buffers (output first) and the windows it is dispatched in.
        let mut dispatches = Vec::with_capacity(calls.len());
        for (n, call) in &calls {
            let out = call.output.index();
            let mut bound = vec![locate(out)?];
            let mut bytes = vec![sizes[out]];
            for o in &call.inputs {
                bound.push(locate(o.index())?);
                bytes.push(sizes[o.index()]);
            }
            let node = &graph.nodes[*n];
            let wins = windows(
                call,
                &bytes,
                max_binding,
                gpu.limits.min_storage_buffer_offset_alignment as u64,
            )
            .map_err(|e| e.at(node.op.name(), node.op.label()))?;
            dispatches.push((*call, bound, wins));
        }
        // Each block at an offset the device accepts for a uniform binding.
        let stride =
            MAX_BLOCK.next_multiple_of(gpu.limits.min_uniform_buffer_offset_alignment.max(1) as u64);
        let blocks: Vec<&Uniform> = dispatches
            .iter()
            .flat_map(|(_, _, w)| w.iter().map(|w| &w.uniform))
            .collect();
        let uniforms = (!blocks.is_empty()).then(|| {
            let mut bytes = vec![0u8; blocks.len() * stride as usize];
            for (k, u) in blocks.iter().enumerate() {
                let b = u.bytes();
                let at = k * stride as usize;
                bytes[at..at + b.len()].copy_from_slice(b);
            }
            let b = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("params"),
                size: bytes.len() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            gpu.queue.write_buffer(&b, 0, &bytes);
            b
        });
        let buffer = |loc: Loc| -> &wgpu::Buffer {
            match loc {
                Loc::Input(k) => &input_buffers[k],
                Loc::Constant(k) => &constants[k],
                Loc::Output(k) => &output_buffers[k],
                Loc::Slot(k) => &slots[k],
            }
        };

        let mut steps = Vec::with_capacity(blocks.len());
        let mut k = 0u64;
        for (call, bound, wins) in &dispatches {
            let pipeline = cache.get(&gpu, call.key)?;
            let uniform = uniforms
                .as_ref()
                .ok_or_else(|| Error::operation_error("no uniform buffer"))?;
            for win in wins {
                let mut entries = vec![wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: uniform,
                        offset: k * stride,
                        size: wgpu::BufferSize::new(win.uniform.bytes().len() as u64),
                    }),
                }];
                k += 1;
                for (b, (loc, (offset, size))) in bound.iter().zip(&win.ranges).enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: 1 + b as u32,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: buffer(*loc),
                            offset: *offset,
                            size: wgpu::BufferSize::new(*size),
                        }),
                    });
                }
                let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&call.key.label()),
                    layout: &pipeline.layout,
                    entries: &entries,
                });
                steps.push(Step {
                    pipeline: pipeline.pipeline.clone(),
                    bind_group,
                    groups: grid(call.key, &win.uniform),
                });
            }
        }

        let mut outputs = Vec::with_capacity(graph.outputs.len());
        let mut staging_size = 0u64;
        for (name, o) in &graph.outputs {
            let bytes = sizes[o.index()];
            outputs.push(OutputRead {
                name: name.clone(),
                desc: graph.desc(*o).clone(),
                loc: locate(o.index())?,
                bytes,
                staging_offset: staging_size,
            });
            staging_size += bytes.next_multiple_of(wgpu::MAP_ALIGNMENT);
        }
        let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: staging_size.max(wgpu::MAP_ALIGNMENT),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let inputs = graph
            .inputs
            .iter()
            .map(|(n, o)| (n.clone(), graph.desc(*o).clone()))
            .collect();
        Ok(WgpuGraph {
            gpu,
            inputs,
            input_buffers,
            _constants: constants,
            output_buffers,
            slots,
            _uniforms: uniforms,
            steps,
            outputs,
            staging,
            plan,
        })
    }

    /// GPU buffers this graph holds for intermediate values.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    fn buffer(&self, loc: Loc) -> &wgpu::Buffer {
        match loc {
            Loc::Input(k) => &self.input_buffers[k],
            Loc::Constant(k) => &self._constants[k],
            Loc::Output(k) => &self.output_buffers[k],
            Loc::Slot(k) => &self.slots[k],
        }
    }

    fn upload(&self, inputs: &[(&str, &HostTensor)]) -> Result<()> {
        for (k, (name, want)) in self.inputs.iter().enumerate() {
            let t = inputs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| *t)
                .ok_or_else(|| Error::type_error(format!("no tensor given for input '{name}'")))?;
            let expected = want.max_byte_length().unwrap_or(0);
            if t.desc != *want || t.bytes.len() as u64 != expected {
                return Err(Error::type_error(format!(
                    "input '{name}' expects {want} ({expected} bytes), got {} ({} bytes)",
                    t.desc,
                    t.bytes.len()
                )));
            }
            let size = self.input_buffers[k].size();
            self.gpu
                .queue
                .write_buffer(&self.input_buffers[k], 0, &padded(&t.bytes, size));
        }
        Ok(())
    }

    fn run(&self) -> Result<()> {
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("webnn dispatch"),
            });
        if !self.steps.is_empty() {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            for s in &self.steps {
                pass.set_pipeline(&s.pipeline);
                pass.set_bind_group(0, &s.bind_group, &[]);
                pass.dispatch_workgroups(s.groups[0], s.groups[1], s.groups[2]);
            }
        }
        for o in &self.outputs {
            encoder.copy_buffer_to_buffer(
                self.buffer(o.loc),
                0,
                &self.staging,
                o.staging_offset,
                o.bytes,
            );
        }
        self.gpu.queue.submit([encoder.finish()]);
        Ok(())
    }

    fn read_back(&self) -> Result<Vec<(String, HostTensor)>> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::operation_error(format!("waiting for the GPU: {e}")))?;
        rx.recv()
            .map_err(|_| Error::operation_error("the readback was dropped"))?
            .map_err(|e| Error::operation_error(format!("mapping the readback buffer: {e}")))?;
        let result = {
            let view = self
                .staging
                .get_mapped_range(..)
                .map_err(|e| Error::operation_error(format!("reading the readback buffer: {e}")))?;
            self.outputs
                .iter()
                .map(|o| {
                    let len = o.desc.max_byte_length().unwrap_or(0) as usize;
                    let at = o.staging_offset as usize;
                    (
                        o.name.clone(),
                        HostTensor {
                            desc: o.desc.clone(),
                            bytes: view[at..at + len].to_vec(),
                        },
                    )
                })
                .collect()
        };
        self.staging.unmap();
        Ok(result)
    }
}

impl Executable for WgpuGraph {
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
        self.upload(inputs)?;
        let gpu = self.gpu.clone();
        gpu.checked("dispatch", || self.run())?;
        self.read_back()
    }
}
