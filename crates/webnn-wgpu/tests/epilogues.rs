//! Quantized products that take over their neighbours' work, against the cpu backend
//! running the same graph op by op, for 1 to 40 rows of x (qgemv and qgemm), with kernels
//! tuned for a CPU adapter and for a GPU:
//! - an epilogue op for the one node that read the product (`Tail`): a residual `add`, the
//!   SiLU gate of a gated MLP;
//! - the RMSNorm of x, when every reader of the norm is such a product (decode-sized gemvs
//!   on GPUs: the norm then runs no kernel).

use webnn_core::ops::{MLNumber, OpOptions, ReduceOptions};
use webnn_core::{Backend, DataType, Dim, Graph, GraphBuilder, HostTensor, OperandDescriptor};
use webnn_models::{QuantizedLinear, Rng};
use webnn_wgpu::lower::Lowering;

const F: DataType = DataType::Float32;
const K: u32 = 96;
const N: u32 = 42;

/// gate = x·Wgᵀ, up = x·Wuᵀ, act = gate * sigmoid(gate) * up; y = r + x·Wrᵀ; z = x·Wzᵀ + r
/// (the residual on the other side); and one product read twice (no epilogue).
fn graph(rng: &mut Rng) -> Graph {
    let mut b = GraphBuilder::new();
    let rows = Dim::Dynamic { name: "m".into(), max_size: 40 };
    let x = b.input("x", OperandDescriptor::with_dims(F, vec![rows.clone(), K.into()])).unwrap();
    let r = b.input("r", OperandDescriptor::with_dims(F, vec![rows, N.into()])).unwrap();
    let layer = |weight| QuantizedLinear { weight, n: N, k: K, block: 32, offset: true, zero_points: false };
    let none = OpOptions::default;
    let gate = layer(DataType::Uint4).build(&mut b, x, rng).unwrap();
    let up = layer(DataType::Int4).build(&mut b, x, rng).unwrap();
    let sig = b.sigmoid(gate, none()).unwrap();
    let silu = b.mul(gate, sig, none()).unwrap();
    let act = b.mul(silu, up, none()).unwrap();
    let p = layer(DataType::Uint8).build(&mut b, x, rng).unwrap();
    let y = b.add(r, p, none()).unwrap();
    let q = layer(DataType::Int8).build(&mut b, x, rng).unwrap();
    let z = b.add(q, r, none()).unwrap();
    // Read twice: stays a plain product, and its add a kernel.
    let twice = layer(DataType::Uint4).build(&mut b, x, rng).unwrap();
    let w = b.add(twice, r, none()).unwrap();
    let w = b.add(w, twice, none()).unwrap();
    b.build(&[("act", act), ("y", y), ("z", z), ("w", w)]).unwrap()
}

fn floats(rng: &mut Rng, n: usize) -> Vec<u8> {
    rng.fill(n, -1.0, 1.0).iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn values(t: &HostTensor) -> Vec<f32> {
    t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn residual_adds_and_silu_gates_run_in_the_products_epilogues() {
    let mut rng = Rng::new(11);
    let g = graph(&mut rng);
    let lowered = webnn_wgpu::lower_graph(&g.resolved(&Default::default())).unwrap();
    let kernels: Vec<String> = lowered
        .iter()
        .filter_map(|l| match l {
            Lowering::Kernels(c) if !c.is_empty() => Some(c[0].key.label()),
            _ => None,
        })
        .collect();
    // Five products, two of them with an epilogue op; the twice-read product's two adds.
    let tails = kernels.iter().filter(|k| k.contains("tail: Add") || k.contains("tail: SiluGate")).count();
    assert_eq!((kernels.len(), tails), (7, 3), "{kernels:#?}");
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone(), backend.tuned_for_gpu()] {
        let mut gpu = backend.compile_graph(&g).unwrap();
        let mut cpu = webnn_cpu::CpuBackend.compile(&g).unwrap();
        for m in [1u32, 3, 40, 1, 9] {
            let x = HostTensor { desc: OperandDescriptor::new(F, &[m, K]), bytes: floats(&mut rng, (m * K) as usize) };
            let r = HostTensor { desc: OperandDescriptor::new(F, &[m, N]), bytes: floats(&mut rng, (m * N) as usize) };
            let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x), ("r", &r)]).unwrap();
            let want = cpu.dispatch(&[("x", &x), ("r", &r)]).unwrap();
            for ((name, a), (_, b)) in got.iter().zip(&want) {
                for (i, (a, b)) in values(a).iter().zip(values(b)).enumerate() {
                    let tolerance = 1e-4 * b.abs().max(1.0) * K as f32;
                    assert!((a - b).abs() <= tolerance, "{name} m {m} [{i}]: {a} vs {b} (cpu adapter tuning: {})", backend.options().cpu_adapter);
                }
            }
        }
    }
}

