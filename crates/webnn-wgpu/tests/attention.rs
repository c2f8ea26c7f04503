//! The fused attention (`webnn_core::fusion::Attention`) against the cpu backend running the
//! same graph op by op: decode-sized steps on attention.wgsl (a workgroup per query position
//! and quad of a kv head's query heads, keys in 256-key chunks with online softmax, or split
//! into blocks of 128 keys (a GPU's, head dims up to 126), 256 (a GPU's, larger head dims) or
//! 512 (a CPU adapter's) over long caches and merged by attention_merge.wgsl) and prompt-sized
//! ones on attention_tiled.wgsl (16-row tiles, 16-key blocks, online softmax), with partial
//! quads, chunks, tiles and blocks, head dims of 32 to 256, a causal mask and fully masked
//! rows and blocks; token-major and head-major caches.

use webnn_core::{Backend, DataType, Dim, Graph, GraphBuilder, HostTensor, OperandDescriptor};
use webnn_models::{attention, AttentionShape, Rng};

/// kv heads, query heads per kv head, head dim.
#[derive(Clone, Copy)]
struct Shape {
    heads: u32,
    group: u32,
    hd: u32,
}

const SMOLLM: Shape = Shape { heads: 2, group: 3, hd: 64 };

fn graph(sh: Shape) -> Graph {
    graph_of(sh, DataType::Float32)
}

/// With caches of type `cache`: float16 ones widened by casts (which the match absorbs).
fn graph_of(sh: Shape, cache: DataType) -> Graph {
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 24 };
    let total = Dim::Dynamic { name: "total".into(), max_size: 600 };
    let mut b = GraphBuilder::new();
    let f = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, shape);
    let q = b.input("q", f(vec![sh.heads.into(), sh.group.into(), seq.clone(), sh.hd.into()])).unwrap();
    let rows = OperandDescriptor::with_dims(cache, vec![total.clone(), (sh.heads * sh.hd).into()]);
    let keys = b.input("keys", rows.clone()).unwrap();
    let values = b.input("values", rows).unwrap();
    let (keys, values) = match cache {
        DataType::Float32 => (keys, values),
        _ => {
            let none = webnn_core::ops::OpOptions::default;
            (b.cast(keys, DataType::Float32, none()).unwrap(), b.cast(values, DataType::Float32, none()).unwrap())
        }
    };
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq, total.clone()])).unwrap();
    let scale = 1.0 / (sh.hd as f64).sqrt();
    let shape = AttentionShape { kv_heads: sh.heads, head_dim: sh.hd, total, scale, masked: -1e30 };
    let y = attention(&mut b, &shape, q, keys, values, mask).unwrap();
    b.build(&[("y", y)]).unwrap()
}

/// As a transformer keeps its activations, token-major: q `[seq, heads * head_dim]` (the
/// projection's output) transposed into the pattern's head-major layout, and the output
/// transposed back to `[seq, heads * head_dim]`. The kernel reads and writes that layout
/// itself (`fusion::TokenLayout`): no transpose runs.
fn graph_tokens(sh: Shape) -> Graph {
    use webnn_core::ops::{OpOptions, TransposeOptions};
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 24 };
    let total = Dim::Dynamic { name: "total".into(), max_size: 600 };
    let mut b = GraphBuilder::new();
    let f = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, shape);
    let width = sh.heads * sh.group * sh.hd;
    let x = b.input("q", f(vec![seq.clone(), width.into()])).unwrap();
    let q = b.reshape(x, vec![seq.clone(), sh.heads.into(), sh.group.into(), sh.hd.into()], OpOptions::default()).unwrap();
    let perm = |p: [u32; 4]| TransposeOptions { permutation: Some(p.to_vec()), ..Default::default() };
    let q = b.transpose(q, perm([1, 2, 0, 3])).unwrap();
    let rows = f(vec![total.clone(), (sh.heads * sh.hd).into()]);
    let keys = b.input("keys", rows.clone()).unwrap();
    let values = b.input("values", rows).unwrap();
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq.clone(), total.clone()])).unwrap();
    let scale = 1.0 / (sh.hd as f64).sqrt();
    let shape = AttentionShape { kv_heads: sh.heads, head_dim: sh.hd, total, scale, masked: -1e30 };
    let y = attention(&mut b, &shape, q, keys, values, mask).unwrap();
    let y = b.transpose(y, perm([2, 0, 1, 3])).unwrap();
    let y = b.reshape(y, vec![seq, width.into()], OpOptions::default()).unwrap();
    b.build(&[("y", y)]).unwrap()
}

