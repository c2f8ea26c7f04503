//! SmolLM2's decode speed as an ONNX Runtime GenAI-style model (tests/genai_export.py writes
//! it from the GGUF; webnn-onnx imports it) against webnn-llm's own graph of the same GGUF, on
//! the fast cpu backend, in one process:
//!
//!     cargo run --release -p webnn-llm --example onnx_bench -- [--threads N] [--steps N] [--rounds N] [--profile]
//!
//! `--profile` prints the imported decode graph's slowest fast-cpu steps at each capacity,
//! summed by kind.
//!
//! Both run decode steps with the caches bound in place (the imported graph's present caches
//! are `scatterND`s of its pasts), at a capacity of 64 and of 1,024 rows, in interleaved
//! rounds; the table gives medians and the ratio of the imported model's tokens/s to the
//! GGUF graph's.

use std::time::Instant;
use webnn::onnx::{self, ImportOptions};
use webnn::{Context, DataType, OperandDescriptor, Tensor, TensorDescriptor};
use webnn_llm::gguf::Gguf;
use webnn_llm::model::Config;
use webnn_llm::session::Session;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The GenAI-style decode graph over `capacity` cache rows, compiled, with its tensors.
struct Imported {
    ctx: Context,
    graph: webnn::Graph,
    ids: Tensor,
    mask: Tensor,
    logits: Tensor,
    caches: Vec<(String, String, Tensor)>,
    capacity: u32,
}

impl Imported {
    fn new(ctx: Context, file: &std::path::Path, capacity: u32) -> Res<Imported> {
        let dims = format!("batch_size=1,sequence_length=1,past_sequence_length={capacity},total_sequence_length={capacity}");
        let g = onnx::import_file(file, &ImportOptions::default().with_dims(&dims)?)?.graph;
        let graph = pollster::block_on(ctx.compile(&g))?;
        let tensor = |ctx: &Context, dt, shape: &[u32]| ctx.create_tensor(TensorDescriptor::new(OperandDescriptor::new(dt, shape), true, true));
        let mut caches = Vec::new();
        for (name, o) in &g.inputs {
            if let Some(rest) = name.strip_prefix("past_key_values.") {
                caches.push((name.clone(), format!("present.{rest}"), tensor(&ctx, DataType::Float32, &g.desc(*o).static_shape().unwrap())?));
            }
        }
        let vocab = g.desc(g.outputs.iter().find(|(n, _)| n == "logits").unwrap().1).static_shape().unwrap()[2];
        Ok(Imported {
            ids: tensor(&ctx, DataType::Int64, &[1, 1])?,
            mask: tensor(&ctx, DataType::Int64, &[1, capacity])?,
            logits: tensor(&ctx, DataType::Float32, &[1, 1, vocab])?,
            ctx,
            graph,
            caches,
            capacity,
        })
    }

    /// One decode step at position `at`; the greedy token.
    fn step(&self, token: u32, at: u32) -> Res<u32> {
        self.ctx.write_tensor(&self.ids, &(token as i64).to_le_bytes())?;
        let mask: Vec<u8> = (0..self.capacity).flat_map(|i| i64::from(i <= at).to_le_bytes()).collect();
        self.ctx.write_tensor(&self.mask, &mask)?;
        let mut inputs: Vec<(&str, &Tensor)> = vec![("input_ids", &self.ids), ("attention_mask", &self.mask)];
        let mut outputs: Vec<(&str, &Tensor)> = vec![("logits", &self.logits)];
        for (past, present, t) in &self.caches {
            inputs.push((past, t));
            outputs.push((present, t));
        }
        self.ctx.dispatch(&self.graph, &inputs, &outputs)?;
        let bytes = pollster::block_on(self.ctx.read_tensor(&self.logits))?;
        let logits: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        Ok(webnn_llm::session::argmax(&logits))
    }
}

