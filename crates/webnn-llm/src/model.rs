//! The SmolLM2 (Llama) decoder as a WebNN graph of primitive ops, the way a framework without
//! fused operators has to express it:
//! - 4-bit weights (Q4_1) as `dequantizeLinear` of uint4 with a float32 scale per block of 32,
//!   plus the block minimum as an `add`, feeding `gemm` (transposed B);
//! - the 8-bit embedding (Q8_0) gathered by token, then dequantized; the tied head dequantizes
//!   it whole;
//! - RMSNorm from `pow`, `reduceMean`, `add`, `sqrt`, `div`, `mul`;
//! - rotary embedding on adjacent pairs from `slice`, `mul`, `sub`/`add`, `concat`, with
//!   cos/sin tables gathered by position;
//! - grouped-query attention with a mask input, `matmul` broadcasting the 3 KV heads over the
//!   9 query heads, `softmax`;
//! - the SiLU-gated MLP from `sigmoid` and `mul`.
//!
//! One graph serves the prompt and every decode step (flexible inputs): `tokens` int32
//! `[seq]`, `positions` int32 `[seq, 1]`, `mask` uint8 `[seq, total]` (1 where a query may see
//! a key), `last` int32 `[picked]` (the rows whose logits are wanted), and per layer `k{l}`/`v{l}`
//! `[capacity, kv_dim]` of `Config::cache`'s type (float32, or float16 written through a
//! `cast` and read back through another), each bound in place to its output
//! `k{l}_out`/`v{l}_out`.
//! Outputs: `logits` float32 `[picked, vocab]` and `next` int32 `[picked]`, their argmax (the
//! greedy token, chosen on the device).

use crate::gguf::{Gguf, GgufError, TensorInfo};
use crate::weights;
pub use crate::weights::{CacheType, Config};
use webnn_core::ops::*;
use webnn_core::{DataType, Dim, Error, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

const F: DataType = DataType::Float32;

fn data_error(e: GgufError) -> Error {
    Error::data_error(e.to_string())
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

struct Build<'g> {
    b: GraphBuilder,
    g: &'g Gguf,
    c: Config,
}

impl Build<'_> {
    fn info(&self, name: &str) -> Result<TensorInfo> {
        self.g.tensor(name).cloned().map_err(data_error)
    }

    fn constant_f32(&mut self, shape: &[u32], values: &[f32]) -> Result<Operand> {
        self.b.constant(OperandDescriptor::new(F, shape), f32_bytes(values))
    }

    /// A norm weight or other float tensor, as stored.
    fn float(&mut self, name: &str, shape: &[u32]) -> Result<Operand> {
        let t = self.info(name)?;
        let v = self.g.f32s(&t);
        self.constant_f32(shape, &v)
    }

    /// A Q4_1 matrix `[rows, cols]` (GGUF dims `[cols, rows]`) as float32 from primitive ops:
    /// `dequantizeLinear(q, d, 0) + m` per block of 32 along a row.
    fn q4_1(&mut self, name: &str) -> Result<Operand> {
        let w = weights::q4_1(self.g, name).map_err(data_error)?;
        let (rows, cols, blocks) = (w.rows, w.cols, w.cols / 32);
        let qd = self.b.constant(OperandDescriptor::new(DataType::Uint4, &[rows, cols]), w.q)?;
        let scale = self.constant_f32(&[rows, blocks], &w.scale)?;
        let zero = self.b.constant(OperandDescriptor::new(DataType::Uint4, &[rows, blocks]), vec![0; (rows * blocks).div_ceil(2) as usize])?;
        let min = self.constant_f32(&[rows, blocks, 1], &w.min)?;
        let none = OpOptions::default;
        let x = self.b.dequantize_linear(qd, scale, zero, none())?;
        let x = self.b.reshape(x, vec![rows.into(), blocks.into(), 32.into()], none())?;
        let x = self.b.add(x, min, none())?;
        self.b.reshape(x, vec![rows.into(), cols.into()], none())
    }

    /// `x · Wᵀ` for a Q4_1 weight.
    fn linear(&mut self, x: Operand, name: &str) -> Result<Operand> {
        let w = self.q4_1(name)?;
        self.b.gemm(x, w, GemmOptions { b_transpose: true, ..Default::default() })
    }

    /// The Q8_0 embedding `[vocab, dim]`: its int8 values, scales and zero points.
    fn q8_0(&mut self, name: &str) -> Result<(Operand, Operand, Operand)> {
        let w = weights::q8_0(self.g, name).map_err(data_error)?;
        let (rows, cols, blocks) = (w.rows, w.cols, w.cols / 32);
        let q = self.b.constant(OperandDescriptor::new(DataType::Int8, &[rows, cols]), w.q)?;
        let d = self.constant_f32(&[rows, blocks], &w.scale)?;
        let zero = self.b.constant(OperandDescriptor::new(DataType::Int8, &[rows, blocks]), vec![0; (rows * blocks) as usize])?;
        Ok((q, d, zero))
    }

    /// RMSNorm over the last axis: `x / sqrt(mean(x²) + eps) * weight`.
    fn rms_norm(&mut self, x: Operand, weight: &str) -> Result<Operand> {
        let w = self.float(weight, &[self.c.dim])?;
        Ok(webnn_core::patterns::rms_norm(&mut self.b, x, vec![1], self.c.eps, w, &OpOptions::default())?.0)
    }

    /// Rotary embedding of `x` `[seq, heads * head_dim]` on adjacent pairs, with `cos`/`sin`
    /// `[seq, 1, head_dim / 2, 1]` for the tokens' positions.
    fn rope(&mut self, x: Operand, heads: u32, seq: &Dim, cos: Operand, sin: Operand) -> Result<Operand> {
        let none = OpOptions::default;
        let half = self.c.head_dim() / 2;
        let shape = vec![seq.clone(), heads.into(), half.into(), 2.into()];
        let x = self.b.reshape(x, shape, none())?;
        let y = webnn_core::patterns::rotate(&mut self.b, x, cos, sin, true, &none())?;
        self.b.reshape(y, vec![seq.clone(), (heads * self.c.head_dim()).into()], none())
    }
}

