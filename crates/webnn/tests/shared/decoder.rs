//! Drives the toy decoder through the object model: caches in tensors bound in place, one
//! dispatch per step, the logits read back. Shared by the decoder test and benchmark.

use std::collections::HashMap;
use std::time::{Duration, Instant};
use webnn::{Context, DataType, Graph, OperandDescriptor, Result, Tensor, TensorDescriptor};
use webnn_models::{greedy, toy_decoder, DecoderConfig, StepInputs};

pub struct Decoder {
    pub ctx: Context,
    pub graph: Graph,
    pub config: DecoderConfig,
    /// `k0, v0, k1, v1, ...`: bound as input and output of every step.
    caches: Vec<(String, Tensor)>,
    /// Input and logits tensors by name and shape (decode steps reuse them).
    reused: HashMap<(String, Vec<u32>), Tensor>,
    /// Host bytes written and read by the last step.
    pub written: u64,
    pub read: u64,
    /// Time spent writing the inputs and dispatching in the last step (not waiting).
    pub dispatch_time: Duration,
}

impl Decoder {
    pub fn new(ctx: Context, config: DecoderConfig, seed: u64) -> Result<Decoder> {
        let graph = pollster::block_on(ctx.compile(&toy_decoder(&config, seed)?))?;
        let mut caches = Vec::new();
        for l in 0..config.layers {
            for kind in ["k", "v"] {
                let desc = OperandDescriptor::new(DataType::Float32, &[config.capacity, config.dim]);
                caches.push((format!("{kind}{l}"), ctx.create_tensor(TensorDescriptor::new(desc, true, true))?));
            }
        }
        Ok(Decoder { ctx, graph, config, caches, reused: HashMap::new(), written: 0, read: 0, dispatch_time: Duration::ZERO })
    }

    fn tensor(&mut self, name: &str, data_type: DataType, shape: &[u32], keep: bool) -> Result<Tensor> {
        let key = (name.to_owned(), shape.to_vec());
        if let Some(t) = self.reused.get(&key) {
            return Ok(t.clone());
        }
        let t = self.ctx.create_tensor(TensorDescriptor::new(OperandDescriptor::new(data_type, shape), true, true))?;
        if keep {
            self.reused.insert(key, t.clone());
        }
        Ok(t)
    }

    /// Runs `tokens` at positions `past..`; returns the logits `[tokens.len(), vocab]`.
    pub fn step(&mut self, tokens: &[i32], past: u32) -> Result<Vec<u8>> {
        let s = StepInputs::new(tokens, past);
        let started = Instant::now();
        let tok = self.tensor("tokens", DataType::Int32, &[s.seq], true)?;
        let pos = self.tensor("positions", DataType::Int32, &[s.seq, 1], true)?;
        // The mask's shape changes every step: a tensor of its own, dropped after the step.
        let mask = self.tensor("mask", DataType::Uint8, &[s.seq, s.total], false)?;
        let logits = self.tensor("logits", DataType::Float32, &[s.seq, self.config.vocab], true)?;
        self.ctx.write_tensor(&tok, &s.tokens)?;
        self.ctx.write_tensor(&pos, &s.positions)?;
        self.ctx.write_tensor(&mask, &s.mask)?;
        let mut inputs: Vec<(&str, &Tensor)> = vec![("tokens", &tok), ("positions", &pos), ("mask", &mask)];
        let outs: Vec<String> = self.caches.iter().map(|(n, _)| format!("{n}_out")).collect();
        let mut outputs: Vec<(&str, &Tensor)> = vec![("logits", &logits)];
        for ((name, t), out) in self.caches.iter().zip(&outs) {
            inputs.push((name, t));
            outputs.push((out, t));
        }
        self.ctx.dispatch(&self.graph, &inputs, &outputs)?;
        self.dispatch_time = started.elapsed();
        self.written = (s.tokens.len() + s.positions.len() + s.mask.len()) as u64;
        let out = pollster::block_on(self.ctx.read_tensor(&logits))?;
        self.read = out.len() as u64;
        Ok(out)
    }

    /// New cache tensors (zeros), as a caller starting another sequence would make.
    #[allow(dead_code)]
    pub fn renew_caches(&mut self) -> Result<()> {
        for (_, t) in &mut self.caches {
            *t = self.ctx.create_tensor(t.descriptor().clone())?;
        }
        Ok(())
    }

    /// Kernel dispatches per step (WebGPU).
    #[allow(dead_code)]
    pub fn kernel_steps(&self) -> usize {
        self.graph.dispatch_count().unwrap_or(0)
    }

    /// A prompt, then greedy decoding for `steps` tokens; the logits of every step.
    #[allow(dead_code)]
    pub fn generate(&mut self, prompt: &[i32], steps: usize) -> Result<(Vec<i32>, Vec<Vec<f32>>)> {
        let mut logits = self.step(prompt, 0)?;
        let mut tokens = Vec::new();
        let mut all = Vec::new();
        let mut past = prompt.len() as u32;
        for _ in 0..steps {
            let next = greedy(&logits, self.config.vocab);
            all.push(floats(&logits));
            tokens.push(next);
            logits = self.step(&[next], past)?;
            past += 1;
        }
        Ok((tokens, all))
    }
}

pub fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}
