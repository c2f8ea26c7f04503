//! Shared by the ort tests: one backend per test binary (ONNX Runtime's library is required:
//! `bash scripts/setup.sh all` installs it, `source scripts/env.sh` points ORT_DYLIB_PATH at
//! it), and comparison of a graph's outputs with the cpu backend's.

#![allow(dead_code)]

/// The backend-independent cases (one small graph per op and data type) the wgpu tests
/// use too, so every backend is checked on the same graphs.
#[path = "../../../webnn-wgpu/tests/common/cases/mod.rs"]
pub mod cases;
#[path = "../../../webnn-wgpu/tests/common/compare.rs"]
pub mod compare;

#[allow(unused_imports)] // not every test binary compares
pub use compare::*;

use std::sync::OnceLock;
use webnn_core::{Backend, DataType, Graph, HostTensor, OperandDescriptor};
use webnn_cpu::CpuBackend;
use webnn_ort::OrtBackend;

pub fn ort() -> &'static OrtBackend {
    static B: OnceLock<OrtBackend> = OnceLock::new();
    B.get_or_init(|| {
        OrtBackend::new().unwrap_or_else(|e| {
            panic!("these tests need ONNX Runtime (bash scripts/setup.sh all; source scripts/env.sh): {e}")
        })
    })
}

/// Runs `graph` on both backends and returns (ort, cpu) outputs.
pub fn run_both(graph: &Graph, inputs: &[(&str, &HostTensor)]) -> Vec<(HostTensor, HostTensor)> {
    let mut exe = ort()
        .compile(graph)
        .unwrap_or_else(|e| panic!("ort compile: {e}"));
    let got = exe
        .dispatch(inputs)
        .unwrap_or_else(|e| panic!("ort dispatch: {e}"));
    let mut cpu = CpuBackend.compile(graph).expect("cpu compile");
    let want = cpu.dispatch(inputs).expect("cpu dispatch");
    assert_eq!(got.len(), want.len());
    got.into_iter()
        .zip(want)
        .map(|((n1, g), (n2, w))| {
            assert_eq!(n1, n2);
            assert_eq!(g.desc, w.desc, "output {n1}");
            (g, w)
        })
        .collect()
}

pub fn tensor_of(t: DataType, shape: &[u32], bytes: Vec<u8>) -> HostTensor {
    HostTensor {
        desc: OperandDescriptor::new(t, shape),
        bytes,
    }
}
