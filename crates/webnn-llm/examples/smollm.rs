//! SmolLM2-135M-Instruct through WebNN: the decoder built from primitive ops, one graph for
//! the prompt and every decode step, the KV caches in tensors updated in place. Streams the
//! answer and prints time to first token and tokens/s.
//!
//!     cargo run --release -p webnn-llm --example smollm -- [--backend cpu|wgpu|ort] \
//!         [--prompt "..."] [--ids 1,2,3] [--tokens N] [--capacity N] [--cache f32|f16] [--unfused] [--threads N]
//!
//! `--cache f16` keeps the key/value caches in float16 (as llama.cpp does: half the memory
//! and half the bytes a decode step reads; the default is float32);
//! `--unfused` runs every op as its own kernels on wgpu (no fused quantized matmul);
//! `--threads` sets the cpu backend's threads (default: one per core).

use std::time::Instant;
use webnn::{BackendKind, ContextOptions, Ml};
use webnn_llm::gguf::Gguf;
use webnn_llm::model::{CacheType, Config};
use webnn_llm::session::Session;
use webnn_llm::tokenizer::{StreamDecoder, Tokenizer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let backend = match arg("--backend").as_deref().unwrap_or("cpu") {
        "cpu" => BackendKind::Cpu,
        "wgpu" => BackendKind::Wgpu,
        "ort" => BackendKind::Ort,
        other => return Err(format!("unknown backend {other}").into()),
    };
    let new_tokens: usize = arg("--tokens").and_then(|n| n.parse().ok()).unwrap_or(16);
    let capacity: u32 = arg("--capacity").and_then(|n| n.parse().ok()).unwrap_or(256);
    let gguf = Gguf::read(&webnn_llm::smollm2_path())?;
    let cache = arg("--cache").unwrap_or_else(|| "f32".into());
    let cache = CacheType::parse(&cache).ok_or_else(|| format!("--cache takes f32 or f16, not {cache}"))?;
    let config = Config { cache, ..Config::from_gguf(&gguf, capacity, 64)? };
    let tokenizer = Tokenizer::from_gguf(&gguf)?;
    let prompt: Vec<u32> = match arg("--ids") {
        Some(ids) => ids.split(',').map(|s| s.trim().parse()).collect::<Result<_, _>>()?,
        None => {
            let question = arg("--prompt").unwrap_or_else(|| "What is the capital of France?".into());
            tokenizer.encode(&tokenizer.chat_prompt(&question), true)
        }
    };
    let t0 = Instant::now();
    let threads: Option<usize> = arg("--threads").and_then(|n| n.parse().ok());
    let ctx = if let (BackendKind::Cpu, Some(n)) = (backend, threads) {
        webnn::Context::fast(webnn_fast::FastBackend::new(n))
    } else if backend == BackendKind::Wgpu {
        let b = webnn_wgpu::WgpuBackend::new()?;
        webnn::Context::wgpu(if args.iter().any(|a| a == "--unfused") { b.unfused() } else { b })
    } else {
        pollster::block_on(Ml.create_context(ContextOptions { backend: Some(backend), ..Default::default() }))?
    };
    let graph = webnn_llm::model::build_graph(&gguf, config)?;
    let fused = webnn_core::fusion::quantized_linears(&graph).len();
    let mut s = pollster::block_on(Session::new(ctx, &gguf, config))?;
    println!("built on {} in {:.1} s ({} layers, capacity {capacity})", s.ctx.device_name(), t0.elapsed().as_secs_f64(), config.layers);
    println!("graph: {} ops, {fused} quantized matmuls matched", graph.nodes.len());
    // Greedy decoding with the token chosen on the device (4 bytes read back per step).
    let t1 = Instant::now();
    let mut next = pollster::block_on(s.feed_greedy(&prompt))?;
    let first = t1.elapsed();
    let mut out = Vec::new();
    let mut stream = StreamDecoder::new();
    let t2 = Instant::now();
    for _ in 0..new_tokens {
        out.push(next);
        if next == tokenizer.eos {
            break;
        }
        print!("{}", stream.push(&tokenizer, next));
        std::io::Write::flush(&mut std::io::stdout())?;
        next = pollster::block_on(s.feed_greedy(&[next]))?;
    }
    let decode = t2.elapsed();
    println!("{}", stream.finish());
    if let Some(k) = s.graph.dispatch_count() {
        println!("kernel dispatches per step: {k}");
    }
    println!("tokens: {out:?}");
    println!(
        "time to first token {:.0} ms ({} prompt tokens); decode {:.2} tokens/s",
        first.as_secs_f64() * 1e3,
        prompt.len(),
        out.len() as f64 / decode.as_secs_f64()
    );
    Ok(())
}