/// The WebNN type of caches of `t`.
pub fn cache_type(t: CacheType) -> DataType {
    match t {
        CacheType::Float32 => DataType::Float32,
        CacheType::Float16 => DataType::Float16,
    }
}

/// Builds the decoder graph from the GGUF's weights.
pub fn build_graph(g: &Gguf, c: Config) -> Result<Graph> {
    let mut m = Build { b: GraphBuilder::new(), g, c };
    let none = OpOptions::default;
    let seq = Dim::Dynamic { name: "seq".into(), max_size: c.max_seq };
    let total = Dim::Dynamic { name: "total".into(), max_size: c.capacity };
    let (hd, kvd) = (c.head_dim(), c.kv_dim());
    let int = |shape: Vec<Dim>| OperandDescriptor::with_dims(DataType::Int32, shape);
    let tokens = m.b.input("tokens", int(vec![seq.clone()]))?;
    let positions = m.b.input("positions", int(vec![seq.clone(), 1.into()]))?;
    let mask = m.b.input("mask", OperandDescriptor::with_dims(DataType::Uint8, vec![seq.clone(), total.clone()]))?;
    // The rows whose logits are wanted: the last one while generating, every one to compare
    // positions (teacher forcing).
    let picked = Dim::Dynamic { name: "picked".into(), max_size: c.max_seq };
    let last = m.b.input("last", int(vec![picked]))?;

    // Embedding: gather the tokens' int8 rows and scales, then dequantize only those.
    let (eq, ed, ez) = m.q8_0("token_embd.weight")?;
    let rows = m.b.gather(eq, tokens, GatherOptions::default())?;
    let scales = m.b.gather(ed, tokens, GatherOptions::default())?;
    let zeros = m.b.gather(ez, tokens, GatherOptions::default())?;
    let mut x = m.b.dequantize_linear(rows, scales, zeros, none())?;

    // cos/sin of position * base^(-2i/head_dim), gathered by position: [seq, 1, hd/2, 1].
    let half = hd / 2;
    let (cos, sin) = weights::rope_tables(&c);
    let flat = m.b.reshape(positions, vec![seq.clone()], none())?;
    let table = |m: &mut Build, v: &[f32]| -> Result<Operand> {
        let t = m.constant_f32(&[c.capacity, half], v)?;
        let t = m.b.gather(t, flat, GatherOptions::default())?;
        m.b.reshape(t, vec![seq.clone(), 1.into(), half.into(), 1.into()], none())
    };
    let (cos, sin) = (table(&mut m, &cos)?, table(&mut m, &sin)?);

    let scale = m.b.constant_scalar(F, MLNumber::Double(1.0 / (hd as f64).sqrt()))?;
    let masked = m.b.constant_scalar(F, MLNumber::Double(-1e30))?;
    let group = c.heads / c.kv_heads;
    let cache_type = cache_type(c.cache);
    let cache = OperandDescriptor::new(cache_type, &[c.capacity, kvd]);
    // Float16 caches: the new rows are narrowed before they are stored, the cached rows
    // widened after they are read.
    let narrow = |m: &mut Build, x: Operand| match c.cache {
        CacheType::Float32 => Ok(x),
        CacheType::Float16 => m.b.cast(x, cache_type, none()),
    };
    let widen = |m: &mut Build, x: Operand| match c.cache {
        CacheType::Float32 => Ok(x),
        CacheType::Float16 => m.b.cast(x, F, none()),
    };
    let mut caches = Vec::new();
    for l in 0..c.layers {
        let p = |s: &str| format!("blk.{l}.{s}.weight");
        let k_in = m.b.input(&format!("k{l}"), cache.clone())?;
        let v_in = m.b.input(&format!("v{l}"), cache.clone())?;
        let h = m.rms_norm(x, &p("attn_norm"))?;
        let q = m.linear(h, &p("attn_q"))?;
        let k = m.linear(h, &p("attn_k"))?;
        let v = m.linear(h, &p("attn_v"))?;
        let q = m.rope(q, c.heads, &seq, cos, sin)?;
        let k = m.rope(k, c.kv_heads, &seq, cos, sin)?;
        let (k, v) = (narrow(&mut m, k)?, narrow(&mut m, v)?);
        let k_all = m.b.scatter_nd(k_in, positions, k, none())?;
        let v_all = m.b.scatter_nd(v_in, positions, v, none())?;
        caches.push((format!("k{l}_out"), k_all));
        caches.push((format!("v{l}_out"), v_all));
        let keys = m.b.slice_dims(k_all, vec![0, 0], vec![total.clone(), kvd.into()], SliceOptions::default())?;
        let values = m.b.slice_dims(v_all, vec![0, 0], vec![total.clone(), kvd.into()], SliceOptions::default())?;
        let (keys, values) = (widen(&mut m, keys)?, widen(&mut m, values)?);
        // q [seq, kv_heads, group, hd] -> [kv_heads, group, seq, hd]; keys -> [kv_heads, 1, hd, total].
        let qh = m.b.reshape(q, vec![seq.clone(), c.kv_heads.into(), group.into(), hd.into()], none())?;
        let qh = m.b.transpose(qh, TransposeOptions { permutation: Some(vec![1, 2, 0, 3]), ..Default::default() })?;
        let kh = m.b.reshape(keys, vec![total.clone(), c.kv_heads.into(), 1.into(), hd.into()], none())?;
        let kh = m.b.transpose(kh, TransposeOptions { permutation: Some(vec![1, 2, 3, 0]), ..Default::default() })?;
        let vh = m.b.reshape(values, vec![total.clone(), c.kv_heads.into(), 1.into(), hd.into()], none())?;
        let vh = m.b.transpose(vh, TransposeOptions { permutation: Some(vec![1, 2, 0, 3]), ..Default::default() })?;
        let scores = m.b.matmul(qh, kh, none())?;
        let scores = m.b.mul(scores, scale, none())?;
        let scores = m.b.where_(mask, scores, masked, none())?;
        let probs = m.b.softmax(scores, 3, none())?;
        let attn = m.b.matmul(probs, vh, none())?; // [kv_heads, group, seq, hd]
        let attn = m.b.transpose(attn, TransposeOptions { permutation: Some(vec![2, 0, 1, 3]), ..Default::default() })?;
        let attn = m.b.reshape(attn, vec![seq.clone(), c.dim.into()], none())?;
        let attn = m.linear(attn, &p("attn_output"))?;
        x = m.b.add(x, attn, none())?;

        let h = m.rms_norm(x, &p("ffn_norm"))?;
        let gate = m.linear(h, &p("ffn_gate"))?;
        let up = m.linear(h, &p("ffn_up"))?;
        let sig = m.b.sigmoid(gate, none())?;
        let act = m.b.mul(gate, sig, none())?;
        let act = m.b.mul(act, up, none())?;
        let down = m.linear(act, &p("ffn_down"))?;
        x = m.b.add(x, down, none())?;
    }
    let x = m.b.gather(x, last, GatherOptions::default())?;
    let x = m.rms_norm(x, "output_norm.weight")?;
    // The head is the embedding (tied), dequantized whole.
    let head = m.b.dequantize_linear(eq, ed, ez, none())?;
    let logits = m.b.gemm(x, head, GemmOptions { b_transpose: true, ..Default::default() })?;
    // The greedy choice on the device: a decode step need read back only this token id.
    let next = m.b.arg_max(logits, 1, ArgMinMaxOptions { output_data_type: DataType::Int32, ..Default::default() })?;
    let mut outputs = vec![("logits".to_owned(), logits), ("next".to_owned(), next)];
    outputs.extend(caches);
    let named: Vec<(&str, Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    m.b.build(&named)
}
