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

    /// The pipeline of `key`, created (and checked for wgpu errors) on first use.
    pub fn get(&self, gpu: &Gpu, key: KernelKey, native_f16: bool) -> Result<Pipeline> {
        let mut inner = self
            .inner
            .lock()
            .map_err(|_| Error::operation_error("the pipeline cache is poisoned"))?;
        let module_key = key.module_for(native_f16 && gpu.shader_f16, gpu.subgroup);
        if let Some(p) = inner.pipelines.get(&(key, module_key.f16)) {
            return Ok(p.clone());
        }
        let device = &gpu.device;
        let module = match inner.modules.get(&module_key) {
            Some(m) => m.clone(),
            None => {
                let source = module_key.source();
                let m = created(gpu, &format!("shader {module_key:?}"), || {
                    Ok(Arc::new(device.create_shader_module(
                        wgpu::ShaderModuleDescriptor {
                            label: Some(&format!("{module_key:?}")),
                            source: wgpu::ShaderSource::Wgsl(source.into()),
                        },
                    )))
                })?;
                inner.modules.insert(module_key, m.clone());
                m
            }
        };
        let inputs = module_key.inputs();
        let params = module_key.body.params();
        let uniform_input = module_key.body.uniform_input();
        let (bind_layout, pipe_layout) = match inner.layouts.get(&(inputs, params, uniform_input)) {
            Some(l) => l.clone(),
            None => {
                let parameters = match params {
                    ParamBinding::Uniform => uniform_entry(0),
                    ParamBinding::Storage => storage_entry(0, true),
                };
                let mut entries = vec![parameters, storage_entry(1, false)];
                entries.extend((0..inputs).map(|k| match k {
                    0 if uniform_input => uniform_entry(2),
                    _ => storage_entry(2 + k, true),
                }));
                let bgl = Arc::new(device.create_bind_group_layout(
                    &wgpu::BindGroupLayoutDescriptor {
                        label: Some("webnn elementwise"),
                        entries: &entries,
                    },
                ));
                let pl = Arc::new(
                    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("webnn elementwise"),
                        bind_group_layouts: &[Some(&*bgl)],
                        immediate_size: 0,
                    }),
                );
                inner.layouts.insert((inputs, params, uniform_input), (bgl.clone(), pl.clone()));
                (bgl, pl)
            }
        };
        let constants = key.constants();
        let label = key.label();
        let pipeline = created(gpu, &format!("pipeline {label}"), || {
            Ok(Arc::new(device.create_compute_pipeline(
                &wgpu::ComputePipelineDescriptor {
                    label: Some(&label),
                    layout: Some(&pipe_layout),
                    module: &module,
                    entry_point: Some("main"),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        zero_initialize_workgroup_memory: false,
                    },
                    cache: None,
                },
            )))
        })?;
        let p = Pipeline {
            pipeline,
            layout: bind_layout,
        };
        inner.pipelines.insert((key, module_key.f16), p.clone());
        Ok(p)
    }
}
