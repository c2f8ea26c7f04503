//! What every backend implements, so the facade and the WPT harness can drive any of them.

use crate::error::Result;
use crate::graph::Graph;
use crate::limits::Capabilities;
use crate::shape::OperandDescriptor;

/// A tensor in host memory: a static descriptor and its bytes as laid out in memory
/// (little-endian, int4/uint4 two per byte).
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub desc: OperandDescriptor,
    pub bytes: Vec<u8>,
}

/// A backend compiles validated graphs.
pub trait Backend {
    fn name(&self) -> &'static str;
    /// What the backend supports; `opSupportLimits()` is derived from it and the op table.
    fn capabilities(&self) -> Capabilities;
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>>;
    /// Whether compiled graphs run with bounded dynamic dimensions at any size within their
    /// bounds (the flexible-input extension); backends without it reject such graphs.
    fn dynamic_dimensions(&self) -> bool {
        false
    }
}

/// A compiled graph.
pub trait Executable {
    /// Runs the graph once. `inputs` are named as the graph's inputs; returns every output
    /// in the graph's output order. With dynamic dimensions, the inputs' shapes give their
    /// sizes (`DimBindings`) and the outputs come at the sizes those imply.
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>>;
}
