//! Dynamic (flexible) graphs on the fast backend: a decoder-shaped graph (quantized linear
//! layers whose rows are the token count, a cache updated in place by scatterND and read
//! through a leading-rows slice) at several sizes, through `dispatch` and through
//! `dispatch_in_place`, against the reference interpreter.

use webnn_core::ops::{OpOptions, SliceOptions};
use webnn_core::{Backend, DataType, Dim, Graph, GraphBuilder, HostTensor, InPlace, OperandDescriptor};
use webnn_cpu::CpuBackend;
use webnn_fast::FastBackend;
use webnn_models::{attention, AttentionShape, QuantizedLinear, Rng};

const K: u32 = 64;
const ROWS: u32 = 12;

/// `y = linear(x)`; `cache_out = scatterND(cache, positions, y)`; `s = sum of the cache's first
/// `total` rows` (through `slice`), and a second linear layer on x with a residual add.
/// `leading: false` slices from row 1, which the in-place step does not take.
fn decoder(leading: bool) -> Graph {
    decoder_of(leading, DataType::Float32)
}

/// `decoder` with a cache of `cache`'s type: float16 rows are `cast`s of y, read back through
/// a cast to float32.
fn decoder_of(leading: bool, cache_type: DataType) -> Graph {
    let mut b = GraphBuilder::new();
    let mut rng = Rng::new(7);
    let none = OpOptions::default;
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 5 };
    let total = Dim::Dynamic { name: "total".into(), max_size: ROWS - 1 };
    let x = b.input("x", OperandDescriptor::with_dims(DataType::Float32, vec![seq.clone(), K.into()])).unwrap();
    let pos = b.input("positions", OperandDescriptor::with_dims(DataType::Int32, vec![seq.clone(), 1.into()])).unwrap();
    let mark = b.input("mark", OperandDescriptor::with_dims(DataType::Float32, vec![total.clone()])).unwrap();
    let cache = b.input("cache", OperandDescriptor::new(cache_type, &[ROWS, K])).unwrap();
    let layer = |weight, offset| QuantizedLinear { weight, n: K, k: K, block: 32, offset, zero_points: true };
    let y = layer(DataType::Uint4, true).build(&mut b, x, &mut rng).unwrap();
    let z = layer(DataType::Int8, false).build(&mut b, x, &mut rng).unwrap();
    let z = b.add(z, x, none()).unwrap();
    let half = cache_type == DataType::Float16;
    let y = if half { b.cast(y, cache_type, none()).unwrap() } else { y };
    let updated = b.scatter_nd(cache, pos, y, none()).unwrap();
    let start = u32::from(!leading);
    let rows = b.slice_dims(updated, vec![start, 0], vec![total, K.into()], SliceOptions::default()).unwrap();
    let rows = if half { b.cast(rows, DataType::Float32, none()).unwrap() } else { rows };
    let mark = b.reshape(mark, vec![Dim::Dynamic { name: "total".into(), max_size: ROWS - 1 }, 1.into()], none()).unwrap();
    let rows = b.mul(rows, mark, none()).unwrap();
    let s = b.reduce_sum(rows, webnn_core::ops::ReduceOptions { axes: Some(vec![0]), ..Default::default() }).unwrap();
    b.build(&[("sum", s), ("z", z), ("cache_out", updated)]).unwrap()
}

