//! A BERT-style transformer encoder with seeded weights: the second architecture (beside
//! MobileNetV2's CNN) that frameworks hand to WebNN. Token and position embeddings, then per
//! layer multi-head self-attention with an additive padding mask and a GELU feed-forward
//! block, each followed by a residual add and layer normalization (post-norm, as BERT);
//! a tanh pooler over the first token.

use crate::rng::Rng;
use webnn_core::ops::{GatherOptions, LayerNormalizationOptions, MLNumber, OpOptions, TransposeOptions};
use webnn_core::{DataType, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

/// The encoder's sizes.
#[derive(Clone, Debug)]
pub struct EncoderConfig {
    pub vocab: u32,
    pub seq: u32,
    pub hidden: u32,
    pub heads: u32,
    pub ffn: u32,
    pub layers: u32,
}

impl Default for EncoderConfig {
    /// A small BERT (the size of the smallest published ones' per-layer work, fewer layers).
    fn default() -> Self {
        EncoderConfig { vocab: 1000, seq: 16, hidden: 128, heads: 4, ffn: 512, layers: 2 }
    }
}

/// The inputs: `input_ids` (int32 `[1, seq]`) and `attention_mask` (float32 `[1, seq]`, 1 for
/// a token, 0 for padding).
pub const ENCODER_INPUTS: [&str; 2] = ["input_ids", "attention_mask"];

struct Net {
    b: GraphBuilder,
    rng: Rng,
}

impl Net {
    fn constant(&mut self, shape: &[u32], lo: f32, hi: f32) -> Result<Operand> {
        let n = shape.iter().product::<u32>() as usize;
        let bytes = self.rng.fill(n, lo, hi).iter().flat_map(|v| v.to_le_bytes()).collect();
        self.b.constant(OperandDescriptor::new(DataType::Float32, shape), bytes)
    }

    fn scalar(&mut self, v: f64) -> Result<Operand> {
        self.b.constant_scalar(DataType::Float32, MLNumber::Double(v))
    }

    /// `x · W + b` for `x` `[1, seq, n_in]`, with weights scaled to keep activations near 1.
    fn linear(&mut self, x: Operand, n_in: u32, n_out: u32) -> Result<Operand> {
        let a = (3.0 / n_in as f32).sqrt();
        let w = self.constant(&[n_in, n_out], -a, a)?;
        let bias = self.constant(&[n_out], -0.1, 0.1)?;
        let y = self.b.matmul(x, w, OpOptions::default())?;
        self.b.add(y, bias, OpOptions::default())
    }

    /// Layer normalization over the last axis, with learnt scale and bias.
    fn norm(&mut self, x: Operand, n: u32) -> Result<Operand> {
        let scale = self.constant(&[n], 0.8, 1.2)?;
        let bias = self.constant(&[n], -0.1, 0.1)?;
        let axes = Some(vec![self.b.desc(x)?.rank() as u32 - 1]);
        self.b.layer_normalization(x, LayerNormalizationOptions { scale: Some(scale), bias: Some(bias), axes, epsilon: 1e-12, ..Default::default() })
    }

    /// `[1, seq, hidden]` → `[1, heads, seq, head_dim]` (or `[1, heads, head_dim, seq]` for
    /// the keys, so that `q · k` needs no further transpose).
    fn heads(&mut self, x: Operand, c: &EncoderConfig, keys: bool) -> Result<Operand> {
        let dh = c.hidden / c.heads;
        let r = self.b.reshape(x, vec![1.into(), c.seq.into(), c.heads.into(), dh.into()], OpOptions::default())?;
        let permutation = Some(if keys { vec![0, 2, 3, 1] } else { vec![0, 2, 1, 3] });
        self.b.transpose(r, TransposeOptions { permutation, ..Default::default() })
    }

    fn layer(&mut self, x: Operand, mask: Operand, c: &EncoderConfig) -> Result<Operand> {
        let none = OpOptions::default;
        let h = c.hidden;
        let (q, k, v) = (self.linear(x, h, h)?, self.linear(x, h, h)?, self.linear(x, h, h)?);
        let (q, k, v) = (self.heads(q, c, false)?, self.heads(k, c, true)?, self.heads(v, c, false)?);
        let scores = self.b.matmul(q, k, none())?;
        let scale = self.scalar(1.0 / ((h / c.heads) as f64).sqrt())?;
        let scores = self.b.mul(scores, scale, none())?;
        let scores = self.b.add(scores, mask, none())?;
        let probs = self.b.softmax(scores, 3, none())?;
        let ctx = self.b.matmul(probs, v, none())?;
        let ctx = self.b.transpose(ctx, TransposeOptions { permutation: Some(vec![0, 2, 1, 3]), ..Default::default() })?;
        let ctx = self.b.reshape(ctx, vec![1.into(), c.seq.into(), h.into()], none())?;
        let attended = self.linear(ctx, h, h)?;
        let x = self.b.add(x, attended, none())?;
        let x = self.norm(x, h)?;
        let up = self.linear(x, h, c.ffn)?;
        let up = self.b.gelu(up, none())?;
        let down = self.linear(up, c.ffn, h)?;
        let x = self.b.add(x, down, none())?;
        self.norm(x, h)
    }
}

/// The encoder with weights from `seed`; outputs `last_hidden_state` `[1, seq, hidden]` and
/// `pooler_output` `[1, hidden]`.
pub fn bert_encoder(c: &EncoderConfig, seed: u64) -> Result<Graph> {
    let mut net = Net { b: GraphBuilder::new(), rng: Rng::new(seed) };
    let none = OpOptions::default;
    let ids = net.b.input(ENCODER_INPUTS[0], OperandDescriptor::new(DataType::Int32, &[1, c.seq]))?;
    let mask = net.b.input(ENCODER_INPUTS[1], OperandDescriptor::new(DataType::Float32, &[1, c.seq]))?;
    let tokens = net.constant(&[c.vocab, c.hidden], -1.0, 1.0)?;
    let x = net.b.gather(tokens, ids, GatherOptions { axis: 0, ..Default::default() })?;
    let positions = net.constant(&[1, c.seq, c.hidden], -0.5, 0.5)?;
    let x = net.b.add(x, positions, none())?;
    let mut x = net.norm(x, c.hidden)?;
    // (1 - mask) * -10000, broadcast over heads and query rows: [1, 1, 1, seq].
    let one = net.scalar(1.0)?;
    let big = net.scalar(-10000.0)?;
    let pad = net.b.sub(one, mask, none())?;
    let additive = net.b.mul(pad, big, none())?;
    let additive = net.b.reshape(additive, vec![1.into(), 1.into(), 1.into(), c.seq.into()], none())?;
    for _ in 0..c.layers {
        x = net.layer(x, additive, c)?;
    }
    let first = net.b.slice(x, vec![0, 0, 0], vec![1, 1, c.hidden], Default::default())?;
    let first = net.b.reshape(first, vec![1.into(), c.hidden.into()], none())?;
    let pooled = net.linear(first, c.hidden, c.hidden)?;
    let pooled = net.b.tanh(pooled, none())?;
    net.b.build(&[("last_hidden_state", x), ("pooler_output", pooled)])
}

/// Token ids and a mask for `bert_encoder`: `len` tokens, the rest padding.
pub fn encoder_sample(c: &EncoderConfig, len: u32, seed: u64) -> (Vec<i32>, Vec<f32>) {
    let mut rng = Rng::new(seed);
    let ids = (0..c.seq).map(|i| if i < len { (rng.next_u64() % c.vocab as u64) as i32 } else { 0 }).collect();
    let mask = (0..c.seq).map(|i| if i < len { 1.0 } else { 0.0 }).collect();
    (ids, mask)
}
