//! GPU time per kernel family of one SmolLM2 decode step on wgpu (timestamp queries), with
//! the workgroups each dispatch launched (how much of a GPU it can fill), or with
//! `--cpu` the time per step kind on the fast cpu backend: where a token's time goes.
//! `--seq N` profiles a prompt chunk of N tokens instead; `--shapes` (cpu) groups steps by
//! their whole description, shapes included.
//!
//! `--f16` keeps the caches in float16; `--gpu-kernels` picks the kernels a hardware GPU gets
//! on any adapter (counts dispatches as a GPU would run them); `--max-storage N` those of a
//! device binding at most N storage buffers per kernel (WebGPU's default limit is 8).
//!
//!     cargo run --release -p webnn-llm --example profile -- [--context N] [--seq N] [--f16] [--unfused] [--gpu-kernels] [--max-storage N] [--cpu [--threads N] [--shapes]]

use std::collections::BTreeMap;
use webnn_core::{DataType, HostTensor, OperandDescriptor};
use webnn_llm::gguf::Gguf;
use webnn_llm::model::{build_graph, Config};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let context: u32 = args.iter().position(|a| a == "--context").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(64);
    let seq: u32 = args.iter().position(|a| a == "--seq").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(1).clamp(1, 64.min(context));
    let gguf = Gguf::read(&webnn_llm::smollm2_path())?;
    let mut config = Config::from_gguf(&gguf, context.max(256), 64)?;
    if args.iter().any(|a| a == "--f16") {
        config.cache = webnn_llm::model::CacheType::Float16;
    }
    let graph = build_graph(&gguf, config)?;
    let host = |t: DataType, shape: &[u32], bytes: Vec<u8>| HostTensor { desc: OperandDescriptor::new(t, shape), bytes };
    let i32s = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let cache_type = webnn_llm::model::cache_type(config.cache);
    let cache = cache_type.byte_length(u64::from(config.capacity * config.kv_dim())).ok_or("cache size")? as usize;
    let mut named = vec![
        ("tokens".to_owned(), host(DataType::Int32, &[seq], i32s(&vec![42; seq as usize]))),
        ("positions".to_owned(), host(DataType::Int32, &[seq, 1], i32s(&((context - seq) as i32..context as i32).collect::<Vec<_>>()))),
        ("mask".to_owned(), host(DataType::Uint8, &[seq, context], vec![1; (seq * context) as usize])),
        ("last".to_owned(), host(DataType::Int32, &[1], i32s(&[0]))),
    ];
    for l in 0..config.layers {
        for k in ["k", "v"] {
            named.push((format!("{k}{l}"), host(cache_type, &[config.capacity, config.kv_dim()], vec![0; cache])));
        }
    }
    if args.iter().any(|a| a == "--cpu") {
        let threads = args.iter().position(|a| a == "--threads").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(1);
        return cpu(&graph, &named, seq, context, threads, args.iter().any(|a| a == "--shapes"));
    }
    let mut backend = webnn_wgpu::WgpuBackend::new()?;
    if args.iter().any(|a| a == "--unfused") {
        backend = backend.unfused();
    }
    // The kernels a hardware GPU gets, on whatever adapter this is.
    if args.iter().any(|a| a == "--gpu-kernels") {
        backend = backend.tuned_for_gpu();
    }
    if let Some(n) = args.iter().position(|a| a == "--max-storage").and_then(|i| args.get(i + 1)?.parse().ok()) {
        backend = backend.with_max_storage(n);
    }
    let mut g = backend.compile_graph(&graph)?;
    let inputs: Vec<(&str, &HostTensor)> = named.iter().map(|(n, t)| (n.as_str(), t)).collect();
    webnn_core::Executable::dispatch(&mut g, &inputs)?;
    let Some(steps) = g.profile(&inputs)? else {
        return Err("the adapter has no timestamp queries".into());
    };
    // Per op and kernel: dispatches, GPU time, and the workgroups each dispatch launched.
    let mut by: BTreeMap<String, (usize, f64, Vec<u64>)> = BTreeMap::new();
    for s in &steps {
        let kind = s.kernel.split(' ').next().unwrap_or("").split(['{', '(']).next().unwrap_or("").to_owned();
        let e = by.entry(format!("{} {kind}", s.op.name())).or_default();
        e.0 += 1;
        e.1 += s.nanos;
        e.2.push(s.workgroups);
    }
    let total: f64 = steps.iter().map(|s| s.nanos).sum();
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1));
    println!("one step of {seq} token(s) at context {context}: {} dispatches, {:.1} ms of GPU time", steps.len(), total / 1e6);
    println!("| op kernel | dispatches | ms | share | workgroups per dispatch (fewest-most) |");
    println!("|---|---|---|---|---|");
    for (k, (n, ns, groups)) in rows.iter().take(14) {
        let (lo, hi) = (groups.iter().min().unwrap_or(&0), groups.iter().max().unwrap_or(&0));
        println!("| {k} | {n} | {:.2} | {:.0}% | {lo}-{hi} |", ns / 1e6, 100.0 * ns / total);
    }
    Ok(())
}

/// The fast cpu backend's steps, grouped by kind (their description up to the first digit),
/// median time over 20 runs.
fn cpu(
    graph: &webnn_core::Graph,
    named: &[(String, HostTensor)],
    seq: u32,
    context: u32,
    threads: usize,
    shapes: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let g = webnn_fast::FastBackend::new(threads).compile_graph(graph)?;
    let mut inputs = std::collections::HashMap::new();
    for (n, t) in named {
        inputs.insert(n.clone(), webnn_cpu::Tensor::from_bytes(&t.desc, &t.bytes)?);
    }
    let steps = g.profile(&inputs, 20)?;
    let mut by: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for (d, secs) in &steps {
        let kind: String = if shapes {
            d.clone()
        } else {
            d.split(|c: char| c.is_ascii_digit()).next().unwrap_or("").trim().to_owned()
        };
        let e = by.entry(kind).or_default();
        e.0 += 1;
        e.1 += secs;
    }
    let total: f64 = steps.iter().map(|(_, s)| s).sum();
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1));
    println!("one step of {seq} token(s) at context {context} on the fast cpu backend ({threads} thread(s)): {} steps, {:.2} ms", steps.len(), total * 1e3);
    println!("| step | count | ms | share |");
    println!("|---|---|---|---|");
    for (k, (n, s)) in rows.iter().take(16) {
        println!("| {k} | {n} | {:.3} | {:.0}% |", s * 1e3, 100.0 * s / total);
    }
    Ok(())
}
