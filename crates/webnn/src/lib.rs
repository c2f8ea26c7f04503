//! webnn: the WebNN object model for Rust users and for the browser binding (`webnn-web`),
//! which converts JavaScript values into calls on these types and holds no rules of its own.
//!
//! * [`Ml::create_context`] picks a backend from [`ContextOptions`] (see [`choose`]);
//! * [`Context`] builds graphs, creates/reads/writes tensors and dispatches, enforcing the
//!   spec's context, lifetime and binding rules;
//! * [`Graph`] and [`Tensor`] are handles that `destroy()` frees at once.
//!
//! CPU contexts run the fast backend ([`FastBackend`]); the reference interpreter is
//! [`BackendKind::Reference`] / [`Context::reference`].
//!
//! Graphs are built with [`webnn_core::GraphBuilder`], which validates every op, or imported
//! from ONNX models with [`onnx::import_file`] (the same builder underneath).

mod context;
mod graph;
mod tensor;

pub use context::{
    choose, cpu_workers_present, serve_cpu_worker, set_cpu_threads, BackendKind, Context,
    ContextOptions, DeviceType, PowerPreference,
};
pub use graph::Graph;
pub use tensor::{Tensor, TensorDescriptor};
pub use webnn_core::{
    op_support_limits, DataType, Dim, Error, ErrorKind, GraphBuilder, OpSupportLimits, Operand,
    OperandDescriptor, Result,
};
pub use webnn_fast::FastBackend;
/// ONNX models in: `onnx::import_file(path, &options)` gives a validated graph named as the
/// model names its inputs and outputs, ready for [`Context::compile`].
pub use webnn_onnx::import as onnx;
/// Graphs out as ONNX models: `onnx_export::convert(&graph)?.save(path)`.
pub mod onnx_export {
    pub use webnn_onnx::{convert, convert_with, ConvertOptions, OnnxModel};
}

/// `navigator.ml`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ml;

impl Ml {
    /// `ML.createContext(options)`.
    pub async fn create_context(&self, options: ContextOptions) -> Result<Context> {
        Context::create(options).await
    }
}
