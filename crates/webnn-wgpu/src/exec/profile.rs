//! GPU time per kernel from timestamp queries: each dispatch in a compute pass of its own,
//! with timestamps written at the pass's beginning and end. A measuring mode only: a normal
//! dispatch records every kernel in one pass.

use super::WgpuGraph;
use webnn_core::ops::Family;
use webnn_core::{Error, HostTensor, OpKind, Result};

/// The GPU time of one dispatch.
#[derive(Clone, Debug)]
pub struct StepTime {
    pub op: OpKind,
    pub family: Family,
    /// The kernel's key, as text.
    pub kernel: String,
    pub nanos: f64,
    /// Workgroups launched: how much of a GPU the kernel can fill.
    pub workgroups: u64,
}

/// Queries per query set (WebGPU's limit).
const MAX_QUERIES: u32 = 4096;

impl WgpuGraph {
    /// Runs the graph once with a timestamp pair around each kernel; None when the adapter
    /// has no timestamp queries.
    pub fn profile(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Option<Vec<StepTime>>> {
        crate::gpu::block_on(self.profile_async(inputs))?
    }

    /// The kernels of one run (their names, joined by `+`) and the median over `runs` runs
    /// of their summed GPU time in ms; None when the adapter has no timestamp queries.
    pub fn median_gpu_ms(&mut self, inputs: &[(&str, &HostTensor)], runs: usize) -> Result<Option<(String, f64)>> {
        let mut kernels = String::new();
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs.max(1) {
            let Some(steps) = self.profile(inputs)? else { return Ok(None) };
            kernels = steps.iter().map(|s| s.kernel.split(' ').next().unwrap_or("")).collect::<Vec<_>>().join("+");
            times.push(steps.iter().map(|s| s.nanos).sum::<f64>() / 1e6);
        }
        times.sort_by(f64::total_cmp);
        Ok(Some((kernels, times[times.len() / 2])))
    }

    pub async fn profile_async(
        &mut self,
        inputs: &[(&str, &HostTensor)],
    ) -> Result<Option<Vec<StepTime>>> {
        if !self.gpu.timestamps {
            return Ok(None);
        }
        let count = u32::try_from(self.shaped.steps.len() * 2)
            .ok()
            .filter(|&c| c <= MAX_QUERIES && c > 0)
            .ok_or_else(|| {
                Error::not_supported(format!(
                    "profiling {} dispatches needs more than {MAX_QUERIES} timestamps",
                    self.shaped.steps.len()
                ))
            })?;
        self.upload(inputs)?;
        let device = &self.gpu.device;
        let scope = self.gpu.scope();
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("webnn profile"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let bytes = count as u64 * 8;
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("webnn profile"),
        });
        for (k, s) in self.shaped.steps.iter().enumerate() {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(2 * k as u32),
                    end_of_pass_write_index: Some(2 * k as u32 + 1),
                }),
            });
            pass.set_pipeline(&s.pipeline);
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.dispatch_workgroups(s.groups[0], s.groups[1], s.groups[2]);
        }
        encoder.resolve_query_set(&queries, 0..count, &resolve, 0);
        encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, bytes);
        self.gpu.queue.submit([encoder.finish()]);
        self.gpu.close(scope, "profile").await?;
        super::run::map(&self.gpu, &readback).await?;
        let period = self.gpu.queue.get_timestamp_period() as f64;
        let ticks: Vec<u64> = {
            let view = readback
                .get_mapped_range(..)
                .map_err(|e| Error::operation_error(format!("reading timestamps: {e}")))?;
            view.chunks_exact(8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect()
        };
        readback.unmap();
        Ok(Some(
            self.shaped
                .steps
                .iter()
                .zip(ticks.chunks_exact(2))
                .map(|(s, t)| StepTime {
                    op: s.op,
                    family: s.op.family(),
                    kernel: s.kernel.clone(),
                    nanos: t[1].saturating_sub(t[0]) as f64 * period,
                    workgroups: s.groups.iter().map(|&g| u64::from(g)).product(),
                })
                .collect(),
        ))
    }
}
