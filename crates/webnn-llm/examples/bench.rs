//! SmolLM2-135M's speed table in one process:
//!
//!     cargo run --release -p webnn-llm [--features ort] --example bench -- [--steps N] [--rounds N] [--cpu | --wgpu] [--cache f32|f16|both]
//!
//! `--cpu` leaves out the slow rows (wgpu on a software adapter and the reference
//! interpreter): the fast cpu backend against llama.cpp (and ONNX Runtime) in a minute.
//! `--wgpu` keeps only wgpu fused and unfused.
//! The fast cpu and llama.cpp are measured in `--rounds` (default 3) interleaved rounds, each
//! round both on the same thread count one after the other, so that a shared machine's
//! drifting load falls on both; so are wgpu fused and unfused decode (their prompt once). The
//! table gives each one's median, and the ratios are the median of the rounds' ratios, with
//! their range.
//! For each backend (wgpu fused and unfused, the fast cpu backend on 1 and 2 threads, the
//! reference interpreter, ONNX Runtime with the feature): the graph's op count and quantized
//! matmuls matched, kernels dispatched per decode step (wgpu), time to first token for a
//! 128-token prompt, and greedy decode tokens/s at context 16 and 1,024. llama.cpp (PyPI llama-cpp-python, as the parity test
//! uses it) runs the same GGUF on 1 and 2 threads in the same run.
//!
//! `--cache` sets the caches' type (float32 by default; float16 as llama.cpp keeps them); with
//! `both` the fast cpu runs each, in the same rounds, and the other rows float32.
//!
//! Decode at context 1,024 starts from the session moved to position 1,016 without filling
//! the caches: a step's work depends on the context length, not on what the caches hold, and
//! prefilling 1,016 tokens on the slow backends would take minutes each.

use std::time::Instant;
use webnn::{BackendKind, Context, ContextOptions, Ml};
use webnn_llm::gguf::Gguf;
use webnn_llm::model::{CacheType, Config};
use webnn_llm::session::Session;
use webnn_llm::tokenizer::Tokenizer;

const PROMPT: usize = 128;
const SHORT: u32 = 16;
const LONG: u32 = 1024;

#[derive(Clone)]
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

/// A backend's session, compiled once, measured round after round.
struct Bench {
    name: String,
    session: Session,
    steps: usize,
}

impl Bench {
    fn new(name: &str, ctx: Context, gguf: &Gguf, config: Config, steps: usize) -> Result<Bench, Box<dyn std::error::Error>> {
        eprintln!("{name}: compiling");
        let session = pollster::block_on(Session::new(ctx, gguf, config))?;
        println!("{name}: {}", session.ctx.device_name());
        Ok(Bench { name: name.into(), session, steps })
    }

    /// Time to first token from an empty context, then decode at both contexts.
    fn round(&mut self, prompt: &[u32]) -> Result<Row, Box<dyn std::error::Error>> {
        eprintln!("{}: {}-token prompt", self.name, prompt.len());
        let s = &mut self.session;
        s.past = 0;
        let t = Instant::now();
        let first = pollster::block_on(s.feed_greedy(prompt))?;
        let ttft_ms = t.elapsed().as_secs_f64() * 1e3;
        self.decode_round(first, ttft_ms)
    }

    /// Decode at both contexts from token `first` (a round without the prompt).
    fn decode_round(&mut self, first: u32, ttft_ms: f64) -> Result<Row, Box<dyn std::error::Error>> {
        let (name, s) = (&self.name, &mut self.session);
        s.past = SHORT - 1;
        let decode_16 = decode(s, first, self.steps)?;
        let kernels = s.graph.dispatch_count();
        s.past = LONG - 1;
        eprintln!("{name}: decode at context {LONG}");
        let decode_long = decode(s, first, self.steps)?;
        Ok(Row { name: name.clone(), kernels, ttft_ms, decode_16, decode_long })
    }
}

