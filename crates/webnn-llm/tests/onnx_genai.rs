//! SmolLM2 as an ONNX Runtime GenAI-style ONNX model (tests/genai_export.py writes it from the
//! GGUF with the `onnx` package: GatherBlockQuantized, SimplifiedLayerNormalization and its
//! skip form, MatMulNBits with float zero points, GroupQueryAttention with its rotary
//! embedding), imported into WebNN by webnn-onnx and run on the fast cpu backend. Greedy
//! decoding of the chat prompt must give the GGUF path's tokens (webnn-llm's own graph), and,
//! with the `ort` feature, ONNX Runtime running the same file with its own contrib kernels
//! must give them too.
//!
//! The model is imported twice, as a GenAI runtime would bind it: a prompt graph
//! (`sequence_length` the prompt's length) and a decode graph (`sequence_length` 1), both
//! over a cache of `CAPACITY` rows (`past_sequence_length = total_sequence_length`: the
//! shared-buffer form, each step's present becoming the next step's past).

use webnn::onnx::{self, ImportOptions};
use webnn::{DataType, OperandDescriptor};
use webnn_core::{Backend, Executable, HostTensor};
use webnn_llm::gguf::Gguf;
use webnn_llm::model::Config;
use webnn_llm::session::{argmax, Session};
use webnn_llm::tokenizer::Tokenizer;

const CAPACITY: u32 = 64;

/// The GenAI-style file, written once per process into the temporary directory.
fn exported() -> &'static std::path::Path {
    static FILE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let home = std::env::var("HOME").unwrap_or_default();
        let site = |var: &str, dir: &str| std::env::var(var).unwrap_or_else(|_| format!("{home}/.cache/webnn-rs/{dir}"));
        let path = std::env::temp_dir().join(format!("webnn-llm-genai-{}.onnx", std::process::id()));
        let out = std::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/genai_export.py"))
            .arg(webnn_llm::smollm2_path())
            .arg(&path)
            .arg(CAPACITY.to_string())
            .env("PYTHONPATH", format!("{}:{}", site("WEBNN_LLAMA_ONNX_SITE", "llama/onnx-site"), site("WEBNN_LLAMA_SITE", "llama/site")))
            .output()
            .expect("python3");
        assert!(out.status.success(), "genai_export.py failed (run scripts/llm-setup.sh): {}", String::from_utf8_lossy(&out.stderr));
        path
    })
}

/// The prompt graph (`seq` tokens) or the decode graph (1 token).
fn import(seq: usize) -> webnn_core::Graph {
    let dims = format!("batch_size=1,sequence_length={seq},past_sequence_length={CAPACITY},total_sequence_length={CAPACITY}");
    let options = ImportOptions::default().with_dims(&dims).unwrap();
    onnx::import_file(exported(), &options).unwrap_or_else(|e| panic!("importing the GenAI-style model: {e}")).graph
}

fn int64(shape: &[u32], v: &[i64]) -> HostTensor {
    HostTensor { desc: OperandDescriptor::new(DataType::Int64, shape), bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() }
}

