//! ONNX Runtime's contrib operators that LLM exports (ONNX Runtime GenAI's builder, Olive)
//! write: `com.microsoft` MatMulNBits, SkipSimplifiedLayerNormalization, RotaryEmbedding and
//! GroupQueryAttention, and SimplifiedLayerNormalization (which ONNX Runtime registers in the
//! default domain). Each becomes WebNN primitives; the first four in the exact shapes
//! `webnn_core::fusion` recognises, so a backend with the fused kernels (the fast CPU, wgpu)
//! runs the 4-bit product, the RMSNorm and the rotary embedding fused, as it does for graphs
//! built op by op:
//!
//! - MatMulNBits: `gemm(x, dequantizeLinear(q, scale, zeroPoint), {bTranspose})`, the weight a
//!   uint4 (or uint8) `[n, k]` constant with a scale and zero point per block of k;
//! - (Skip)SimplifiedLayerNormalization: `mul(div(x, sqrt(add(reduceMean(pow(x, 2)), eps))), w)`;
//! - RotaryEmbedding: `cos`/`sin` gathered at the position ids, then the rotation on
//!   adjacent pairs (interleaved) or on the two halves;
//! - GatherBlockQuantized: the codes, scales and zero points gathered, then dequantized;
//! - GroupQueryAttention (`attention.rs`): the cache written with `scatterND`, a causal mask
//!   from `seqlens_k`, `matmul`, `softmax`. Its caches are head-major (`[B, heads, S, D]`),
//!   which the fused attention (token-major caches) does not match yet.
//!
//! What the decomposition cannot express is refused naming the attribute or input.

use super::host::Host;
use super::node::{Args, OnnxNode};
use super::tensor::axis;
use super::{one, Cx, Value};
use webnn_core::ops::*;
use webnn_core::{DataType, Dim, Error, Operand, Result};

pub(crate) fn lower(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let contrib = n.domain == "com.microsoft";
    match n.op_type.as_str() {
        "SimplifiedLayerNormalization" => simplified_layer_norm(cx, n, a, false),
        "SkipSimplifiedLayerNormalization" if contrib => simplified_layer_norm(cx, n, a, true),
        "MatMulNBits" if contrib => matmul_nbits(cx, n, a),
        "RotaryEmbedding" if contrib => rotary_embedding(cx, n, a),
        "GroupQueryAttention" if contrib => super::attention::group_query_attention(cx, n, a),
        "GatherBlockQuantized" if contrib => gather_block_quantized(cx, n, a),
        _ => Ok(None),
    }
}

/// RMSNorm over axes `first..rank` (the fused kernels' pattern); returns (y, the root mean
/// square kept).
fn rms_norm(cx: &mut Cx, x: Operand, first: u32, rank: u32, eps: f64, scale: Operand) -> Result<(Operand, Operand)> {
    let o = cx.o();
    webnn_core::patterns::rms_norm(&mut cx.b, x, (first..rank).collect(), eps, scale, &o)
}

/// SimplifiedLayerNormalization (X, scale -> Y, inv_std_var) and its skip form (input, skip,
/// gamma, bias -> output, mean, inv_std_var, input_skip_bias_sum).
fn simplified_layer_norm(cx: &mut Cx, n: &OnnxNode, a: &Args, skip: bool) -> Result<Option<Vec<Value>>> {
    let rank = cx.rank(a.req(0)?)?;
    // The skip form normalizes the last axis only; the plain one from `axis` on.
    let first = if skip { rank.saturating_sub(1) } else { axis(n.i("axis", -1), rank)? };
    let eps = n.f("epsilon", 1e-5) as f64;
    let mut x = a.op(cx, 0)?;
    if skip {
        let s = a.op(cx, 1)?;
        x = cx.b.add(x, s, cx.o())?;
        if let Some(bias) = a.opt_op(cx, 3)? {
            x = cx.b.add(x, bias, cx.o())?;
        }
    }
    let scale = a.op(cx, if skip { 2 } else { 1 })?;
    let (y, rms) = rms_norm(cx, x, first as u32, rank as u32, eps, scale)?;
    let wanted = |i: usize| n.outputs.get(i).is_some_and(|o| !o.is_empty());
    let inv_std = if wanted(if skip { 2 } else { 1 }) { cx.b.reciprocal(rms, cx.o())? } else { y };
    if !skip {
        return Ok(Some(vec![Value::Op(y), Value::Op(inv_std)]));
    }
    if wanted(1) {
        return Err(n.unsupported("the mean output (always empty for the simplified form)"));
    }
    Ok(Some(vec![Value::Op(y), Value::Op(y), Value::Op(inv_std), Value::Op(x)]))
}

