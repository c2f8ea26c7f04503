//! SmolLM2-135M's speed table in one process:
//!
//!     cargo run --release -p webnn-llm [--features ort] --example bench -- [--steps N] [--cpu]
//!
//! `--cpu` leaves out the slow rows (wgpu on a software adapter and the reference
//! interpreter): the fast cpu backend against llama.cpp (and ONNX Runtime) in a minute.
//! For each backend (wgpu fused and unfused, the fast cpu backend on 1 and 2 threads, the
//! reference interpreter, ONNX Runtime with the feature): the graph's op count and quantized
//! matmuls matched, kernels dispatched per decode step (wgpu), time to first token for a
//! 128-token prompt, and greedy decode tokens/s at context 16 and 1,024. llama.cpp (PyPI llama-cpp-python, as the parity test
//! uses it) runs the same GGUF on 1 and 2 threads in the same run.
//!
//! Decode at context 1,024 starts from the session moved to position 1,016 without filling
//! the caches: a step's work depends on the context length, not on what the caches hold, and
//! prefilling 1,016 tokens on the slow backends would take minutes each.

use std::time::Instant;
use webnn::{BackendKind, Context, ContextOptions, Ml};
use webnn_llm::gguf::Gguf;
use webnn_llm::model::Config;
use webnn_llm::session::Session;
use webnn_llm::tokenizer::Tokenizer;

const PROMPT: usize = 128;
const SHORT: u32 = 16;
const LONG: u32 = 1024;

struct Row {
    name: String,
    kernels: Option<usize>,
    ttft_ms: f64,
    decode_16: f64,
    decode_long: f64,
}

/// Decode tokens/s over `steps` greedy steps from the session's current position.
fn decode(s: &mut Session, first: u32, steps: usize) -> Result<f64, Box<dyn std::error::Error>> {
    let mut next = pollster::block_on(s.feed_greedy(&[first]))?;
    let t = Instant::now();
    for _ in 0..steps {
        next = pollster::block_on(s.feed_greedy(&[next]))?;
    }
    Ok(steps as f64 / t.elapsed().as_secs_f64())
}

fn measure(name: &str, ctx: Context, gguf: &Gguf, config: Config, prompt: &[u32], steps: usize) -> Result<Row, Box<dyn std::error::Error>> {
    eprintln!("{name}: compiling");
    let mut s = pollster::block_on(Session::new(ctx, gguf, config))?;
    println!("{name}: {}", s.ctx.device_name());
    eprintln!("{name}: {}-token prompt", prompt.len());
    let t = Instant::now();
    let first = pollster::block_on(s.feed_greedy(prompt))?;
    let ttft_ms = t.elapsed().as_secs_f64() * 1e3;
    s.past = SHORT - 1;
    let decode_16 = decode(&mut s, first, steps)?;
    let kernels = s.graph.dispatch_count();
    s.past = LONG - 1;
    eprintln!("{name}: decode at context {LONG}");
    let decode_long = decode(&mut s, first, steps)?;
    Ok(Row { name: name.into(), kernels, ttft_ms, decode_16, decode_long })
}

