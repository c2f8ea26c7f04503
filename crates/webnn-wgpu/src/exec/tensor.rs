//! Tensors that live on the GPU (`MLTensor`): created on the backend's device, written from
//! and read back to the host (reading by asynchronous mapping), and bound to a graph's
//! inputs and outputs by `dispatch_tensors`, which records the copies into and out of the
//! graph's buffers in the same encoder as the kernels: no CPU round trip, so one graph's
//! output tensor can feed the next graph on the GPU.

use super::WgpuGraph;
use crate::plan::Loc;
use crate::gpu::Gpu;
use crate::storage::Storage;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use webnn_core::{DeviceTensor, Error, OperandDescriptor, ReadFuture, Result};

static NEXT_TENSOR: AtomicU64 = AtomicU64::new(1);

/// Bind groups kept per step for tensor sets met before (a decoder alternates few).
const TENSOR_GROUPS_KEPT: usize = 4;

/// Inputs up to this size are copied into the graph's own buffers at each dispatch rather
/// than bound where they lie (`WgpuGraph::input_copies`).
const COPIED_INPUT_BYTES: u64 = 64 << 10;

/// Binding plans kept per set of steps (`Shaped::plans`): a decoder alternates a few sets
/// of tensors (its tokens' and caches' ping-pong).
const PLANS_KEPT: usize = 4;

/// How one step is recorded in a dispatch on tensors (`WgpuGraph::bind_tensors`).
#[derive(Clone)]
pub(super) enum StepBinding {
    /// Its bind group over the graph's own buffers.
    Own,
    /// A bind group over the bound tensors (one of the step's `tensor_groups`).
    Tensors(wgpu::BindGroup),
    /// Not recorded: the copy of an in-place scatter's input into itself.
    Skip,
}

/// How every step binds for one set of tensors: the tensor id at each bound location, and
/// per step its binding.
pub(crate) struct BindPlan {
    key: Vec<(Loc, u64)>,
    pub(super) steps: Vec<StepBinding>,
}

/// A tensor in a GPU buffer.
pub struct WgpuTensor {
    gpu: Arc<Gpu>,
    desc: OperandDescriptor,
    buffer: wgpu::Buffer,
    /// The tensor's bytes (a packed int4 tensor's half-bytes rounded up).
    bytes: u64,
    id: u64,
}

/// The buffer goes back at once (`MLTensor.destroy()`), not at garbage collection.
impl Drop for WgpuTensor {
    fn drop(&mut self) {
        self.buffer.destroy();
    }
}

impl WgpuTensor {
    /// A zero-filled tensor of `desc` on `gpu`.
    pub fn new(gpu: Arc<Gpu>, desc: OperandDescriptor) -> Result<WgpuTensor> {
        let shape = desc.require_static("a tensor")?;
        let elements = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
        let size = elements
            .and_then(|n| Storage::of(desc.data_type).buffer_bytes(n))
            .filter(|&s| s <= gpu.limits.max_buffer_size)
            .ok_or_else(|| {
                Error::not_supported(format!("{desc} exceeds the device's largest buffer"))
            })?;
        let bytes = desc.max_byte_length().unwrap_or(0);
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("webnn tensor"),
            size,
            // Uniform too: a tensor may be a kernel's uniform input a (`ABinding`).
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let id = NEXT_TENSOR.fetch_add(1, Ordering::Relaxed);
        Ok(WgpuTensor {
            gpu,
            desc,
            buffer,
            bytes,
            id,
        })
    }

    pub fn desc(&self) -> &OperandDescriptor {
        &self.desc
    }


    /// Replaces the contents (`writeTensor`): `data` holds the elements as laid out in
    /// memory (int4/uint4 two per byte).
    pub fn write(&self, data: &[u8]) -> Result<()> {
        if data.len() as u64 != self.bytes {
            return Err(Error::type_error(format!(
                "{} needs {} bytes, got {}",
                self.desc,
                self.bytes,
                data.len()
            )));
        }
        let data = super::build::padded(data, self.buffer.size());
        self.gpu.queue.write_buffer(&self.buffer, 0, &data);
        Ok(())
    }

    /// The contents (`readTensor`), once the work submitted before has finished.
    pub async fn read_async(&self) -> Result<Vec<u8>> {
        self.reader().await
    }