/// llama.cpp on `threads` threads in a Python process of its own, the model loaded once;
/// each round is one request line and one answer line.
struct Llama {
    threads: usize,
    child: std::process::Child,
    answers: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Llama {
    fn new(threads: usize, steps: usize) -> Result<Llama, Box<dyn std::error::Error>> {
        let site = std::env::var("WEBNN_LLAMA_SITE")
            .unwrap_or_else(|_| format!("{}/.cache/webnn-rs/llama/site", std::env::var("HOME").unwrap_or_default()));
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/llama_timing.py");
        let setup = serde_json::json!({
            "model": webnn_llm::smollm2_path(), "threads": threads, "long": LONG, "steps": steps,
        });
        let mut child = std::process::Command::new("python3")
            .arg(script)
            .arg(setup.to_string())
            .env("PYTHONPATH", site)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()?;
        let mut answers = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().ok_or("stdout")?));
        // Loading the model takes both cores for a while: nothing is measured until it is done.
        let ready = answers.next().ok_or("llama-cpp-python failed (scripts/llm-setup.sh installs it)")??;
        if serde_json::from_str::<serde_json::Value>(&ready)?["ready"] != true {
            return Err(format!("llama_timing.py: {ready}").into());
        }
        Ok(Llama { threads, child, answers })
    }

    fn round(&mut self, prompt: &[u32]) -> Result<Row, Box<dyn std::error::Error>> {
        use std::io::Write;
        let request = serde_json::json!({ "prompt": prompt, "short": &prompt[..SHORT as usize] });
        let stdin = self.child.stdin.as_mut().ok_or("stdin")?;
        writeln!(stdin, "{request}")?;
        stdin.flush()?;
        let line = self.answers.next().ok_or("llama-cpp-python failed (scripts/llm-setup.sh installs it)")??;
        let v: serde_json::Value = serde_json::from_str(&line)?;
        let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        let threads = self.threads;
        Ok(Row {
            name: format!("llama.cpp, {threads} thread{}", if threads == 1 { "" } else { "s" }),
            kernels: None,
            ttft_ms: f("ttft_ms"),
            decode_16: f("decode_16"),
            decode_long: f("decode_long"),
        })
    }
}

impl Drop for Llama {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Each round's ratio of `ours` to `theirs` (`theirs` to `ours` when `inverse`): their
/// median and, in parentheses, their range, with `digits` decimals.
fn ratios(ours: &[Row], theirs: &[Row], f: fn(&Row) -> f64, inverse: bool, digits: usize) -> String {
    let r: Vec<f64> = ours.iter().zip(theirs).map(|(a, b)| if inverse { f(b) / f(a) } else { f(a) / f(b) }).collect();
    let (lo, hi) = r.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| (l.min(x), h.max(x)));
    format!("{:.digits$}x ({lo:.digits$}-{hi:.digits$})", median(r))
}

