//! Runs the decoder graph through the `webnn` object model: the key/value caches are tensors
//! bound in place (never read back), each dispatch writes the new tokens' positions, and the
//! tensors a step binds are made once and reused, so a decode step creates nothing.
//!
//! [`Session::generate`] keeps the tokens on the device as well: the argMax output tensor of
//! one step is the tokens input of the next, and the host reads the tokens back a few steps
//! late, so it encodes and submits the next step while the device runs the current one.

use crate::gguf::Gguf;
use crate::model::{build_graph, cache_type, Config};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};
use webnn::{Context, DataType, Error, Graph, OperandDescriptor, Result, Tensor, TensorDescriptor};

pub struct Session {
    pub ctx: Context,
    pub graph: Graph,
    pub config: Config,
    caches: Vec<(String, Tensor)>,
    /// Tensors by name and shape, made on first use and reused by later steps.
    reused: HashMap<(String, Vec<u32>), Tensor>,
    /// Tokens in the caches.
    pub past: u32,
    /// Tensors this session has created, and the host time spent in `dispatch` (checking the
    /// bindings, encoding and submitting), over `dispatches` dispatches: what a step costs
    /// the host besides waiting.
    pub tensors_created: u64,
    pub dispatch_time: Duration,
    pub dispatches: u64,
    /// Of `dispatch_time`, the backend's own host work before it submits: checking,
    /// picking the sizes and recording the kernels (WebGPU, natively; zero elsewhere).
    pub encode_time: Duration,
    /// `encode_time` of the last `ENCODE_TIMES_KEPT` dispatches, oldest first (their median
    /// says more than the mean where the host is noisy).
    pub encode_times: std::collections::VecDeque<Duration>,
}

/// Dispatches whose encoding times a session keeps (`Session::encode_times`).
pub const ENCODE_TIMES_KEPT: usize = 1024;

