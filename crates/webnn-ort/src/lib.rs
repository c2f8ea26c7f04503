//! webnn-ort: a WebNN backend on ONNX Runtime. `compile` converts the validated graph to an
//! ONNX model (webnn-onnx), creates the session and its IO binding with every input and
//! output tensor of static shape allocated once; `dispatch` copies the inputs in, runs the
//! binding and copies the outputs out. Graphs with bounded dynamic dimensions run at any size
//! within their bounds: such inputs get tensors of their actual shapes per dispatch and such
//! outputs are allocated by ONNX Runtime. Sessions share one intra-op thread pool.
//!
//! The ONNX Runtime library is loaded at run time from `ORT_DYLIB_PATH` (`scripts/setup.sh`
//! installs it from the PyPI `onnxruntime` wheel and `scripts/env.sh` sets the variable).

use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorElementType;
use std::sync::{Arc, OnceLock};
use webnn_core::{Backend, Capabilities, DataType, DeviceInfo, Error, Executable, Graph, Result};
use webnn_onnx::OnnxModel;

mod executable;
pub use executable::OrtExecutable;

/// Where ONNX Runtime's graph runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    Cpu,
    /// ONNX Runtime's TensorRT execution provider (NVIDIA GPUs), falling back to CUDA and
    /// then the CPU for what TensorRT does not take.
    #[cfg(feature = "tensorrt")]
    TensorRt,
}

/// The ONNX Runtime backend.
pub struct OrtBackend {
    provider: Provider,
    threads: usize,
    /// Fused 4-bit quantized products as `com.microsoft.MatMulNBits` (`webnn_onnx::ConvertOptions`).
    matmul_nbits: bool,
}

pub(crate) fn ort_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::operation_error(format!("ONNX Runtime {what}: {e}"))
}

/// Loads the library once per process.
fn environment() -> Result<&'static ort::environment::Environment> {
    static ENV: OnceLock<std::result::Result<ort::environment::Environment, String>> =
        OnceLock::new();
    ENV.get_or_init(|| {
        let path = std::env::var("ORT_DYLIB_PATH").map_err(|_| {
            "ORT_DYLIB_PATH is not set: point it at libonnxruntime.so (scripts/setup.sh all installs it, \
             scripts/env.sh sets it)"
                .to_string()
        })?;
        let builder = ort::init_from(&path).map_err(|e| format!("cannot load {path}: {e}"))?;
        // One intra-op thread pool for every session: compiled graphs do not each start (and
        // spin) their own workers.
        builder
            .with_name("webnn")
            .with_global_thread_pool(ort::environment::GlobalThreadPoolOptions::default())
            .build()
            .map_err(|e| format!("cannot start ONNX Runtime: {e}"))
    })
    .as_ref()
    .map_err(|e| Error::not_supported(e.clone()))
}

impl OrtBackend {
    /// The CPU execution provider with ONNX Runtime's default thread count.
    pub fn new() -> Result<OrtBackend> {
        OrtBackend::with_provider(Provider::Cpu)
    }

    pub fn with_provider(provider: Provider) -> Result<OrtBackend> {
        environment()?;
        Ok(OrtBackend {
            provider,
            threads: 0,
            matmul_nbits: true,
        })
    }

    /// Standard ONNX only, no contrib operator: every op on ONNX Runtime's own kernels for
    /// it (an op-by-op reference; the 4-bit products' weights are folded to float32).
    pub fn standard_onnx(mut self) -> OrtBackend {
        self.matmul_nbits = false;
        self
    }

    /// Intra-op threads of a pool of this backend's sessions' own (0: the process-wide pool
    /// every session shares, one thread per core).
    pub fn with_threads(mut self, threads: usize) -> OrtBackend {
        self.threads = threads;
        self
    }

    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// A session for a converted model (with its external data), configured as this
    /// backend's sessions are.
    pub fn model_session(&self, model: &OnnxModel) -> Result<ModelSession> {
        let external: Option<Arc<[u8]>> =
            (!model.external_data.is_empty()).then(|| model.external_data.as_slice().into());
        let session = self.session_with(&model.to_bytes(), external.clone())?;
        Ok(ModelSession {
            session,
            _external_data: external,
        })
    }