fn host(data_type: DataType, shape: &[u32], bytes: Vec<u8>) -> HostTensor {
    HostTensor { desc: OperandDescriptor::new(data_type, shape), bytes }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One step's inputs: `seq` new rows at positions `past..`, reading `past + seq` rows
/// (`total`, one fewer when the slice starts at row 1).
fn step(rng: &mut Rng, past: u32, seq: u32, total: u32) -> Vec<(&'static str, HostTensor)> {
    let positions: Vec<u8> = (past..past + seq).flat_map(|p| (p as i32).to_le_bytes()).collect();
    vec![
        ("x", host(DataType::Float32, &[seq, K], f32s(&rng.fill((seq * K) as usize, -1.0, 1.0)))),
        ("positions", host(DataType::Int32, &[seq, 1], positions)),
        ("mark", host(DataType::Float32, &[total], f32s(&rng.fill(total as usize, 0.5, 1.5)))),
    ]
}

fn close(a: &HostTensor, b: &HostTensor, what: &str) {
    assert_eq!(a.desc, b.desc, "{what}");
    let (a, b) = (floats(a), floats(b));
    // With AVX2 (and not AVX-512) the one- and two-row quantized products round x to 16 bits
    // per four values (webnn-fast's rows16.rs), 2^-16 of the largest, which the sums'
    // cancellation amplifies: up to 3.7e-4 of these outputs. Float kernels stay within 1e-4.
    let tolerance = if webnn_gemm::Isa::detect() == webnn_gemm::Isa::Avx2Fma { 1e-3 } else { 1e-4 };
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!((x - y).abs() <= tolerance * (1.0 + y.abs()), "{what}[{i}]: {x} vs {y}");
    }
}

fn floats(t: &HostTensor) -> Vec<f32> {
    match t.desc.data_type {
        DataType::Float16 => t.bytes.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect(),
        _ => t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
    }
}

/// Prefill of 5 rows, then 4 decode steps and a chunk of 2, on both backends; the fast one
/// through `dispatch_in_place` (the cache's bytes updated where they lie) or `dispatch`.
fn run(leading: bool, in_place: bool) {
    run_of(leading, in_place, DataType::Float32);
}

fn run_of(leading: bool, in_place: bool, cache_type: DataType) {
    let g = decoder_of(leading, cache_type);
    let mut reference = CpuBackend.compile(&g).unwrap();
    let mut fast = FastBackend::new(2).compile(&g).unwrap();
    let size = cache_type.byte_length(1).unwrap() as u32;
    let mut cache_ref = host(cache_type, &[ROWS, K], vec![0; (ROWS * K * size) as usize]);
    let mut cache_fast = cache_ref.clone();
    let mut rng = Rng::new(11);
    let mut past = 0;
    for seq in [5, 1, 1, 1, 1, 2] {
        let total = past + seq - u32::from(!leading);
        let inputs = step(&mut rng, past, seq, total);
        let mut named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
        named.push(("cache", &cache_ref));
        let want = reference.dispatch(&named).unwrap();
        let mut named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
        let got = if in_place {
            let mut inout = [InPlace { input: "cache", output: "cache_out", tensor: &mut cache_fast }];
            let got = fast.dispatch_in_place(&named, &mut inout).unwrap();
            assert!(got.iter().all(|(n, _)| n != "cache_out"), "the cache is not returned");
            got
        } else {
            named.push(("cache", &cache_fast));
            let mut got = fast.dispatch(&named).unwrap();
            let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["sum", "z", "cache_out"], "outputs in graph order");
            cache_fast = got.pop().unwrap().1;
            got
        };
        for ((name, w), (n, g)) in want.iter().zip(&got) {
            assert_eq!(name, n);
            close(g, w, &format!("{name} at past {past}, seq {seq}"));
        }
        cache_ref = want.into_iter().find(|(n, _)| n == "cache_out").unwrap().1;
        close(&cache_fast, &cache_ref, &format!("cache at past {past}"));
        past += seq;
    }
}

#[test]
fn decoder_in_place_matches_reference() {
    run(true, true);
}

#[test]
fn decoder_through_dispatch_matches_reference() {
    run(true, false);
}

