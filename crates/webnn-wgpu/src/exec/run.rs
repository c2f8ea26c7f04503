//! Dispatch: upload the inputs, record one encoder (one compute pass, then the copies of the
//! outputs into the staging buffer), submit once, then map the staging buffer. The mapping
//! completes asynchronously: natively the device is polled, on the web the event loop
//! delivers it.

use super::build::padded;
use super::WgpuGraph;
use crate::gpu::Gpu;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use webnn_core::{Error, HostTensor, Result};

/// A value delivered once by a callback (wgpu's `map_async`), awaited by the caller.
struct Delivery<T> {
    slot: Arc<Mutex<(Option<T>, Option<Waker>)>>,
}

impl<T> Delivery<T> {
    fn new() -> (Delivery<T>, impl FnOnce(T)) {
        let slot: Arc<Mutex<(Option<T>, Option<Waker>)>> = Arc::new(Mutex::new((None, None)));
        let sender = slot.clone();
        let deliver = move |v: T| {
            if let Ok(mut s) = sender.lock() {
                s.0 = Some(v);
                if let Some(w) = s.1.take() {
                    w.wake();
                }
            }
        };
        (Delivery { slot }, deliver)
    }
}

impl<T> Future for Delivery<T> {
    type Output = Result<T>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let Ok(mut s) = self.slot.lock() else {
            return Poll::Ready(Err(Error::operation_error(
                "the readback state is poisoned",
            )));
        };
        match s.0.take() {
            Some(v) => Poll::Ready(Ok(v)),
            None => {
                s.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Maps `buffer` for reading once the GPU is done with it.
pub(super) async fn map(gpu: &Gpu, buffer: &wgpu::Buffer) -> Result<()> {
    let (mapped, deliver) = Delivery::new();
    buffer.slice(..).map_async(wgpu::MapMode::Read, deliver);
    // Natively the device is polled until the mapping is done; on the web the event loop
    // completes it.
    #[cfg(not(target_arch = "wasm32"))]
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::operation_error(format!("waiting for the GPU: {e}")))?;
    #[cfg(target_arch = "wasm32")]
    let _ = gpu;
    mapped
        .await?
        .map_err(|e| Error::operation_error(format!("mapping a readback buffer: {e}")))
}

impl WgpuGraph {
    /// Runs the graph once and reads every output back.
    pub async fn dispatch_async(
        &mut self,
        inputs: &[(&str, &HostTensor)],
    ) -> Result<Vec<(String, HostTensor)>> {
        self.upload(inputs)?;
        let scope = self.gpu.scope();
        self.submit();
        self.gpu.close(scope, "dispatch").await?;
        self.read_back().await
    }

    /// Picks the shape for the inputs' sizes and uploads them.
    pub(super) fn upload(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<()> {
        let shapes: Vec<(&str, Vec<u32>)> = inputs
            .iter()
            .map(|(n, t)| (*n, t.desc.static_shape().unwrap_or_default()))
            .collect();
        self.select(&shapes)?;
        self.ensure_host();
        let host = self.host.as_ref().ok_or_else(|| Error::operation_error("no host buffers"))?;
        for (k, (name, want)) in self.inputs.iter().enumerate() {
            let t = inputs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| *t)
                .ok_or_else(|| Error::type_error(format!("no tensor given for input '{name}'")))?;
            let expected = t.desc.max_byte_length().unwrap_or(0);
            if t.desc.data_type != want.data_type || t.bytes.len() as u64 != expected {
                return Err(Error::type_error(format!(
                    "input '{name}' expects {want} ({expected} bytes), got {} ({} bytes)",
                    t.desc,
                    t.bytes.len()
                )));
            }
            let size = self.shaped.input_bytes[k];
            self.gpu
                .queue
                .write_buffer(&host.inputs[k], 0, &padded(&t.bytes, size));
        }
        Ok(())
    }

    /// Records every kernel in one compute pass, then the output copies; submits once.
    fn submit(&self) {
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("webnn dispatch"),
            });
        self.record(&mut encoder);
        self.copy_outputs(&mut encoder);
        self.gpu.queue.submit([encoder.finish()]);
    }

    /// Every kernel, in one compute pass.
    pub(super) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.shaped.steps.is_empty() {
            return;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        for s in &self.shaped.steps {
            // `ensure_host` made every bind group before a host dispatch records.
            let Some(group) = &s.bind_group else { continue };
            pass.set_pipeline(&s.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(s.groups[0], s.groups[1], s.groups[2]);
        }
    }

    /// Every kernel, in one compute pass, each bound as the plan at index `plan` of
    /// `Shaped::plans` says (`bind_tensors`). A scatter's copy of its input into its output is
    /// skipped where both are one tensor: the update then runs in place. Returns the bytes
    /// the pre-copies that ran moved.
    pub(super) fn record_bound(&mut self, encoder: &mut wgpu::CommandEncoder, plan: usize) -> u64 {
        use super::tensor::StepBinding;
        let mut copied = 0;
        self.recorded = 0;
        // `bind_tensors` just made or found the plan.
        debug_assert!(plan < self.shaped.plans.len(), "binding plan {plan} missing");
        let Some(binding) = self.shaped.plans.get(plan).map(|p| &p.steps) else { return copied };
        if self.shaped.steps.is_empty() {
            return copied;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        let mut recorded = 0;
        for (s, b) in self.shaped.steps.iter().zip(binding) {
            let found = match b {
                StepBinding::Skip => continue,
                StepBinding::Own => s.bind_group.as_ref(),
                StepBinding::Tensors(g) => Some(g),
            };
            let Some(group) = found else { continue };
            copied += s.copy_bytes;
            recorded += 1;
            pass.set_pipeline(&s.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(s.groups[0], s.groups[1], s.groups[2]);
        }
        drop(pass);
        self.recorded = recorded;
        copied
    }

    pub(super) fn copy_outputs(&self, encoder: &mut wgpu::CommandEncoder) {
        let Some(host) = &self.host else { return };
        for o in &self.shaped.outputs {
            let Some(from) = self.buffer(o.loc) else { continue };
            encoder.copy_buffer_to_buffer(
                from,
                0,
                &host.staging,
                o.staging_offset,
                o.bytes,
            );
        }
    }

    async fn read_back(&self) -> Result<Vec<(String, HostTensor)>> {
        let host = self.host.as_ref().ok_or_else(|| Error::operation_error("no host buffers"))?;
        map(&self.gpu, &host.staging).await?;
        let result = {
            let view = host
                .staging
                .get_mapped_range(..)
                .map_err(|e| Error::operation_error(format!("reading the readback buffer: {e}")))?;
            self.shaped
                .outputs
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
        host.staging.unmap();
        Ok(result)
    }
}
