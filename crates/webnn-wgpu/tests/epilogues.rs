//! Quantized products that take over their neighbours' work, against the cpu backend
//! running the same graph op by op, for 1 to 40 rows of x (qgemv and qgemm), with kernels
//! tuned for a CPU adapter and for a GPU:
//! - an epilogue op for the one node that read the product (`Tail`): a residual `add`, the
//!   SiLU gate of a gated MLP;
//! - the RMSNorm of x, when every reader of the norm is such a product (on GPUs, at every
//!   row count: the norm then runs no kernel);
//! - the rotary embedding of its output and the write of its rows into a cache (`Store`:
//!   a transformer's q, k and v projections);
//! - on GPUs, the gate product of a gated MLP computed beside the up product (`pair`).

use webnn_core::ops::{MLNumber, OpOptions, ReduceOptions, SliceOptions};
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

/// Float32 outputs of `backend`'s graph (`got`) against the cpu backend's (`want`) for x of
/// `m` rows: within 1e-4 per unit of magnitude per element of the K-long sums.
fn assert_close(got: &[(String, HostTensor)], want: &[(String, HostTensor)], m: u32, backend: &webnn_wgpu::WgpuBackend) {
    for ((name, a), (_, b)) in got.iter().zip(want) {
        for (i, (a, b)) in values(a).iter().zip(values(b)).enumerate() {
            let tolerance = 1e-4 * b.abs().max(1.0) * K as f32;
            assert!((a - b).abs() <= tolerance, "{name} m {m} [{i}]: {a} vs {b} (cpu adapter tuning: {})", backend.options().cpu_adapter);
        }
    }
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
            let inputs = [("x", &x), ("r", &r)];
            let got = webnn_core::Executable::dispatch(&mut gpu, &inputs).unwrap();
            assert_close(&got, &cpu.dispatch(&inputs).unwrap(), m, &backend);
        }
    }
}

/// `x / sqrt(mean(x²) + eps) * w` over the last axis (of K elements), as frameworks write it.
fn rms_norm(b: &mut GraphBuilder, x: webnn_core::Operand, rng: &mut Rng) -> webnn_core::Operand {
    rms_norm_of(b, x, K, rng)
}

/// `rms_norm` over a last axis of `width` elements.
fn rms_norm_of(b: &mut GraphBuilder, x: webnn_core::Operand, width: u32, rng: &mut Rng) -> webnn_core::Operand {
    let none = OpOptions::default;
    let w: Vec<u8> = rng.fill(width as usize, 0.5, 1.5).iter().flat_map(|v| v.to_le_bytes()).collect();
    let w = b.constant(OperandDescriptor::new(F, &[width]), w).unwrap();
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
    // At one row (a decode step) and at nine (a prompt), as lowered for a GPU: the first
    // norm runs no kernel, its three products normalise x; the second norm (also read by an
    // add) is a kernel. On a CPU adapter both norms are kernels.
    for (m, cpu_adapter, want) in [(1, false, (3, 1, 6)), (9, false, (3, 1, 6)), (1, true, (0, 2, 7)), (9, true, (0, 2, 7))] {
        let labels = kernels_at(&g, m, 8, cpu_adapter);
        let normalising = labels.iter().filter(|k| k.contains("norm: true")).count();
        let norms = labels.iter().filter(|k| k.starts_with("Normalize")).count();
        assert_eq!((normalising, norms, labels.len()), want, "m {m}, cpu adapter {cpu_adapter}: {labels:#?}");
    }
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone().tuned_for_gpu(), backend] {
        let mut gpu = backend.compile_graph(&g).unwrap();
        let mut cpu = webnn_cpu::CpuBackend.compile(&g).unwrap();
        for m in [1u32, 3, 8, 40, 9, 1] {
            let x = HostTensor { desc: OperandDescriptor::new(F, &[m, K]), bytes: floats(&mut rng, (m * K) as usize) };
            let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x)]).unwrap();
            assert_close(&got, &cpu.dispatch(&[("x", &x)]).unwrap(), m, &backend);
        }
        // On a GPU every size lowers alike (the products normalise x at every row count):
        // one set of steps. A CPU adapter's tiled prompts and one-row gemvs differ.
        if !backend.options().cpu_adapter {
            assert_eq!(gpu.shapes_built(), 1);
        }
    }
}