/// Float16 caches: the cast that narrows the rows is absorbed by the cache write, which rounds
/// them as the cast does (both backends hold the same bits but for rows whose float32 values
/// differ across a rounding boundary).
#[test]
fn float16_cache_matches_reference() {
    run_of(true, true, DataType::Float16);
    run_of(true, false, DataType::Float16);
    let g = decoder_of(true, DataType::Float16);
    let (fast_steps, _) = FastBackend::new(1).compile_graph(&g).unwrap().step_counts();
    let (f32_steps, _) = FastBackend::new(1).compile_graph(&decoder(true)).unwrap().step_counts();
    assert_eq!(fast_steps, f32_steps, "the float16 cache write is a fast step too");
}

/// A slice that does not start at row 0 keeps the reference scatter (and still updates the
/// cache through the in-place call).
#[test]
fn other_slices_stay_unfused_and_match() {
    run(false, true);
    run(false, false);
}

/// What the plan runs fast: both quantized products and the cache write.
#[test]
fn decoder_plan_has_fast_steps() {
    let g = decoder(true);
    let fast = FastBackend::new(1).compile_graph(&g).unwrap();
    let (fast_steps, reference) = fast.step_counts();
    assert!(fast_steps >= 3, "{fast_steps} fast, {reference} reference steps");
    let unfused = FastBackend::new(1).compile_graph(&decoder(false)).unwrap();
    assert_eq!(unfused.step_counts().0, fast_steps - 1, "the cache write is planned only for leading slices");
}

/// Sizes outside the bounds are TypeErrors naming the input, and a wrong-sized cache too.
#[test]
fn bad_sizes_are_type_errors() {
    let g = decoder(true);
    let mut fast = FastBackend::new(1).compile(&g).unwrap();
    let mut rng = Rng::new(3);
    let inputs = step(&mut rng, 0, 6, 6);
    let mut cache = host(DataType::Float32, &[ROWS, K], vec![0; (ROWS * K * 4) as usize]);
    let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
    let mut inout = [InPlace { input: "cache", output: "cache_out", tensor: &mut cache }];
    let e = fast.dispatch_in_place(&named, &mut inout).unwrap_err();
    assert_eq!(e.kind, webnn_core::ErrorKind::TypeError, "{e}");
    let inputs = step(&mut rng, 0, 2, 2);
    let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
    let mut small = host(DataType::Float32, &[ROWS - 1, K], vec![0; ((ROWS - 1) * K * 4) as usize]);
    let mut inout = [InPlace { input: "cache", output: "cache_out", tensor: &mut small }];
    let e = fast.dispatch_in_place(&named, &mut inout).unwrap_err();
    assert_eq!(e.kind, webnn_core::ErrorKind::TypeError, "{e}");
}

/// Grouped-query attention over `total` cached rows (the pattern `fusion::attentions` finds),
/// across the 256-key blocks the step splits into, with a causal-style mask, against the
/// reference; the match runs as one fast step.
/// Head sizes (kv heads, group, head_dim): the x86 kernels score keys eight at a time for
/// head dims of 8 to 64 and weigh values 32 dimensions at a time for groups of up to three
/// (SmolLM2's 3x3x64); 16 dims, 5 query heads per kv head and 40 dims take the portable loops
/// for the values, 40 for the scores too.
const ATTENTION_SHAPES: [(u32, u32, u32); 4] = [(2, 3, 16), (3, 3, 64), (1, 5, 32), (1, 2, 40)];

#[test]
fn attention_matches_reference_across_key_blocks() {
    for (heads, group, hd) in ATTENTION_SHAPES {
        attention_case(DataType::Float32, heads, group, hd);
    }
}

/// The same over float16 caches, widened by casts the match absorbs.
#[test]
fn attention_over_float16_caches_matches_reference() {
    for (heads, group, hd) in ATTENTION_SHAPES {
        attention_case(DataType::Float16, heads, group, hd);
    }
}