/// Head-major caches `[1, kv_heads, total, head_dim]`, as an imported GroupQueryAttention
/// keeps them, viewed without a transpose of their rows (`fusion::CacheLayout::HeadMajor`).
fn graph_head_major(sh: Shape) -> Graph {
    use webnn_core::ops::{MLNumber, OpOptions, TransposeOptions};
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 24 };
    let total = Dim::Dynamic { name: "total".into(), max_size: 600 };
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let f = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, shape);
    let q = b.input("q", f(vec![sh.heads.into(), sh.group.into(), seq.clone(), sh.hd.into()])).unwrap();
    let cache = f(vec![1.into(), sh.heads.into(), total.clone(), sh.hd.into()]);
    let keys = b.input("keys", cache.clone()).unwrap();
    let values = b.input("values", cache).unwrap();
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq, total.clone()])).unwrap();
    let view = vec![sh.heads.into(), 1.into(), total, sh.hd.into()];
    let kh = b.reshape(keys, view.clone(), none()).unwrap();
    let kh = b.transpose(kh, TransposeOptions { permutation: Some(vec![0, 1, 3, 2]), ..Default::default() }).unwrap();
    let vh = b.reshape(values, view, none()).unwrap();
    let scale = b.constant_scalar(DataType::Float32, MLNumber::Double(1.0 / (sh.hd as f64).sqrt())).unwrap();
    let masked = b.constant_scalar(DataType::Float32, MLNumber::Double(-1e30)).unwrap();
    let scores = b.matmul(q, kh, none()).unwrap();
    let scores = b.mul(scores, scale, none()).unwrap();
    let scores = b.where_(mask, scores, masked, none()).unwrap();
    let probs = b.softmax(scores, 3, none()).unwrap();
    let y = b.matmul(probs, vh, none()).unwrap();
    b.build(&[("y", y)]).unwrap()
}

/// Head-major caches on every attention kernel: rows, tiles, split blocks.
#[test]
fn fused_attention_over_head_major_caches() {
    let g = graph_head_major(SMOLLM);
    let a = webnn_core::fusion::attentions(&g);
    assert!(a.len() == 1 && a[0].layout == webnn_core::fusion::CacheLayout::HeadMajor);
    assert!(kernel_at(&g, SMOLLM, 1, 40).starts_with("Attention "));
    assert!(kernel_on(&g, SMOLLM, 6, 40, true).starts_with("AttentionTiled"));
    assert!(kernel_at(&g, SMOLLM, 6, 40).starts_with("Attention "));
    assert!(kernel_at(&g, SMOLLM, 1, 300).starts_with("AttentionSplit"));
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone().tuned_for_gpu(), backend] {
        check_against_cpu(&g, SMOLLM, &backend, &CASES);
    }
}

/// Token-major q and output: no transpose kernel, on every attention kernel.
#[test]
fn fused_attention_reads_and_writes_the_projections_layout() {
    for sh in [SMOLLM, Shape { heads: 1, group: 5, hd: 32 }] {
        let g = graph_tokens(sh);
        let a = webnn_core::fusion::attentions(&g);
        let layout = webnn_core::fusion::token_layout(&g, &a[0]);
        assert!(layout.query.is_some() && layout.output.is_some(), "{layout:?}");
        let lowered = webnn_wgpu::lower_graph(&g.resolved(&Default::default())).unwrap();
        let kernels: Vec<String> = lowered
            .iter()
            .filter_map(|l| match l {
                webnn_wgpu::lower::Lowering::Kernels(c) if !c.is_empty() => Some(c[0].key.label()),
                _ => None,
            })
            .collect();
        assert!(kernels.len() == 1 && kernels[0].starts_with("Attention"), "{kernels:?}");
        let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
        for backend in [backend.clone().tuned_for_gpu(), backend] {
            check_against_cpu(&g, sh, &backend, &CASES);
        }
    }
}

fn host(t: DataType, shape: &[u32], bytes: Vec<u8>) -> HostTensor {
    HostTensor { desc: OperandDescriptor::new(t, shape), bytes }
}

