//! Compile: buffers (inputs, constants uploaded once, outputs, pooled intermediates), one
//! uniform buffer holding every dispatch's block, pipelines from the cache and bind groups.

use super::{OutputRead, Shaped, Step, WgpuGraph};
use crate::cache::PipelineCache;
use crate::gpu::Gpu;
use crate::kernel::{KernelId, KernelKey, DEPTHWISE_TILE, ROW_WORKGROUP, TILE, WORKGROUP_SIZE};
use crate::lower::{KernelCall, Lowering};
use crate::params::{Uniform, MAX_BLOCK};
use crate::plan::{BufferPlan, Loc};
use crate::window::windows;
use crate::Options;
use std::sync::Arc;
use webnn_core::{Error, Graph, Result};

/// Workgroups for `units` work units: at most 65535 in x and few enough rows that the thread
/// count fits a u32; the kernels' grid-stride loop covers the rest.
pub fn workgroups(units: u32) -> (u32, u32) {
    let groups = units.div_ceil(WORKGROUP_SIZE).max(1);
    let x = groups.min(65535);
    let y = groups.div_ceil(x).min(512);
    (x, y)
}

/// Bytes between parameter blocks: each at an offset the device accepts for a uniform and
/// for a storage binding (`ParamBinding`).
pub(super) fn block_stride(gpu: &Gpu) -> u64 {
    let align = gpu.limits.min_uniform_buffer_offset_alignment.max(gpu.limits.min_storage_buffer_offset_alignment);
    MAX_BLOCK.next_multiple_of(align.max(1) as u64)
}

/// Output rows of a gemm-frame tile.
fn tile_rows(key: KernelKey) -> u32 {
    match key.kernel {
        KernelId::Matmul { rows, .. } | KernelId::Conv { rows, .. } | KernelId::QGemm { rows, .. } => 8 * rows,
        _ => TILE,
    }
}

/// Invocations per row of a row kernel.
fn lanes(key: KernelKey) -> u32 {
    match key.kernel {
        KernelId::Reduce { lanes, .. }
        | KernelId::ArgReduce { lanes, .. }
        | KernelId::Softmax { lanes }
        | KernelId::Normalize { lanes, .. }
        | KernelId::Pool { lanes, .. }
        | KernelId::Gemv { lanes, .. }
        | KernelId::QGemv { lanes, .. } => lanes,
        KernelId::Attention { .. } | KernelId::AttentionTiled { .. } | KernelId::AttentionSplit { .. } | KernelId::AttentionMerge => ROW_WORKGROUP,
        _ => ROW_WORKGROUP,
    }
}

/// The grid of `t[0] * t[1] * t[2]` tiles, numbered row-major over a 2-D grid within the
/// dispatch limits (the tiled kernels skip the numbers past the last tile).
fn tiles(t: [u32; 3]) -> [u32; 3] {
    let total = t.iter().fold(1u32, |a, &n| a.saturating_mul(n)).max(1);
    let x = total.min(65535);
    [x, total.div_ceil(x), 1]
}

/// The workgroup grid of one dispatch of `key` with block `uniform`.
pub(super) fn grid(key: KernelKey, uniform: &Uniform) -> [u32; 3] {
    let rows = |rows: u32| {
        let groups = rows.div_ceil(ROW_WORKGROUP / lanes(key));
        let (x, y) = workgroups(groups.saturating_mul(WORKGROUP_SIZE));
        [x, y, 1]
    };
    match uniform {
        Uniform::Params(p) => {
            let (x, y) = workgroups(p.units);
            [x, y, 1]
        }
        Uniform::Rows(r) => rows(r.rows),
        Uniform::Pool(p) => rows(p.rows),
        Uniform::Matmul(m) => match key.kernel {
            KernelId::Gemv { .. } => rows(m.batches.saturating_mul(m.m).saturating_mul(m.n)),
            // With one row of x, COLS weight rows per frame row (one of each set with a
            // pair); otherwise four rows of x (qgemv.wgsl's XR) against four weight rows, two
            // of each set with a pair (`block_cols`).
            KernelId::QGemv { pair: true, .. } if m.m == 1 => rows(m.n),
            KernelId::QGemv { cols, .. } if m.m == 1 => rows(m.n.div_ceil(cols)),
            KernelId::QGemv { pair, .. } => {
                let cols = if pair { 2 } else { 4 };
                rows(m.m.div_ceil(4).saturating_mul(m.n.div_ceil(cols)))
            }
            _ => tiles([m.n.div_ceil(TILE), m.m.div_ceil(tile_rows(key)), m.batches]),
        },
        Uniform::Conv(c) => tiles([c.n.div_ceil(TILE), c.m.div_ceil(tile_rows(key)), c.groups]),
        Uniform::Depthwise(d) => tiles([
            d.ow.div_ceil(DEPTHWISE_TILE[1]),
            d.oh.div_ceil(DEPTHWISE_TILE[0]),
            d.planes,
        ]),
    }
}