fn attention_case(cache_type: DataType, heads: u32, group: u32, hd: u32) {
    let seq = 2u32;
    let total = Dim::Dynamic { name: "total".into(), max_size: 800 };
    let mut b = GraphBuilder::new();
    let f = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, shape);
    let q = b.input("q", f(vec![heads.into(), group.into(), seq.into(), hd.into()])).unwrap();
    let cache = OperandDescriptor::with_dims(cache_type, vec![total.clone(), (heads * hd).into()]);
    let keys = b.input("keys", cache.clone()).unwrap();
    let values = b.input("values", cache).unwrap();
    let (keys, values) = match cache_type {
        DataType::Float32 => (keys, values),
        _ => (b.cast(keys, DataType::Float32, OpOptions::default()).unwrap(), b.cast(values, DataType::Float32, OpOptions::default()).unwrap()),
    };
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq.into(), total.clone()])).unwrap();
    let shape = AttentionShape { kv_heads: heads, head_dim: hd, total, scale: 1.0 / (hd as f64).sqrt(), masked: -1e30 };
    let y = attention(&mut b, &shape, q, keys, values, mask).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    assert_eq!(webnn_core::fusion::attentions(&g).len(), 1);
    let fast_graph = FastBackend::new(2).compile_graph(&g).unwrap();
    assert_eq!(fast_graph.step_counts(), (1, 0), "the whole pattern is one fast step");
    let mut reference = CpuBackend.compile(&g).unwrap();
    let mut fast = FastBackend::new(2).compile(&g).unwrap();
    let mut rng = Rng::new(5);
    for t in [5u32, 256, 300, 700] {
        let rows = |rng: &mut Rng| {
            let v = rng.fill((t * heads * hd) as usize, -2.0, 2.0);
            match cache_type {
                DataType::Float32 => host(cache_type, &[t, heads * hd], f32s(&v)),
                _ => host(cache_type, &[t, heads * hd], v.iter().flat_map(|&x| half::f16::from_f32(x).to_le_bytes()).collect()),
            }
        };
        // Row i sees keys up to t - seq + i; the first row of a 700-key step sees none past 650.
        let mask: Vec<u8> = (0..seq).flat_map(|i| (0..t).map(move |j| u8::from(j + seq <= t + i && (t < 700 || j < 650)))).collect();
        let inputs = [
            ("q", host(DataType::Float32, &[heads, group, seq, hd], f32s(&rng.fill((heads * group * seq * hd) as usize, -2.0, 2.0)))),
            ("keys", rows(&mut rng)),
            ("values", rows(&mut rng)),
            ("mask", host(DataType::Uint8, &[seq, t], mask)),
        ];
        let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
        let want = reference.dispatch(&named).unwrap();
        let got = fast.dispatch(&named).unwrap();
        close(&got[0].1, &want[0].1, &format!("attention {heads}x{group}x{hd} over {t} keys"));
    }
}