fn bytes_i32(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn token_of(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
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
        let tensors_created = caches.len() as u64;
        Ok(Session {
            ctx,
            graph,
            config,
            caches,
            reused: HashMap::new(),
            past: 0,
            tensors_created,
            dispatch_time: Duration::ZERO,
            encode_time: Duration::ZERO,
            encode_times: std::collections::VecDeque::new(),
            dispatches: 0,
        })
    }

    /// The tensor `name` of this shape, made on first use; `data` written when given.
    fn tensor(&mut self, name: &str, data_type: DataType, shape: &[u32], data: Option<&[u8]>) -> Result<Tensor> {
        let key = (name.to_owned(), shape.to_vec());
        let t = match self.reused.get(&key) {
            Some(t) => t.clone(),
            None => {
                let desc = TensorDescriptor::new(OperandDescriptor::new(data_type, shape), true, true);
                let t = self.ctx.create_tensor(desc)?;
                self.tensors_created += 1;
                self.reused.insert(key, t.clone());
                t
            }
        };
        if let Some(d) = data {
            self.ctx.write_tensor(&t, d)?;
        }
        Ok(t)
    }

    /// The causal mask of `seq` new tokens after `total - seq` cached ones. Decode steps'
    /// masks (one row) are kept, one per length, and written once; a prompt chunk's is
    /// written each time.
    fn mask(&mut self, seq: u32, total: u32) -> Result<Tensor> {
        let past = total - seq;
        let rows: Vec<u8> = (0..seq).flat_map(|i| (0..total).map(move |j| u8::from(j <= past + i))).collect();
        let key = ("mask".to_owned(), vec![seq, total]);
        if seq == 1 {
            if let Some(t) = self.reused.get(&key) {
                return Ok(t.clone());
            }
        }
        let t = self.tensor("mask", DataType::Uint8, &[seq, total], Some(&rows))?;
        if seq != 1 {
            self.reused.remove(&key);
        }
        Ok(t)
    }

    /// Submits one dispatch of `seq` tokens (in `tokens`, int32 `[seq]`) after the cached
    /// ones, the logits of rows `picked` going to a reused tensor (returned) and their
    /// argmax to `next` (int32 `[picked.len()]`). Nothing is read.
    fn submit(&mut self, tokens: &Tensor, seq: u32, picked: &[i32], next: &Tensor) -> Result<Tensor> {
        let (past, total) = (self.past, self.past + seq);
        if seq == 0 || total > self.config.capacity {
            return Err(Error::type_error(format!("the context would hold {total} tokens, the caches {}", self.config.capacity)));
        }
        let pos = self.tensor("positions", DataType::Int32, &[seq, 1], Some(&bytes_i32((past..total).map(|p| p as i32))))?;
        let mask = self.mask(seq, total)?;
        let rows = picked.len() as u32;
        let last = self.tensor("last", DataType::Int32, &[rows], Some(&bytes_i32(picked.iter().copied())))?;
        let logits = self.tensor("logits", DataType::Float32, &[rows, self.config.vocab], None)?;
        let mut inputs: Vec<(&str, &Tensor)> = vec![("tokens", tokens), ("positions", &pos), ("mask", &mask), ("last", &last)];
        let outs: Vec<String> = self.caches.iter().map(|(n, _)| format!("{n}_out")).collect();
        let mut outputs: Vec<(&str, &Tensor)> = vec![("logits", &logits), ("next", next)];
        for ((name, t), out) in self.caches.iter().zip(&outs) {
            inputs.push((name, t));
            outputs.push((out, t));
        }
        let start = Instant::now();
        self.ctx.dispatch(&self.graph, &inputs, &outputs)?;
        self.dispatch_time += start.elapsed();
        let encode = Duration::from_nanos(self.graph.stats().encode_nanos.unwrap_or(0));
        self.encode_time += encode;
        if self.encode_times.len() == ENCODE_TIMES_KEPT {
            self.encode_times.pop_front();
        }
        self.encode_times.push_back(encode);
        self.dispatches += 1;
        self.past = total;
        Ok(logits)
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
        let seq = chunk.len() as u32;
        let tokens = self.tensor("tokens", DataType::Int32, &[seq], Some(&bytes_i32(chunk.iter().map(|&t| t as i32))))?;
        let picked: Vec<i32> = match read {
            Read::All => (0..seq as i32).collect(),
            Read::Last | Read::Token => vec![seq as i32 - 1],
        };
        let next = self.tensor("next", DataType::Int32, &[picked.len() as u32], None)?;
        let logits = self.submit(&tokens, seq, &picked, &next)?;
        if read != Read::Token {
            let bytes = self.ctx.read_tensor(&logits).await?;
            let values = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            return Ok((values, 0));
        }
        Ok((Vec::new(), token_of(&self.ctx.read_tensor(&next).await?)))
    }

    /// Greedy generation with the tokens kept on the device: `prefill`, then `decode`.
    pub async fn generate(&mut self, prompt: &[u32], max_new: usize, lag: usize, stop: Option<u32>) -> Result<Vec<u32>> {
        if prompt.is_empty() || max_new == 0 {
            return Ok(Vec::new());
        }
        self.prefill(prompt)?;
        self.decode(max_new, lag, stop).await
    }

    /// The two tensors decode steps take turns reading their token from and writing the
    /// next one to.
    fn token_ring(&mut self) -> Result<[Tensor; 2]> {
        Ok([self.tensor("token ring", DataType::Int32, &[1], None)?, self.tensor("token ring 2", DataType::Int32, &[1], None)?])
    }

    /// Submits `prompt` after the cached tokens; its greedy next token stays on the device,
    /// where `decode` takes it. Nothing is read or awaited.
    pub fn prefill(&mut self, prompt: &[u32]) -> Result<()> {
        let ring = self.token_ring()?;
        let chunks: Vec<&[u32]> = prompt.chunks(self.config.max_seq as usize).collect();
        for (k, chunk) in chunks.iter().enumerate() {
            let seq = chunk.len() as u32;
            let tokens = self.tensor("tokens", DataType::Int32, &[seq], Some(&bytes_i32(chunk.iter().map(|&t| t as i32))))?;
            let next = if k + 1 == chunks.len() { ring[0].clone() } else { self.tensor("next", DataType::Int32, &[1], None)? };
            self.submit(&tokens, seq, &[seq as i32 - 1], &next)?;
        }
        Ok(())
    }

    /// The token `prefill` left on the device, read (for callers that show it at once).
    pub async fn peek_token(&mut self) -> Result<u32> {
        let ring = self.token_ring()?;
        Ok(token_of(&self.ctx.read_tensor(&ring[0]).await?))
    }

    /// Greedy decode steps after `prefill`, with the tokens kept on the device: each step's
    /// tokens input is the previous step's argMax output (the two tensors of the ring in
    /// turn), and each token is read back `lag` steps after its step was submitted (a read
    /// starts when it is asked for and sees only the work before it), so the device never
    /// waits for the host within a generation. Returns up to `max_new` tokens (prefill's
    /// first), ending after `stop` when it comes; that is seen `lag` steps late, and the
    /// steps submitted meanwhile are dropped (the caches hold their tokens; `past` counts
    /// them).
    pub async fn decode(&mut self, max_new: usize, lag: usize, stop: Option<u32>) -> Result<Vec<u32>> {
        let ring = self.token_ring()?;
        let mut reads = VecDeque::from([self.ctx.read_tensor(&ring[0])]);
        let mut out = Vec::with_capacity(max_new);
        let mut submitted = 1;
        loop {
            if submitted < max_new && self.past < self.config.capacity {
                let (input, output) = (&ring[(submitted + 1) % 2], &ring[submitted % 2]);
                self.submit(input, 1, &[0], output)?;
                reads.push_back(self.ctx.read_tensor(output));
                submitted += 1;
                if reads.len() <= lag {
                    continue;
                }
            }
            let Some(read) = reads.pop_front() else { return Ok(out) };
            let token = token_of(&read.await?);
            out.push(token);
            if Some(token) == stop {
                return Ok(out);
            }
        }
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
