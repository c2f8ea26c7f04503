//! webnn-wgpu: the WebGPU backend. Graphs run as WGSL compute pipelines through wgpu (Vulkan,
//! Metal, DX12 natively; the browser's WebGPU on wasm32).
//!
//! `compile()` expands recurrent ops (`webnn_core::passes`), checks every op against the
//! support table (`support::supported`), fuses activations into their producers (`fuse`),
//! lowers each node to a buffer alias or kernel calls (`lower`), plans buffers with
//! liveness-based reuse (`plan`), uploads constants, and creates pipelines (cached by
//! `KernelKey`), uniforms and bind groups. `dispatch()` uploads inputs, records one command
//! encoder, submits once and reads the outputs back by asynchronous mapping. No op falls back
//! to the CPU. RECIPE.md describes the frames and how to add a kernel.

pub mod cache;
pub mod exec;
pub mod fuse;
pub mod gpu;
pub mod kernel;
pub mod lower;
pub mod params;
pub mod patterns;
pub mod plan;
pub mod storage;
pub mod support;
pub mod window;

use std::sync::Arc;
use webnn_core::{
    Backend, Capabilities, DeviceInfo, DeviceTensor, Executable, Graph, LocalFuture, OperandDescriptor, Result,
};

pub use exec::{lower_graph, WgpuGraph, WgpuTensor};
pub use gpu::Gpu;
pub use support::supported;

/// How graphs are compiled for the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The largest buffer binding kernels use (the device's, or less for tests).
    pub max_binding: u64,
    /// float16 inputs read with the shader-f16 feature (when the device has it).
    pub native_f16: bool,
    /// Decomposed patterns run as fused kernels (`webnn_core::fusion`); off to measure or
    /// compare against the ops one by one.
    pub fuse: bool,
    /// The adapter is a CPU (lavapipe, SwiftShader): workgroup barriers cost more than the
    /// parallelism they buy, so the quantized gemv gives each output one invocation.
    pub cpu_adapter: bool,
    /// Storage buffers one kernel may bind (the device's limit, or lower:
    /// `WgpuBackend::with_max_storage`): how many of its neighbours' steps a fused kernel can
    /// take over (`patterns::Store`).
    pub max_storage: u32,
}

/// The wgpu backend: one device and the pipelines compiled on it. A clone shares both.
#[derive(Clone)]
pub struct WgpuBackend {
    gpu: Arc<Gpu>,
    cache: Arc<cache::PipelineCache>,
    options: Options,
}

impl WgpuBackend {
    /// Opens the default adapter; a NotSupportedError when there is none. Native targets.
    pub fn new() -> Result<WgpuBackend> {
        Ok(WgpuBackend::with_gpu(Arc::new(Gpu::new()?)))
    }

    /// Opens the default adapter (on the web, the page's WebGPU).
    pub async fn new_async() -> Result<WgpuBackend> {
        Ok(WgpuBackend::with_gpu(Arc::new(Gpu::open().await?)))
    }

    pub fn with_gpu(gpu: Arc<Gpu>) -> WgpuBackend {
        let options = Options {
            max_binding: gpu.max_binding(),
            native_f16: gpu.shader_f16,
            fuse: true,
            cpu_adapter: gpu.info.device_type == wgpu::DeviceType::Cpu,
            max_storage: gpu.limits.max_storage_buffers_per_shader_stage,
        };
        WgpuBackend {
            gpu,
            cache: Arc::new(cache::PipelineCache::default()),
            options,
        }
    }

    /// Limits buffer bindings below the device's, so tests reach the split dispatches
    /// without tensors of hundreds of megabytes.
    pub fn with_max_binding(mut self, bytes: u64) -> WgpuBackend {
        self.options.max_binding = bytes.min(self.gpu.max_binding());
        self
    }

    /// At most `n` storage buffers per kernel, below the device's limit: the fused kernels a
    /// GPU at WebGPU's default limit (8) gets, with `tuned_for_gpu` on any adapter. (The
    /// count assumes a GPU's bindings; on a CPU adapter a product of several rows binds its
    /// parameter block as storage too, which the device's own limit still bounds.)
    pub fn with_max_storage(mut self, n: u32) -> WgpuBackend {
        self.options.max_storage = n.min(self.gpu.limits.max_storage_buffers_per_shader_stage);
        self
    }

    /// float16 inputs decoded from packed words even where the device has shader-f16 (as on
    /// devices without it), for comparisons.
    pub fn with_packed_f16(mut self) -> WgpuBackend {
        self.options.native_f16 = false;
        self
    }

    /// Kernels tuned as for a hardware GPU even on a CPU adapter (tests cover both variants).
    pub fn tuned_for_gpu(mut self) -> WgpuBackend {
        self.options.cpu_adapter = false;
        self
    }

    /// Every op as its own kernels: no fused patterns (for comparisons).
    pub fn unfused(mut self) -> WgpuBackend {
        self.options.fuse = false;
        self
    }

    pub fn options(&self) -> Options {
        self.options
    }

    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Compiles to the concrete graph type (tests inspect its buffer plan).
    /// Recurrent ops are expanded into matrix products and element-wise ops first. Native
    /// targets.
    pub fn compile_graph(&self, graph: &Graph) -> Result<WgpuGraph> {
        gpu::block_on(self.compile_graph_async(graph))?
    }

    /// `compile_graph`, awaiting the device's error report (on the web, from the event loop).
    pub async fn compile_graph_async(&self, graph: &Graph) -> Result<WgpuGraph> {
        let graph = webnn_core::passes::expand(graph, &|_| true)?;
        WgpuGraph::new_async(self.gpu.clone(), &self.cache, &graph, self.options).await
    }

    /// A zero-filled tensor on the backend's device (`MLContext.createTensor`).
    pub fn create_tensor(&self, desc: webnn_core::OperandDescriptor) -> Result<WgpuTensor> {
        WgpuTensor::new(self.gpu.clone(), desc)
    }

    /// Pipelines created so far.
    pub fn pipelines(&self) -> usize {
        self.cache.len()
    }
}

impl Backend for WgpuBackend {
    fn name(&self) -> &'static str {
        "wgpu"
    }
    fn dynamic_dimensions(&self) -> bool {
        true
    }
    fn capabilities(&self) -> Capabilities {
        support::capabilities(self.gpu.limits.max_buffer_size)
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        Ok(Box::new(self.compile_graph(graph)?))
    }

    fn device(&self) -> DeviceInfo {
        let info = &self.gpu.info;
        DeviceInfo {
            // A browser's WebGPU adapter reports no name.
            name: match info.name.is_empty() {
                true => format!("{:?}", info.backend),
                false => format!("{} ({:?})", info.name, info.backend),
            },
            // A CPU adapter (lavapipe, SwiftShader) is WebGPU without acceleration.
            accelerated: info.device_type != wgpu::DeviceType::Cpu,
        }
    }

    fn compile_async<'a>(&'a self, graph: &'a Graph) -> LocalFuture<'a, Result<Box<dyn Executable>>> {
        Box::pin(async move { Ok(Box::new(self.compile_graph_async(graph).await?) as Box<dyn Executable>) })
    }

    fn create_tensor(&self, desc: &OperandDescriptor, data: Option<&[u8]>) -> Result<Box<dyn DeviceTensor>> {
        let t = WgpuTensor::new(self.gpu.clone(), desc.clone())?;
        if let Some(d) = data {
            t.write(d)?;
        }
        Ok(Box::new(t))
    }

    fn pipelines(&self) -> Option<usize> {
        Some(self.cache.len())
    }
}
