//! SmolLM2 decode steps on wgpu with the host waiting for each token (`feed_greedy`: read,
//! then the next step) and with the tokens kept on the device (`Session::generate`: each
//! step's argMax output is the next step's input, tokens read back `--lag` steps late), in
//! one process: tokens per second, the host time each dispatch takes to check, encode and
//! submit (and of it, the backend's checking and encoding before the submit: on a CPU
//! adapter the submit may run the kernels), and what a step creates (tensors, bind groups). Both must give the same tokens.
//!
//!     cargo run --release -p webnn-llm --example decode_loop -- [--tokens N] [--lag N] [--gpu-kernels] [--cpu]
//!
//! `--gpu-kernels` picks the kernels a hardware GPU gets on any adapter (on a CPU adapter
//! they are slower, but the dispatch counts and host costs are a GPU's); `--cpu` runs the
//! fast cpu backend instead (2 threads).

use std::time::Instant;
use webnn::Context;
use webnn_llm::gguf::Gguf;
use webnn_llm::model::Config;
use webnn_llm::session::Session;
use webnn_llm::tokenizer::Tokenizer;

/// The median of `times` in microseconds: the host's encoding on a 2-core machine whose
/// other core runs a CPU adapter's kernels has outliers of several milliseconds.
fn median_us<'a>(times: impl Iterator<Item = &'a std::time::Duration>) -> f64 {
    let mut t: Vec<f64> = times.map(|d| d.as_secs_f64() * 1e6).collect();
    t.sort_by(f64::total_cmp);
    t.get(t.len() / 2).copied().unwrap_or(0.0)
}

fn arg(args: &[String], name: &str) -> Option<usize> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse().ok())
}

struct Run {
    tokens: Vec<u32>,
    seconds: f64,
    host_us: f64,
    encode_us: f64,
    tensors_per_step: f64,
    bind_groups_per_step: Option<f64>,
}

fn context(args: &[String]) -> Result<Context, Box<dyn std::error::Error>> {
    if args.iter().any(|a| a == "--cpu") {
        return Ok(Context::fast(webnn_fast::FastBackend::new(2)));
    }
    let mut b = webnn_wgpu::WgpuBackend::new()?;
    if args.iter().any(|a| a == "--gpu-kernels") {
        b = b.tuned_for_gpu();
    }
    Ok(Context::wgpu(b))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let steps = arg(&args, "--tokens").unwrap_or(16);
    let lag = arg(&args, "--lag").unwrap_or(4);
    let gguf = Gguf::read(&webnn_llm::smollm2_path())?;
    let tokenizer = Tokenizer::from_gguf(&gguf)?;
    let prompt = tokenizer.encode(&tokenizer.chat_prompt("What is the capital of France?"), true);
    let config = Config::from_gguf(&gguf, 256, 64)?;
    let mut session = pollster::block_on(Session::new(context(&args)?, &gguf, config))?;
    println!("SmolLM2-135M on {}", session.ctx.device_name());

    // Both runs start from the prompt (not timed) in a warm session (every shape built once)
    // and time the decode steps only.
    let mut measure = |on_device: bool| -> Result<Run, Box<dyn std::error::Error>> {
        session.past = 0;
        let warm = pollster::block_on(session.generate(&prompt, 3, lag, None))?;
        assert!(!warm.is_empty());
        session.past = 0;
        let first = if on_device {
            session.prefill(&prompt)?;
            pollster::block_on(session.peek_token())?
        } else {
            pollster::block_on(session.feed_greedy(&prompt))?
        };
        let (tensors, host, dispatches) = (session.tensors_created, session.dispatch_time, session.dispatches);
        let groups = session.graph.stats().bind_groups;
        let start = Instant::now();
        let mut tokens = vec![first];
        if on_device {
            tokens = pollster::block_on(session.decode(steps, lag, None))?;
        } else {
            while tokens.len() < steps {
                tokens.push(pollster::block_on(session.feed_greedy(&tokens[tokens.len() - 1..]))?);
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        let n = (session.dispatches - dispatches) as f64;
        Ok(Run {
            tokens,
            seconds,
            host_us: (session.dispatch_time - host).as_secs_f64() * 1e6 / n,
            // The last n of the kept times (the session keeps a bounded number).
            encode_us: median_us(session.encode_times.range(session.encode_times.len().saturating_sub(n as usize)..)),
            tensors_per_step: (session.tensors_created - tensors) as f64 / n,
            bind_groups_per_step: session.graph.stats().bind_groups.zip(groups).map(|(a, b)| (a - b) as f64 / n),
        })
    };
    let waiting = measure(false)?;
    let resident = measure(true)?;
    let kernels = session.graph.dispatch_count().map_or("-".into(), |k| k.to_string());
    println!("{} tokens after a {}-token prompt (decode steps timed, the prompt not), {kernels} kernels per decode step:", steps, prompt.len());
    println!("| loop | tokens/s | host us per dispatch | of which encoding (median) | tensors created per step | bind groups made per step |");
    println!("|---|---|---|---|---|---|");
    for (name, r) in [("host reads each token", &waiting), (&*format!("tokens on the device, read {lag} steps late"), &resident)] {
        println!(
            "| {name} | {:.2} | {:.0} | {:.0} | {:.2} | {} |",
            (r.tokens.len() - 1) as f64 / r.seconds,
            r.host_us,
            r.encode_us,
            r.tensors_per_step,
            r.bind_groups_per_step.map_or("-".into(), |g| format!("{g:.2}"))
        );
    }
    println!("ratio: {:.2}x", waiting.seconds / resident.seconds);
    if waiting.tokens != resident.tokens {
        return Err(format!("the loops disagree: {:?} vs {:?}", waiting.tokens, resident.tokens).into());
    }
    println!("tokens: {:?} ({:?})", resident.tokens, tokenizer.decode(&resident.tokens));
    Ok(())
}