pub(super) fn storage_buffer(gpu: &Gpu, label: &str, size: u64) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        // Uniform too: on CPU adapters some kernels bind their small input a so (`ABinding`).
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Bytes padded with zeros to the buffer's size (`write_buffer` copies multiples of 4); no
/// copy when they already fill it.
pub(super) fn padded(bytes: &[u8], size: u64) -> std::borrow::Cow<'_, [u8]> {
    if bytes.len() as u64 == size {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut v = bytes.to_vec();
    v.resize(size as usize, 0);
    std::borrow::Cow::Owned(v)
}

/// What each buffer of a bind group binds.
#[derive(Clone, Copy)]
pub(super) enum Ranges<'r> {
    /// Windows of a split dispatch, made for one set of sizes.
    Windows(&'r [(u64, u64)]),
    /// The whole buffer (up to the largest binding): a call in one window binds its buffers
    /// whole, so the bind group serves every size the buffers hold.
    Whole(u64),
}

impl WgpuGraph {
    /// How `step`'s buffers are bound.
    pub(super) fn ranges<'s>(&self, step: &'s Step) -> Ranges<'s> {
        match step.single_window {
            true => Ranges::Whole(self.max_binding),
            false => Ranges::Windows(&step.ranges),
        }
    }
}

/// A bind group of one kernel call: its uniform block, then each buffer over its window;
/// input 0 over exactly `uniform_input` bytes where the kernel binds it as a uniform
/// (`KernelKey::uniform_input`).
#[allow(clippy::too_many_arguments)]
pub(super) fn bind_group(
    gpu: &Gpu,
    layout: &wgpu::BindGroupLayout,
    label: &str,
    uniform: &wgpu::Buffer,
    (offset, size): (u64, u64),
    buffers: &[&wgpu::Buffer],
    ranges: Ranges,
    uniform_input: Option<u64>,
) -> wgpu::BindGroup {
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: uniform,
            offset,
            size: wgpu::BufferSize::new(size),
        }),
    }];
    for (b, buffer) in buffers.iter().enumerate() {
        let (offset, size) = match ranges {
            Ranges::Windows(r) => (r[b].0, wgpu::BufferSize::new(r[b].1)),
            Ranges::Whole(max) if buffer.size() <= max => (0, None),
            Ranges::Whole(max) => (0, wgpu::BufferSize::new(max / 4 * 4)),
        };
        let size = match uniform_input {
            Some(bytes) if b == 1 => wgpu::BufferSize::new(bytes),
            _ => size,
        };
        entries.push(wgpu::BindGroupEntry {
            binding: 1 + b as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding { buffer, offset, size }),
        });
    }
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// One kernel call to dispatch: its node, the call, the buffers it binds (output first) and
/// its windows.
type Dispatch<'l> = (usize, &'l KernelCall, Vec<Loc>, Vec<crate::window::Window>);

