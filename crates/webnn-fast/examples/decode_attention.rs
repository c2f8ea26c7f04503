//! The fused attention step alone, as SmolLM2-135M decodes: 30 layers of key/value caches
//! (3 kv heads of 64, 3 query heads each) written in place, one query row over `--context`
//! keys (default 1,024), float32 against float16 caches in alternating runs of one process
//! (the machine's drifting load falls on both). Prints each one's median time per step, the
//! cache bytes a step reads, and the rate.
//!
//!     cargo run --release -p webnn-fast --example decode_attention -- [--context N] [--runs N] [--threads N]

use std::time::Instant;
use webnn_core::ops::{OpOptions, SliceOptions};
use webnn_core::{Backend, DataType, Dim, GraphBuilder, HostTensor, InPlace, OperandDescriptor};
use webnn_models::{attention, AttentionShape, Rng};

const LAYERS: usize = 30;
const HEADS: u32 = 3;
const GROUP: u32 = 3;
const HD: u32 = 64;

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(default)
}

/// The graph: per layer, scatterND of the new row into each cache, the leading `total` rows
/// (widened by a cast from float16), attention.
fn graph(cache: DataType, rows: u32) -> webnn_core::Result<webnn_core::Graph> {
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let width = HEADS * HD;
    let total = Dim::Dynamic { name: "total".into(), max_size: rows };
    let f = |shape: &[u32]| OperandDescriptor::new(DataType::Float32, shape);
    let q = b.input("q", f(&[HEADS, GROUP, 1, HD]))?;
    let new = b.input("new", f(&[1, width]))?;
    let pos = b.input("positions", OperandDescriptor::new(DataType::Int32, &[1, 1]))?;
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![1.into(), total.clone()]))?;
    let mut outputs = Vec::new();
    for l in 0..LAYERS {
        let mut lead = Vec::new();
        for kind in ["k", "v"] {
            let c = b.input(&format!("{kind}{l}"), OperandDescriptor::new(cache, &[rows, width]))?;
            // Each cache write narrows its own row (the step absorbs a cast read only there).
            let row = if cache == DataType::Float16 { b.cast(new, cache, none())? } else { new };
            let updated = b.scatter_nd(c, pos, row, none())?;
            let x = b.slice_dims(updated, vec![0, 0], vec![total.clone(), width.into()], SliceOptions::default())?;
            lead.push(if cache == DataType::Float16 { b.cast(x, DataType::Float32, none())? } else { x });
            outputs.push((format!("{kind}{l}_out"), updated));
        }
        let shape = AttentionShape { kv_heads: HEADS, head_dim: HD, total: total.clone(), scale: 0.125, masked: -1e30 };
        outputs.push((format!("y{l}"), attention(&mut b, &shape, q, lead[0], lead[1], mask)?));
    }
    let named: Vec<(&str, webnn_core::Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    b.build(&named)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let context = arg(&args, "--context", 1024) as u32;
    let runs = arg(&args, "--runs", 30).max(1);
    let threads = arg(&args, "--threads", 1);
    let rows = context + 16;
    let mut rng = Rng::new(3);
    let host = |t: DataType, shape: &[u32], bytes: Vec<u8>| HostTensor { desc: OperandDescriptor::new(t, shape), bytes };
    let f32s = |v: Vec<f32>| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let inputs = [
        ("q", host(DataType::Float32, &[HEADS, GROUP, 1, HD], f32s(rng.fill((HEADS * GROUP * HD) as usize, -1.0, 1.0)))),
        ("new", host(DataType::Float32, &[1, HEADS * HD], f32s(rng.fill((HEADS * HD) as usize, -1.0, 1.0)))),
        ("positions", host(DataType::Int32, &[1, 1], (context as i32 - 1).to_le_bytes().to_vec())),
        ("mask", host(DataType::Uint8, &[1, context], vec![1; context as usize])),
    ];
    let named: Vec<(&str, &HostTensor)> = inputs.iter().map(|(n, t)| (*n, t)).collect();
    let kinds = [DataType::Float32, DataType::Float16];
    let mut sides = Vec::new();
    for cache in kinds {
        let g = graph(cache, rows)?;
        let steps = webnn_fast::FastBackend::new(threads).compile_graph(&g)?.step_descriptions();
        let fused = steps.iter().filter(|s| s.starts_with("attention") || s.ends_with("read in place")).count();
        if fused != 3 * LAYERS {
            return Err(format!("{cache:?}: {fused} of {} steps are attention and in-place cache writes: {steps:?}", 3 * LAYERS).into());
        }
        let exe = webnn_fast::FastBackend::new(threads).compile(&g)?;
        // Caches of random values in the cache's type.
        let size = cache.byte_length(1).unwrap_or(4) as usize;
        let len = (rows * HEADS * HD) as usize;
        let mut tensors = Vec::new();
        for l in 0..LAYERS {
            for kind in ["k", "v"] {
                let v = rng.fill(len, -1.0, 1.0);
                let bytes: Vec<u8> = match size {
                    2 => v.iter().flat_map(|x| half::f16::from_f32(*x).to_le_bytes()).collect(),
                    _ => f32s(v),
                };
                tensors.push((format!("{kind}{l}"), format!("{kind}{l}_out"), host(cache, &[rows, HEADS * HD], bytes)));
            }
        }
        sides.push((cache, exe, tensors, Vec::new()));
    }
    for _ in 0..runs {
        for (_, exe, tensors, times) in sides.iter_mut() {
            let mut inout: Vec<InPlace> =
                tensors.iter_mut().map(|(i, o, t)| InPlace { input: i.as_str(), output: o.as_str(), tensor: t }).collect();
            let t = Instant::now();
            exe.dispatch_in_place(&named, &mut inout)?;
            times.push(t.elapsed().as_secs_f64());
        }
    }
    println!("attention of one query row over {context} keys, {LAYERS} layers, {threads} thread(s), median of {runs} alternating runs:");
    for (cache, _, _, times) in sides.iter_mut() {
        times.sort_by(f64::total_cmp);
        let ms = times[times.len() / 2] * 1e3;
        let bytes = 2.0 * LAYERS as f64 * (context * HEADS * HD) as f64 * cache.byte_length(1).unwrap_or(4) as f64;
        println!("  {cache:?} caches: {ms:.2} ms per step, {:.1} MB read, {:.1} GB/s", bytes / 1e6, bytes / ms / 1e6);
    }
    Ok(())
}
