//! Both WPT suites through `webnn_idl::emit`: every graph the harness builds is written as
//! `MLGraphBuilder` calls, built again from them, checked to be the same graph, and run on
//! the cpu backend (so `expected/cpu.txt` applies). This is what the ONNX module does in a
//! page: a graph made in Rust replayed on whatever `navigator.ml` the page has.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use webnn_core::{Backend, Capabilities, Executable, Graph, GraphBuilder, Operand, Result};
use webnn_idl::emit::{program, replay};

struct Replayed(webnn_cpu::CpuBackend);

/// The graph with every operand named by index alone (the two builders' ids differ).
fn normalised(g: &Graph) -> Graph {
    let mut g = g.clone();
    let zero = |o: Operand| Operand::from_raw(0, o.index() as u32);
    for n in &mut g.nodes {
        n.op.remap_operands(&zero);
        n.outputs.iter_mut().for_each(|o| *o = zero(*o));
    }
    g.inputs.iter_mut().chain(g.outputs.iter_mut()).for_each(|(_, o)| *o = zero(*o));
    g
}

impl Backend for Replayed {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let (p, blob) = program(graph).expect("every validated graph has a program");
        // Through text, as a page receives it.
        let p: serde_json::Value = serde_json::from_str(&p.to_string()).expect("the program is JSON");
        let again = match replay(&mut GraphBuilder::new(), &p, &blob) {
            Ok(g) => g,
            Err(e) => panic!("replaying {p}: {e}"),
        };
        assert_eq!(normalised(&again), normalised(graph), "the replayed graph differs: {p}");
        self.0.compile(&again)
    }
}

#[test]
fn wpt_suites_replayed_from_builder_calls() {
    support::check_backend(&Replayed(webnn_cpu::CpuBackend));
}