/// `silu(gate) * up` with gate = x·Wgᵀ and up = x·Wuᵀ of weight type `weight`, `n` outputs.
fn gated_mlp(b: &mut GraphBuilder, x: webnn_core::Operand, weight: DataType, n: u32, zero_points: bool, rng: &mut Rng) -> (webnn_core::Operand, webnn_core::Operand) {
    let none = OpOptions::default;
    let layer = QuantizedLinear { weight, n, k: K, block: 32, offset: !zero_points, zero_points };
    let gate = layer.build(b, x, rng).unwrap();
    let up = layer.build(b, x, rng).unwrap();
    let sig = b.sigmoid(gate, none()).unwrap();
    let silu = b.mul(gate, sig, none()).unwrap();
    (b.mul(silu, up, none()).unwrap(), gate)
}

/// Four gated MLPs: of rmsnorm(x) with Q4_1-like weights; of x with int8 weights and zero
/// points, 43 outputs (an odd count: a prompt's frame rows take two columns); of x with its gate also a graph output, and with its gate also RMS-normalised
/// (no pair for these two: the gate must be stored, even where only absorbed nodes read it
/// but a fused kernel does).
fn mlp_graph(rng: &mut Rng) -> Graph {
    let mut b = GraphBuilder::new();
    let rows = Dim::Dynamic { name: "m".into(), max_size: 40 };
    let x = b.input("x", OperandDescriptor::with_dims(F, vec![rows, K.into()])).unwrap();
    let h = rms_norm(&mut b, x, rng);
    let (normed, _) = gated_mlp(&mut b, h, DataType::Uint4, N, false, rng);
    let (zeros, _) = gated_mlp(&mut b, x, DataType::Int8, 43, true, rng);
    let (read, gate) = gated_mlp(&mut b, x, DataType::Int4, N, false, rng);
    let (other, gate2) = gated_mlp(&mut b, x, DataType::Uint8, N, false, rng);
    let gate2 = rms_norm_of(&mut b, gate2, N, rng);
    b.build(&[("normed", normed), ("zeros", zeros), ("read", read), ("gate", gate), ("other", other), ("gate2", gate2)]).unwrap()
}

/// The kernels of `g` (input x of `m` rows) as lowered for a device binding `max_storage`
/// storage buffers.
fn kernels_at(g: &Graph, m: u32, max_storage: u32, cpu_adapter: bool) -> Vec<String> {
    let mut dims = webnn_core::DimBindings::default();
    dims.bind("x", g.desc(g.inputs[0].1), &[m, K]).unwrap();
    let r = g.resolved(&dims);
    let patterns = webnn_wgpu::patterns::Patterns::find_for(&r, max_storage, cpu_adapter);
    webnn_wgpu::exec::lower_graph_with(&r, &patterns, cpu_adapter)
        .unwrap()
        .iter()
        .flat_map(|l| match l {
            Lowering::Kernels(c) => c.iter().map(|c| c.key.label()).collect(),
            Lowering::Alias(_) => Vec::new(),
        })
        .collect()
}

#[test]
fn gate_and_up_projections_run_as_one_kernel_on_gpus() {
    let mut rng = Rng::new(23);
    let g = mlp_graph(&mut rng);
    let count = |labels: &[String], s: &str| labels.iter().filter(|k| k.contains(s)).count();
    // On a GPU binding 16 storage buffers: the first two MLPs are one paired product each
    // (the first normalising x); the last two keep their gate products and multiply in the
    // epilogue.
    for m in [1, 9] {
        let labels = kernels_at(&g, m, 16, false);
        let products = count(&labels, "QGemv");
        assert_eq!((products, count(&labels, "pair: true"), count(&labels, "SiluGate")), (6, 2, 2), "m {m}: {labels:#?}");
    }
    assert_eq!(count(&kernels_at(&g, 1, 16, false), "norm: true"), 1);
    // At 8: the normalising pair with offsets would bind nine buffers; the one with zero
    // points and no offsets binds eight (offsets are bound only where the format has them).
    let labels = kernels_at(&g, 1, 8, false);
    assert_eq!(count(&labels, "pair: true"), 1, "{labels:#?}");
    assert_eq!(count(&kernels_at(&g, 1, 7, false), "pair: true"), 0);
    // A CPU adapter pairs nothing.
    assert_eq!(count(&kernels_at(&g, 1, 16, true), "pair: true"), 0);
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone().tuned_for_gpu(), backend] {
        let mut gpu = backend.compile_graph(&g).unwrap();
        let mut cpu = webnn_cpu::CpuBackend.compile(&g).unwrap();
        for m in [1u32, 2, 5, 40, 1, 9] {
            let x = HostTensor { desc: OperandDescriptor::new(F, &[m, K]), bytes: floats(&mut rng, (m * K) as usize) };
            let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x)]).unwrap();
            assert_close(&got, &cpu.dispatch(&[("x", &x)]).unwrap(), m, &backend);
        }
    }
}

