//! Running a converted program through Core ML (`macos-run`). Core ML exists only on Apple
//! platforms; elsewhere, and without the feature, compiling a graph to run reports
//! NotSupportedError while conversion itself works everywhere.

use webnn_core::{Backend, Capabilities, Error, Executable, Graph, Result};

/// The Core ML backend: converts in `compile`; runs where Core ML is present.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoreMlBackend;

impl Backend for CoreMlBackend {
    fn name(&self) -> &'static str {
        "coreml"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let model = crate::convert(graph)?;
        executor(model)
    }
}

#[cfg(not(all(feature = "macos-run", target_os = "macos")))]
fn executor(_: crate::CoreMlModel) -> Result<Box<dyn Executable>> {
    Err(Error::not_supported("running CoreML programs needs macOS and the macos-run feature"))
}

#[cfg(all(feature = "macos-run", target_os = "macos"))]
fn executor(model: crate::CoreMlModel) -> Result<Box<dyn Executable>> {
    let _ = model;
    Err(Error::not_supported("Core ML execution is not wired up yet"))
}
