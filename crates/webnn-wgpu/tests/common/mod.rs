//! Shared by the GPU tests: one backend per test binary (an adapter is required: CI installs
//! Mesa's lavapipe), and comparison of a graph's outputs with the cpu backend's.

#![allow(dead_code)]

pub mod cases;
pub mod compare;

#[allow(unused_imports)] // not every test binary compares
pub use compare::*;

use std::sync::OnceLock;
use webnn_core::{Backend, DataType, Graph, HostTensor};
use webnn_cpu::CpuBackend;
use webnn_wgpu::WgpuBackend;

pub fn gpu() -> &'static WgpuBackend {
    static B: OnceLock<WgpuBackend> = OnceLock::new();
    B.get_or_init(|| {
        WgpuBackend::new().unwrap_or_else(|e| {
            panic!("these tests need a WebGPU adapter (on Linux: apt install mesa-vulkan-drivers): {e}")
        })
    })
}

/// Runs `graph` on both backends and returns (wgpu, cpu) outputs.
pub fn run_both(graph: &Graph, inputs: &[(&str, &HostTensor)]) -> Vec<(HostTensor, HostTensor)> {
    let mut exe = gpu()
        .compile(graph)
        .unwrap_or_else(|e| panic!("wgpu compile: {e}"));
    let got = exe
        .dispatch(inputs)
        .unwrap_or_else(|e| panic!("wgpu dispatch: {e}"));
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

pub fn f32_tensor(shape: &[u32], v: &[f32]) -> HostTensor {
    HostTensor {
        desc: webnn_core::OperandDescriptor::new(DataType::Float32, shape),
        bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    }
}

pub fn f16_tensor(shape: &[u32], v: &[f32]) -> HostTensor {
    HostTensor {
        desc: webnn_core::OperandDescriptor::new(DataType::Float16, shape),
        bytes: v
            .iter()
            .flat_map(|x| half::f16::from_f32(*x).to_le_bytes())
            .collect(),
    }
}
