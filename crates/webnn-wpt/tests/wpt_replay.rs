//! Both WPT suites through `webnn_idl::emit`: every graph the harness builds is written as
//! `MLGraphBuilder` calls, built again from them, checked to be the same graph, and run on
//! the cpu backend (so `expected/cpu.txt` applies). This is what `loadOnnx` does in a page:
//! a graph made in Rust replayed on whatever `navigator.ml` the page has.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use webnn_core::{Backend, Capabilities, Executable, Graph, Result};

struct Replayed(webnn_cpu::CpuBackend);

impl Backend for Replayed {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let again = webnn_idl::emit::round_trip(graph).unwrap_or_else(|e| panic!("{e}"));
        self.0.compile(&again)
    }
}

#[test]
fn wpt_suites_replayed_from_builder_calls() {
    support::check_backend(&Replayed(webnn_cpu::CpuBackend));
}