/// `x / sqrt(mean(x²) + eps) * w` over the last axis, as frameworks write it.
fn rms_norm(b: &mut GraphBuilder, x: webnn_core::Operand, rng: &mut Rng) -> webnn_core::Operand {
    let none = OpOptions::default;
    let w: Vec<u8> = rng.fill(K as usize, 0.5, 1.5).iter().flat_map(|v| v.to_le_bytes()).collect();
    let w = b.constant(OperandDescriptor::new(F, &[K]), w).unwrap();
    let two = b.constant_scalar(F, MLNumber::Double(2.0)).unwrap();
    let eps = b.constant_scalar(F, MLNumber::Double(1e-5)).unwrap();
    let sq = b.pow(x, two, none()).unwrap();
    let mean = b.reduce_mean(sq, ReduceOptions { axes: Some(vec![1]), keep_dimensions: true, ..Default::default() }).unwrap();
    let var = b.add(mean, eps, none()).unwrap();
    let rms = b.sqrt(var, none()).unwrap();
    let y = b.div(x, rms, none()).unwrap();
    b.mul(y, w, none()).unwrap()
}

/// h = rmsnorm(x) read by three products (normalised in each where they run as gemvs on a
/// GPU); g = rmsnorm(x) read by a product and by an add (stays a kernel everywhere).
fn norm_graph(rng: &mut Rng) -> Graph {
    let mut b = GraphBuilder::new();
    let rows = Dim::Dynamic { name: "m".into(), max_size: 40 };
    let x = b.input("x", OperandDescriptor::with_dims(F, vec![rows, K.into()])).unwrap();
    let layer = |weight| QuantizedLinear { weight, n: N, k: K, block: 32, offset: true, zero_points: false };
    let h = rms_norm(&mut b, x, rng);
    let q = layer(DataType::Uint4).build(&mut b, h, rng).unwrap();
    let k = layer(DataType::Int8).build(&mut b, h, rng).unwrap();
    let v = layer(DataType::Uint4).build(&mut b, h, rng).unwrap();
    let g = rms_norm(&mut b, x, rng);
    let p = layer(DataType::Uint4).build(&mut b, g, rng).unwrap();
    let twice = b.add(g, x, OpOptions::default()).unwrap();
    b.build(&[("q", q), ("k", k), ("v", v), ("p", p), ("twice", twice)]).unwrap()
}

#[test]
fn gemvs_normalise_their_input_on_gpus() {
    let mut rng = Rng::new(13);
    let g = norm_graph(&mut rng);
    // At one row, as lowered for a GPU: the first norm runs no kernel, its three products
    // normalise x; the second norm (also read by an add) is a kernel.
    let mut dims = webnn_core::DimBindings::default();
    dims.bind("x", g.desc(g.inputs[0].1), &[1, K]).unwrap();
    let lowered = webnn_wgpu::lower_graph(&g.resolved(&dims)).unwrap();
    let labels: Vec<String> = lowered
        .iter()
        .filter_map(|l| match l {
            Lowering::Kernels(c) if !c.is_empty() => Some(c[0].key.label()),
            _ => None,
        })
        .collect();
    let normalising = labels.iter().filter(|k| k.contains("norm: true")).count();
    let norms = labels.iter().filter(|k| k.starts_with("Normalize")).count();
    assert_eq!((normalising, norms, labels.len()), (3, 1, 6), "{labels:#?}");
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone().tuned_for_gpu(), backend] {
        let mut gpu = backend.compile_graph(&g).unwrap();
        let mut cpu = webnn_cpu::CpuBackend.compile(&g).unwrap();
        for m in [1u32, 3, 8, 40, 9, 1] {
            let x = HostTensor { desc: OperandDescriptor::new(F, &[m, K]), bytes: floats(&mut rng, (m * K) as usize) };
            let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x)]).unwrap();
            let want = cpu.dispatch(&[("x", &x)]).unwrap();
            for ((name, a), (_, b)) in got.iter().zip(&want) {
                for (i, (a, b)) in values(a).iter().zip(values(b)).enumerate() {
                    let tolerance = 1e-4 * b.abs().max(1.0) * K as f32;
                    assert!((a - b).abs() <= tolerance, "{name} m {m} [{i}]: {a} vs {b} (cpu adapter tuning: {})", backend.options().cpu_adapter);
                }
            }
        }
    }
}
