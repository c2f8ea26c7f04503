//! The model's hyperparameters and its weights in the layouts WebNN constants take, from the
//! GGUF file: what any graph builder needs (the Rust one in `model`, the chat page's
//! JavaScript one through webnn-llm-web), with no WebNN types.

use crate::gguf::{Gguf, GgufError, TensorType};

/// The hyperparameters the graph needs, from the GGUF metadata.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub layers: u32,
    pub dim: u32,
    pub hidden: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub vocab: u32,
    pub rope_base: f64,
    pub eps: f64,
    /// Rows of each key/value cache (the longest context a graph serves).
    pub capacity: u32,
    /// The most tokens one dispatch takes.
    pub max_seq: u32,
    /// The caches' element type: float32, or float16 (as llama.cpp keeps them: half the
    /// bytes each decode step reads; keys and values are rounded to float16 when stored).
    pub cache: CacheType,
}

/// The element type of the key/value caches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheType {
    Float32,
    Float16,
}

impl CacheType {
    /// The WebNN data type's name.
    pub fn name(self) -> &'static str {
        match self {
            CacheType::Float32 => "float32",
            CacheType::Float16 => "float16",
        }
    }

    /// From the tools' `--cache` values: `f32` or `f16`.
    pub fn parse(s: &str) -> Option<CacheType> {
        match s {
            "f32" => Some(CacheType::Float32),
            "f16" => Some(CacheType::Float16),
            _ => None,
        }
    }
}

impl Config {
    pub fn from_gguf(g: &Gguf, capacity: u32, max_seq: u32) -> Result<Config, GgufError> {
        let arch = g.get("general.architecture").and_then(|v| v.as_str()).unwrap_or("llama").to_owned();
        let key = |k: &str| format!("{arch}.{k}");
        let vocab = g.strings("tokenizer.ggml.tokens")?.len() as u32;
        Ok(Config {
            layers: g.u64(&key("block_count"))? as u32,
            dim: g.u64(&key("embedding_length"))? as u32,
            hidden: g.u64(&key("feed_forward_length"))? as u32,
            heads: g.u64(&key("attention.head_count"))? as u32,
            kv_heads: g.u64(&key("attention.head_count_kv"))? as u32,
            vocab,
            rope_base: g.f64(&key("rope.freq_base")).unwrap_or(10_000.0),
            eps: g.f64(&key("attention.layer_norm_rms_epsilon"))?,
            capacity,
            max_seq: max_seq.min(capacity),
            cache: CacheType::Float32,
        })
    }
    pub fn head_dim(&self) -> u32 {
        self.dim / self.heads
    }
    pub fn kv_dim(&self) -> u32 {
        self.kv_heads * self.head_dim()
    }
}


/// A Q4_1 matrix `[rows, cols]` (GGUF dims `[cols, rows]`): uint4 values packed as WebNN
/// packs them (element 2i in the low nibble of byte i), and per block of 32 along a row its
/// scale `d` and minimum `m` (the weight is `q·d + m`).
pub struct Q4_1 {
    pub rows: u32,
    pub cols: u32,
    pub q: Vec<u8>,
    pub scale: Vec<f32>,
    pub min: Vec<f32>,
}

fn f16(bytes: &[u8], at: usize) -> f32 {
    half::f16::from_le_bytes([bytes[at], bytes[at + 1]]).to_f32()
}

pub fn q4_1(g: &Gguf, name: &str) -> Result<Q4_1, GgufError> {
    let t = g.tensor(name)?;
    if t.kind != TensorType::Q4_1 || t.dims.len() != 2 {
        return Err(GgufError(format!("{name}: expected a 2-D Q4_1 tensor, got {:?} {:?}", t.kind, t.dims)));
    }
    let (cols, rows) = (t.dims[0] as u32, t.dims[1] as u32);
    let bytes = g.bytes(t);
    let count = (rows * (cols / 32)) as usize;
    let mut w = Q4_1 { rows, cols, q: Vec::with_capacity(count * 16), scale: Vec::with_capacity(count), min: Vec::with_capacity(count) };
    for k in 0..count {
        let at = 20 * k;
        w.scale.push(f16(bytes, at));
        w.min.push(f16(bytes, at + 2));
        // GGUF keeps elements 0..16 in the low nibbles and 16..32 in the high ones.
        let qs = &bytes[at + 4..at + 20];
        let element = |e: usize| if e < 16 { qs[e] & 15 } else { qs[e - 16] >> 4 };
        for i in 0..16 {
            w.q.push(element(2 * i) | (element(2 * i + 1) << 4));
        }
    }
    Ok(w)
}

/// A Q8_0 matrix `[rows, cols]`: int8 values and a scale per block of 32 along a row.
pub struct Q8_0 {
    pub rows: u32,
    pub cols: u32,
    pub q: Vec<u8>,
    pub scale: Vec<f32>,
}

pub fn q8_0(g: &Gguf, name: &str) -> Result<Q8_0, GgufError> {
    let t = g.tensor(name)?;
    if t.kind != TensorType::Q8_0 || t.dims.len() != 2 {
        return Err(GgufError(format!("{name}: expected a 2-D Q8_0 tensor")));
    }
    let (cols, rows) = (t.dims[0] as u32, t.dims[1] as u32);
    let bytes = g.bytes(t);
    let count = (rows * (cols / 32)) as usize;
    let mut w = Q8_0 { rows, cols, q: Vec::with_capacity(count * 32), scale: Vec::with_capacity(count) };
    for k in 0..count {
        w.scale.push(f16(bytes, 34 * k));
        w.q.extend_from_slice(&bytes[34 * k + 2..34 * k + 34]);
    }
    Ok(w)
}

/// cos and sin of `position · base^(-2i/head_dim)`, `[capacity, head_dim / 2]` row-major.
pub fn rope_tables(c: &Config) -> (Vec<f32>, Vec<f32>) {
    let (hd, half) = (c.head_dim(), c.head_dim() / 2);
    let mut cos = Vec::with_capacity((c.capacity * half) as usize);
    let mut sin = Vec::with_capacity(cos.capacity());
    for p in 0..c.capacity {
        for i in 0..half {
            let angle = p as f64 * c.rope_base.powf(-2.0 * i as f64 / hd as f64);
            cos.push(angle.cos() as f32);
            sin.push(angle.sin() as f32);
        }
    }
    (cos, sin)
}