    /// An executable for a model converted with any `webnn_onnx::ConvertOptions`; its inputs
    /// and outputs are the WebNN graph's, as `compile` gives them.
    pub fn compile_model(&self, model: &OnnxModel) -> Result<Box<dyn Executable>> {
        Ok(Box::new(OrtExecutable::new(self, model)?))
    }

    /// A session for an ONNX model without external data.
    pub fn session(&self, model: &[u8]) -> Result<Session> {
        self.session_with(model, None)
    }

    fn session_with(&self, model: &[u8], external_data: Option<Arc<[u8]>>) -> Result<Session> {
        let env = environment()?;
        let b = Session::builder(env).map_err(|e| ort_error("session options", e))?;
        let b = b
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| ort_error("options", e))?;
        let b = if self.threads > 0 {
            let b = b
                .with_independent_thread_pool()
                .map_err(|e| ort_error("options", e))?;
            b.with_intra_threads(self.threads)
                .map_err(|e| ort_error("options", e))?
        } else {
            b
        };
        let mut b = match self.provider {
            Provider::Cpu => b,
            #[cfg(feature = "tensorrt")]
            // CUDA takes what TensorRT does not, where this ONNX Runtime has it; the CPU the rest.
            Provider::TensorRt => b
                .with_execution_providers([
                    ort::ep::TensorRT::default().build().error_on_failure(),
                    ort::ep::CUDA::default().build(),
                ])
                .map_err(|e| {
                    Error::not_supported(format!(
                        "the TensorRT execution provider is unavailable: {e}"
                    ))
                })?,
        };
        if let Some(data) = external_data {
            b = b
                .with_external_initializer_file_in_memory(webnn_onnx::EXTERNAL_DATA_FILE, data)
                .map_err(|e| ort_error("external data", e))?;
        }
        b.commit_from_memory(model).map_err(|e| {
            let text = e.to_string();
            if text.contains("NOT_IMPLEMENTED") || text.contains("Could not find an implementation")
            {
                Error::not_supported(format!("ONNX Runtime lacks a kernel: {text}"))
            } else {
                ort_error("session", text)
            }
        })
    }
}

/// A session and the external data its initializers may point into, kept alive as long as
/// the session (declared after it, so dropped after it).
pub struct ModelSession {
    pub session: Session,
    _external_data: Option<Arc<[u8]>>,
}

impl std::ops::Deref for ModelSession {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl std::ops::DerefMut for ModelSession {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

pub(crate) fn element_type(dt: DataType) -> TensorElementType {
    match dt {
        DataType::Float32 => TensorElementType::Float32,
        DataType::Float16 => TensorElementType::Float16,
        DataType::Int32 => TensorElementType::Int32,
        DataType::Uint32 => TensorElementType::Uint32,
        DataType::Int64 => TensorElementType::Int64,
        DataType::Uint64 => TensorElementType::Uint64,
        DataType::Int8 => TensorElementType::Int8,
        DataType::Uint8 => TensorElementType::Uint8,
        DataType::Int4 => TensorElementType::Int4,
        DataType::Uint4 => TensorElementType::Uint4,
    }
}

impl Backend for OrtBackend {
    fn name(&self) -> &'static str {
        "ort"
    }

    fn capabilities(&self) -> Capabilities {
        // Every op and data type: types ONNX Runtime's kernels lack are computed in wider
        // ones by the converter.
        Capabilities::default()
    }

    fn dynamic_dimensions(&self) -> bool {
        true
    }

    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let model = webnn_onnx::convert_with(graph, webnn_onnx::ConvertOptions { matmul_nbits: self.matmul_nbits, ..Default::default() })?;
        self.compile_model(&model)
    }

    fn device(&self) -> DeviceInfo {
        DeviceInfo { name: format!("ONNX Runtime, {:?} provider", self.provider()), accelerated: false }
    }
}
