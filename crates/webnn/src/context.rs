//! `MLContext`: the backend a context runs on, and the spec's rules for tensors, graphs and
//! dispatch, checked here once for every backend and for the browser binding.

use crate::graph::Graph;
use crate::tensor::{Tensor, TensorDescriptor};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use webnn_core::{
    op_support_limits, Backend, Bound, DeviceInfo, DeviceTensor, DimBindings, Error, Graph as CoreGraph,
    OpSupportLimits, Pending, Result,
};
use webnn_cpu::CpuBackend;
use webnn_fast::FastBackend;
use webnn_wgpu::WgpuBackend;

/// `MLPowerPreference`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PowerPreference {
    #[default]
    Default,
    HighPerformance,
    LowPower,
}

/// The device a page asked for with the pre-2025 `deviceType` member, which Chromium kept as
/// a hint and frameworks still pass. A hint it stays: `Gpu` picks a hardware adapter over
/// the CPU, never a software one (a page asking for the GPU wants speed, and a software
/// adapter runs one to two orders of magnitude slower than the CPU backend).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceType {
    Cpu,
    Gpu,
}

/// `MLContextOptions`, plus the device hint and, for Rust users and tests, a backend named
/// outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextOptions {
    pub power_preference: PowerPreference,
    pub accelerated: bool,
    pub device_type: Option<DeviceType>,
    pub backend: Option<BackendKind>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            power_preference: PowerPreference::Default,
            accelerated: true,
            device_type: None,
            backend: None,
        }
    }
}

/// The backend a context runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The fast CPU backend (`webnn-fast`): SIMD microkernels, weights packed at build, a
    /// thread pool (Web Workers in the browser's threads build); the reference kernels for
    /// what it does not accelerate, sized at each dispatch in graphs with dynamic dimensions.
    Cpu,
    /// The reference interpreter (`webnn-cpu`): simple and exact, the oracle the other
    /// backends are tested against; only when named outright.
    Reference,
    /// WGSL compute pipelines on WebGPU (wgpu natively, the page's WebGPU in the browser).
    Wgpu,
    /// ONNX Runtime (feature `ort`, native targets).
    Ort,
    /// CoreML (feature `coreml`; graphs run on macOS, elsewhere building reports
    /// NotSupportedError after converting).
    CoreMl,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Reference => "reference",
            BackendKind::Wgpu => "webgpu",
            BackendKind::Ort => "onnxruntime",
            BackendKind::CoreMl => "coreml",
        }
    }
}

/// Which backend `options` get, given whether a WebGPU adapter exists and whether it is a
/// software (fallback) one, and whether ONNX Runtime is compiled in (`ort`). A software
/// adapter runs kernels one to two orders of magnitude slower than the CPU, so "accelerated"
/// (the fastest path) means the CPU there. On the CPU, ONNX Runtime when the build has it (a
/// build asks for it by enabling the feature), otherwise the fast CPU backend; the reference
/// interpreter only when named. `deviceType: cpu` overrides `accelerated`, `deviceType: gpu`
/// only picks a hardware adapter; a named `backend` wins over everything (tests use it to run
/// WebGPU on a software adapter).
pub fn choose(
    options: &ContextOptions,
    adapter: Option<bool /* software */>,
    ort: bool,
) -> BackendKind {
    let cpu = if ort {
        BackendKind::Ort
    } else {
        BackendKind::Cpu
    };
    if let Some(b) = options.backend {
        return b;
    }
    match (options.device_type, adapter) {
        (Some(DeviceType::Cpu), _) => cpu,
        (Some(DeviceType::Gpu), Some(false)) => BackendKind::Wgpu,
        (_, Some(false))
            if options.accelerated && options.power_preference != PowerPreference::LowPower =>
        {
            BackendKind::Wgpu
        }
        _ => cpu,
    }
}

const HAS_ORT: bool = cfg!(feature = "ort");

/// The fast CPU backend the process's CPU contexts share: its pool has one thread per core
/// (one in the browser), and a pool per context would put several threads on each core as
/// soon as contexts on different threads run at once; the shared pool runs their ops in turn.
fn shared_fast() -> Arc<FastBackend> {
    FAST.get_or_init(|| {
        Arc::new(if cfg!(target_family = "wasm") {
            // The page starts the workers (`serve_cpu_worker`); without a threads build
            // the pool is 1 whatever was asked.
            let threads = WASM_THREADS.load(Ordering::SeqCst).max(1);
            FastBackend::with_pool(webnn_fast::Pool::with_external_workers(threads))
        } else {
            FastBackend::default()
        })
    })
    .clone()
}

