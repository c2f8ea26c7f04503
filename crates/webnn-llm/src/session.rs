//! Runs the decoder graph through the `webnn` object model: the key/value caches are tensors
//! bound in place (never read back), each dispatch writes the new tokens, their positions and
//! the mask, and reads one row of logits.

use crate::model::{build_graph, cache_type, Config};
use crate::gguf::Gguf;
use std::collections::HashMap;
use webnn::{Context, DataType, Error, Graph, OperandDescriptor, Result, Tensor, TensorDescriptor};

pub struct Session {
    pub ctx: Context,
    pub graph: Graph,
    pub config: Config,
    caches: Vec<(String, Tensor)>,
    /// Input tensors by name and shape (decode steps reuse them).
    reused: HashMap<(String, Vec<u32>), Tensor>,
    /// Tokens in the caches.
    pub past: u32,
}

fn bytes_i32(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Session {
    pub async fn new(ctx: Context, gguf: &Gguf, config: Config) -> Result<Session> {
        let graph = ctx.compile(&build_graph(gguf, config)?).await?;
        let mut caches = Vec::new();
        for l in 0..config.layers {
            for kind in ["k", "v"] {
                let desc = OperandDescriptor::new(cache_type(config.cache), &[config.capacity, config.kv_dim()]);
                caches.push((format!("{kind}{l}"), ctx.create_tensor(TensorDescriptor::new(desc, true, true))?));
            }
        }
        Ok(Session { ctx, graph, config, caches, reused: HashMap::new(), past: 0 })
    }

    fn tensor(&mut self, name: &str, data_type: DataType, shape: &[u32], data: &[u8], keep: bool) -> Result<Tensor> {
        let key = (name.to_owned(), shape.to_vec());
        let t = match self.reused.get(&key) {
            Some(t) => t.clone(),
            None => {
                let desc = TensorDescriptor::new(OperandDescriptor::new(data_type, shape), true, true);
                let t = self.ctx.create_tensor(desc)?;
                if keep {
                    self.reused.insert(key, t.clone());
                }
                t
            }
        };
        self.ctx.write_tensor(&t, data)?;
        Ok(t)
    }

    /// Runs `tokens` after the cached ones (in chunks of at most `max_seq`); the logits of the
    /// last one.
    pub async fn feed(&mut self, tokens: &[u32]) -> Result<Vec<f32>> {
        let mut logits = Vec::new();
        for chunk in tokens.chunks(self.config.max_seq as usize) {
            logits = self.step(chunk, Read::Last).await?.0;
        }
        Ok(logits)
    }

    /// Runs `tokens` and returns the logits after each of them (teacher forcing).
    pub async fn feed_all(&mut self, tokens: &[u32]) -> Result<Vec<Vec<f32>>> {
        let mut rows = Vec::new();
        for chunk in tokens.chunks(self.config.max_seq as usize) {
            let logits = self.step(chunk, Read::All).await?.0;
            rows.extend(logits.chunks_exact(self.config.vocab as usize).map(<[f32]>::to_vec));
        }
        Ok(rows)
    }

    /// Runs `tokens` and returns the greedy next token, chosen on the device: only its 4
    /// bytes are read back.
    pub async fn feed_greedy(&mut self, tokens: &[u32]) -> Result<u32> {
        let mut next = 0;
        for chunk in tokens.chunks(self.config.max_seq as usize) {
            next = self.step(chunk, Read::Token).await?.1;
        }
        Ok(next)
    }

    /// One dispatch, reading back what `read` asks for.
    async fn step(&mut self, chunk: &[u32], read: Read) -> Result<(Vec<f32>, u32)> {
        let (seq, past) = (chunk.len() as u32, self.past);
        let total = past + seq;
        if seq == 0 || total > self.config.capacity {
            return Err(Error::type_error(format!("the context would hold {total} tokens, the caches {}", self.config.capacity)));
        }
        let mask: Vec<u8> = (0..seq).flat_map(|i| (0..total).map(move |j| u8::from(j <= past + i))).collect();
        let tok = self.tensor("tokens", DataType::Int32, &[seq], &bytes_i32(chunk.iter().map(|&t| t as i32)), true)?;
        let pos = self.tensor("positions", DataType::Int32, &[seq, 1], &bytes_i32((past..total).map(|p| p as i32)), true)?;
        let mask = self.tensor("mask", DataType::Uint8, &[seq, total], &mask, false)?;
        let picked: Vec<i32> = match read {
            Read::All => (0..seq as i32).collect(),
            Read::Last | Read::Token => vec![seq as i32 - 1],
        };
        let rows = picked.len() as u32;
        let last = self.tensor("last", DataType::Int32, &[rows], &bytes_i32(picked), true)?;
        let desc = OperandDescriptor::new(DataType::Float32, &[rows, self.config.vocab]);
        let logits = self.ctx.create_tensor(TensorDescriptor::new(desc, true, false))?;
        let next = self.ctx.create_tensor(TensorDescriptor::new(OperandDescriptor::new(DataType::Int32, &[rows]), true, false))?;
        let mut inputs: Vec<(&str, &Tensor)> = vec![("tokens", &tok), ("positions", &pos), ("mask", &mask), ("last", &last)];
        let outs: Vec<String> = self.caches.iter().map(|(n, _)| format!("{n}_out")).collect();
        let mut outputs: Vec<(&str, &Tensor)> = vec![("logits", &logits), ("next", &next)];
        for ((name, t), out) in self.caches.iter().zip(&outs) {
            inputs.push((name, t));
            outputs.push((out, t));
        }
        self.ctx.dispatch(&self.graph, &inputs, &outputs)?;
        self.past = total;
        if read != Read::Token {
            let bytes = self.ctx.read_tensor(&logits).await?;
            let values = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            return Ok((values, 0));
        }
        let id = self.ctx.read_tensor(&next).await?;
        Ok((Vec::new(), u32::from_le_bytes([id[0], id[1], id[2], id[3]])))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// The last token's logits.
    Last,
    /// Every token's logits.
    All,
    /// Only the greedy token of the last one.
    Token,
}

/// The index of the largest logit (the first on ties).
pub fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (i, v) in logits.iter().enumerate() {
        if *v > logits[best] {
            best = i;
        }
    }
    best as u32
}
