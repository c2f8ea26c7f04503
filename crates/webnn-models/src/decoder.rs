//! A toy decoder-only transformer (random weights) for flexible inputs: one graph serves the
//! prompt and every decode step, and its key/value caches are tensors updated in place.
//!
//! Inputs: `tokens` int32 `[seq]`, `positions` int32 `[seq, 1]` (where the new tokens go),
//! `mask` uint8 `[seq, total]` (1 where a query may attend a key; its shape carries the
//! context length `total`), and per layer `k{l}`, `v{l}` float32 `[capacity, dim]`.
//! Outputs: `logits` `[seq, vocab]` and per layer `k{l}_out`, `v{l}_out`: the caches with the
//! new rows scattered in (`scatterND`), which a caller binds to the same tensors as `k{l}`,
//! `v{l}` so the update runs in place. Attention reads the caches' first `total` rows
//! (`slice` with a dynamic size, a view of the buffer on wgpu), so a step costs what its
//! context needs, not what the capacity allows.

use crate::rng::Rng;
use webnn_core::ops::*;
use webnn_core::{DataType, Dim, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

const F: DataType = DataType::Float32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoderConfig {
    pub vocab: u32,
    pub dim: u32,
    pub heads: u32,
    pub layers: u32,
    pub hidden: u32,
    /// Rows of each cache: the largest context.
    pub capacity: u32,
    /// The most tokens one dispatch takes (the prompt).
    pub max_seq: u32,
}

impl DecoderConfig {
    /// The configuration the tests and the benchmark use.
    pub const TOY: DecoderConfig =
        DecoderConfig { vocab: 96, dim: 64, heads: 4, layers: 3, hidden: 128, capacity: 1024, max_seq: 16 };

    pub fn head_dim(&self) -> u32 {
        self.dim / self.heads
    }

    /// Bytes of one layer's key (or value) cache.
    pub fn cache_bytes(&self) -> u64 {
        self.capacity as u64 * self.dim as u64 * 4
    }
}

fn weights(b: &mut GraphBuilder, rng: &mut Rng, shape: &[u32], scale: f32) -> Result<Operand> {
    let n = shape.iter().product::<u32>() as usize;
    let data: Vec<u8> = rng.fill(n, -scale, scale).iter().flat_map(|v| v.to_le_bytes()).collect();
    b.constant(OperandDescriptor::new(F, shape), data)
}

/// The decoder graph; `seed` picks the weights.
pub fn toy_decoder(c: &DecoderConfig, seed: u64) -> Result<Graph> {
    let mut rng = Rng::new(seed);
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let seq = Dim::Dynamic { name: "seq".into(), max_size: c.max_seq };
    let total = Dim::Dynamic { name: "total".into(), max_size: c.capacity };
    let (d, hd, h) = (Dim::Static(c.dim), Dim::Static(c.head_dim()), Dim::Static(c.heads));
    let tokens = b.input("tokens", OperandDescriptor::with_dims(DataType::Int32, vec![seq.clone()]))?;
    let positions =
        b.input("positions", OperandDescriptor::with_dims(DataType::Int32, vec![seq.clone(), Dim::Static(1)]))?;
    let mask = b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq.clone(), total.clone()]))?;

    let embed = weights(&mut b, &mut rng, &[c.vocab, c.dim], 1.0)?;
    let pos_embed = weights(&mut b, &mut rng, &[c.capacity, c.dim], 0.5)?;
    let x = b.gather(embed, tokens, GatherOptions::default())?;
    let flat_positions = b.reshape(positions, vec![seq.clone()], none())?;
    let p = b.gather(pos_embed, flat_positions, GatherOptions::default())?;
    let mut x = b.add(x, p, none())?;

    let scale = b.constant_scalar(F, MLNumber::Double(1.0 / (c.head_dim() as f64).sqrt()))?;
    let masked = b.constant_scalar(F, MLNumber::Double(-1e9))?;
    let cache = OperandDescriptor::new(F, &[c.capacity, c.dim]);
    let ws = 1.0 / (c.dim as f32).sqrt();
    let mut outputs = Vec::new();
    for l in 0..c.layers {
        let k_in = b.input(&format!("k{l}"), cache.clone())?;
        let v_in = b.input(&format!("v{l}"), cache.clone())?;
        let norm = b.layer_normalization(x, LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() })?;
        let [wq, wk, wv, wo] = [0; 4].map(|_| weights(&mut b, &mut rng, &[c.dim, c.dim], ws));
        let q = b.matmul(norm, wq?, none())?;
        let k = b.matmul(norm, wk?, none())?;
        let v = b.matmul(norm, wv?, none())?;
        // The new rows go into the caches in place; attention reads their first `total` rows.
        let k_all = b.scatter_nd(k_in, positions, k, none())?;
        let v_all = b.scatter_nd(v_in, positions, v, none())?;
        outputs.push((format!("k{l}_out"), k_all));
        outputs.push((format!("v{l}_out"), v_all));
        let keys = b.slice_dims(k_all, vec![0, 0], vec![total.clone(), d.clone()], SliceOptions::default())?;
        let values = b.slice_dims(v_all, vec![0, 0], vec![total.clone(), d.clone()], SliceOptions::default())?;
        let heads = |b: &mut GraphBuilder, t: Operand, rows: &Dim, perm: Vec<u32>| -> Result<Operand> {
            let r = b.reshape(t, vec![rows.clone(), h.clone(), hd.clone()], none())?;
            b.transpose(r, TransposeOptions { permutation: Some(perm), ..Default::default() })
        };
        let qh = heads(&mut b, q, &seq, vec![1, 0, 2])?; // [heads, seq, hd]
        let kt = heads(&mut b, keys, &total, vec![1, 2, 0])?; // [heads, hd, total]
        let vh = heads(&mut b, values, &total, vec![1, 0, 2])?; // [heads, total, hd]
        let scores = b.matmul(qh, kt, none())?;
        let scores = b.mul(scores, scale, none())?;
        let scores = b.where_(mask, scores, masked, none())?;
        let probs = b.softmax(scores, 2, none())?;
        let attn = b.matmul(probs, vh, none())?; // [heads, seq, hd]
        let attn = b.transpose(attn, TransposeOptions { permutation: Some(vec![1, 0, 2]), ..Default::default() })?;
        let attn = b.reshape(attn, vec![seq.clone(), d.clone()], none())?;
        let attn = b.matmul(attn, wo?, none())?;
        x = b.add(x, attn, none())?;
        let norm = b.layer_normalization(x, LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() })?;
        let w1 = weights(&mut b, &mut rng, &[c.dim, c.hidden], ws)?;
        let w2 = weights(&mut b, &mut rng, &[c.hidden, c.dim], 1.0 / (c.hidden as f32).sqrt())?;
        let up = b.matmul(norm, w1, none())?;
        let up = b.relu(up, none())?;
        let down = b.matmul(up, w2, none())?;
        x = b.add(x, down, none())?;
    }
    let norm = b.layer_normalization(x, LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() })?;
    let head = weights(&mut b, &mut rng, &[c.dim, c.vocab], 1.0)?;
    let logits = b.matmul(norm, head, none())?;
    outputs.insert(0, ("logits".to_owned(), logits));
    let named: Vec<(&str, Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    b.build(&named)
}

/// The host inputs of one step: `tokens` placed at `past..past + tokens.len()`, with the
/// causal mask over `past + tokens.len()` keys.
pub struct StepInputs {
    pub tokens: Vec<u8>,
    pub positions: Vec<u8>,
    pub mask: Vec<u8>,
    pub seq: u32,
    pub total: u32,
}

impl StepInputs {
    pub fn new(tokens: &[i32], past: u32) -> StepInputs {
        let seq = tokens.len() as u32;
        let total = past + seq;
        let mask = (0..seq).flat_map(|i| (0..total).map(move |j| u8::from(j <= past + i))).collect();
        StepInputs {
            tokens: tokens.iter().flat_map(|t| t.to_le_bytes()).collect(),
            positions: (past..total).flat_map(|p| (p as i32).to_le_bytes()).collect(),
            mask,
            seq,
            total,
        }
    }
}

/// The index of the largest of the last row of `[rows, vocab]` float32 logits.
pub fn greedy(logits: &[u8], vocab: u32) -> i32 {
    let values: Vec<f32> = logits.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let last = &values[values.len() - vocab as usize..];
    let mut best = 0;
    for (i, v) in last.iter().enumerate() {
        if *v > last[best] {
            best = i;
        }
    }
    best as i32
}