impl WgpuGraph {
    pub(super) fn build(
        gpu: Arc<Gpu>,
        cache: &PipelineCache,
        graph: &Graph,
        lowered: Vec<Lowering>,
        plan: BufferPlan,
        sizes: &[u64],
        options: Options,
    ) -> Result<WgpuGraph> {
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
        let slots: Vec<_> = plan
            .slot_bytes
            .iter()
            .map(|&s| storage_buffer(&gpu, "intermediate", s))
            .collect();

        // Host-side buffers (inputs, outputs, readback) wait for the first host dispatch:
        // a graph run on tensors binds the tensors' buffers and never needs them.
        let staging_size: u64 = graph
            .outputs
            .iter()
            .map(|(_, o)| sizes[o.index()].next_multiple_of(wgpu::MAP_ALIGNMENT))
            .sum();
        let host_sizes = super::HostSizes {
            inputs: graph.inputs.iter().map(|(_, o)| sizes[o.index()]).collect(),
            outputs: plan.output_bytes.clone(),
            staging: staging_size.max(wgpu::MAP_ALIGNMENT),
        };
        let inputs = graph
            .inputs
            .iter()
            .map(|(n, o)| (n.clone(), graph.desc(*o).clone()))
            .collect();
        let mut g = WgpuGraph {
            gpu,
            inputs,
            constants,
            slots,
            host: None,
            host_sizes,
            shaped: Shaped::default(),
            plan,
            dynamic: None,
            others: Vec::new(),
            max_binding: options.max_binding,
            in_place: Vec::new(),
            copied: 0,
            shapes_built: 1,
            copy_buffers: Vec::new(),
            bind_groups_made: 0,
            encode_nanos: None,
            recorded: 0,
        };
        g.shaped = g.make_shaped(cache, graph, &lowered, sizes, options)?;
        Ok(g)
    }

    /// Everything that depends on the sizes: the kernel steps (windows, uniform blocks, grids,
    /// bind groups over the graph's buffers) and the output reads, for `graph` at its shapes.
    pub(super) fn make_shaped(
        &self,
        cache: &PipelineCache,
        graph: &Graph,
        lowered: &[Lowering],
        sizes: &[u64],
        options: Options,
    ) -> Result<Shaped> {
        let gpu = &self.gpu;
        let dispatches = self.dispatches(graph, lowered, sizes, options)?;
        let stride = block_stride(gpu);
        let blocks: Vec<&Uniform> = dispatches
            .iter()
            .flat_map(|(_, _, _, w)| w.iter().map(|w| &w.uniform))
            .collect();
        let mut bytes = vec![0u8; blocks.len() * stride as usize];
        for (k, u) in blocks.iter().enumerate() {
            let b = u.bytes();
            let at = k * stride as usize;
            bytes[at..at + b.len()].copy_from_slice(b);
        }
        let uniforms = (!blocks.is_empty()).then(|| {
            let b = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("params"),
                size: bytes.len() as u64,
                // Most kernels bind their block as a uniform, some as storage (ParamBinding).
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            gpu.queue.write_buffer(&b, 0, &bytes);
            b
        });
        let buffer = |loc: Loc| self.buffer(loc);

        let keys: Vec<KernelKey> = dispatches.iter().map(|(_, call, _, _)| call.key).collect();
        cache.prepare(gpu, &keys, options.native_f16)?;
        let mut steps = Vec::with_capacity(blocks.len());
        let mut k = 0u64;
        let mut previous_node = usize::MAX;
        for (n, call, bound, wins) in &dispatches {
            let pipeline = cache.get(gpu, call.key, options.native_f16)?;
            let uniform = uniforms
                .as_ref()
                .ok_or_else(|| Error::operation_error("no uniform buffer"))?;
            // A scatter lowers to a copy of its input, then the update (`lower::movement`).
            let op = &graph.nodes[*n].op;
            let pre_copy = previous_node != *n
                && matches!(op, webnn_core::Op::ScatterNd(_) | webnn_core::Op::ScatterElements(_));
            previous_node = *n;
            for win in wins {
                let block = (k * stride, win.uniform.bytes().len() as u64);
                k += 1;
                let buffers: Option<Vec<&wgpu::Buffer>> = bound.iter().map(|l| buffer(*l)).collect();
                let ranges = match wins.len() {
                    1 => Ranges::Whole(options.max_binding),
                    _ => Ranges::Windows(&win.ranges),
                };
                let bind_group = buffers.map(|buffers| {
                    bind_group(gpu, &pipeline.layout, &call.key.label(), uniform, block, &buffers, ranges, call.key.uniform_input())
                });
                steps.push(Step {
                    pipeline: pipeline.pipeline.clone(),
                    layout: pipeline.layout.clone(),
                    bind_group,
                    bound: bound.clone(),
                    ranges: win.ranges.clone(),
                    uniform: block,
                    pre_copy,
                    copy_bytes: if pre_copy { sizes[call.output.index()] } else { 0 },
                    tensor_groups: Vec::new(),
                    key: call.key,
                    single_window: wins.len() == 1,
                    groups: grid(call.key, &win.uniform),
                    node: *n,
                    op: op.kind(),
                    kernel: call.key.label(),
                });
            }
        }

        let outputs = self.output_reads(graph, sizes)?;
        let input_bytes = graph.inputs.iter().map(|(_, o)| sizes[o.index()]).collect();
        Ok(Shaped {
            steps,
            outputs,
            input_bytes,
            _uniforms: uniforms,
            blocks: bytes,
            plans: Vec::new(),
        })
    }