/// RMSNorm and rotary embedding as a framework writes them (webnn-llm's decoder), each run
/// as one fast step over a dynamic number of rows, against the reference.
#[test]
fn rms_norm_and_rope_match_reference() {
    use webnn_core::ops::{MLNumber, ReduceOptions};
    let (heads, pairs, dim) = (3u32, 4u32, 24u32);
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 40 };
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let f = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, shape);
    let x = b.input("x", f(vec![seq.clone(), dim.into()])).unwrap();
    let cos = b.input("cos", f(vec![seq.clone(), 1.into(), pairs.into(), 1.into()])).unwrap();
    let sin = b.input("sin", f(vec![seq.clone(), 1.into(), pairs.into(), 1.into()])).unwrap();
    let mut rng = Rng::new(8);
    let w = b.constant(OperandDescriptor::new(DataType::Float32, &[dim]), f32s(&rng.fill(dim as usize, 0.5, 1.5))).unwrap();
    let two = b.constant_scalar(DataType::Float32, MLNumber::Double(2.0)).unwrap();
    let eps = b.constant_scalar(DataType::Float32, MLNumber::Double(1e-5)).unwrap();
    let sq = b.pow(x, two, none()).unwrap();
    let mean = b.reduce_mean(sq, ReduceOptions { axes: Some(vec![1]), keep_dimensions: true, ..Default::default() }).unwrap();
    let var = b.add(mean, eps, none()).unwrap();
    let rms = b.sqrt(var, none()).unwrap();
    let scaled = b.div(x, rms, none()).unwrap();
    let normed = b.mul(scaled, w, none()).unwrap();
    let r = b.reshape(normed, vec![seq.clone(), heads.into(), pairs.into(), 2.into()], none()).unwrap();
    let part = |b: &mut GraphBuilder, k: u32| b.slice_dims(r, vec![0, 0, 0, k], vec![seq.clone(), heads.into(), pairs.into(), 1.into()], SliceOptions::default()).unwrap();
    let (even, odd) = (part(&mut b, 0), part(&mut b, 1));
    let (ec, os) = (b.mul(even, cos, none()).unwrap(), b.mul(odd, sin, none()).unwrap());
    let (es, oc) = (b.mul(even, sin, none()).unwrap(), b.mul(odd, cos, none()).unwrap());
    let first = b.sub(ec, os, none()).unwrap();
    let second = b.add(es, oc, none()).unwrap();
    let y = b.concat(&[first, second], 3, none()).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    assert_eq!((webnn_core::fusion::rms_norms(&g).len(), webnn_core::fusion::ropes(&g).len()), (1, 1));
    // The norm, the reshape (a reference view) and the rotation.
    assert_eq!(FastBackend::new(1).compile_graph(&g).unwrap().step_counts(), (2, 1));
    let mut reference = CpuBackend.compile(&g).unwrap();
    let mut fast = FastBackend::new(2).compile(&g).unwrap();
    for s in [1u32, 7, 40] {
        let t = |rng: &mut Rng, shape: &[u32], lo, hi| host(DataType::Float32, shape, f32s(&rng.fill(shape.iter().product::<u32>() as usize, lo, hi)));
        let inputs = [
            ("x", t(&mut rng, &[s, dim], -3.0, 3.0)),
            ("cos", t(&mut rng, &[s, 1, pairs, 1], -1.0, 1.0)),
            ("sin", t(&mut rng, &[s, 1, pairs, 1], -1.0, 1.0)),
        ];
        let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
        close(&fast.dispatch(&named).unwrap()[0].1, &reference.dispatch(&named).unwrap()[0].1, &format!("{s} rows"));
    }
}

/// A decoder layer's attention over key and value caches written in place: scatterND of the
/// new rows, a slice of the leading `total` rows, the attention pattern. The attention step
/// reads the caches' bytes where they lie (the cache writes decode no rows), through
/// `dispatch_in_place` and through `dispatch`, against the reference over a prefill and
/// decode steps.
#[test]
fn attention_reads_caches_written_in_place() {
    attention_in_place(DataType::Float32);
}

/// The same with float16 caches: the new rows narrowed by casts the cache writes absorb, the
/// cached rows widened by casts the attention step absorbs (it reads the float16 bytes).
#[test]
fn attention_reads_float16_caches_written_in_place() {
    attention_in_place(DataType::Float16);
}