    /// Records the copy to a staging buffer now and returns a future that owns what it needs,
    /// so callers need not keep the tensor borrowed while the device works.
    pub fn reader(&self) -> impl Future<Output = Result<Vec<u8>>> + 'static {
        let size = self.buffer.size();
        let staging = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("webnn tensor readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("webnn tensor readback"),
            });
        encoder.copy_buffer_to_buffer(&self.buffer, 0, &staging, 0, size);
        self.gpu.queue.submit([encoder.finish()]);
        let (gpu, bytes) = (self.gpu.clone(), self.bytes as usize);
        async move {
            super::run::map(&gpu, &staging).await?;
            let data = {
                let view = staging
                    .get_mapped_range(..)
                    .map_err(|e| Error::operation_error(format!("reading a tensor: {e}")))?;
                view[..bytes].to_vec()
            };
            staging.unmap();
            staging.destroy();
            Ok(data)
        }
    }

    /// `read_async` on native targets.
    pub fn read(&self) -> Result<Vec<u8>> {
        crate::gpu::block_on(self.read_async())?
    }
}

/// `MLTensor` storage on a WebGPU context: writes go through the queue and reads copy to a
/// staging buffer at once, so both are ordered with the dispatches around them.
impl DeviceTensor for WgpuTensor {
    fn write(&mut self, data: &[u8]) -> Result<()> {
        WgpuTensor::write(self, data)
    }

    fn read(&self) -> ReadFuture {
        Box::pin(self.reader())
    }
}

/// Pairs each graph binding (name and descriptor) with the tensor named for it, checking
/// the names, the device and, with `same`, the descriptors.
fn bind<'t>(
    what: &str,
    expected: &[(&str, &OperandDescriptor)],
    given: &[(&str, &'t WgpuTensor)],
    gpu: &Arc<Gpu>,
    same: impl Fn(&OperandDescriptor, &OperandDescriptor) -> bool,
) -> Result<Vec<&'t WgpuTensor>> {
    if given.len() != expected.len() {
        return Err(Error::type_error(format!(
            "the graph has {} {what}s, {} tensors were given",
            expected.len(),
            given.len()
        )));
    }
    expected
        .iter()
        .enumerate()
        .map(|(k, (name, desc))| {
            let t = super::named(given, k, name)
                .copied()
                .ok_or_else(|| Error::type_error(format!("no tensor given for {what} '{name}'")))?;
            if !Arc::ptr_eq(&t.gpu, gpu) {
                return Err(Error::type_error(format!(
                    "the tensor for {what} '{name}' belongs to another device"
                )));
            }
            if !same(desc, &t.desc) {
                return Err(Error::type_error(format!(
                    "{what} '{name}' is {desc}, the tensor is {}",
                    t.desc
                )));
            }
            Ok(t)
        })
        .collect()
}

impl WgpuGraph {
    /// A tensor on this graph's device.
    pub fn create_tensor(&self, desc: OperandDescriptor) -> Result<WgpuTensor> {
        WgpuTensor::new(self.gpu.clone(), desc)
    }

    /// Runs the graph on tensors (`MLContext.dispatch`): the kernels read and write the
    /// tensors' buffers directly, in one submitted encoder. A tensor may be both an input and
    /// an output only for an in-place update (`Graph::in_place_pairs`).
    pub async fn dispatch_tensors_async(
        &mut self,
        inputs: &[(&str, &WgpuTensor)],
        outputs: &[(&str, &WgpuTensor)],
    ) -> Result<()> {
        self.submit_tensors(inputs, outputs)?.await
    }

