//! webnn-cpu: the reference interpreter. Computes every op for every data type the op table
//! allows; it is the oracle for the other backends and the CPU fallback in the browser.

pub mod eval;
pub mod kernels;
pub mod tensor;

use std::collections::HashMap;
use webnn_core::graph::Source;
use webnn_core::{Backend, Capabilities, DeviceInfo, DimBindings, Error, Executable, Graph, HostTensor, Result};

pub use tensor::{Data, Tensor};

/// The CPU backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuBackend;

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn dynamic_dimensions(&self) -> bool {
        true
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        // A graph too large for this machine fails here, not as an allocation abort mid-run.
        webnn_core::memory::check_host_memory(graph, webnn_core::memory::host_budget())?;
        Ok(Box::new(CpuGraph::new(graph.clone())?))
    }
    fn device(&self) -> DeviceInfo {
        DeviceInfo { name: "reference cpu interpreter".into(), accelerated: false }
    }
}

/// A graph ready to run on the CPU: constants decoded once, last uses computed once.
pub struct CpuGraph {
    graph: Graph,
    constants: HashMap<usize, Tensor>,
    /// For each node, the operands whose last use it is (freed after it runs).
    frees: Vec<Vec<usize>>,
}

impl CpuGraph {
    pub fn new(graph: Graph) -> Result<CpuGraph> {
        let mut constants = HashMap::new();
        for (i, info) in graph.operands.iter().enumerate() {
            if let Source::Constant(bytes) = &info.source {
                constants.insert(i, Tensor::from_bytes(&info.desc, bytes)?);
            }
        }
        let mut last_use = vec![usize::MAX; graph.operands.len()];
        for (n, node) in graph.nodes.iter().enumerate() {
            for o in node.op.operands() {
                last_use[o.index()] = n;
            }
        }
        for (_, o) in &graph.outputs {
            last_use[o.index()] = usize::MAX;
        }
        let mut frees = vec![Vec::new(); graph.nodes.len()];
        for (i, &n) in last_use.iter().enumerate() {
            if n != usize::MAX && !constants.contains_key(&i) {
                frees[n].push(i);
            }
        }
        Ok(CpuGraph { graph, constants, frees })
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Runs the graph on named input tensors; returns the outputs in graph order.
    pub fn run(&self, inputs: &HashMap<String, Tensor>) -> Result<Vec<(String, Tensor)>> {
        let g = &self.graph;
        let mut values: Vec<Option<Tensor>> = vec![None; g.operands.len()];
        // The inputs' shapes give this run's sizes of any dynamic dimension.
        let mut dims = DimBindings::default();
        for (name, o) in &g.inputs {
            let t = inputs
                .get(name)
                .ok_or_else(|| Error::type_error(format!("no tensor given for input '{name}'")))?;
            let want = g.desc(*o);
            if t.data_type() != want.data_type {
                return Err(Error::type_error(format!("input '{name}' expects {want}, got {}", t.data_type())));
            }
            let actual: Vec<u32> = t.shape.iter().map(|&d| u32::try_from(d).unwrap_or(u32::MAX)).collect();
            dims.bind(name, want, &actual)?;
            values[o.index()] = Some(t.clone());
        }
        for (n, node) in g.nodes.iter().enumerate() {
            let env = eval::Env { graph: g, values: &values, constants: &self.constants, dims: &dims };
            let outs = eval::eval(&env, node)
                .map_err(|e| e.at(node.op.name(), node.op.label()))?;
            for (o, t) in node.outputs.iter().zip(outs) {
                values[o.index()] = Some(t);
            }
            for &i in &self.frees[n] {
                values[i] = None;
            }
        }
        g.outputs
            .iter()
            .map(|(name, o)| {
                let t = values[o.index()].clone().or_else(|| self.constants.get(&o.index()).cloned());
                t.map(|t| (name.clone(), t))
                    .ok_or_else(|| Error::operation_error(format!("output '{name}' was not computed")))
            })
            .collect()
    }
}

impl Executable for CpuGraph {
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
        let mut map = HashMap::new();
        for (name, t) in inputs {
            map.insert((*name).to_owned(), Tensor::from_bytes(&t.desc, &t.bytes)?);
        }
        Ok(self.run(&map)?.into_iter().map(|(n, t)| (n, t.to_host())).collect())
    }
}
