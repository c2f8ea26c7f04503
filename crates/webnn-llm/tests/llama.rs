//! Parity with llama.cpp (PyPI `llama-cpp-python`, which scripts/llm-setup.sh builds) on the
//! same GGUF: tokenization, teacher-forced top-1 agreement over 300+ positions, and greedy
//! continuations of 32 tokens on three prompts. The WebNN graph runs on the fast cpu backend
//! (its fused quantized products and attention) and, with the `ort` feature, on ONNX Runtime
//! (its 4-bit products as MatMulNBits, every other op as ONNX Runtime runs it); tests/smollm.rs holds wgpu to the reference
//! interpreter. llama.cpp rounds activations to 8 bits inside its quantized dot products, so
//! rare near-ties may part; the test reports where, and how far llama.cpp's own answers move
//! when it is fed token by token instead of in one batch.

use webnn_llm::gguf::Gguf;
use webnn_llm::model::Config;
use webnn_llm::session::{argmax, Session};
use webnn_llm::tokenizer::Tokenizer;

const QUESTIONS: [&str; 3] = [
    "What is the capital of France?",
    "Write a haiku about the sea.",
    "Explain in one sentence what a graphics card does.",
];

const TEACHER: &str = "The Web Neural Network API lets a web page build a graph of neural network \
operations and run it on the best hardware the machine has. A page creates a context, builds a graph \
with a builder, compiles it, and then dispatches it with tensors that live on the device. Each operation \
is validated when it is added, so errors name the operation and the rule that failed. The same graph can \
run on a graphics card through WebGPU, on the processor through a fast kernel library, or on a native \
runtime such as ONNX Runtime or Core ML. Small language models decode one token at a time: each step \
appends a row to the key and value caches, attends over every row so far, and picks the next token. \
Keeping the caches on the device and fusing the quantized matrix products is what makes this fast. \
In the garden behind the old library, children were planting tomatoes, beans and sunflowers, while \
their teacher explained how roots drink water and leaves turn sunlight into sugar. By the end of the \
summer the sunflowers were taller than the fence, and the beans had climbed all the way to the roof \
of the shed, where the birds waited for the seeds to ripen. The next morning a soft rain fell on \
the roof, and everyone stayed inside to read, draw maps of the garden and write down what they had \
seen.";

