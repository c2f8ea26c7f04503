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

    /// Like `dispatch`, with the tensors of in-place pairs (`Graph::in_place_pairs`: a KV
    /// cache and its scatter update) passed once, as `inout`: each holds the input's value
    /// and is left holding the output's. Returns the other outputs. A backend that can update
    /// such a tensor where it lies overrides this; the default copies through `dispatch`.
    fn dispatch_in_place(
        &mut self,
        inputs: &[(&str, &HostTensor)],
        inout: &mut [InPlace<'_>],
    ) -> Result<Vec<(String, HostTensor)>> {
        let mut all = inputs.to_vec();
        all.extend(inout.iter().map(|p| (p.input, &*p.tensor)));
        let outputs = self.dispatch(&all)?;
        let mut rest = Vec::with_capacity(outputs.len());
        for (name, value) in outputs {
            match inout.iter_mut().find(|p| p.output == name) {
                Some(p) => *p.tensor = value,
                None => rest.push((name, value)),
            }
        }
        Ok(rest)
    }
}

/// One tensor bound to an input and to the output that updates it in place.
pub struct InPlace<'a> {
    pub input: &'a str,
    pub output: &'a str,
    pub tensor: &'a mut HostTensor,
}