fn floats(t: &HostTensor) -> Vec<f32> {
    t.bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// A GenAI-style decoding loop over two executables: the caches carried from each step's
/// presents to the next step's pasts.
struct GenAi {
    prompt: Box<dyn Executable>,
    step: Box<dyn Executable>,
    caches: Vec<(String, HostTensor)>,
    len: usize,
}

impl GenAi {
    fn new(prompt: Box<dyn Executable>, step: Box<dyn Executable>, graph: &webnn_core::Graph) -> GenAi {
        let caches = graph
            .inputs
            .iter()
            .filter(|(n, _)| n.starts_with("past_key_values."))
            .map(|(n, o)| {
                let desc = graph.desc(*o).clone();
                let bytes = vec![0; desc.max_byte_length().unwrap() as usize];
                (n.clone(), HostTensor { desc, bytes })
            })
            .collect();
        GenAi { prompt, step, caches, len: 0 }
    }

    /// Feeds `tokens`; the logits after the last one.
    fn feed(&mut self, tokens: &[u32]) -> Vec<f32> {
        let ids = int64(&[1, tokens.len() as u32], &tokens.iter().map(|&t| t as i64).collect::<Vec<_>>());
        self.len += tokens.len();
        let mask: Vec<i64> = (0..CAPACITY as usize).map(|i| (i < self.len) as i64).collect();
        let mask = int64(&[1, CAPACITY], &mask);
        let mut inputs: Vec<(&str, &HostTensor)> = vec![("input_ids", &ids), ("attention_mask", &mask)];
        inputs.extend(self.caches.iter().map(|(n, t)| (n.as_str(), t)));
        let exe = if tokens.len() == 1 { &mut self.step } else { &mut self.prompt };
        let outputs = exe.dispatch(&inputs).unwrap();
        let mut logits = Vec::new();
        for (name, t) in outputs {
            match name.strip_prefix("present.") {
                Some(rest) => {
                    let past = format!("past_key_values.{rest}");
                    self.caches.iter_mut().find(|(n, _)| *n == past).expect("a past for every present").1 = t;
                }
                None if name == "logits" => logits = floats(&t),
                None => panic!("unexpected output {name}"),
            }
        }
        let vocab = logits.len() / tokens.len();
        logits[logits.len() - vocab..].to_vec()
    }

    /// Greedy decoding after `prompt` until `eos` or `max` tokens; the tokens and the first
    /// step's logits.
    fn greedy(&mut self, prompt: &[u32], eos: u32, max: usize) -> (Vec<u32>, Vec<f32>) {
        let first = self.feed(prompt);
        let (mut out, mut logits) = (Vec::new(), first.clone());
        while out.len() < max {
            let next = argmax(&logits);
            out.push(next);
            if next == eos {
                break;
            }
            logits = self.feed(&[next]);
        }
        (out, first)
    }
}

#[test]
fn genai_style_onnx_model_decodes_as_the_gguf() {
    let path = webnn_llm::smollm2_path();
    let g = Gguf::read(&path).unwrap_or_else(|e| panic!("{e}: run scripts/llm-setup.sh"));
    let tokenizer = Tokenizer::from_gguf(&g).unwrap();
    let prompt = tokenizer.encode(&tokenizer.chat_prompt("What is the capital of France?"), true);

    // The GGUF path: webnn-llm's graph on the fast cpu backend.
    let ctx = webnn::Context::fast(webnn_fast::FastBackend::new(2));
    let mut s = pollster::block_on(Session::new(ctx, &g, Config::from_gguf(&g, CAPACITY, CAPACITY).unwrap())).unwrap();
    let mut want = Vec::new();
    let mut gguf_first = pollster::block_on(s.feed(&prompt)).unwrap();
    let first_gguf = gguf_first.clone();
    while want.len() < 16 {
        let next = argmax(&gguf_first);
        want.push(next);
        if next == tokenizer.eos {
            break;
        }
        gguf_first = pollster::block_on(s.feed(&[next])).unwrap();
    }
    assert_eq!(tokenizer.decode(&want), "The capital of France is Paris.<|im_end|>");

    let (prompt_graph, step_graph) = (import(prompt.len()), import(1));
    let fast = webnn::FastBackend::new(2);
    let mut ours = GenAi::new(fast.compile(&prompt_graph).unwrap(), fast.compile(&step_graph).unwrap(), &step_graph);
    let (tokens, first) = ours.greedy(&prompt, tokenizer.eos, 16);
    let diff = first.iter().zip(&first_gguf).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    eprintln!("imported GenAI-style model on the fast cpu: {:?}; first logits max |diff| against the GGUF graph {diff:.2e}", tokenizer.decode(&tokens));
    assert_eq!(tokens, want, "the imported model's greedy tokens");
    assert!(diff < 1e-2, "logits differ from the GGUF graph's by {diff}");

    #[cfg(feature = "ort")]
    {
        let model = onnx::decode_model(&std::fs::read(exported()).unwrap()).unwrap();
        let ort = webnn_ort::OrtBackend::new().unwrap().standard_onnx();
        let compile = |graph: &webnn_core::Graph| ort.compile_model(&onnx::reference_model(&model, graph)).unwrap();
        let mut theirs = GenAi::new(compile(&prompt_graph), compile(&step_graph), &step_graph);
        let (tokens, ort_first) = theirs.greedy(&prompt, tokenizer.eos, 16);
        let diff = ort_first.iter().zip(&first).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        eprintln!("ONNX Runtime on the same file (its contrib kernels): {:?}; first logits max |diff| against ours {diff:.2e}", tokenizer.decode(&tokens));
        assert_eq!(tokens, want, "ONNX Runtime's greedy tokens on the file");
        assert!(diff < 1e-2, "ONNX Runtime's logits differ from ours by {diff}");
    }
}

/// The fused kernels' patterns in both graphs: each matches every product (the head too),
/// norm, rotary embedding and attention (the imported one's caches head-major).
#[test]
fn fused_patterns_in_both_graphs() {
    use webnn_core::fusion::{attentions, quantized_linears, rms_norms, ropes};
    let g = Gguf::read(&webnn_llm::smollm2_path()).unwrap_or_else(|e| panic!("{e}: run scripts/llm-setup.sh"));
    let config = Config::from_gguf(&g, CAPACITY, 16).unwrap();
    let layers = config.layers as usize;
    let ours = webnn_llm::model::build_graph(&g, config).unwrap();
    let counts = |graph: &webnn_core::Graph| (quantized_linears(graph).len(), rms_norms(graph).len(), ropes(graph).len(), attentions(graph).len());
    assert_eq!(counts(&ours), (7 * layers + 1, 2 * layers + 1, 2 * layers, layers), "webnn-llm's graph: products (the head too), norms, ropes, attentions");
    let imported = import(1);
    assert_eq!(counts(&imported), (7 * layers + 1, 2 * layers + 1, 2 * layers, layers), "the imported graph: products, norms, ropes, attentions");
}
