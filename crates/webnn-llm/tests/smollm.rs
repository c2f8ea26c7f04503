//! SmolLM2 through WebNN: the decoder graph (primitive ops, flexible inputs, caches in place)
//! on wgpu and on the fast cpu backend (both fusing the quantized products and attention)
//! against the reference interpreter (every op unfused), and the whole model's known greedy
//! answer on the fast cpu backend and on ONNX Runtime.

use webnn::Context;
use webnn_llm::gguf::Gguf;
use webnn_llm::model::{CacheType, Config};
use webnn_llm::session::{argmax, Session};
use webnn_llm::tokenizer::Tokenizer;

/// The tests of this binary run at once in one process; on a 2-core machine the whole-model
/// tests' thread pools (the fast cpu's, ONNX Runtime's) oversubscribe the cores and take
/// longer together than one after the other, so each holds this while it runs. The 2-layer
/// tests, mostly the single-threaded reference interpreter, run beside them.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The model file, which scripts/llm-setup.sh installs (the README's commands run it).
fn model() -> Gguf {
    let path = webnn_llm::smollm2_path();
    Gguf::read(&path).unwrap_or_else(|e| panic!("{e}: run scripts/llm-setup.sh"))
}

/// The first `layers` layers (and the head): every op of the model at a size the reference
/// interpreter runs in seconds.
#[test]
fn truncated_model_on_wgpu_matches_cpu_step_by_step() {
    truncated_model(CacheType::Float32);
}

/// The same with float16 caches (narrowed and widened by casts the fused backends absorb).
#[test]
fn truncated_model_with_float16_caches_matches_cpu_step_by_step() {
    truncated_model(CacheType::Float16);
}

