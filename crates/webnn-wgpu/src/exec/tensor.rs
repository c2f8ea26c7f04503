//! Tensors that live on the GPU (`MLTensor`): created on the backend's device, written from
//! and read back to the host (reading by asynchronous mapping), and bound to a graph's
//! inputs and outputs by `dispatch_tensors`, which records the copies into and out of the
//! graph's buffers in the same encoder as the kernels: no CPU round trip, so one graph's
//! output tensor can feed the next graph on the GPU.

use super::WgpuGraph;
use crate::gpu::Gpu;
use crate::storage::Storage;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use webnn_core::{Error, OperandDescriptor, Result};

static NEXT_TENSOR: AtomicU64 = AtomicU64::new(1);

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
            usage: wgpu::BufferUsages::STORAGE
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

/// Pairs each graph binding with the tensor named for it, checking the names and descriptors.
fn bind<'t>(
    what: &str,
    expected: &[(String, OperandDescriptor)],
    given: &[(&str, &'t WgpuTensor)],
    gpu: &Arc<Gpu>,
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
        .map(|(name, desc)| {
            let t = given
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| *t)
                .ok_or_else(|| Error::type_error(format!("no tensor given for {what} '{name}'")))?;
            if !Arc::ptr_eq(&t.gpu, gpu) {
                return Err(Error::type_error(format!(
                    "the tensor for {what} '{name}' belongs to another device"
                )));
            }
            if t.desc != *desc {
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

    /// Runs the graph on tensors (`MLContext.dispatch`): the input tensors are copied into
    /// the graph's input buffers, the kernels run, the outputs are copied into the output
    /// tensors, all in one submitted encoder. A tensor may not be both an input and an
    /// output.
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
        // The tensors' shapes pick the sizes (dynamic dimensions) and are checked there.
        let shapes: Vec<(&str, Vec<u32>)> = inputs
            .iter()
            .map(|(n, t)| (*n, t.desc.static_shape().unwrap_or_default()))
            .collect();
        self.select(&shapes)?;
        let in_descs: Vec<(String, OperandDescriptor)> = self
            .inputs
            .iter()
            .map(|(n, d)| {
                let given = inputs
                    .iter()
                    .find(|(m, _)| m == n)
                    .map(|(_, t)| t.desc.clone());
                (
                    n.clone(),
                    given
                        .filter(|g| g.data_type == d.data_type)
                        .unwrap_or_else(|| d.clone()),
                )
            })
            .collect();
        let ins = bind("input", &in_descs, inputs, &self.gpu)?;
        let out_descs: Vec<(String, OperandDescriptor)> = self
            .shaped
            .outputs
            .iter()
            .map(|o| (o.name.clone(), o.desc.clone()))
            .collect();
        let outs = bind("output", &out_descs, outputs, &self.gpu)?;
        for (k, o) in outs.iter().enumerate() {
            if ins.iter().any(|i| i.id == o.id) || outs[..k].iter().any(|p| p.id == o.id) {
                return Err(Error::type_error(format!(
                    "the tensor for output '{}' is also bound to another input or output",
                    out_descs[k].0
                )));
            }
        }
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("webnn dispatch"),
            });
        for (t, buffer) in ins.iter().zip(&self.input_buffers) {
            encoder.copy_buffer_to_buffer(
                &t.buffer,
                0,
                buffer,
                0,
                t.buffer.size().min(buffer.size()),
            );
        }
        self.record(&mut encoder);
        for (t, o) in outs.iter().zip(&self.shaped.outputs) {
            encoder.copy_buffer_to_buffer(self.buffer(o.loc), 0, &t.buffer, 0, o.bytes);
        }
        let scope = self.gpu.scope();
        self.gpu.queue.submit([encoder.finish()]);
        Ok(self.gpu.end(scope, "dispatch"))
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