    /// The synchronous part of `dispatch_tensors_async`: checks the bindings and submits the
    /// work; the returned future reports what the device caught (`MLContext.dispatch`
    /// returns before the GPU finishes).
    pub fn submit_tensors(
        &mut self,
        inputs: &[(&str, &WgpuTensor)],
        outputs: &[(&str, &WgpuTensor)],
    ) -> Result<Pin<Box<dyn Future<Output = Result<()>>>>> {
        // std's clock panics on wasm32.
        #[cfg(not(target_arch = "wasm32"))]
        let start = std::time::Instant::now();
        // The tensors' shapes pick the sizes (dynamic dimensions) and are checked there.
        let shapes: Vec<(&str, Vec<u32>)> = inputs
            .iter()
            .map(|(n, t)| (*n, t.desc.static_shape().unwrap_or_default()))
            .collect();
        self.select(&shapes)?;
        // `select` checked the inputs' shapes against the declared ones (dynamic dimensions
        // included); here their data types.
        let in_descs: Vec<(&str, &OperandDescriptor)> = self.inputs.iter().map(|(n, d)| (n.as_str(), d)).collect();
        let ins = bind("input", &in_descs, inputs, &self.gpu, |want, got| want.data_type == got.data_type)?;
        let out_descs: Vec<(&str, &OperandDescriptor)> =
            self.shaped.outputs.iter().map(|o| (o.name.as_str(), &o.desc)).collect();
        let outs = bind("output", &out_descs, outputs, &self.gpu, |want, got| want == got)?;
        self.check_sharing(&ins, &outs, &out_descs)?;
        // Small inputs (a decoder's tokens, positions and mask, which often come in new
        // tensors) are copied into buffers of the graph's own, so the bind groups of the
        // kernels reading them are made once, not at every dispatch.
        let own = self.input_copies(&ins)?;
        // The tensors' own buffers are bound where the graph's inputs and outputs live, so
        // nothing else is copied in; an output whose value lives elsewhere (an input passed
        // through, a value two outputs name) is copied out after the kernels.
        let mut at: Vec<(Loc, &WgpuTensor)> = ins
            .iter()
            .zip(&own)
            .enumerate()
            .map(|(k, (t, copy))| (Loc::Input(k), copy.as_ref().unwrap_or(*t)))
            .collect();
        let mut copies = Vec::new();
        for (t, o) in outs.iter().zip(&self.shaped.outputs) {
            match o.loc {
                Loc::Output(_) if !at.iter().any(|(l, _)| *l == o.loc) => at.push((o.loc, *t)),
                _ => copies.push((o.loc, *t, o.bytes)),
            }
        }
        let plan = self.bind_tensors(&at);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("webnn dispatch"),
            });
        for ((t, copy), bytes) in ins.iter().zip(&own).zip(&self.shaped.input_bytes) {
            if let Some(copy) = copy {
                encoder.copy_buffer_to_buffer(&t.buffer, 0, &copy.buffer, 0, (*bytes).min(t.buffer.size()));
            }
        }
        self.copied = self.record_bound(&mut encoder, plan);
        for (loc, t, bytes) in copies {
            self.copied += bytes;
            let from = at.iter().find(|(l, _)| *l == loc).map(|(_, t)| &t.buffer).or_else(|| self.buffer(loc));
            if let Some(from) = from {
                encoder.copy_buffer_to_buffer(from, 0, &t.buffer, 0, bytes);
            }
        }
        let commands = encoder.finish();
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.encode_nanos = u64::try_from(start.elapsed().as_nanos()).ok();
        }
        let scope = self.gpu.scope();
        self.gpu.queue.submit([commands]);
        drop(at);
        self.copy_buffers = own;
        Ok(self.gpu.end(scope, "dispatch"))
    }

    /// Per input: the graph's own copy of it when it is small and not updated in place
    /// (`COPIED_INPUT_BYTES`), made at the input's bound size on first use and kept (taken
    /// out of the graph for the dispatch, put back by `submit_tensors`).
    fn input_copies(&mut self, ins: &[&WgpuTensor]) -> Result<Vec<Option<WgpuTensor>>> {
        let mut kept = std::mem::take(&mut self.copy_buffers);
        kept.resize_with(ins.len(), || None);
        let in_place: Vec<usize> = self.in_place.iter().map(|&(i, _)| i).collect();
        let mut copies = Vec::with_capacity(ins.len());
        for (k, (t, kept)) in ins.iter().zip(kept).enumerate() {
            let small = t.buffer.size() <= COPIED_INPUT_BYTES && !in_place.contains(&k);
            copies.push(match (small, kept) {
                (false, _) => None,
                (true, Some(c)) => Some(c),
                (true, None) => {
                    let d = &self.inputs[k].1;
                    let desc = OperandDescriptor::new(d.data_type, &d.max_shape());
                    Some(WgpuTensor::new(self.gpu.clone(), desc)?)
                }
            });
        }
        Ok(copies)
    }

    /// One tensor may serve an input and an output only as an in-place update
    /// (`Graph::in_place_pairs`); any other sharing is a TypeError.
    fn check_sharing(
        &self,
        ins: &[&WgpuTensor],
        outs: &[&WgpuTensor],
        out_descs: &[(&str, &OperandDescriptor)],
    ) -> Result<()> {
        for (k, o) in outs.iter().enumerate() {
            let shared = outs[..k].iter().any(|p| p.id == o.id)
                || ins
                    .iter()
                    .enumerate()
                    .any(|(j, i)| i.id == o.id && !self.in_place.contains(&(j, k)));
            if shared {
                return Err(Error::type_error(format!(
                    "the tensor for output '{}' is also bound to another input or output, and the output is not an in-place update of that input",
                    out_descs[k].0
                )));
            }
        }
        Ok(())
    }

    /// The index in `Shaped::plans` of how each step binds with tensors at `at`: its own
    /// bind group, none (an in-place scatter's copy, skipped), or one of its tensor bind
    /// groups, made here when these tensors are new to it (reused when they come again). A
    /// set of tensors met before finds its whole plan kept.
    fn bind_tensors(&mut self, at: &[(Loc, &WgpuTensor)]) -> usize {
        let key: Vec<(Loc, u64)> = at.iter().map(|(l, t)| (*l, t.id)).collect();
        let plans = &mut self.shaped.plans;
        if let Some(i) = plans.iter().position(|p| p.key == key) {
            let hit = plans.remove(i);
            plans.push(hit);
            return plans.len() - 1;
        }
        let steps = self.plan_steps(at);
        let plans = &mut self.shaped.plans;
        plans.push(BindPlan { key, steps });
        if plans.len() > PLANS_KEPT {
            plans.remove(0);
        }
        plans.len() - 1
    }

    /// `bind_tensors` for a set of tensors without a kept plan: each step's binding.
    fn plan_steps(&mut self, at: &[(Loc, &WgpuTensor)]) -> Vec<StepBinding> {
        // The tensors by location, looked up per bound buffer of every step (a decoder binds
        // some 64 tensors to some 300 steps at each dispatch): the inputs' and outputs' by
        // index.
        let mut by_input: Vec<Option<&WgpuTensor>> = Vec::new();
        let mut by_output: Vec<Option<&WgpuTensor>> = Vec::new();
        let mut others = Vec::new();
        for &(loc, t) in at {
            let (table, k) = match loc {
                Loc::Input(k) => (&mut by_input, k),
                Loc::Output(k) => (&mut by_output, k),
                _ => {
                    others.push((loc, t));
                    continue;
                }
            };
            if table.len() <= k {
                table.resize(k + 1, None);
            }
            table[k] = Some(t);
        }
        let tensor = |loc: &Loc| match loc {
            Loc::Input(k) => by_input.get(*k).copied().flatten(),
            Loc::Output(k) => by_output.get(*k).copied().flatten(),
            _ => others.iter().find(|(l, _)| l == loc).map(|(_, t)| *t),
        };
        let mut plan = Vec::with_capacity(self.shaped.steps.len());
        let uniform = self.shaped._uniforms.clone();
        let mut ids: Vec<u64> = Vec::new();
        for k in 0..self.shaped.steps.len() {
            let step = &self.shaped.steps[k];
            ids.clear();
            ids.extend(step.bound.iter().map(|l| tensor(l).map_or(0, |t| t.id)));
            let in_place = step.pre_copy && ids[0] != 0 && ids.get(1) == Some(&ids[0]);
            if in_place {
                plan.push(StepBinding::Skip);
                continue;
            }
            if ids.iter().all(|&id| id == 0) {
                plan.push(StepBinding::Own);
                continue;
            }
            // Most recent last: a decoder's steps find theirs there.
            if let Some(i) = step.tensor_groups.iter().rposition(|(key, _)| *key == ids) {
                let groups = &mut self.shaped.steps[k].tensor_groups;
                let hit = groups.remove(i);
                plan.push(StepBinding::Tensors(hit.1.clone()));
                groups.push(hit);
                continue;
            }
            let Some(uniform) = &uniform else {
                plan.push(StepBinding::Skip);
                continue;
            };
            let buffers: Vec<&wgpu::Buffer> = step
                .bound
                .iter()
                .map(|l| tensor(l).map(|t| &t.buffer).or_else(|| self.buffer(*l)))
                .collect::<Option<_>>()
                .unwrap_or_default();
            if buffers.len() != step.bound.len() {
                plan.push(StepBinding::Skip);
                continue;
            }
            let group = super::build::bind_group(
                &self.gpu,
                &step.layout,
                &step.kernel,
                uniform,
                step.uniform,
                &buffers,
                self.ranges(step),
                step.key.uniform_input(),
            );
            self.bind_groups_made += 1;
            let groups = &mut self.shaped.steps[k].tensor_groups;
            plan.push(StepBinding::Tensors(group.clone()));
            groups.push((ids.clone(), group));
            if groups.len() > TENSOR_GROUPS_KEPT {
                groups.remove(0);
            }
        }
        plan
    }

    /// `dispatch_tensors_async` on native targets.
    pub fn dispatch_tensors(
        &mut self,
        inputs: &[(&str, &WgpuTensor)],
        outputs: &[(&str, &WgpuTensor)],
    ) -> Result<()> {
        crate::gpu::block_on(self.dispatch_tensors_async(inputs, outputs))?
    }
}