    /// Per kernel call of `lowered`: its node, the call, the buffers it binds (output first)
    /// and the windows it is dispatched in, at `sizes`.
    fn dispatches<'l>(
        &self,
        graph: &Graph,
        lowered: &'l [Lowering],
        sizes: &[u64],
        options: Options,
    ) -> Result<Vec<Dispatch<'l>>> {
        let gpu = &self.gpu;
        let plan = &self.plan;
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
                options.max_binding,
                gpu.limits.min_storage_buffer_offset_alignment as u64,
            )
            .map_err(|e| e.at(node.op.name(), node.op.label()))?;
            dispatches.push((*n, *call, bound, wins));
        }
        Ok(dispatches)
    }

    /// Where each output is read from and lands in the staging buffer, at `sizes`.
    pub(super) fn output_reads(&self, graph: &Graph, sizes: &[u64]) -> Result<Vec<OutputRead>> {
        let mut outputs = Vec::with_capacity(graph.outputs.len());
        let mut staging_size = 0u64;
        for (name, o) in &graph.outputs {
            let bytes = sizes[o.index()];
            let loc = self.plan.loc[o.index()]
                .ok_or_else(|| Error::operation_error(format!("output '{name}' has no buffer")))?;
            outputs.push(OutputRead {
                name: name.clone(),
                desc: graph.desc(*o).clone(),
                loc,
                bytes,
                staging_offset: staging_size,
            });
            staging_size += bytes.next_multiple_of(wgpu::MAP_ALIGNMENT);
        }
        Ok(outputs)
    }

    /// `output_reads` for the current steps' outputs at `graph`'s new sizes, in place: a
    /// decoder's 61 outputs change shape at every step, and building them anew cloned their
    /// names and descriptors.
    pub(super) fn update_output_reads(&mut self, graph: &Graph, sizes: &[u64]) {
        debug_assert_eq!(self.shaped.outputs.len(), graph.outputs.len());
        let mut staging_size = 0u64;
        for (read, (name, o)) in self.shaped.outputs.iter_mut().zip(&graph.outputs) {
            debug_assert_eq!(&read.name, name);
            let desc = graph.desc(*o);
            read.desc.shape.clone_from(&desc.shape);
            read.bytes = sizes[o.index()];
            read.staging_offset = staging_size;
            staging_size += read.bytes.next_multiple_of(wgpu::MAP_ALIGNMENT);
        }
    }

    /// Makes the current shape serve `graph`'s sizes in place when it runs the same kernels,
    /// each in one window: the new uniform blocks are written over the old ones (the queue
    /// orders the write after the work already submitted) and the grids follow the sizes; no
    /// pipeline, bind group or buffer is created. False, with nothing changed, otherwise.
    pub(super) fn reshape_in_place(
        &mut self,
        graph: &Graph,
        lowered: &[Lowering],
        sizes: &[u64],
        options: Options,
    ) -> Result<bool> {
        let dispatches = self.dispatches(graph, lowered, sizes, options)?;
        let steps = &self.shaped.steps;
        let same = dispatches.len() == steps.len()
            && dispatches.iter().zip(steps).all(|((_, call, _, wins), s)| {
                call.key == s.key && s.single_window && wins.len() == 1
            });
        if !same {
            return Ok(false);
        }
        let stride = block_stride(&self.gpu) as usize;
        let mut bytes = vec![0u8; dispatches.len() * stride];
        for (k, (_, call, _, wins)) in dispatches.iter().enumerate() {
            let b = wins[0].uniform.bytes();
            bytes[k * stride..k * stride + b.len()].copy_from_slice(b);
            self.shaped.steps[k].groups = grid(call.key, &wins[0].uniform);
        }
        if let Some(u) = &self.shaped._uniforms {
            self.gpu.queue.write_buffer(u, 0, &bytes);
        }
        self.shaped.blocks = bytes;
        self.shaped.outputs = self.output_reads(graph, sizes)?;
        self.shaped.input_bytes = graph.inputs.iter().map(|(_, o)| sizes[o.index()]).collect();
        Ok(true)
    }
}
