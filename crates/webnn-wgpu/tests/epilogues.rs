//! Quantized products whose epilogue takes over the one node that read them (`Tail`): a
//! residual `add` and the SiLU gate of a gated MLP, against the cpu backend running the same
//! graph op by op, for 1 to 40 rows of x (qgemv and qgemm), with kernels tuned for a CPU
//! adapter and for a GPU.

use webnn_core::ops::OpOptions;
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