/// Rotary embedding of `x` `[rows, heads * hd]` on adjacent pairs, as SmolLM2's graph
/// writes it, with `cos`/`sin` `[rows, 1, hd / 2, 1]`.
fn rope(b: &mut GraphBuilder, x: webnn_core::Operand, heads: u32, hd: u32, rows: &Dim, cos: webnn_core::Operand, sin: webnn_core::Operand) -> webnn_core::Operand {
    let none = OpOptions::default;
    let half = hd / 2;
    let x = b.reshape(x, vec![rows.clone(), heads.into(), half.into(), 2.into()], none()).unwrap();
    let part = |b: &mut GraphBuilder, k: u32| {
        b.slice_dims(x, vec![0, 0, 0, k], vec![rows.clone(), heads.into(), half.into(), 1.into()], SliceOptions::default()).unwrap()
    };
    let (even, odd) = (part(b, 0), part(b, 1));
    let (ec, os) = (b.mul(even, cos, none()).unwrap(), b.mul(odd, sin, none()).unwrap());
    let (es, oc) = (b.mul(even, sin, none()).unwrap(), b.mul(odd, cos, none()).unwrap());
    let first = b.sub(ec, os, none()).unwrap();
    let second = b.add(es, oc, none()).unwrap();
    let y = b.concat(&[first, second], 3, none()).unwrap();
    b.reshape(y, vec![rows.clone(), (heads * hd).into()], none()).unwrap()
}

const HEADS: u32 = 3;
const HD: u32 = 16;
const CACHE: u32 = 48;

/// A transformer layer's input side: h = rmsnorm(x); q = rope(h·Wqᵀ); k = rope(h·Wkᵀ) cast to
/// float16 and scattered into a float16 cache at `positions`; v = h·Wvᵀ scattered into a
/// float32 cache. The weights' blocks with offsets (Q4_1-like) or without (Q4_0-like).
fn projections(rng: &mut Rng, offset: bool) -> Graph {
    let mut b = GraphBuilder::new();
    let rows = Dim::Dynamic { name: "m".into(), max_size: 40 };
    let n = HEADS * HD;
    let x = b.input("x", OperandDescriptor::with_dims(F, vec![rows.clone(), K.into()])).unwrap();
    let table = OperandDescriptor::with_dims(F, vec![rows.clone(), 1.into(), (HD / 2).into(), 1.into()]);
    let cos = b.input("cos", table.clone()).unwrap();
    let sin = b.input("sin", table).unwrap();
    let positions = b.input("positions", OperandDescriptor::with_dims(DataType::Int32, vec![rows.clone(), 1.into()])).unwrap();
    let k_cache = b.input("k_cache", OperandDescriptor::new(DataType::Float16, &[CACHE, n])).unwrap();
    let v_cache = b.input("v_cache", OperandDescriptor::new(F, &[CACHE, n])).unwrap();
    let layer = |weight| QuantizedLinear { weight, n, k: K, block: 32, offset, zero_points: false };
    let none = OpOptions::default;
    let h = rms_norm(&mut b, x, rng);
    let q = layer(DataType::Uint4).build(&mut b, h, rng).unwrap();
    let q = rope(&mut b, q, HEADS, HD, &rows, cos, sin);
    let k = layer(DataType::Uint4).build(&mut b, h, rng).unwrap();
    let k = rope(&mut b, k, HEADS, HD, &rows, cos, sin);
    let k = b.cast(k, DataType::Float16, none()).unwrap();
    let k = b.scatter_nd(k_cache, positions, k, none()).unwrap();
    let v = layer(DataType::Int8).build(&mut b, h, rng).unwrap();
    let v = b.scatter_nd(v_cache, positions, v, none()).unwrap();
    b.build(&[("q", q), ("k", k), ("v", v)]).unwrap()
}