static FAST: OnceLock<Arc<FastBackend>> = OnceLock::new();
static WASM_THREADS: AtomicUsize = AtomicUsize::new(1);

/// In the browser: the number of threads CPU contexts use, the caller included; the page
/// starts `n - 1` Web Workers that call [`serve_cpu_worker`]. Only the first call before
/// the first CPU context counts; returns the count in force. Natively the pool has one
/// thread per core and this only reports it.
pub fn set_cpu_threads(n: usize) -> usize {
    if cfg!(target_family = "wasm") && FAST.get().is_none() {
        WASM_THREADS.store(n.max(1), Ordering::SeqCst);
    }
    shared_fast().threads()
}

/// Workers of the CPU contexts' pool running now (spawned, or served by Web Workers).
pub fn cpu_workers_present() -> usize {
    shared_fast().pool().workers_present()
}

/// Runs the calling thread (a Web Worker sharing the wasm memory) as a worker of the CPU
/// contexts' pool, for as long as the module lives; false at once when the pool is full.
pub fn serve_cpu_worker() -> bool {
    shared_fast().pool().serve()
}

/// The one place a backend is made from the kind [`choose`] picked: adding a backend is a
/// crate implementing `webnn_core::Backend` and one arm here.
fn open(kind: BackendKind, gpu: Option<WgpuBackend>) -> Result<Box<dyn Backend>> {
    Ok(match kind {
        BackendKind::Cpu => Box::new(shared_fast()),
        BackendKind::Reference => Box::new(CpuBackend),
        BackendKind::Wgpu => match gpu {
            Some(b) => Box::new(b),
            None => {
                return Err(Error::not_supported(
                    "createContext: no WebGPU adapter for a WebGPU context",
                ))
            }
        },
        #[cfg(feature = "ort")]
        BackendKind::Ort => Box::new(webnn_ort::OrtBackend::new()?),
        #[cfg(not(feature = "ort"))]
        BackendKind::Ort => {
            return Err(Error::not_supported(
                "createContext: built without ONNX Runtime (feature ort)",
            ))
        }
        #[cfg(feature = "coreml")]
        BackendKind::CoreMl => Box::new(webnn_coreml::CoreMlBackend),
        #[cfg(not(feature = "coreml"))]
        BackendKind::CoreMl => {
            return Err(Error::not_supported(
                "createContext: built without CoreML (feature coreml)",
            ))
        }
    })
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

pub(crate) struct ContextInner {
    pub(crate) id: u64,
    pub(crate) backend: Box<dyn Backend>,
    kind: BackendKind,
    device: DeviceInfo,
    destroyed: Cell<bool>,
    /// Device work submitted by `dispatch` whose error report is not read yet.
    pending: RefCell<Vec<Pending>>,
    /// Everything created on the context, destroyed with it.
    graphs: RefCell<Vec<Weak<crate::graph::GraphInner>>>,
    tensors: RefCell<Vec<Weak<crate::tensor::TensorInner>>>,
}

/// `MLContext`. Cloning gives another handle to the same context.
#[derive(Clone)]
pub struct Context(pub(crate) Rc<ContextInner>);

impl Context {
    pub(crate) async fn create(options: ContextOptions) -> Result<Context> {
        let wants_gpu = choose(&options, Some(false), HAS_ORT) == BackendKind::Wgpu;
        let gpu = if wants_gpu {
            WgpuBackend::new_async().await.ok()
        } else {
            None
        };
        let software = gpu.as_ref().map(|b| !b.device().accelerated);
        let kind = choose(&options, software, HAS_ORT);
        let ctx = Context::with_backend(kind, open(kind, gpu)?);
        eprintln!("webnn: context on {} ({})", kind.name(), ctx.device_name());
        Ok(ctx)
    }

    /// A context on the fast CPU backend (the process's shared one), created without waiting.
    pub fn cpu() -> Context {
        Context::with_backend(BackendKind::Cpu, Box::new(shared_fast()))
    }

    /// A context on a fast CPU backend of its own (a given thread count or instruction set).
    pub fn fast(backend: FastBackend) -> Context {
        Context::with_backend(BackendKind::Cpu, Box::new(backend))
    }

    /// A context on the reference interpreter, the oracle for tests.
    pub fn reference() -> Context {
        Context::with_backend(BackendKind::Reference, Box::new(CpuBackend))
    }

    /// A context on an already opened wgpu backend.
    pub fn wgpu(backend: WgpuBackend) -> Context {
        Context::with_backend(BackendKind::Wgpu, Box::new(backend))
    }

    /// A context on an ONNX Runtime backend of its own (a thread count, standard ONNX only).
    #[cfg(feature = "ort")]
    pub fn ort(backend: webnn_ort::OrtBackend) -> Context {
        Context::with_backend(BackendKind::Ort, Box::new(backend))
    }

    /// A context on any backend; `kind` is what [`Context::backend`] reports.
    pub fn with_backend(kind: BackendKind, backend: Box<dyn Backend>) -> Context {
        let device = backend.device();
        Context(Rc::new(ContextInner {
            id: next_id(),
            backend,
            kind,
            device,
            destroyed: Cell::new(false),
            pending: RefCell::new(Vec::new()),
            graphs: RefCell::new(Vec::new()),
            tensors: RefCell::new(Vec::new()),
        }))
    }

    /// The backend this context runs on.
    pub fn backend(&self) -> BackendKind {
        self.0.kind
    }

    /// A description of the device (adapter name for WebGPU).
    pub fn device_name(&self) -> String {
        self.0.device.name.clone()
    }

    /// `MLContext.accelerated`: whether work runs on a GPU (a hardware adapter).
    pub fn accelerated(&self) -> bool {
        self.0.device.accelerated
    }

    pub fn is_destroyed(&self) -> bool {
        self.0.destroyed.get()
    }

    /// Whether graphs with bounded dynamic input dimensions run here (flexible inputs).
    pub fn dynamic_dimensions(&self) -> bool {
        self.0.backend.dynamic_dimensions()
    }

    /// Compute pipelines the context's device has created (None where that means nothing).
    pub fn pipelines(&self) -> Option<usize> {
        self.0.backend.pipelines()
    }

    pub fn same(&self, other: &Context) -> bool {
        self.0.id == other.0.id
    }

    /// An InvalidStateError once the context is destroyed (builders check it on each call).
    pub fn check_usable(&self, what: &str) -> Result<()> {
        self.check_alive(what)
    }

    /// The descriptor and bytes of a constant tensor of this context (`builder.constant(tensor)`).
    pub fn constant_contents(
        &self,
        t: &Tensor,
    ) -> Result<(webnn_core::OperandDescriptor, std::sync::Arc<[u8]>)> {
        self.check_tensor(t, "constant")?;
        match &t.0.constant_data {
            Some(d) => Ok((t.desc().clone(), d.clone())),
            None => Err(Error::type_error(
                "constant: the tensor was not created by createConstantTensor",
            )),
        }
    }

    pub(crate) fn check_alive(&self, what: &str) -> Result<()> {
        if self.is_destroyed() {
            return Err(Error::invalid_state(format!(
                "{what}: the context is destroyed"
            )));
        }
        Ok(())
    }

    /// `MLContext.opSupportLimits()`.
    pub fn op_support_limits(&self) -> OpSupportLimits {
        op_support_limits(&self.0.backend.capabilities())
    }

    /// `MLGraphBuilder.build()` after validation: compiles `graph` for this context.
    pub async fn compile(&self, graph: &CoreGraph) -> Result<Graph> {
        self.check_alive("build")?;
        let dynamic = graph
            .inputs
            .iter()
            .any(|(_, o)| !graph.desc(*o).is_static());
        if dynamic && !self.dynamic_dimensions() {
            return Err(Error::not_supported(format!(
                "build: the {} backend runs graphs of static shapes only (dynamic input dimensions run on the cpu and webgpu backends)",
                self.backend().name()
            )));
        }
        let compiled = self.0.backend.compile_async(graph).await?;
        let g = Graph::new(self, graph, compiled);
        let mut graphs = self.0.graphs.borrow_mut();
        graphs.retain(|w| w.strong_count() > 0);
        graphs.push(Rc::downgrade(&g.0));
        Ok(g)
    }

    /// `MLContext.createTensor()`.
    pub fn create_tensor(&self, desc: TensorDescriptor) -> Result<Tensor> {
        self.check_alive("createTensor")?;
        self.new_tensor(desc, None)
    }

    /// `MLContext.createConstantTensor()`: an immutable tensor holding `data`.
    pub fn create_constant_tensor(
        &self,
        desc: webnn_core::OperandDescriptor,
        data: &[u8],
    ) -> Result<Tensor> {
        self.check_alive("createConstantTensor")?;
        let desc = TensorDescriptor {
            desc,
            readable: false,
            writable: false,
            constant: true,
        };
        self.new_tensor(desc, Some(data))
    }

    fn new_tensor(&self, desc: TensorDescriptor, data: Option<&[u8]>) -> Result<Tensor> {
        // Past the context's maxTensorByteLength (opSupportLimits) is a TypeError on every
        // backend, as the descriptor check says, not the device's own error.
        let what = if desc.constant { "createConstantTensor" } else { "createTensor" };
        // Bounded dynamic dimensions belong to graph inputs; a tensor holds one size.
        if !desc.desc.is_static() {
            return Err(Error::type_error(format!("{what}: {} has a dynamic dimension; a tensor's shape is static", desc.desc)));
        }
        let limit = self.0.backend.capabilities().max_tensor_byte_length;
        if let Some(n) = desc.desc.max_byte_length().filter(|&n| n > limit) {
            return Err(Error::type_error(format!(
                "{what}: {} holds {n} bytes, more than this context's maxTensorByteLength ({limit})",
                desc.desc
            )));
        }
        let t = Tensor::new(self, desc, data)?;
        let mut tensors = self.0.tensors.borrow_mut();
        tensors.retain(|w| w.strong_count() > 0);
        tensors.push(Rc::downgrade(&t.0));
        Ok(t)
    }

    fn check_tensor(&self, t: &Tensor, what: &str) -> Result<()> {
        self.check_alive(what)?;
        if t.0.context != self.0.id {
            return Err(Error::type_error(format!(
                "{what}: the tensor belongs to another context"
            )));
        }
        if t.is_destroyed() {
            return Err(Error::type_error(format!(
                "{what}: the tensor is destroyed"
            )));
        }
        Ok(())
    }

    /// `MLContext.writeTensor()`.
    pub fn write_tensor(&self, t: &Tensor, data: &[u8]) -> Result<()> {
        self.check_tensor(t, "writeTensor")?;
        if !t.0.desc.writable {
            return Err(Error::type_error(
                "writeTensor: the tensor was not created writable",
            ));
        }
        t.write(data)
    }

    /// `MLContext.readTensor()`. The read starts now, ordered after the work dispatched and
    /// written before and before anything that follows (the browser binding calls this in
    /// the page's task, not when the promise is first polled); the future gives its bytes,
    /// or an InvalidStateError if the tensor or context is destroyed before it completes.
    pub fn read_tensor(&self, t: &Tensor) -> impl Future<Output = Result<Vec<u8>>> + 'static {
        let started = self.start_read(t);
        let (ctx, tensor) = (self.clone(), t.clone());
        async move {
            let (pending, read) = started?;
            let mut first = Ok(());
            for p in pending {
                if let (Err(e), true) = (p.await, first.is_ok()) {
                    first = Err(e);
                }
            }
            // The device's report of the work before: the first failure is an OperationError.
            first?;
            let bytes = read.await?;
            if ctx.is_destroyed() || tensor.is_destroyed() {
                return Err(Error::invalid_state(
                    "readTensor: the tensor was destroyed before the read completed",
                ));
            }
            Ok(bytes)
        }
    }

    /// The checks of `readTensor`, then the read itself, started; with the reports of the
    /// device work dispatched before, which the read awaits.
    fn start_read(&self, t: &Tensor) -> Result<(Vec<Pending>, webnn_core::ReadFuture)> {
        self.check_tensor(t, "readTensor")?;
        if !t.0.desc.readable {
            return Err(Error::type_error(
                "readTensor: the tensor was not created readable",
            ));
        }
        let read = t.start_read()?;
        Ok((std::mem::take(&mut *self.0.pending.borrow_mut()), read))
    }

    /// `MLContext.dispatch()`: checks the bindings as the spec says, then runs (the CPU) or
    /// submits (WebGPU) the graph; it returns before device work finishes.
    pub fn dispatch<'a>(
        &self,
        graph: &Graph,
        inputs: &[(&'a str, &'a Tensor)],
        outputs: &[(&'a str, &'a Tensor)],
    ) -> Result<()> {
        self.check_alive("dispatch")?;
        if graph.0.context != self.0.id {
            return Err(Error::type_error(
                "dispatch: the graph belongs to another context",
            ));
        }
        if graph.is_destroyed() {
            return Err(Error::invalid_state("dispatch: the graph is destroyed"));
        }
        let all: Vec<(&str, &Tensor)> = inputs
            .iter()
            .chain(outputs)
            .map(|(n, t)| (*n, *t))
            .collect();
        for (k, (name, t)) in all.iter().enumerate() {
            self.check_tensor(t, "dispatch")?;
            for (j, (other, _)) in all[..k]
                .iter()
                .enumerate()
                .filter(|(_, (_, u))| Rc::ptr_eq(&u.0, &t.0))
            {
                // Only an input and the output that updates it in place may share a tensor.
                let pair = (other.to_string(), name.to_string());
                let input_and_output = j < inputs.len() && k >= inputs.len();
                if !input_and_output || !graph.in_place_pairs().contains(&pair) {
                    return Err(Error::type_error(format!(
                        "dispatch: the tensor for '{name}' is also bound to '{other}' (one tensor may serve an input and an output only when the output is an in-place scatterND/scatterElements update of that input)"
                    )));
                }
            }
        }
        if let Some((name, _)) = outputs.iter().find(|(_, t)| t.0.desc.constant) {
            return Err(Error::type_error(format!(
                "dispatch: output '{name}' is a constant tensor"
            )));
        }
        let mut dims = DimBindings::default();
        check_names("input", &graph.0.inputs, inputs, &mut dims)?;
        check_names("output", &graph.0.outputs, outputs, &mut dims)?;
        // Each tensor once (an in-place pair binds one tensor twice), borrowed for the call.
        let mut distinct: Vec<&Tensor> = Vec::new();
        let mut index = |named: &[(&'a str, &'a Tensor)]| -> Vec<(&'a str, usize)> {
            named
                .iter()
                .map(|&(n, t)| match distinct.iter().position(|u| Rc::ptr_eq(&u.0, &t.0)) {
                    Some(k) => (n, k),
                    None => {
                        distinct.push(t);
                        (n, distinct.len() - 1)
                    }
                })
                .collect()
        };
        let (ins, outs) = (index(inputs), index(outputs));
        let mut held: Vec<std::cell::RefMut<Option<Box<dyn DeviceTensor>>>> =
            distinct.iter().map(|t| t.0.storage.borrow_mut()).collect();
        let tensors = held
            .iter_mut()
            .map(|s| s.as_deref_mut().ok_or_else(|| Error::type_error("dispatch: a tensor is destroyed")))
            .collect::<Result<Vec<_>>>()?;
        let mut bound = Bound { tensors, inputs: ins, outputs: outs };
        if let Some(p) = graph.run(&mut bound)? {
            self.0.pending.borrow_mut().push(p);
        }
        Ok(())
    }

    /// `MLContext.destroy()`: every graph and tensor of the context is destroyed with it.
    pub fn destroy(&self) {
        if self.0.destroyed.replace(true) {
            return;
        }
        for g in self.0.graphs.take().iter().filter_map(Weak::upgrade) {
            Graph(g).destroy();
        }
        for t in self.0.tensors.take().iter().filter_map(Weak::upgrade) {
            Tensor(t).destroy();
        }
        self.0.pending.borrow_mut().clear();
    }

    /// Tensors of this context still alive (for memory tests).
    pub fn live_tensors(&self) -> usize {
        self.0
            .tensors
            .borrow()
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|t| !Tensor(t.clone()).is_destroyed())
            .count()
    }
}

