//! The fused attention (`webnn_core::fusion::Attention`) against the cpu backend running the
//! same graph op by op: decode-sized steps on attention.wgsl (a workgroup per query row, or
//! split into 256-key blocks over long caches and merged by attention_merge.wgsl) and
//! prompt-sized ones on attention_tiled.wgsl (16-row tiles, 16-key blocks, online softmax),
//! with partial tiles and blocks, a causal mask and fully masked rows and blocks.

use webnn_core::{Backend, DataType, Dim, Graph, GraphBuilder, HostTensor, OperandDescriptor};
use webnn_models::{attention, AttentionShape, Rng};

const HEADS: u32 = 2;
const GROUP: u32 = 3;
const HD: u32 = 64;

fn graph() -> Graph {
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 24 };
    let total = Dim::Dynamic { name: "total".into(), max_size: 300 };
    let mut b = GraphBuilder::new();
    let f = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, shape);
    let q = b.input("q", f(vec![HEADS.into(), GROUP.into(), seq.clone(), HD.into()])).unwrap();
    let keys = b.input("keys", f(vec![total.clone(), (HEADS * HD).into()])).unwrap();
    let values = b.input("values", f(vec![total.clone(), (HEADS * HD).into()])).unwrap();
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq, total.clone()])).unwrap();
    let shape = AttentionShape { kv_heads: HEADS, head_dim: HD, total, scale: 0.125, masked: -1e30 };
    let y = attention(&mut b, &shape, q, keys, values, mask).unwrap();
    b.build(&[("y", y)]).unwrap()
}

fn host(t: DataType, shape: &[u32], bytes: Vec<u8>) -> HostTensor {
    HostTensor { desc: OperandDescriptor::new(t, shape), bytes }
}

fn floats(rng: &mut Rng, n: u32) -> Vec<u8> {
    rng.fill(n as usize, -2.0, 2.0).iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn kernel_at(g: &Graph, seq: u32, total: u32) -> String {
    let mut dims = webnn_core::DimBindings::default();
    for (name, o) in &g.inputs {
        let shape = match name.as_str() {
            "q" => vec![HEADS, GROUP, seq, HD],
            "mask" => vec![seq, total],
            _ => vec![total, HEADS * HD],
        };
        dims.bind(name, g.desc(*o), &shape).unwrap();
    }
    let lowered = webnn_wgpu::lower_graph(&g.resolved(&dims)).unwrap();
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
    let g = graph();
    assert_eq!(webnn_core::fusion::attentions(&g).len(), 1);
    assert!(kernel_at(&g, 1, 40).starts_with("Attention "), "decode: a workgroup per row");
    assert!(kernel_at(&g, 6, 40).starts_with("AttentionTiled"), "18 query rows per head: tiles");
    assert!(kernel_at(&g, 1, 300).starts_with("AttentionSplit"), "a decode step over 300 keys: split");
    // As tuned for a GPU (decode steps split along the keys) and for a CPU adapter (not).
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for backend in [backend.clone().tuned_for_gpu(), backend] {
        check_against_cpu(&g, &backend);
    }
}

fn check_against_cpu(g: &Graph, backend: &webnn_wgpu::WgpuBackend) {
    let mut gpu = backend.compile_graph(g).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(g).unwrap();
    let mut rng = Rng::new(9);
    // (seq, total): one row and several on the row kernel, split in two or three key blocks
    // over 257 to 300 keys; partial tiles (18, 30 rows per head) and blocks (total not a
    // multiple of 16), one key, and the bounds on the tiled one.
    let cases = [(1u32, 40u32), (2, 7), (1, 300), (2, 300), (1, 257), (6, 40), (10, 1), (10, 300), (24, 300), (16, 16)];
    for (seq, total) in cases {
        // Causal: query i sees keys up to total - seq + i; with 10 or more queries the first
        // sees none (a fully masked row: uniform weights over every key, as softmax gives);
        // with 2 queries over 300 keys the first sees none of the first block's.
        let mask: Vec<u8> = (0..seq)
            .flat_map(|i| {
                (0..total).map(move |j| {
                    let hidden = (seq >= 10 && i == 0) || (seq == 2 && total == 300 && i == 0 && j < 260);
                    u8::from(j + seq <= total + i && !hidden)
                })
            })
            .collect();
        let inputs = [
            ("q", host(DataType::Float32, &[HEADS, GROUP, seq, HD], floats(&mut rng, HEADS * GROUP * seq * HD))),
            ("keys", host(DataType::Float32, &[total, HEADS * HD], floats(&mut rng, total * HEADS * HD))),
            ("values", host(DataType::Float32, &[total, HEADS * HD], floats(&mut rng, total * HEADS * HD))),
            ("mask", host(DataType::Uint8, &[seq, total], mask)),
        ];
        let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
        let got = webnn_core::Executable::dispatch(&mut gpu, &named).unwrap();
        let want = cpu.dispatch(&named).unwrap();
        let f = |t: &HostTensor| -> Vec<f32> { t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect() };
        let (got, want) = (f(&got[0].1), f(&want[0].1));
        assert_eq!(got.len(), want.len());
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0) * 16.0, "seq {seq} total {total} [{i}]: {a} vs {b}");
        }
    }
}