/// The 4-bit (or 8-bit) codes `[rows, cols]` of a buffer whose rows are `stride` bytes, one
/// code per `bits` bits from the low end of each byte, as a packed WebNN tensor.
fn codes(src: &[u8], rows: usize, cols: usize, stride: usize, bits: u32) -> Result<Host> {
    let need = rows.checked_mul(stride).filter(|&b| b <= src.len());
    if need.is_none() || (cols * bits as usize).div_ceil(8) > stride {
        return Err(Error::data_error(format!("{} bytes hold no {rows}x{cols} {bits}-bit codes", src.len())));
    }
    if bits == 8 {
        let mut v = Vec::with_capacity(rows * cols);
        (0..rows).for_each(|r| v.extend_from_slice(&src[r * stride..r * stride + cols]));
        return Ok(Host { dt: DataType::Uint8, shape: vec![rows, cols], data: v.into() });
    }
    let mut v = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let row = &src[r * stride..];
        v.extend((0..cols).map(|c| i64::from((row[c / 2] >> (4 * (c % 2))) & 15)));
    }
    Ok(Host::from_ints(DataType::Uint4, vec![rows, cols], &v))
}

/// MatMulNBits: `A · dequantize(B)ᵀ (+ bias)`, B `[N, blocks, blob]` of `bits`-bit codes in
/// blocks of `block_size` along K, `scales` `[N * blocks]`, `zero_points` packed like B's
/// codes (default: the middle code, 8 or 128).
fn matmul_nbits(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let (k, nn, bits, block) = (n.i("K", 0), n.i("N", 0), n.i("bits", 4), n.i("block_size", 0));
    if bits != 4 && bits != 8 {
        return Err(n.unsupported(format!("bits = {bits} (4 and 8 are imported)")));
    }
    if k <= 0 || nn <= 0 || block < 16 || block.count_ones() != 1 {
        return Err(Error::type_error(format!("K = {k}, N = {nn}, block_size = {block}: positive sizes and a power-of-two block of at least 16 are required")));
    }
    if k % block != 0 {
        return Err(n.unsupported(format!("K = {k} not a multiple of block_size = {block} (WebNN's blockwise scales divide the axis)")));
    }
    if a.get(4).is_some() {
        return Err(n.unsupported("g_idx (act-order reordering of K)"));
    }
    let (k, nn, bits, block) = (k as usize, nn as usize, bits as u32, block as usize);
    let blocks = k / block;
    let blob = block * bits as usize / 8;
    let q = a.host(1, "the quantized weight B")?.ok_or_else(|| Error::type_error("input 1 (B) is required"))?;
    if q.dt != DataType::Uint8 || q.data.len() != nn * blocks * blob {
        return Err(Error::type_error(format!("B must be uint8 [N, K / block_size, block_size * bits / 8] = [{nn}, {blocks}, {blob}]")));
    }
    let weight = codes(&q.data, nn, k, blocks * blob, bits)?;
    let scales = a.host(2, "the scales")?.ok_or_else(|| Error::type_error("input 2 (scales) is required"))?;
    if !scales.dt.is_float() || scales.elements() != nn * blocks {
        return Err(Error::type_error(format!("scales must be {nn} x {blocks} floats")));
    }
    let scales = scales.reshaped(vec![nn, blocks]);
    let mut offsets = None;
    let zero_points = match a.host(3, "the zero points")? {
        None => Host::from_ints(weight.dt, vec![nn, blocks], &vec![1i64 << (bits - 1); nn * blocks]),
        Some(z) if z.dt == DataType::Uint8 => {
            let stride = (blocks * bits as usize).div_ceil(8);
            if z.data.len() != nn * stride {
                return Err(Error::type_error(format!("zero_points must be {nn} rows of {stride} bytes")));
            }
            codes(&z.data, nn, blocks, stride, bits)?
        }
        // Float zero points (a block minimum, GGUF's Q4_1): w = q·s - zp·s, the codes
        // dequantized around 0 and the offset -zp·s added per block, the form of
        // `webnn_core::fusion::QuantizedLinear`'s offset.
        Some(z) if z.dt.is_float() && z.elements() == nn * blocks => {
            let s = scales.floats();
            let offset: Vec<f64> = z.floats().iter().zip(&s).map(|(z, s)| -z * s).collect();
            offsets = Some(Host::from_floats(scales.dt, vec![nn, blocks, 1], &offset));
            Host::from_ints(weight.dt, vec![nn, blocks], &vec![0; nn * blocks])
        }
        Some(z) => return Err(n.unsupported(format!("{} zero points of {} elements (uint8 codes, or a float per block, are imported)", z.dt, z.elements()))),
    };
    let x = a.op(cx, 0)?;
    let shape = cx.shape(a.req(0)?)?;
    if shape.last() != Some(&(k as u32)) {
        return Err(Error::type_error(format!("A is {shape:?}; its last dimension must be K = {k}")));
    }
    let (q, s, z) = (cx.operand(&Value::Host(weight))?, cx.operand(&Value::Host(scales))?, cx.operand(&Value::Host(zero_points))?);
    let mut w = cx.b.dequantize_linear(q, s, z, cx.o())?;
    if let Some(offsets) = offsets {
        let offsets = cx.operand(&Value::Host(offsets))?;
        let (rows, cols) = (Dim::Static(nn as u32), Dim::Static(k as u32));
        w = cx.b.reshape(w, vec![rows.clone(), Dim::Static(blocks as u32), Dim::Static(block as u32)], cx.o())?;
        w = cx.b.add(w, offsets, cx.o())?;
        w = cx.b.reshape(w, vec![rows, cols], cx.o())?;
    }
    let m: u32 = shape[..shape.len() - 1].iter().product();
    let flat = if shape.len() == 2 { x } else { cx.b.reshape(x, vec![Dim::Static(m), Dim::Static(k as u32)], cx.o())? };
    let options = GemmOptions { label: cx.label.clone(), b_transpose: true, ..Default::default() };
    let mut y = cx.b.gemm(flat, w, options)?;
    if let Some(bias) = a.opt_op(cx, 5)? {
        y = cx.b.add(y, bias, cx.o())?;
    }
    if shape.len() != 2 {
        let mut out: Vec<Dim> = shape[..shape.len() - 1].iter().map(|&d| Dim::Static(d)).collect();
        out.push(Dim::Static(nn as u32));
        y = cx.b.reshape(y, out, cx.o())?;
    }
    one(y)
}

