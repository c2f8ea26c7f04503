//! Shared helpers: random graphs' data, and running one graph on the reference and fast
//! backends.

#![allow(dead_code)]

use webnn_core::{Backend, DataType, Graph, GraphBuilder, HostTensor, Operand, OperandDescriptor};
use webnn_fast::FastBackend;
use webnn_models::Rng;

pub fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A builder with a seeded generator for inputs and constants.
pub struct G {
    pub b: GraphBuilder,
    pub rng: Rng,
    pub inputs: Vec<(String, HostTensor)>,
}

impl G {
    pub fn new(seed: u64) -> G {
        G {
            b: GraphBuilder::new(),
            rng: Rng::new(seed),
            inputs: Vec::new(),
        }
    }

    /// A float32 input with random values in [-1, 1).
    pub fn input(&mut self, name: &str, shape: &[u32]) -> Operand {
        let desc = OperandDescriptor::new(DataType::Float32, shape);
        let n = shape.iter().product::<u32>() as usize;
        let v = self.rng.fill(n, -1.0, 1.0);
        self.inputs.push((
            name.to_owned(),
            HostTensor {
                desc: desc.clone(),
                bytes: bytes(&v),
            },
        ));
        self.b.input(name, desc).unwrap()
    }

    /// A float32 constant with random values in [-1, 1).
    pub fn constant(&mut self, shape: &[u32]) -> Operand {
        let n = shape.iter().product::<u32>() as usize;
        let v = self.rng.fill(n, -1.0, 1.0);
        self.b
            .constant(OperandDescriptor::new(DataType::Float32, shape), bytes(&v))
            .unwrap()
    }

    pub fn build(&mut self, outputs: &[(&str, Operand)]) -> Graph {
        self.b.build(outputs).unwrap()
    }
}

/// Every output of `graph` on a backend.
pub fn run(backend: &dyn Backend, graph: &Graph, inputs: &[(String, HostTensor)]) -> Vec<Vec<f32>> {
    let mut exe = backend.compile(graph).unwrap();
    let feeds: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (n.as_str(), t)).collect();
    exe.dispatch(&feeds)
        .unwrap()
        .into_iter()
        .map(|(_, t)| floats(&t.bytes))
        .collect()
}

/// Runs `graph` on the reference and on the fast backend with 1 and 3 threads (and once on
/// every other instruction set this machine has); checks each fast output against the
/// reference (`|fast - ref| <= tol * (1 + |ref|)`), checks the two thread counts agree bit
/// for bit, and returns (fast steps, reference steps) of the plan.
pub fn check(graph: &Graph, inputs: &[(String, HostTensor)], tol: f32) -> (usize, usize) {
    let want = run(&webnn_cpu::CpuBackend, graph, inputs);
    let one = FastBackend::new(1);
    let got = run(&one, graph, inputs);
    let close = |got: &[Vec<f32>], isa: webnn_gemm::Isa| {
        assert_eq!(want.len(), got.len());
        for (k, (w, g)) in want.iter().zip(got).enumerate() {
            assert_eq!(w.len(), g.len(), "output {k} length");
            for (i, (a, b)) in w.iter().zip(g).enumerate() {
                let ok = a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * (1.0 + a.abs());
                assert!(ok, "output {k}[{i}] on {isa}: reference {a}, fast {b}");
            }
        }
    };
    close(&got, one.isa());
    for isa in webnn_gemm::Isa::available() {
        if isa != one.isa() {
            close(&run(&FastBackend::with_isa(1, isa), graph, inputs), isa);
        }
    }
    let three = run(&FastBackend::new(3), graph, inputs);
    for (g, t) in got.iter().zip(&three) {
        assert!(
            g.iter().zip(t).all(|(a, b)| a.to_bits() == b.to_bits()),
            "1 and 3 threads differ"
        );
    }
    one.compile_graph(graph).unwrap().step_counts()
}

/// `check` for graphs with outputs of any type: the outputs' bytes equal the reference's.
pub fn check_any(graph: &webnn_core::Graph, inputs: &[(String, webnn_core::HostTensor)]) -> (usize, usize) {
    use webnn_core::Backend;
    let feeds: Vec<(&str, &webnn_core::HostTensor)> = inputs.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let want = webnn_cpu::CpuBackend.compile(graph).unwrap().dispatch(&feeds).unwrap();
    let fast = webnn_fast::FastBackend::new(1);
    let got = fast.compile(graph).unwrap().dispatch(&feeds).unwrap();
    for ((n, w), (_, g)) in want.iter().zip(&got) {
        assert_eq!(w.bytes, g.bytes, "output {n}");
    }
    fast.compile_graph(graph).unwrap().step_counts()
}

/// The step descriptions of a graph's plan on the fast backend (one thread, best ISA).
pub fn steps(graph: &Graph, g: &G) -> Vec<String> {
    let fast = FastBackend::new(1).compile_graph(graph).unwrap();
    let inputs = g
        .inputs
        .iter()
        .map(|(n, t)| (n.clone(), webnn_cpu::Tensor::from_bytes(&t.desc, &t.bytes).unwrap()))
        .collect();
    fast.profile(&inputs, 1).unwrap().into_iter().map(|(d, _)| d).collect()
}