/// The spec's "validate named tensors": exactly the graph's names, each with its data type
/// and shape. Inputs give the sizes of dynamic dimensions (flexible inputs); outputs must
/// have the shapes those sizes imply.
fn check_names(
    what: &str,
    want: &[(String, webnn_core::OperandDescriptor)],
    given: &[(&str, &Tensor)],
    dims: &mut DimBindings,
) -> Result<()> {
    if given.len() != want.len() {
        return Err(Error::type_error(format!(
            "dispatch: the graph has {} {what}s, {} tensors were given",
            want.len(),
            given.len()
        )));
    }
    for (name, t) in given {
        let desc = want
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d)
            .ok_or_else(|| {
                Error::type_error(format!("dispatch: the graph has no {what} named '{name}'"))
            })?;
        let have = &t.0.desc.desc;
        if have.data_type != desc.data_type {
            return Err(Error::type_error(format!(
                "dispatch: {what} '{name}' is {desc}, the tensor is {have}"
            )));
        }
        let actual = have.static_shape().unwrap_or_default();
        if what == "input" {
            dims.bind(name, desc, &actual)
                .map_err(|e| Error::type_error(format!("dispatch: {}", e.rule)))?;
        } else if dims.shape(desc)? != actual {
            return Err(Error::type_error(format!(
                "dispatch: output '{name}' is {:?} for these inputs, the tensor is {}",
                dims.shape(desc)?,
                have.shape_string()
            )));
        }
    }
    Ok(())
}