fn truncated_model(cache: CacheType) {
    let g = model();
    let tokenizer = Tokenizer::from_gguf(&g).unwrap();
    let prompt = tokenizer.encode(&tokenizer.chat_prompt("What is the capital of France?"), true);
    let config = Config { layers: 2, cache, ..Config::from_gguf(&g, 64, 16).unwrap() };
    let run = |ctx: Context| {
        let mut s = pollster::block_on(Session::new(ctx, &g, config)).unwrap();
        // The prompt in chunks of 16 (16, 16, 5 tokens), then decode steps.
        let mut logits = vec![pollster::block_on(s.feed(&prompt)).unwrap()];
        for _ in 0..4 {
            let next = argmax(logits.last().unwrap());
            logits.push(pollster::block_on(s.feed(&[next])).unwrap());
        }
        (logits, s.graph.stats().shapes_built)
    };
    let (cpu, _) = run(Context::reference());
    let (gpu, _) = run(Context::wgpu(webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter")));
    // The kernels a GPU gets (lanes splitting the gemvs' blocks, the norms in the gemvs, the
    // gate and up projections as one): the same kernels at every size, so the prompt's
    // chunks and the decode steps share one set of steps.
    let (tuned, sets) = run(Context::wgpu(webnn_wgpu::WgpuBackend::new().unwrap().tuned_for_gpu()));
    assert_eq!(sets, Some(1), "sets of steps built with the kernels a GPU gets");
    let (fast, _) = run(Context::fast(webnn_fast::FastBackend::new(2)));
    for (name, other) in [("wgpu", &gpu), ("wgpu tuned for a GPU", &tuned), ("fast cpu", &fast)] {
        let mut worst = 0f32;
        for (step, (a, b)) in cpu.iter().zip(other).enumerate() {
            assert_eq!(argmax(a), argmax(b), "{name}: greedy token at step {step}");
            for (x, y) in a.iter().zip(b) {
                worst = worst.max((x - y).abs());
            }
        }
        eprintln!("2-layer SmolLM2, {} caches: logits max |reference - {name}| = {worst:e} over {} steps", cache.name(), cpu.len());
        assert!(worst < 2e-2, "{name}: logits differ by {worst}");
    }
    // The token chosen on the device (argMax output, 4 bytes read) is the host's argmax.
    let ctx = Context::wgpu(webnn_wgpu::WgpuBackend::new().unwrap());
    let mut s = pollster::block_on(Session::new(ctx, &g, config)).unwrap();
    let mut next = pollster::block_on(s.feed_greedy(&prompt)).unwrap();
    for want in &cpu {
        assert_eq!(next, argmax(want));
        next = pollster::block_on(s.feed_greedy(&[next])).unwrap();
    }
}

/// The check recorded for this file: greedy decoding of the chat prompt answers
/// "The capital of France is Paris." and stops.
fn answers(ctx: Context) {
    let g = model();
    let tokenizer = Tokenizer::from_gguf(&g).unwrap();
    let prompt = tokenizer.encode(&tokenizer.chat_prompt("What is the capital of France?"), true);
    let mut s = pollster::block_on(Session::new(ctx, &g, Config::from_gguf(&g, 64, 64).unwrap())).unwrap();
    let mut logits = pollster::block_on(s.feed(&prompt)).unwrap();
    let mut out = Vec::new();
    while out.len() < 16 {
        let next = argmax(&logits);
        out.push(next);
        if next == tokenizer.eos {
            break;
        }
        logits = pollster::block_on(s.feed(&[next])).unwrap();
    }
    assert_eq!(tokenizer.decode(&out), "The capital of France is Paris.<|im_end|>");
}

#[test]
fn whole_model_answers_on_fast_cpu() {
    let _serial = one_at_a_time();
    answers(Context::fast(webnn_fast::FastBackend::new(2)));
}

#[cfg(feature = "ort")]
#[test]
fn whole_model_answers_on_onnx_runtime() {
    let _serial = one_at_a_time();
    let options = webnn::ContextOptions { backend: Some(webnn::BackendKind::Ort), ..Default::default() };
    answers(pollster::block_on(webnn::Ml.create_context(options)).unwrap());
}

/// The whole model, fused and unfused: ONNX Runtime on standard ONNX runs the graph op by op
/// (its own kernels for every primitive), the reference; the fast cpu backend and wgpu
/// (lavapipe) fuse the quantized products and attention; ONNX Runtime as the `ort` backend
/// runs the 4-bit products as its MatMulNBits. 64 greedy tokens on three prompts must be
/// identical, the logits close; the largest difference is reported. (The reference
/// interpreter and unfused wgpu run the same graph at a fifth of a token per second:
/// tests/smollm.rs's 2-layer test holds them to it.)
#[cfg(feature = "ort")]
#[test]
fn parity_64_tokens_on_onnx_runtime_fast_cpu_and_wgpu() {
    let _serial = one_at_a_time();
    let g = model();
    let tokenizer = Tokenizer::from_gguf(&g).unwrap();
    let config = Config::from_gguf(&g, 128, 64).unwrap();
    let questions = ["What is the capital of France?", "Write a haiku about the sea.", "List three uses of a graphics card."];
    // Greedy continuation (not stopping at the end of turn) and the logits at every step.
    let run = |ctx: Context, prompt: &[u32]| {
        let mut s = pollster::block_on(Session::new(ctx, &g, config)).unwrap();
        let mut logits = pollster::block_on(s.feed(prompt)).unwrap();
        let (mut tokens, mut rows) = (Vec::new(), Vec::new());
        for _ in 0..64 {
            let next = argmax(&logits);
            tokens.push(next);
            rows.push(std::mem::take(&mut logits));
            logits = pollster::block_on(s.feed(&[next])).unwrap();
        }
        (tokens, rows)
    };
    let op_by_op = Context::ort(webnn_ort::OrtBackend::new().unwrap().standard_onnx());
    let options = webnn::ContextOptions { backend: Some(webnn::BackendKind::Ort), ..Default::default() };
    let ort = pollster::block_on(webnn::Ml.create_context(options)).unwrap();
    let gpu = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter");
    for q in questions {
        let prompt = tokenizer.encode(&tokenizer.chat_prompt(q), true);
        let (want, want_rows) = run(op_by_op.clone(), &prompt);
        let fused = [
            ("fast cpu", Context::fast(webnn_fast::FastBackend::new(2))),
            ("wgpu", Context::wgpu(gpu.clone())),
            ("ONNX Runtime (MatMulNBits)", ort.clone()),
        ];
        for (name, ctx) in fused {
            let (got, rows) = run(ctx, &prompt);
            let worst = rows.iter().flatten().zip(want_rows.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            eprintln!("{q:?}: {name} vs ONNX Runtime op by op, 64 tokens identical: {}, logits max |diff| {worst:e}", got == want);
            assert_eq!(tokenizer.decode(&got), tokenizer.decode(&want), "{name} on {q:?}");
            assert!(worst < 5e-3, "{name} on {q:?}: logits differ by {worst}");
        }
    }
}