fn attention_in_place(cache_type: DataType) {
    let (heads, group, hd, rows) = (2u32, 3u32, 8u32, 16u32);
    let width = heads * hd;
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 5 };
    let total = Dim::Dynamic { name: "total".into(), max_size: rows };
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let f = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, shape);
    let q = b.input("q", f(vec![heads.into(), group.into(), seq.clone(), hd.into()])).unwrap();
    let pos = b.input("positions", OperandDescriptor::with_dims(DataType::Int32, vec![seq.clone(), 1.into()])).unwrap();
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq.clone(), total.clone()])).unwrap();
    let mut caches = Vec::new();
    for name in ["k", "v"] {
        let new = b.input(&format!("{name}_new"), f(vec![seq.clone(), width.into()])).unwrap();
        let cache = b.input(name, OperandDescriptor::new(cache_type, &[rows, width])).unwrap();
        let half = cache_type == DataType::Float16;
        let new = if half { b.cast(new, cache_type, none()).unwrap() } else { new };
        let updated = b.scatter_nd(cache, pos, new, none()).unwrap();
        let lead = b.slice_dims(updated, vec![0, 0], vec![total.clone(), width.into()], SliceOptions::default()).unwrap();
        let lead = if half { b.cast(lead, DataType::Float32, none()).unwrap() } else { lead };
        caches.push((updated, lead));
    }
    let shape = AttentionShape { kv_heads: heads, head_dim: hd, total, scale: 0.35, masked: -1e30 };
    let y = attention(&mut b, &shape, q, caches[0].1, caches[1].1, mask).unwrap();
    let g = b.build(&[("y", y), ("k_out", caches[0].0), ("v_out", caches[1].0)]).unwrap();
    let steps = FastBackend::new(2).compile_graph(&g).unwrap().step_descriptions();
    assert_eq!(steps.iter().filter(|s| s.ends_with("its rows read in place")).count(), 2, "{steps:?}");
    assert!(steps.iter().any(|s| s.starts_with("attention")), "{steps:?}");
    for in_place in [true, false] {
        let mut reference = CpuBackend.compile(&g).unwrap();
        let mut fast = FastBackend::new(2).compile(&g).unwrap();
        let size = cache_type.byte_length(1).unwrap() as u32;
        let empty = host(cache_type, &[rows, width], vec![0; (rows * width * size) as usize]);
        let (mut k_ref, mut v_ref) = (empty.clone(), empty.clone());
        let (mut k_fast, mut v_fast) = (empty.clone(), empty);
        let mut rng = Rng::new(21);
        let mut past = 0;
        for s in [5u32, 1, 1, 2, 1] {
            let t = past + s;
            let positions: Vec<u8> = (past..t).flat_map(|p| (p as i32).to_le_bytes()).collect();
            // Query i sees the keys up to its own position.
            let mask: Vec<u8> = (0..s).flat_map(|i| (0..t).map(move |j| u8::from(j <= past + i))).collect();
            let inputs = [
                ("q", host(DataType::Float32, &[heads, group, s, hd], f32s(&rng.fill((heads * group * s * hd) as usize, -1.0, 1.0)))),
                ("positions", host(DataType::Int32, &[s, 1], positions)),
                ("mask", host(DataType::Uint8, &[s, t], mask)),
                ("k_new", host(DataType::Float32, &[s, width], f32s(&rng.fill((s * width) as usize, -1.0, 1.0)))),
                ("v_new", host(DataType::Float32, &[s, width], f32s(&rng.fill((s * width) as usize, -1.0, 1.0)))),
            ];
            let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
            let mut with_ref = named.clone();
            with_ref.extend([("k", &k_ref), ("v", &v_ref)]);
            let want = reference.dispatch(&with_ref).unwrap();
            let got = if in_place {
                let mut inout = [
                    InPlace { input: "k", output: "k_out", tensor: &mut k_fast },
                    InPlace { input: "v", output: "v_out", tensor: &mut v_fast },
                ];
                fast.dispatch_in_place(&named, &mut inout).unwrap()
            } else {
                let mut with_fast = named.clone();
                with_fast.extend([("k", &k_fast), ("v", &v_fast)]);
                let got = fast.dispatch(&with_fast).unwrap();
                (k_fast, v_fast) = (got[1].1.clone(), got[2].1.clone());
                got
            };
            close(&got[0].1, &want[0].1, &format!("y at past {past} (in place: {in_place})"));
            (k_ref, v_ref) = (want[1].1.clone(), want[2].1.clone());
            close(&k_fast, &k_ref, "keys");
            close(&v_fast, &v_ref, "values");
            past = t;
        }
    }
}
