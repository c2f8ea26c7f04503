//! What the chat page (`www/chat`) needs from Rust besides the polyfill: the GGUF reader, the
//! weights in the layouts WebNN constants take (`webnn_llm::weights`) and the tokenizer, as a
//! wasm module of their own. The page builds the decoder itself with `MLGraphBuilder`, as any
//! framework would.

use js_sys::{Float32Array, Object, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;
use webnn_llm::gguf::Gguf;
use webnn_llm::tokenizer::{StreamDecoder, Tokenizer};
use webnn_llm::weights::{self, Config};

fn error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

fn set(o: &Object, key: &str, value: &JsValue) -> Result<(), JsError> {
    Reflect::set(o, &key.into(), value).map(|_| ()).map_err(|_| JsError::new("Reflect.set"))
}

/// `{rows, cols, q, scale}` of a quantized matrix.
fn matrix(rows: u32, cols: u32, q: &[u8], scale: &[f32]) -> Result<Object, JsError> {
    let o = Object::new();
    set(&o, "rows", &rows.into())?;
    set(&o, "cols", &cols.into())?;
    set(&o, "q", &Uint8Array::from(q))?;
    set(&o, "scale", &Float32Array::from(scale))?;
    Ok(o)
}

/// An opened model file. `free()` it once the graph is built: it holds the whole file.
#[wasm_bindgen]
pub struct ModelFile {
    gguf: Gguf,
}

#[wasm_bindgen]
impl ModelFile {
    /// Parses a GGUF file's bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: Vec<u8>) -> Result<ModelFile, JsError> {
        Ok(ModelFile { gguf: Gguf::parse(bytes).map_err(error)? })
    }

    /// The hyperparameters as JSON (`layers`, `dim`, `hidden`, `heads`, `kvHeads`, `vocab`,
    /// `ropeBase`, `eps`, `capacity`, `maxSeq`, `headDim`, `kvDim`).
    pub fn config(&self, capacity: u32, max_seq: u32) -> Result<String, JsError> {
        let c = Config::from_gguf(&self.gguf, capacity, max_seq).map_err(error)?;
        Ok(serde_json::json!({
            "layers": c.layers, "dim": c.dim, "hidden": c.hidden, "heads": c.heads,
            "kvHeads": c.kv_heads, "vocab": c.vocab, "ropeBase": c.rope_base, "eps": c.eps,
            "capacity": c.capacity, "maxSeq": c.max_seq, "headDim": c.head_dim(), "kvDim": c.kv_dim(),
        })
        .to_string())
    }

    /// A Q4_1 matrix: `{rows, cols, q: Uint8Array (uint4, WebNN packing), scale, min:
    /// Float32Array per block of 32}`.
    #[wasm_bindgen(js_name = q4_1)]
    pub fn q4_1(&self, name: &str) -> Result<Object, JsError> {
        let w = weights::q4_1(&self.gguf, name).map_err(error)?;
        let o = matrix(w.rows, w.cols, &w.q, &w.scale)?;
        set(&o, "min", &Float32Array::from(&w.min[..]))?;
        Ok(o)
    }

    /// A Q8_0 matrix: `{rows, cols, q: Uint8Array (int8 bytes), scale: Float32Array per block
    /// of 32}`.
    #[wasm_bindgen(js_name = q8_0)]
    pub fn q8_0(&self, name: &str) -> Result<Object, JsError> {
        let w = weights::q8_0(&self.gguf, name).map_err(error)?;
        matrix(w.rows, w.cols, &w.q, &w.scale)
    }

    /// A float tensor (a norm's weight) as float32.
    pub fn floats(&self, name: &str) -> Result<Float32Array, JsError> {
        let t = self.gguf.tensor(name).map_err(error)?;
        Ok(Float32Array::from(&self.gguf.f32s(t)[..]))
    }

    /// `[cos, sin]` tables, `[capacity, headDim / 2]` each.
    #[wasm_bindgen(js_name = ropeTables)]
    pub fn rope_tables(&self, capacity: u32) -> Result<js_sys::Array, JsError> {
        let c = Config::from_gguf(&self.gguf, capacity, 1).map_err(error)?;
        let (cos, sin) = weights::rope_tables(&c);
        Ok(js_sys::Array::of2(&Float32Array::from(&cos[..]), &Float32Array::from(&sin[..])))
    }

    /// The file's tokenizer (it outlives the file).
    pub fn tokenizer(&self) -> Result<WebTokenizer, JsError> {
        Ok(WebTokenizer { inner: Tokenizer::from_gguf(&self.gguf).map_err(error)?, stream: StreamDecoder::new() })
    }
}

/// The model's byte-level BPE tokenizer.
#[wasm_bindgen(js_name = Tokenizer)]
pub struct WebTokenizer {
    inner: Tokenizer,
    stream: StreamDecoder,
}

#[wasm_bindgen(js_class = Tokenizer)]
impl WebTokenizer {
    /// Token ids of `text`, special tokens (`<|im_start|>`...) parsed.
    pub fn encode(&self, text: &str) -> Uint32Array {
        Uint32Array::from(&self.inner.encode(text, true)[..])
    }

    pub fn decode(&self, ids: &[u32]) -> String {
        self.inner.decode(ids)
    }

    /// The chat template around one user message (with the model's default system prompt).
    #[wasm_bindgen(js_name = chatPrompt)]
    pub fn chat_prompt(&self, user: &str) -> String {
        self.inner.chat_prompt(user)
    }

    /// The end-of-turn token.
    #[wasm_bindgen(getter)]
    pub fn eos(&self) -> u32 {
        self.inner.eos
    }

    /// Streaming: the text token `id` completes (a character split across tokens waits for
    /// its last byte). `finish()` ends the stream.
    pub fn push(&mut self, id: u32) -> String {
        self.stream.push(&self.inner, id)
    }

    /// What the stream still holds (an incomplete character, replaced), and a new stream.
    pub fn finish(&mut self) -> String {
        std::mem::replace(&mut self.stream, StreamDecoder::new()).finish()
    }
}