/// GatherBlockQuantized (data, indices, scales, zero_points): rows of a block-quantized table
/// (an embedding), gathered then dequantized: `dequantizeLinear(gather(codes), gather(scales),
/// gather(zeroPoints))`, as a graph built op by op gathers a quantized embedding. The uint8
/// form is read: `bits` 4 (two codes a byte, low nibble first) or 8, gathered along axis 0 and
/// quantized in blocks along the last axis; zero points default to `2^(bits - 1)`.
fn gather_block_quantized(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let (bits, block) = (n.i("bits", 4), n.i("block_size", 128));
    let data = a.host(0, "the quantized data")?.ok_or_else(|| Error::type_error("input 0 (data) is required"))?;
    if data.dt != DataType::Uint8 {
        return Err(n.unsupported(format!("{} data (the uint8 form is imported)", data.dt)));
    }
    if bits != 4 && bits != 8 {
        return Err(n.unsupported(format!("bits = {bits} (4 and 8 are imported)")));
    }
    let rank = data.shape.len() as i64;
    let (gather_axis, quantize_axis) = (n.i("gather_axis", 0), n.i("quantize_axis", 1));
    if rank != 2 || gather_axis != 0 || !(quantize_axis == 1 || quantize_axis == -1) {
        return Err(n.unsupported(format!("gather_axis {gather_axis} and quantize_axis {quantize_axis} of rank-{rank} data (a [rows, bytes] table gathered along 0 is imported)")));
    }
    let (rows, bytes, bits) = (data.shape[0], data.shape[1], bits as u32);
    let cols = bytes * 8 / bits as usize;
    if block < 16 || block.count_ones() != 1 || cols % block as usize != 0 {
        return Err(Error::type_error(format!("block_size = {block}: a power of two of at least 16 that divides the {cols} columns")));
    }
    let blocks = cols / block as usize;
    // One code a byte: WebNN's gather takes no 4-bit type.
    let wide = |h: Host| if h.dt == DataType::Uint8 { h } else { Host::from_ints(DataType::Uint8, h.shape.clone(), &h.ints()) };
    let codes = wide(codes(&data.data, rows, cols, bytes, bits)?);
    let scales = a.host(2, "the scales")?.ok_or_else(|| Error::type_error("input 2 (scales) is required"))?;
    if !scales.dt.is_float() || scales.elements() != rows * blocks {
        return Err(Error::type_error(format!("scales must be [{rows}, {blocks}] floats")));
    }
    let scales = scales.reshaped(vec![rows, blocks]);
    let zero_points = match a.host(3, "the zero points")? {
        None => Host::from_ints(codes.dt, vec![rows, blocks], &vec![1i64 << (bits - 1); rows * blocks]),
        Some(z) if z.dt == DataType::Uint8 => {
            let stride = (blocks * bits as usize).div_ceil(8);
            if z.data.len() != rows * stride {
                return Err(Error::type_error(format!("zero_points must be {rows} rows of {stride} bytes")));
            }
            wide(self::codes(&z.data, rows, blocks, stride, bits)?)
        }
        Some(z) => return Err(n.unsupported(format!("{} zero points (uint8 codes are imported)", z.dt))),
    };
    let indices = a.op(cx, 1)?;
    let gather = |cx: &mut Cx, h: Host| -> Result<Operand> {
        let table = cx.operand(&Value::Host(h))?;
        cx.b.gather(table, indices, GatherOptions { label: cx.label.clone(), axis: 0 })
    };
    let (q, s, z) = (gather(cx, codes)?, gather(cx, scales)?, gather(cx, zero_points)?);
    one(cx.b.dequantize_linear(q, s, z, cx.o())?)
}