fn floats(rng: &mut Rng, n: u32) -> Vec<u8> {
    rng.fill(n as usize, -2.0, 2.0).iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A cache's shape at `total` rows: token-major, or head-major (`graph_head_major`).
fn cache_shape(cache: &OperandDescriptor, sh: Shape, total: u32) -> Vec<u32> {
    if cache.rank() == 4 {
        vec![1, sh.heads, total, sh.hd]
    } else {
        vec![total, sh.heads * sh.hd]
    }
}

/// The attention kernel at these sizes, as lowered for a GPU.
fn kernel_at(g: &Graph, sh: Shape, seq: u32, total: u32) -> String {
    kernel_on(g, sh, seq, total, false)
}

/// The attention kernel at these sizes, as lowered for a GPU or a CPU adapter.
fn kernel_on(g: &Graph, sh: Shape, seq: u32, total: u32, cpu_adapter: bool) -> String {
    let mut dims = webnn_core::DimBindings::default();
    for (name, o) in &g.inputs {
        let shape = match name.as_str() {
            "q" => vec![sh.heads, sh.group, seq, sh.hd],
            "mask" => vec![seq, total],
            _ => cache_shape(g.desc(*o), sh, total),
        };
        dims.bind(name, g.desc(*o), &shape).unwrap();
    }
    let resolved = g.resolved(&dims);
    let patterns = webnn_wgpu::patterns::Patterns::find(&resolved);
    let lowered = webnn_wgpu::exec::lower_graph_with(&resolved, &patterns, cpu_adapter).unwrap();
    lowered
        .iter()
        .find_map(|l| match l {
            webnn_wgpu::lower::Lowering::Kernels(c) => c.first().map(|k| k.key.label()).filter(|l| l.starts_with("Attention")),
            _ => None,
        })
        .expect("an attention kernel")
}

#[test]
fn fused_attention_matches_the_ops_one_by_one() {
    let g = graph(SMOLLM);
    assert_eq!(webnn_core::fusion::attentions(&g).len(), 1);
    assert!(kernel_at(&g, SMOLLM, 1, 40).starts_with("Attention "), "decode: a workgroup per query and quad");
    assert!(kernel_on(&g, SMOLLM, 6, 40, true).starts_with("AttentionTiled"), "18 query rows per head: tiles");
    // A GPU gets the per-query kernel for prompts too short to fill it with tiles (GPU_TILES).
    assert!(kernel_at(&g, SMOLLM, 6, 40).starts_with("Attention "), "6 queries on a GPU: a workgroup each");
    assert!(kernel_at(&g, SMOLLM, 1, 300).starts_with("AttentionSplit"), "a decode step over 300 keys: split");
    assert!(kernel_at(&g, SMOLLM, 1, 200).starts_with("AttentionSplit"), "200 keys on a GPU: two blocks of 128");
    assert!(kernel_at(&g, SMOLLM, 1, 130).starts_with("Attention "), "130 keys: one block of 256 (two of 128 would not fit their partials)");
    assert!(kernel_on(&g, SMOLLM, 1, 300, true).starts_with("Attention "), "300 keys on a CPU adapter: one block of 512");
    // As tuned for a GPU (decode steps split along the keys in blocks of 128) and for a CPU
    // adapter (blocks of 512, q read through a uniform binding).
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone().tuned_for_gpu(), backend] {
        check_against_cpu(&g, SMOLLM, &backend, &CASES);
    }
}

/// Float16 caches, read through the storage decoders (packed words, or native f16 loads where
/// the adapter has them), on every kernel: rows, tiles, split blocks.
#[test]
fn fused_attention_over_float16_caches() {
    let g = graph_of(SMOLLM, DataType::Float16);
    assert_eq!(webnn_core::fusion::attentions(&g).len(), 1);
    assert!(kernel_at(&g, SMOLLM, 1, 40).starts_with("Attention "));
    assert!(kernel_on(&g, SMOLLM, 6, 40, true).starts_with("AttentionTiled"));
    assert!(kernel_at(&g, SMOLLM, 6, 40).starts_with("Attention "));
    assert!(kernel_at(&g, SMOLLM, 1, 300).starts_with("AttentionSplit"));
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone().tuned_for_gpu(), backend] {
        check_against_cpu(&g, SMOLLM, &backend, &CASES);
    }
}

