//! The fused quantized product (`webnn_core::fusion::QuantizedLinear` -> qgemv.wgsl; on a CPU
//! adapter qgemm.wgsl's tiles past 8 rows of x) against the cpu backend running the same graph
//! op by op: every weight type, with and without Q4_1's per-block offset, two block sizes,
//! and 1 to 40 rows of x through one graph.

use webnn_core::{Backend, DataType, Graph, HostTensor, OperandDescriptor};
use webnn_models::{QuantizedLinear, Rng};

const F: DataType = DataType::Float32;

fn floats(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<u8> {
    rng.fill(n, lo, hi).iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn graph(t: DataType, block: u32, offset: bool, zero_points: bool, rng: &mut Rng) -> Graph {
    // 42 weight rows: not a multiple of the 4 that a CPU adapter's one-row gemv computes at once.
    QuantizedLinear { weight: t, n: 42, k: 96, block, offset, zero_points }.graph(40, rng).unwrap()
}

#[test]
fn fused_quantized_gemv_matches_the_ops_one_by_one() {
    // Both variants: one invocation per output, x read through a uniform binding (as on a CPU
    // adapter), and lanes splitting the blocks (as on a GPU).
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone(), backend.tuned_for_gpu()] {
        check_every_variant(&backend);
    }
}

fn check_every_variant(backend: &webnn_wgpu::WgpuBackend) {
    let mut rng = Rng::new(5);
    for t in [DataType::Int4, DataType::Uint4, DataType::Int8, DataType::Uint8] {
        // Zero points all zero (GGUF) are never read, nor offsets a format lacks (both absent:
        // Q8_0-like).
        for (block, offset, zero_points) in [(32, false, true), (32, true, true), (16, true, true), (32, true, false), (32, false, false)] {
            let g = graph(t, block, offset, zero_points, &mut rng);
            assert_eq!(webnn_core::fusion::quantized_linears(&g).len(), 1);
            let cpu_adapter = backend.options().cpu_adapter;
            let resolved = g.resolved(&Default::default());
            let patterns = webnn_wgpu::patterns::Patterns::find(&resolved);
            let lowered = webnn_wgpu::exec::lower_graph_with(&resolved, &patterns, cpu_adapter).unwrap();
            let kernels: Vec<String> = lowered
                .iter()
                .filter_map(|l| match l {
                    webnn_wgpu::lower::Lowering::Kernels(c) => Some(c[0].key.label()),
                    webnn_wgpu::lower::Lowering::Alias(_) => None,
                })
                .collect();
            // At the bound (40 rows), the tiled kernel on a CPU adapter; the gemv's rows of
            // four on a GPU (the tiles would leave it idle).
            let want = if cpu_adapter { "QGemm" } else { "QGemv" };
            assert!(kernels.len() == 1 && kernels[0].starts_with(want), "{kernels:?}");
            let mut gpu = backend.compile_graph(&g).unwrap();
            let mut cpu = webnn_cpu::CpuBackend.compile(&g).unwrap();
            for m in [1u32, 3, 6, 4, 8, 9, 16, 33, 40, 1, 2, 12] {
                let x = HostTensor { desc: OperandDescriptor::new(F, &[m, 96]), bytes: floats(&mut rng, m as usize * 96, -1.0, 1.0) };
                let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x)]).unwrap();
                let want = cpu.dispatch(&[("x", &x)]).unwrap();
                let f = |t: &HostTensor| -> Vec<f32> { t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect() };
                for (i, (a, b)) in f(&got[0].1).iter().zip(f(&want[0].1)).enumerate() {
                    assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0) * 96.0, "{t} block {block} offset {offset} m {m} [{i}]: {a} vs {b}");
                }
            }
            // On a CPU adapter: built at the bound (tiled) and again for 1 row (gemv); every
            // later size reuses one of the two in place, switching back and forth as a
            // decoder does; the one-row gemv reads x through a uniform binding of one row's
            // size, so 3 rows build a third. On a GPU the gemv serves every size: one set.
            let sets = if cpu_adapter { 3 } else { 1 };
            assert_eq!(gpu.shapes_built(), sets);
        }
    }
}