fn llama_cpp(request: &serde_json::Value) -> serde_json::Value {
    let site = std::env::var("WEBNN_LLAMA_SITE").unwrap_or_else(|_| {
        format!("{}/.cache/webnn-rs/llama/site", std::env::var("HOME").unwrap_or_default())
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/llama_reference.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .env("PYTHONPATH", &site)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(request.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "llama-cpp-python failed (run scripts/llm-setup.sh): {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

#[test]
fn matches_llama_cpp_on_fast_cpu() {
    matches_llama_cpp(webnn::Context::fast(webnn_fast::FastBackend::new(2)));
}

#[cfg(feature = "ort")]
#[test]
fn matches_llama_cpp_on_onnx_runtime() {
    let options = webnn::ContextOptions { backend: Some(webnn::BackendKind::Ort), ..Default::default() };
    matches_llama_cpp(pollster::block_on(webnn::Ml.create_context(options)).unwrap());
}

fn matches_llama_cpp(ctx: webnn::Context) {
    eprintln!("on {}", ctx.device_name());
    let path = webnn_llm::smollm2_path();
    let g = Gguf::read(&path).unwrap_or_else(|e| panic!("{e}: run scripts/llm-setup.sh"));
    let tokenizer = Tokenizer::from_gguf(&g).unwrap();
    let prompts: Vec<String> = QUESTIONS.iter().map(|q| tokenizer.chat_prompt(q)).collect();
    let request = serde_json::json!({
        "model": path, "prompts": prompts, "teacher": TEACHER, "greedy": 32,
    });
    let reference = llama_cpp(&request);
    let config = Config::from_gguf(&g, 512, 64).unwrap();
    let mut session = pollster::block_on(Session::new(ctx, &g, config)).unwrap();

    // Tokenization.
    for (k, p) in prompts.iter().enumerate() {
        assert_eq!(tokenizer.encode(p, true), ids(&reference["prompts"][k]["tokens"]), "prompt {k}");
    }
    let teacher = ids(&reference["teacher"]["tokens"]);
    assert_eq!(tokenizer.encode(TEACHER, true), teacher, "the teacher text");
    assert!(teacher.len() >= 256, "{} positions", teacher.len());

    // llama.cpp against itself: fed one token at a time instead of in one batch, only its
    // kernels' summation orders change, which its 8-bit activation rounding can amplify.
    let want = ids(&reference["teacher"]["top1"]);
    let stepwise = ids(&reference["teacher"]["top1_stepwise"]);
    let moved = (0..teacher.len()).filter(|&i| stepwise[i] != want[i]).count();
    // Where each stepwise continuation parts from the batched one (None: identical).
    let parts: Vec<Option<usize>> = (0..3)
        .map(|k| {
            let (a, b) = (ids(&reference["prompts"][k]["greedy_stepwise"]), ids(&reference["prompts"][k]["greedy"]));
            a.iter().zip(&b).position(|(x, y)| x != y).or((a.len() != b.len()).then_some(a.len().min(b.len())))
        })
        .collect();
    eprintln!(
        "llama.cpp fed token by token against llama.cpp batched: teacher-forced top-1 {:.2}% over {} positions; greedy continuations identical {} of 3 (parting at tokens {parts:?})",
        100.0 * (1.0 - moved as f64 / teacher.len() as f64),
        teacher.len(),
        parts.iter().filter(|p| p.is_none()).count()
    );

    // Teacher-forced top-1.
    session.past = 0;
    let rows = pollster::block_on(session.feed_all(&teacher)).unwrap();
    let differ: Vec<usize> = (0..teacher.len()).filter(|&i| argmax(&rows[i]) != want[i]).collect();
    let agreement = 1.0 - differ.len() as f64 / teacher.len() as f64;
    let mut near_ties = true;
    eprintln!("teacher-forced top-1 agreement with llama.cpp: {:.2}% over {} positions", 100.0 * agreement, teacher.len());
    for &i in &differ {
        // How near a tie it is on our side: our top logit against llama.cpp's choice.
        let ours = argmax(&rows[i]);
        let gap = rows[i][ours as usize] - rows[i][want[i] as usize];
        // And on llama.cpp's side, from its five best.
        let top5 = reference["teacher"]["top5"][i].as_array().unwrap();
        let logit = |t: u32| top5.iter().find(|e| e[0].as_u64() == Some(t as u64)).and_then(|e| e[1].as_f64());
        let theirs = logit(want[i]).zip(logit(ours)).map(|(a, b)| a - b);
        eprintln!(
            "  position {i}: ours {:?}, llama.cpp {:?}; logit gap ours {gap:.4}, llama.cpp's {}",
            tokenizer.decode(&[ours]),
            tokenizer.decode(&[want[i]]),
            theirs.map_or("(not in its top 5)".into(), |g| format!("{g:.4}"))
        );
        near_ties &= gap < 0.25 && theirs.is_some_and(|g| g < 0.25);
    }
    // The goal is 99%. llama.cpp rounds activations to 8 bits inside its quantized dot
    // products (ggml's Q8_1), which can flip near-ties; a position counts against us only if
    // either side's margin between the two tokens is a quarter of a logit or more.
    assert!(agreement >= 0.99 || (agreement >= 0.98 && near_ties), "{differ:?}");

    // Greedy continuations.
    let (mut same, mut partings) = (0, Vec::new());
    for (k, p) in prompts.iter().enumerate() {
        let mut s = pollster::block_on(Session::new(session.ctx.clone(), &g, config)).unwrap();
        let mut next = pollster::block_on(s.feed_greedy(&tokenizer.encode(p, true))).unwrap();
        let mut ours = Vec::new();
        for _ in 0..32 {
            ours.push(next);
            if next == tokenizer.eos {
                break;
            }
            next = pollster::block_on(s.feed_greedy(&[next])).unwrap();
        }
        let theirs = ids(&reference["prompts"][k]["greedy"]);
        let part = ours.iter().zip(&theirs).position(|(a, b)| a != b);
        let note = match part {
            None if ours == theirs => "= llama.cpp".to_owned(),
            None => format!("(llama.cpp: {:?})", tokenizer.decode(&theirs)),
            Some(i) => {
                // Where they part, how far our token is from llama.cpp's choice in its logits.
                let top5 = reference["prompts"][k]["top5"][i].as_array().unwrap();
                let logit = |t: u32| top5.iter().find(|e| e[0].as_u64() == Some(t as u64)).and_then(|e| e[1].as_f64());
                let gap = logit(theirs[i]).zip(logit(ours[i])).map(|(a, b)| a - b);
                partings.push(gap);
                format!(
                    "parts at token {i} (llama.cpp's logit gap {}): llama.cpp {:?}",
                    gap.map_or("beyond its top 5".into(), |g| format!("{g:.4}")),
                    tokenizer.decode(&theirs)
                )
            }
        };
        eprintln!("prompt {k}: {:?} {note}", tokenizer.decode(&ours));
        same += usize::from(ours == theirs);
    }
    eprintln!("greedy continuations equal to llama.cpp's: {same} of 3");
    // The goal is 2 of 3 identical; a continuation may part only where llama.cpp's own
    // logits for the two tokens are within a quarter of a logit (a near-tie its 8-bit
    // activations can flip).
    assert!(same >= 2 || partings.iter().all(|g| g.is_some_and(|g| g < 0.25)), "{partings:?}");
}
