//! The device: adapter and device creation, captured wgpu errors, and blocking on wgpu's
//! futures (native only: the browser cannot block, so the wasm build reports it instead).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use webnn_core::{Error, Result};

/// An open device and what it offers.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// `shader-f16` is enabled: float16 inputs are read natively (kernel::F16::Native).
    pub shader_f16: bool,
    /// `timestamp-query` is enabled (for profiling).
    pub timestamps: bool,
    /// With the `subgroups` feature (wgpu offers it natively, not yet on the web), the
    /// smallest subgroup the adapter may run: the row kernels reduce up to that many lanes
    /// with subgroup shuffles. 0 without it.
    pub subgroup: u32,
    /// Errors wgpu reported outside any error scope; never a panic.
    uncaptured: Arc<Mutex<Vec<String>>>,
}

/// Error scopes opened by `Gpu::scope`.
pub struct Scope {
    oom: wgpu::ErrorScopeGuard,
    validation: wgpu::ErrorScopeGuard,
}

/// Runs a wgpu future to completion.
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: Future>(f: F) -> Result<F::Output> {
    Ok(pollster::block_on(f))
}

/// The browser's event loop delivers wgpu's results, so nothing may block on them there.
#[cfg(target_arch = "wasm32")]
pub fn block_on<F: Future>(_f: F) -> Result<F::Output> {
    Err(Error::not_supported(
        "the synchronous wgpu backend needs a native target",
    ))
}

fn gpu_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::operation_error(format!("{what}: {e}"))
}

impl Gpu {
    /// Opens the first adapter wgpu offers on the platform's primary API (Vulkan on Linux,
    /// where Mesa's lavapipe is a software adapter), asking for `shader-f16` and
    /// `timestamp-query` where available and the adapter's own limits.
    pub fn new() -> Result<Gpu> {
        block_on(Gpu::open())?
    }

    pub async fn open() -> Result<Gpu> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::PRIMARY;
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                apply_limit_buckets: false,
            })
            .await
            .map_err(|e| Error::not_supported(format!("no WebGPU adapter: {e}")))?;
        let offered = adapter.features();
        let wanted = wgpu::Features::SHADER_F16 | wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SUBGROUP;
        let required_features = offered & wanted;
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("webnn"),
                required_features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| Error::not_supported(format!("cannot open the WebGPU device: {e}")))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        // What the device has, not what was asked for: in the browser the polyfill may hand
        // over the page's own GPUDevice, created with the page's features and limits.
        let (features, limits) = (device.features(), device.limits());
        let _ = required_features;
        let info = adapter.get_info();
        // The shuffle reduction pairs lanes within a subgroup: sizes must be powers of two.
        let subgroup = match features.contains(wgpu::Features::SUBGROUP) {
            true if info.subgroup_min_size.is_power_of_two() => info.subgroup_min_size,
            _ => 0,
        };
        Ok(Gpu {
            device,
            queue,
            info,
            subgroup,
            limits,
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            uncaptured,
        })
    }

    /// The largest tensor one buffer binding can hold.
    pub fn max_binding(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// Opens validation and out-of-memory error scopes around the work that follows.
    pub fn scope(&self) -> Scope {
        Scope {
            oom: self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
            validation: self.device.push_error_scope(wgpu::ErrorFilter::Validation),
        }
    }

    /// Closes `scope`: an OperationError naming `what` if it caught an error, or if wgpu
    /// reported one outside any scope since the last check.
    pub async fn close(&self, scope: Scope, what: &str) -> Result<()> {
        // Both scopes are popped before anything is awaited: scopes are a stack per device,
        // and another task (a second `build()` in flight) may push its own while this one
        // waits; popping the second after an await would pop that task's scope.
        let (v, o) = (scope.validation.pop(), scope.oom.pop());
        let (v, o) = (v.await, o.await);
        if let Some(e) = v.or(o) {
            return Err(gpu_error(what, e));
        }
        self.take_uncaptured(what)
    }

    /// Closes `scope` now (work recorded later falls outside it) and returns its report, to
    /// await when convenient: a dispatch returns at once, a later read waits for the report.
    pub fn end(
        self: &Arc<Gpu>,
        scope: Scope,
        what: &'static str,
    ) -> Pin<Box<dyn Future<Output = Result<()>>>> {
        let v = scope.validation.pop();
        let o = scope.oom.pop();
        let gpu = self.clone();
        Box::pin(async move {
            if let Some(e) = v.await.or(o.await) {
                return Err(gpu_error(what, e));
            }
            gpu.take_uncaptured(what)
        })
    }

    /// Runs `f` inside error scopes (`scope`, `close`), waiting for the device's report;
    /// native targets only.
    pub fn checked<T>(&self, what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let scope = self.scope();
        let value = f();
        block_on(self.close(scope, what))??;
        value
    }

    /// An error for anything wgpu reported outside an error scope since the last call.
    pub fn take_uncaptured(&self, what: &str) -> Result<()> {
        let errors: Vec<String> = match self.uncaptured.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(_) => Vec::new(),
        };
        match errors.first() {
            Some(e) => Err(gpu_error(what, e)),
            None => Ok(()),
        }
    }
}