/// Other groupings: five query heads per kv head (a second, partial quad), one (no sharing),
/// and head dims of 32, 128 (two dimensions per lane) and 256 (four; prompts too).
#[test]
fn fused_attention_over_other_groupings_and_head_dims() {
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    let shapes = [Shape { heads: 1, group: 5, hd: 32 }, Shape { heads: 2, group: 1, hd: 128 }, Shape { heads: 1, group: 2, hd: 256 }];
    for sh in shapes {
        let g = graph(sh);
        assert_eq!(webnn_core::fusion::attentions(&g).len(), 1);
        assert!(kernel_at(&g, sh, 1, 40).starts_with("Attention "));
        // A block's partials (head_dim + 2 floats per block of 128 or 256 keys) fit in the
        // scores' buffer only for head dims under 254.
        let split = if sh.hd < 254 { "AttentionSplit" } else { "Attention " };
        assert!(kernel_at(&g, sh, 1, 600).starts_with(split));
        for backend in [backend.clone().tuned_for_gpu(), backend.clone()] {
            check_against_cpu(&g, sh, &backend, &[(1, 40), (3, 7), (1, 600), (2, 513), (12, 300)]);
        }
    }
}

/// (seq, total): one row and several on the row kernel, one to three 256-key chunks or
/// split blocks over 200 to 600 keys; partial tiles (18, 30 rows per head) and blocks (total
/// not a multiple of 16), one key, and the bounds on the tiled one.
const CASES: [(u32, u32); 12] = [(1, 40), (2, 7), (1, 300), (2, 300), (1, 257), (1, 600), (1, 200), (6, 40), (10, 1), (10, 300), (24, 600), (16, 16)];

fn check_against_cpu(g: &Graph, sh: Shape, backend: &webnn_wgpu::WgpuBackend, cases: &[(u32, u32)]) {
    let mut gpu = backend.compile_graph(g).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(g).unwrap();
    let mut rng = Rng::new(9);
    let (heads, group, hd) = (sh.heads, sh.group, sh.hd);
    for &(seq, total) in cases {
        // Causal: query i sees keys up to total - seq + i; with 10 or more queries the first
        // sees none (a fully masked row: uniform weights over every key, as softmax gives);
        // with 2 queries over 300 or more keys the first sees none of the first block's.
        let mask: Vec<u8> = (0..seq)
            .flat_map(|i| {
                (0..total).map(move |j| {
                    let hidden = (seq >= 10 && i == 0) || (seq == 2 && total >= 300 && i == 0 && j < 260);
                    u8::from(j + seq <= total + i && !hidden)
                })
            })
            .collect();
        // The caches in the graph's type: float16 values rounded from the same draws.
        let keys = g.desc(g.inputs.iter().find(|(n, _)| n == "keys").unwrap().1);
        let cache = keys.data_type;
        let cache_shape = cache_shape(keys, sh, total);
        let rows = |rng: &mut Rng| {
            let bytes = floats(rng, total * heads * hd);
            let bytes = match cache {
                DataType::Float32 => bytes,
                _ => bytes.chunks_exact(4).flat_map(|c| half::f16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_le_bytes()).collect(),
            };
            host(cache, &cache_shape, bytes)
        };
        // q head-major, or token-major (`graph_tokens`).
        let q_rank = g.desc(g.inputs.iter().find(|(n, _)| n == "q").unwrap().1).rank();
        let q_shape = if q_rank == 2 { vec![seq, heads * group * hd] } else { vec![heads, group, seq, hd] };
        let inputs = [
            ("q", host(DataType::Float32, &q_shape, floats(&mut rng, heads * group * seq * hd))),
            ("keys", rows(&mut rng)),
            ("values", rows(&mut rng)),
            ("mask", host(DataType::Uint8, &[seq, total], mask)),
        ];
        let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
        let got = webnn_core::Executable::dispatch(&mut gpu, &named).unwrap();
        let want = cpu.dispatch(&named).unwrap();
        let f = |t: &HostTensor| -> Vec<f32> { t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect() };
        let (got, want) = (f(&got[0].1), f(&want[0].1));
        assert_eq!(got.len(), want.len());
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0) * 16.0, "{heads}x{group}x{hd}: seq {seq} total {total} [{i}]: {a} vs {b}");
        }
    }
}