/// The imported decode graph's fast-cpu steps at `capacity`, their median times summed by
/// kind (the description up to its first comma), slowest first.
fn profile_steps(file: &std::path::Path, capacity: u32, threads: usize) -> Res<()> {
    let dims = format!("batch_size=1,sequence_length=1,past_sequence_length={capacity},total_sequence_length={capacity}");
    let g = onnx::import_file(file, &ImportOptions::default().with_dims(&dims)?)?.graph;
    let compiled = webnn_fast::FastBackend::new(threads).compile_graph(&g)?;
    let mut inputs = std::collections::HashMap::new();
    for (name, o) in &g.inputs {
        let desc = g.desc(*o);
        let mut bytes = vec![0u8; desc.max_byte_length().unwrap_or(0) as usize];
        if name == "attention_mask" {
            // Nine positions seen, as at the start of the timed steps.
            bytes.chunks_exact_mut(8).take(9).for_each(|b| b.copy_from_slice(&1i64.to_le_bytes()));
        }
        inputs.insert(name.clone(), webnn_cpu::Tensor::from_bytes(desc, &bytes)?);
    }
    let steps = compiled.profile(&inputs, 5)?;
    let total: f64 = steps.iter().map(|(_, t)| t).sum();
    let mut kinds: Vec<(String, f64, usize)> = Vec::new();
    for (name, t) in steps {
        let kind = name.split(',').next().unwrap_or("").to_owned();
        match kinds.iter_mut().find(|k| k.0 == kind) {
            Some(k) => {
                k.1 += t;
                k.2 += 1;
            }
            None => kinds.push((kind, t, 1)),
        }
    }
    kinds.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!("imported decode graph, capacity {capacity}: {:.2} ms a step in its fast-cpu steps; by kind:", total * 1e3);
    for (kind, t, n) in kinds.iter().take(10) {
        println!("  {:8.1} us {:5.1}%  {n:4} x {kind}", t * 1e6, 100.0 * t / total);
    }
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Res<()> {
    let (threads, steps, rounds) = (arg("--threads", 2), arg("--steps", 32), arg("--rounds", 3));
    let path = webnn_llm::smollm2_path();
    let g = Gguf::read(&path)?;
    let file = std::env::temp_dir().join(format!("webnn-llm-genai-bench-{}.onnx", std::process::id()));
    let home = std::env::var("HOME").unwrap_or_default();
    let status = std::process::Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/genai_export.py"))
        .args([path.to_string_lossy().as_ref(), file.to_string_lossy().as_ref(), "1040"])
        .env("PYTHONPATH", format!("{home}/.cache/webnn-rs/llama/onnx-site:{home}/.cache/webnn-rs/llama/site"))
        .status()?;
    if !status.success() {
        return Err("tests/genai_export.py failed (run scripts/llm-setup.sh)".into());
    }
    println!("SmolLM2-135M decode on the fast cpu ({threads} threads): the GenAI-style ONNX model imported, against webnn-llm's graph of the GGUF");
    println!("| capacity | GGUF graph tok/s | imported ONNX tok/s | ratio (imported / GGUF) |");
    println!("|---|---|---|---|");
    let profile = std::env::args().any(|a| a == "--profile");
    for capacity in [64u32, 1024] {
        if profile {
            profile_steps(&file, capacity, threads)?;
        }
        let fast = || Context::fast(webnn_fast::FastBackend::new(threads));
        let imported = Imported::new(fast(), &file, capacity)?;
        let mut session = pollster::block_on(Session::new(fast(), &g, Config::from_gguf(&g, capacity, 16)?))?;
        let (mut ours, mut theirs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        // Decode from position 8: both graphs' work depends on the capacity or the context,
        // not on what the caches hold.
        for _ in 0..rounds {
            session.past = 8;
            let mut next = pollster::block_on(session.feed_greedy(&[1]))?;
            let t = Instant::now();
            for _ in 0..steps {
                next = pollster::block_on(session.feed_greedy(&[next]))?;
            }
            let gguf = steps as f64 / t.elapsed().as_secs_f64();
            let mut next = imported.step(1, 8)?;
            let t = Instant::now();
            for i in 0..steps as u32 {
                next = imported.step(next, 9 + i)?;
            }
            let onnx = steps as f64 / t.elapsed().as_secs_f64();
            theirs.push(gguf);
            ours.push(onnx);
            ratios.push(onnx / gguf);
        }
        println!("| {capacity} | {:.1} | {:.1} | {:.2} |", median(theirs), median(ours), median(ratios));
    }
    std::fs::remove_file(&file).ok();
    Ok(())
}