#[test]
fn projections_rotate_and_store_their_rows() {
    let mut rng = Rng::new(17);
    let g = projections(&mut rng, true);
    // One row on a GPU binding 16 storage buffers: three products (normalising x, q and k
    // rotating, k and v storing rows after their caches' copies), nothing else.
    let labels = kernels_at(&g, 1, 16, false);
    let products: Vec<&String> = labels.iter().filter(|k| k.starts_with("QGemv")).collect();
    assert_eq!(labels.len(), 5, "{labels:#?}");
    assert!(products.iter().all(|k| k.contains("norm: true")), "{labels:#?}");
    assert_eq!(products.iter().filter(|k| k.contains("rope: true")).count(), 2, "{labels:#?}");
    assert_eq!(products.iter().filter(|k| k.contains("scatter: true")).count(), 2, "{labels:#?}");
    // Binding at most 8: k keeps its own scatter (with the offsets, the norm, its rotation
    // and its row indices would be a ninth buffer). Weights without offsets bind one fewer:
    // k stores its rows itself at 8.
    let labels = kernels_at(&g, 1, 8, false);
    assert!(labels.iter().any(|k| k.starts_with("ScatterNd")), "{labels:#?}");
    let plain = projections(&mut Rng::new(17), false);
    let labels = kernels_at(&plain, 1, 8, false);
    assert_eq!(labels.len(), 5, "{labels:#?}");
    assert!(!labels.iter().any(|k| k.starts_with("ScatterNd")), "{labels:#?}");
    let mut rng = Rng::new(19);
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    let runs = [(backend.clone().tuned_for_gpu(), &g), (backend.clone().tuned_for_gpu(), &plain), (backend.clone(), &g), (backend, &plain)];
    for (backend, g) in runs {
        let mut gpu = backend.compile_graph(g).unwrap();
        let mut cpu = webnn_cpu::CpuBackend.compile(g).unwrap();
        for m in [1u32, 3, 40, 1, 9, 2] {
            let host = |t: DataType, shape: &[u32], bytes: Vec<u8>| HostTensor { desc: OperandDescriptor::new(t, shape), bytes };
            let angles = floats(&mut rng, (m * HD / 2) as usize);
            // Distinct rows, one negative (counted from the end).
            let rows: Vec<i32> = (0..m as i32).map(|i| if i == 1 { -3 } else { (i * 5 + 2) % CACHE as i32 }).collect();
            let inputs = [
                ("x", host(F, &[m, K], floats(&mut rng, (m * K) as usize))),
                ("cos", host(F, &[m, 1, HD / 2, 1], angles.chunks_exact(4).flat_map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).cos().to_le_bytes()).collect())),
                ("sin", host(F, &[m, 1, HD / 2, 1], angles.chunks_exact(4).flat_map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).sin().to_le_bytes()).collect())),
                ("positions", host(DataType::Int32, &[m, 1], rows.iter().flat_map(|r| r.to_le_bytes()).collect())),
                ("k_cache", host(DataType::Float16, &[CACHE, HEADS * HD], (0..CACHE * HEADS * HD).flat_map(|i| half::f16::from_f32(i as f32 / 100.0).to_le_bytes()).collect())),
                ("v_cache", host(F, &[CACHE, HEADS * HD], floats(&mut rng, (CACHE * HEADS * HD) as usize))),
            ];
            let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
            let got = webnn_core::Executable::dispatch(&mut gpu, &named).unwrap();
            let want = cpu.dispatch(&named).unwrap();
            for ((name, a), (_, b)) in got.iter().zip(&want) {
                let (a, b) = match a.desc.data_type {
                    DataType::Float16 => {
                        let f = |t: &HostTensor| -> Vec<f32> { t.bytes.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect() };
                        (f(a), f(b))
                    }
                    _ => (values(a), values(b)),
                };
                for (i, (a, b)) in a.iter().zip(&b).enumerate() {
                    let tolerance = 1e-4 * b.abs().max(1.0) * K as f32 + if name == "k" { 2e-3 * b.abs().max(1.0) } else { 0.0 };
                    assert!((a - b).abs() <= tolerance, "{name} m {m} [{i}]: {a} vs {b} (cpu adapter tuning: {})", backend.options().cpu_adapter);
                }
            }
        }
    }
}
