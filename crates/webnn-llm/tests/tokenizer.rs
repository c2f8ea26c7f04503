//! The SmolLM2 tokenizer against reference ids.
//!
//! `tokenizer_cases.json` was written by `make_tokenizer_cases.py` with Hugging Face's
//! `tokenizers` (the PyPI wheel), built from this GGUF's vocabulary and merges with SmolLM2's
//! pre-tokenizer (individual digits, then byte-level GPT-2 splitting) and its control tokens as
//! special tokens: an implementation independent of this one. llama.cpp itself, whose behaviour
//! `tokenizer.rs` follows, has no wheel on PyPI to produce them with.
//!
//! `WEBNN_TOKENIZER_CASES=path.json` adds more cases of the same form.

use std::sync::OnceLock;

use webnn_llm::gguf::Gguf;
use webnn_llm::tokenizer::{StreamDecoder, Tokenizer};

const CASES: &str = include_str!("tokenizer_cases.json");

fn tokenizer() -> Option<&'static Tokenizer> {
    static T: OnceLock<Option<Tokenizer>> = OnceLock::new();
    T.get_or_init(|| {
        let path = webnn_llm::smollm2_path();
        if !path.exists() {
            println!("SKIPPED: {} is absent (scripts/llm-setup.sh installs it)", path.display());
            return None;
        }
        let g = Gguf::read(&path).expect("read the GGUF");
        Some(Tokenizer::from_gguf(&g).expect("tokenizer from the GGUF"))
    })
    .as_ref()
}

struct Case {
    prompt: String,
    parse_special: bool,
    round_trips: bool,
    ids: Vec<u32>,
}

fn cases(text: &str) -> Vec<Case> {
    let v: serde_json::Value = serde_json::from_str(text).expect("cases JSON");
    v.as_array()
        .expect("an array of cases")
        .iter()
        .map(|c| Case {
            prompt: c["prompt"].as_str().expect("prompt").to_owned(),
            parse_special: c["parse_special"].as_bool().unwrap_or(true),
            round_trips: c["round_trips"].as_bool().unwrap_or(true),
            ids: c["ids"].as_array().expect("ids").iter().map(|i| i.as_u64().expect("an id") as u32).collect(),
        })
        .collect()
}

fn all_cases() -> Vec<Case> {
    let mut all = cases(CASES);
    if let Some(extra) = std::env::var_os("WEBNN_TOKENIZER_CASES") {
        all.extend(cases(&std::fs::read_to_string(extra).expect("read WEBNN_TOKENIZER_CASES")));
    }
    all
}

#[test]
fn encode_matches_reference_ids() {
    let Some(t) = tokenizer() else { return };
    let all = all_cases();
    assert!(all.len() >= 15);
    let mut wrong = Vec::new();
    for c in &all {
        let ids = t.encode(&c.prompt, c.parse_special);
        if ids != c.ids {
            wrong.push(format!("{:?} (parse_special {}):\n  got  {ids:?}\n  want {:?}", c.prompt, c.parse_special, c.ids));
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases differ:\n{}", wrong.len(), all.len(), wrong.join("\n"));
}

#[test]
fn decode_inverts_encode() {
    let Some(t) = tokenizer() else { return };
    for c in all_cases() {
        let ids = t.encode(&c.prompt, c.parse_special);
        if c.round_trips {
            assert_eq!(t.decode(&ids), c.prompt);
        }
        // Token by token, with characters cut between tokens held back.
        let mut stream = StreamDecoder::new();
        let mut text: String = ids.iter().map(|&id| stream.push(t, id)).collect();
        text += &stream.finish();
        assert_eq!(text, t.decode(&ids), "streamed {:?}", c.prompt);
    }
}

#[test]
fn special_tokens() {
    let Some(t) = tokenizer() else { return };
    assert_eq!((t.bos, t.eos, t.pad, t.unk), (1, 2, Some(2), Some(0)));
    assert!(!t.add_bos);
    assert_eq!(t.vocab_size(), 49152);
    assert_eq!(t.encode("<|im_start|>", true), [1]);
    assert_eq!(t.encode("<|im_end|>", true), [2]);
    assert_eq!(t.encode("<|endoftext|><|im_start|>user", true), [0, 1, 4093]);
    // Without parse_special they are spelled out.
    let spelled = t.encode("<|im_start|>", false);
    assert!(spelled.len() > 1 && !spelled.contains(&1), "{spelled:?}");
    assert_eq!(t.decode(&spelled), "<|im_start|>");
    assert!(t.is_control(2) && !t.is_control(4093));
    assert_eq!(t.decode_piece(2), b"<|im_end|>");
    assert_eq!(t.token(260), Some("Ġthe"));
    assert_eq!(t.decode_piece(260), b" the");
}

#[test]
fn chat_prompt_renders_the_template() {
    let Some(t) = tokenizer() else { return };
    let template = t.chat_template().expect("a chat template");
    assert!(template.contains("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"));
    assert_eq!(t.default_system(), Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face"));
    let prompt = t.chat_prompt("What is the capital of France?");
    assert_eq!(
        prompt,
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
         <|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
    );
    // The fixture holds this prompt's reference ids.
    let reference = cases(CASES).into_iter().find(|c| c.prompt == prompt && c.parse_special).expect("the chat case");
    assert_eq!(t.encode(&prompt, true), reference.ids);
    assert_eq!(t.chat_prompt_with_system(None, "hi"), "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
}

#[test]
fn pieces_of_the_pre_tokenizer() {
    let Some(t) = tokenizer() else { return };
    let split = |s: &'static str| {
        let mut out = Vec::new();
        t.pre_tokenize(s, &mut out);
        out
    };
    assert_eq!(split("Hello world"), ["Hello", " world"]);
    assert_eq!(split("a   b"), ["a", "  ", " b"]);
    assert_eq!(split("x \n\ty  "), ["x", " \n", "\t", "y", "  "]);
    assert_eq!(split("it's 2024!"), ["it", "'s", " ", "2", "0", "2", "4", "!"]);
    assert_eq!(split("हिन्दी"), ["ह", "ि", "न", "्", "द", "ी"]);
    // A byte without a token (0x04) is dropped but parts its neighbours, as in llama.cpp
    // (HF's tokenizers gives `..`, 950, merging across it).
    assert_eq!(t.encode(".\x04.", true), [30, 30]);
    assert_eq!(t.encode("x\x04y", true), [104, 105]);
}