/// RotaryEmbedding (input, position_ids, cos_cache, sin_cache): the input `[B, S, H * D]` or
/// `[B, H, S, D]` rotated by the caches' rows at the position ids, on adjacent pairs
/// (`interleaved`) or on the two halves of each head.
fn rotary_embedding(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    if n.f("scale", 1.0) != 1.0 || n.i("is_packed_batching", 0) != 0 {
        return Err(n.unsupported("scale or is_packed_batching"));
    }
    let shape = cx.shape(a.req(0)?)?;
    let cache = cx.shape(a.req(2)?)?;
    if cache.len() != 2 || cx.shape(a.req(3)?)? != cache {
        return Err(Error::type_error("cos_cache and sin_cache must both be [max_position, rotary_dim / 2]"));
    }
    let half = cache[1];
    let (b, s, heads, d, four_d) = match *shape.as_slice() {
        [b, s, hidden] => {
            // Without num_heads, heads are as wide as the caches rotate.
            let heads = match n.i("num_heads", 0) {
                0 => hidden / (2 * half).max(1),
                h => u32::try_from(h).unwrap_or(0),
            };
            if heads == 0 || hidden % heads != 0 {
                return Err(Error::type_error(format!("a hidden size of {hidden} does not split into {heads} heads")));
            }
            (b, s, heads, hidden / heads, false)
        }
        [b, h, s, d] => (b, s, h, d, true),
        _ => return Err(Error::type_error(format!("the input is {shape:?}; 3-D [B, S, hidden] or 4-D [B, heads, S, head_size] is rotated"))),
    };
    let rotary = match n.i("rotary_embedding_dim", 0) {
        0 => d,
        r => r as u32,
    };
    if rotary != d || 2 * half != d {
        return Err(n.unsupported(format!("a rotary dimension of {rotary} or {} for heads of {d} (whole heads are rotated)", 2 * half)));
    }
    let x = a.op(cx, 0)?;
    // cos/sin rows at the position ids: ids [B, S], or one offset [1] for positions
    // offset..offset+S in every batch (the gathered rows then broadcast over B).
    let (ids, tb) = match cx.shape(a.req(1)?)?.as_slice() {
        [1] => {
            let base = a.op(cx, 1)?;
            let dt = cx.dt(a.req(1)?)?;
            let steps: Vec<i64> = (0..i64::from(s)).collect();
            let range = cx.operand(&Value::Host(Host::from_ints(dt, vec![1, s as usize], &steps)))?;
            (cx.b.add(base, range, cx.o())?, 1)
        }
        ids if ids == [b, s] => (a.op(cx, 1)?, b),
        ids => return Err(Error::type_error(format!("position_ids is {ids:?}; [B, S] = [{b}, {s}] or [1] (an offset) is read"))),
    };
    let gather = |cx: &mut Cx, i: usize| -> Result<Operand> {
        let table = a.op(cx, i)?;
        cx.b.gather(table, ids, GatherOptions { label: cx.label.clone(), axis: 0 })
    };
    let (cos, sin) = (gather(cx, 2)?, gather(cx, 3)?);
    let interleaved = n.i("interleaved", 0) != 0;
    // x viewed as [B, S, H, D] or [B, H, S, D]; cos/sin [B, S, D/2] placed to broadcast.
    let (view, table): (Vec<u32>, Vec<u32>) = match (four_d, interleaved) {
        (false, true) => (vec![b, s, heads, half, 2], vec![tb, s, 1, half, 1]),
        (false, false) => (vec![b, s, heads, d], vec![tb, s, 1, half]),
        (true, true) => (vec![b, heads, s, half, 2], vec![tb, 1, s, half, 1]),
        (true, false) => (vec![b, heads, s, d], vec![tb, 1, s, half]),
    };
    let y = rotate(cx, x, &view, cos, sin, &table, interleaved)?;
    let dims: Vec<Dim> = shape.iter().map(|&x| Dim::Static(x)).collect();
    one(cx.b.reshape(y, dims, cx.o())?)
}

/// `x` reshaped to `view` (the rotated axis last: `[..., half, 2]` for adjacent pairs,
/// `[..., 2 * half]` for halves) and rotated by `cos`/`sin` reshaped to `table` (the same
/// rank, broadcasting), as `webnn_core::patterns::rotate` writes the rotation. The result
/// has the shape `view`.
pub(super) fn rotate(cx: &mut Cx, x: Operand, view: &[u32], cos: Operand, sin: Operand, table: &[u32], interleaved: bool) -> Result<Operand> {
    let dims = |v: &[u32]| v.iter().map(|&x| Dim::Static(x)).collect::<Vec<Dim>>();
    let x = cx.b.reshape(x, dims(view), cx.o())?;
    let cos = cx.b.reshape(cos, dims(table), cx.o())?;
    let sin = cx.b.reshape(sin, dims(table), cx.o())?;
    let o = cx.o();
    webnn_core::patterns::rotate(&mut cx.b, x, cos, sin, interleaved, &o)
}