/// Each column's median over rounds.
fn median_row(rounds: &[Row]) -> Row {
    let col = |f: fn(&Row) -> f64| median(rounds.iter().map(f).collect());
    Row {
        name: rounds[0].name.clone(),
        kernels: rounds[0].kernels,
        ttft_ms: col(|r| r.ttft_ms),
        decode_16: col(|r| r.decode_16),
        decode_long: col(|r| r.decode_long),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let steps: usize = args.iter().position(|a| a == "--steps").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok()).unwrap_or(8);
    let gguf = Gguf::read(&webnn_llm::smollm2_path())?;
    // The fast cpu rows decode at least 32 steps (a step is milliseconds there).
    let cpu_steps = steps.max(32);
    let mut config = Config::from_gguf(&gguf, LONG + cpu_steps as u32 + 8, 64)?;
    let caches = match args.iter().position(|a| a == "--cache").and_then(|i| args.get(i + 1)).map_or("f32", String::as_str) {
        "both" => vec![CacheType::Float32, CacheType::Float16],
        one => vec![CacheType::parse(one).ok_or_else(|| format!("--cache takes f32, f16 or both, not {one}"))?],
    };
    config.cache = caches[0];
    let tokenizer = Tokenizer::from_gguf(&gguf)?;
    // A 128-token prompt: a chat turn around a passage, cut to length.
    let text = "Summarize the following notes in one sentence. ".repeat(40);
    let mut prompt = tokenizer.encode(&tokenizer.chat_prompt(&text), true);
    prompt.truncate(PROMPT);
    let graph = webnn_llm::model::build_graph(&gguf, config)?;
    let matched = webnn_core::fusion::quantized_linears(&graph).len();
    println!("SmolLM2-135M-Instruct Q4_1: {} ops in the graph, {matched} quantized matmuls matched by fusion\n", graph.nodes.len());

    let rounds: usize = args.iter().position(|a| a == "--rounds").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok()).unwrap_or(3).max(1);
    let mut rows = Vec::new();
    let slow = !args.iter().any(|a| a == "--cpu");
    let only_wgpu = args.iter().any(|a| a == "--wgpu");
    // wgpu fused and unfused: the prompt once each, then their decode in interleaved rounds.
    let mut wgpu_rounds = None;
    if slow {
        let wgpu = webnn_wgpu::WgpuBackend::new()?;
        let mut fused = Bench::new("wgpu, fused", Context::wgpu(wgpu.clone()), &gguf, config, steps)?;
        let mut unfused = Bench::new("wgpu, unfused", Context::wgpu(wgpu.unfused()), &gguf, config, steps.min(2))?;
        let (mut a, mut b) = (vec![fused.round(&prompt)?], vec![unfused.round(&prompt)?]);
        for _ in 1..rounds {
            a.push(fused.decode_round(prompt[0], a[0].ttft_ms)?);
            b.push(unfused.decode_round(prompt[0], b[0].ttft_ms)?);
        }
        rows.push(median_row(&a));
        rows.push(median_row(&b));
        wgpu_rounds = Some((a, b));
    }
    // Per thread count, the fast cpu's and llama.cpp's rounds, interleaved.
    let mut paired = Vec::new();
    for threads in [1, 2].into_iter().filter(|_| !only_wgpu) {
        let mut ours = Vec::new();
        for &cache in &caches {
            let name = format!("cpu (fast), {threads} thread{}, {} caches", if threads == 1 { "" } else { "s" }, cache.name());
            let ctx = Context::fast(webnn_fast::FastBackend::new(threads));
            ours.push(Bench::new(&name, ctx, &gguf, Config { cache, ..config }, cpu_steps)?);
        }
        let mut theirs = match Llama::new(threads, cpu_steps) {
            Ok(l) => Some(l),
            Err(e) => {
                eprintln!("llama.cpp: {e}");
                None
            }
        };
        let (mut a, mut b) = (vec![Vec::new(); ours.len()], Vec::new());
        for _ in 0..rounds {
            for (bench, rows) in ours.iter_mut().zip(&mut a) {
                rows.push(bench.round(&prompt)?);
            }
            if let Some(l) = theirs.as_mut() {
                match l.round(&prompt) {
                    Ok(r) => b.push(r),
                    Err(e) => {
                        eprintln!("llama.cpp: {e}");
                        theirs = None;
                    }
                }
            }
        }
        rows.extend(a.iter().map(|r| median_row(r)));
        if b.len() == rounds {
            rows.push(median_row(&b));
            paired.extend(caches.iter().zip(a).map(|(cache, a)| (threads, cache.name(), a, b.clone())));
        }
    }
    if slow && !only_wgpu {
        rows.push(Bench::new("cpu (reference interpreter, unfused)", Context::reference(), &gguf, config, steps.min(2))?.round(&prompt)?);
    }
    if cfg!(feature = "ort") && !only_wgpu {
        let ort = pollster::block_on(Ml.create_context(ContextOptions { backend: Some(BackendKind::Ort), ..Default::default() }))?;
        rows.push(Bench::new("ONNX Runtime (same WebNN graph)", ort, &gguf, config, steps)?.round(&prompt)?);
    }
    println!(
        "\ndecode over {steps} steps (2 on the slow rows, at least 32 on the fast cpu and llama.cpp); the fast cpu, llama.cpp and wgpu decode figures: medians of {rounds} rounds\n"
    );
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
    println!();
    if let Some((fused, unfused)) = &wgpu_rounds {
        println!(
            "wgpu fused / unfused decode, median of {rounds} interleaved rounds (range): {} at context {SHORT}, {} at {LONG}",
            ratios(fused, unfused, |r| r.decode_16, false, 1),
            ratios(fused, unfused, |r| r.decode_long, false, 1)
        );
    }
    for (threads, cache, ours, theirs) in &paired {
        let s = if *threads == 1 { "" } else { "s" };
        println!(
            "cpu (fast, {cache} caches) / llama.cpp, {threads} thread{s}, median of {rounds} interleaved rounds (range): decode {} at context {SHORT}, {} at {LONG}; TTFT {}",
            ratios(ours, theirs, |r| r.decode_16, false, 2),
            ratios(ours, theirs, |r| r.decode_long, false, 2),
            ratios(ours, theirs, |r| r.ttft_ms, true, 2)
        );
    }
    Ok(())
}
