//! Shader modules, bind group layouts and compute pipelines, created once per key and shared
//! by every graph the backend compiles.

use crate::gpu::Gpu;
use crate::kernel::{KernelKey, ModuleKey, ParamBinding, F16};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use webnn_core::{Error, Result};

/// A pipeline with the bind group layout its bind groups are made from.
#[derive(Clone)]
pub struct Pipeline {
    pub pipeline: Arc<wgpu::ComputePipeline>,
    pub layout: Arc<wgpu::BindGroupLayout>,
}

/// Per input count, parameter binding and whether input 0 is a uniform.
type LayoutKey = (u32, ParamBinding, bool);

#[derive(Default)]
struct Inner {
    modules: HashMap<ModuleKey, Arc<wgpu::ShaderModule>>,
    /// Per `LayoutKey`: the bind group layout (parameters, output, inputs) and pipeline
    /// layout.
    layouts: HashMap<LayoutKey, (Arc<wgpu::BindGroupLayout>, Arc<wgpu::PipelineLayout>)>,
    pipelines: HashMap<(KernelKey, F16), Pipeline>,
}

#[derive(Default)]
pub struct PipelineCache {
    inner: Mutex<Inner>,
}

fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Creates a wgpu object, natively inside its own error scope so that a failure names the
/// shader or pipeline and nothing invalid enters the cache. On the web the scope's report
/// only arrives through the event loop: the compile's enclosing scope catches it instead.
fn created<T>(gpu: &Gpu, what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    #[cfg(not(target_arch = "wasm32"))]
    return gpu.checked(what, f);
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (gpu, what);
        f()
    }
}

impl PipelineCache {
    /// Pipelines created so far.
    pub fn len(&self) -> usize {
        self.inner.lock().map(|i| i.pipelines.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Inner>> {
        self.inner.lock().map_err(|_| Error::operation_error("the pipeline cache is poisoned"))
    }

    /// Creates the pipelines of `keys` not made yet, natively on several threads: a driver
    /// compiles a pipeline's shader on the thread that creates it, which for a network's
    /// few dozen pipelines is most of its build time (MobileNetV2 on an NVIDIA H100: 1.4 to
    /// 2.2 s one by one). Modules first (pipelines share them), then pipelines. On the web
    /// the browser compiles off the page's thread already, so this does nothing there.
    pub fn prepare(&self, gpu: &Gpu, keys: &[KernelKey], native_f16: bool) -> Result<()> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(16);
            let mut missing: Vec<KernelKey> = {
                let inner = self.lock()?;
                keys.iter()
                    .copied()
                    .filter(|k| !inner.pipelines.contains_key(&(*k, self.module_key(gpu, *k, native_f16).f16)))
                    .collect()
            };
            missing.sort();
            missing.dedup();
            if threads < 2 || missing.len() < 2 {
                return Ok(());
            }
            let mut modules: Vec<ModuleKey> = missing.iter().map(|k| self.module_key(gpu, *k, native_f16)).collect();
            modules.sort();
            modules.dedup();
            parallel(threads, &modules, |m| self.module(gpu, *m).map(|_| ()))?;
            parallel(threads, &missing, |k| self.get(gpu, *k, native_f16).map(|_| ()))?;
        }
        #[cfg(target_arch = "wasm32")]
        let _ = (gpu, keys, native_f16);
        Ok(())
    }

    fn module_key(&self, gpu: &Gpu, key: KernelKey, native_f16: bool) -> ModuleKey {
        key.module_for(native_f16 && gpu.shader_f16, gpu.subgroup)
    }

    /// The shader module of `module_key`, created on first use. The lock is not held while
    /// the module is created, so threads create different ones at once.
    fn module(&self, gpu: &Gpu, module_key: ModuleKey) -> Result<Arc<wgpu::ShaderModule>> {
        if let Some(m) = self.lock()?.modules.get(&module_key) {
            return Ok(m.clone());
        }
        let source = module_key.source();
        let m = created(gpu, &format!("shader {module_key:?}"), || {
            Ok(Arc::new(gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&format!("{module_key:?}")),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })))
        })?;
        Ok(self.lock()?.modules.entry(module_key).or_insert(m).clone())
    }

    /// The bind group and pipeline layouts of a module's bindings.
    fn layout(&self, gpu: &Gpu, module_key: ModuleKey) -> Result<(Arc<wgpu::BindGroupLayout>, Arc<wgpu::PipelineLayout>)> {
        let inputs = module_key.inputs();
        let params = module_key.body.params();
        let uniform_input = module_key.body.uniform_input();
        let key = (inputs, params, uniform_input);
        let mut inner = self.lock()?;
        if let Some(l) = inner.layouts.get(&key) {
            return Ok(l.clone());
        }
        let device = &gpu.device;
        let parameters = match params {
            ParamBinding::Uniform => uniform_entry(0),
            ParamBinding::Storage => storage_entry(0, true),
        };
        let mut entries = vec![parameters, storage_entry(1, false)];
        entries.extend((0..inputs).map(|k| match k {
            0 if uniform_input => uniform_entry(2),
            _ => storage_entry(2 + k, true),
        }));
        let bgl = Arc::new(device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("webnn elementwise"),
            entries: &entries,
        }));
        let pl = Arc::new(device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("webnn elementwise"),
            bind_group_layouts: &[Some(&*bgl)],
            immediate_size: 0,
        }));
        inner.layouts.insert(key, (bgl.clone(), pl.clone()));
        Ok((bgl, pl))
    }

    /// The pipeline of `key`, created (and checked for wgpu errors) on first use.
    pub fn get(&self, gpu: &Gpu, key: KernelKey, native_f16: bool) -> Result<Pipeline> {
        let module_key = self.module_key(gpu, key, native_f16);
        if let Some(p) = self.lock()?.pipelines.get(&(key, module_key.f16)) {
            return Ok(p.clone());
        }
        let module = self.module(gpu, module_key)?;
        let (bind_layout, pipe_layout) = self.layout(gpu, module_key)?;
        let constants = key.constants();
        let label = key.label();
        let pipeline = created(gpu, &format!("pipeline {label}"), || {
            Ok(Arc::new(gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&label),
                layout: Some(&pipe_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            })))
        })?;
        let p = Pipeline { pipeline, layout: bind_layout };
        Ok(self.lock()?.pipelines.entry((key, module_key.f16)).or_insert(p).clone())
    }
}

/// Runs `f` on every item, `threads` at a time (items taken in turn from a shared counter);
/// the first error, if any.
#[cfg(not(target_arch = "wasm32"))]
fn parallel<T: Sync>(threads: usize, items: &[T], f: impl Fn(&T) -> Result<()> + Sync) -> Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let work = || -> Result<()> {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { return Ok(()) };
            f(item)?;
        }
    };
    std::thread::scope(|s| {
        let others: Vec<_> = (1..threads.min(items.len())).map(|_| s.spawn(work)).collect();
        let mine = work();
        others
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::operation_error("a pipeline thread panicked"))))
            .fold(mine, |a, b| a.and(b))
    })
}