fn llama_cpp(threads: usize, prompt: &[u32], steps: usize) -> Result<Row, Box<dyn std::error::Error>> {
    let site = std::env::var("WEBNN_LLAMA_SITE")
        .unwrap_or_else(|_| format!("{}/.cache/webnn-rs/llama/site", std::env::var("HOME").unwrap_or_default()));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/llama_timing.py");
    let request = serde_json::json!({
        "model": webnn_llm::smollm2_path(), "threads": threads, "prompt": prompt,
        "short": &prompt[..SHORT as usize], "long": LONG, "steps": steps,
    });
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .env("PYTHONPATH", site)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    use std::io::Write;
    child.stdin.take().ok_or("stdin")?.write_all(request.to_string().as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        return Err("llama-cpp-python failed (scripts/llm-setup.sh installs it)".into());
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    Ok(Row {
        name: format!("llama.cpp, {threads} thread{}", if threads == 1 { "" } else { "s" }),
        kernels: None,
        ttft_ms: f("ttft_ms"),
        decode_16: f("decode_16"),
        decode_long: f("decode_long"),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let steps: usize = args.iter().position(|a| a == "--steps").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok()).unwrap_or(8);
    let gguf = Gguf::read(&webnn_llm::smollm2_path())?;
    // The fast cpu rows decode at least 32 steps (a step is milliseconds there).
    let cpu_steps = steps.max(32);
    let config = Config::from_gguf(&gguf, LONG + cpu_steps as u32 + 8, 64)?;
    let tokenizer = Tokenizer::from_gguf(&gguf)?;
    // A 128-token prompt: a chat turn around a passage, cut to length.
    let text = "Summarize the following notes in one sentence. ".repeat(40);
    let mut prompt = tokenizer.encode(&tokenizer.chat_prompt(&text), true);
    prompt.truncate(PROMPT);
    let graph = webnn_llm::model::build_graph(&gguf, config)?;
    let matched = webnn_core::fusion::quantized_linears(&graph).len();
    println!("SmolLM2-135M-Instruct Q4_1: {} ops in the graph, {matched} quantized matmuls matched by fusion\n", graph.nodes.len());

    let mut rows = Vec::new();
    let slow = !args.iter().any(|a| a == "--cpu");
    if slow {
        let wgpu = webnn_wgpu::WgpuBackend::new()?;
        rows.push(measure("wgpu, fused", Context::wgpu(wgpu.clone()), &gguf, config, &prompt, steps)?);
        rows.push(measure("wgpu, unfused", Context::wgpu(wgpu.unfused()), &gguf, config, &prompt, steps.min(2))?);
    }
    for threads in [1, 2] {
        let name = format!("cpu (fast), {threads} thread{}", if threads == 1 { "" } else { "s" });
        let ctx = Context::fast(webnn_fast::FastBackend::new(threads));
        rows.push(measure(&name, ctx, &gguf, config, &prompt, cpu_steps)?);
    }
    if slow {
        rows.push(measure("cpu (reference interpreter, unfused)", Context::reference(), &gguf, config, &prompt, steps.min(2))?);
    }
    if cfg!(feature = "ort") {
        let ort = pollster::block_on(Ml.create_context(ContextOptions { backend: Some(BackendKind::Ort), ..Default::default() }))?;
        rows.push(measure("ONNX Runtime (same WebNN graph)", ort, &gguf, config, &prompt, steps)?);
    }
    for threads in [1, 2] {
        match llama_cpp(threads, &prompt, steps) {
            Ok(r) => rows.push(r),
            Err(e) => eprintln!("llama.cpp: {e}"),
        }
    }
    println!("\ndecode over {steps} steps (2 on the slow rows, at least 32 on the fast cpu)\n");
    println!("| backend | kernels per step | TTFT, {PROMPT}-token prompt | decode at context {SHORT} | decode at context {LONG} |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.0} ms | {:.2} tok/s | {:.2} tok/s |",
            r.name,
            r.kernels.map_or("—".into(), |k| k.to_string()),
            r.ttft_ms,
            r.decode_16,
            r.decode_long
        );
    }
    let by = |n: &str| rows.iter().find(|r| r.name == n);
    if let (Some(f), Some(u)) = (by("wgpu, fused"), by("wgpu, unfused")) {
        println!(
            "\nwgpu fused / unfused decode: {:.1}x at context {SHORT}, {:.1}x at {LONG}",
            f.decode_16 / u.decode_16,
            f.decode_long / u.decode_long
        );
    }
    for threads in [1, 2] {
        let s = if threads == 1 { "" } else { "s" };
        let ours = rows.iter().find(|r| r.name == format!("cpu (fast), {threads} thread{s}"));
        let theirs = rows.iter().find(|r| r.name == format!("llama.cpp, {threads} thread{s}"));
        if let (Some(a), Some(b)) = (ours, theirs) {
            println!(
                "cpu (fast) / llama.cpp decode, {threads} thread{s}: {:.2}x at context {SHORT}, {:.2}x at {LONG}; TTFT {:.2}x",
                a.decode_16 / b.decode_16,
                a.decode_long / b.decode_long,
                b.ttft_ms / a.ttft_ms
            );
        }
    }
    Ok(())
}
