//! ONNX Runtime's `com.microsoft` GroupQueryAttention, the attention of ONNX Runtime GenAI's
//! LLM exports, as WebNN primitives:
//!
//! ```text
//! past_b   = seqlens_k[b] + 1 - S            (0 for a first prompt: S == total_sequence_length)
//! pos[b,s] = past_b + s                      (the rotary position; position_ids when given)
//! present  = scatterND(past, [b, h, pos], k) (past padded with zeros to the present length)
//! scores   = matmul(q [B, Hkv, G, S, D], transpose(present)) · scale   [B, Hkv, G, S, P]
//!            (without the B axis for a batch of one: the fused attention's form)
//! scores   = where(key <= pos (and key > pos - window), scores + attention_bias, -1e30)
//! output   = matmul(softmax(scores), present_value) -> [B, S, Hq · D]
//!            (a sink logit joins each row's softmax with smooth_softmax or head_sink)
//! ```
//!
//! The present length P is ONNX Runtime's `max(total_sequence_length, past length)`: the
//! declared length of the `present_key` output when the caller's dims fix it, else the
//! total length when it is known at import (GenAI exports compute it from the attention
//! mask's shape), else the past's length, the shared-buffer form in which the cache is its
//! own capacity and a decode step binds it in place. The new keys are written at each
//! batch's position, as ONNX Runtime writes them; rows past a sequence's end keep what the
//! past held (ONNX Runtime zeroes them when present and past are separate buffers; nothing
//! reads them).

use super::contrib::rotate;
use super::host::Host;
use super::node::{Args, OnnxNode};
use super::{Cx, Value};
use webnn_core::ops::*;
use webnn_core::{DataType, Dim, Error, Operand, Result};

fn dims(v: &[u32]) -> Vec<Dim> {
    v.iter().map(|&x| Dim::Static(x)).collect()
}

/// GroupQueryAttention (query, key, value, past_key, past_value, seqlens_k,
/// total_sequence_length, cos_cache, sin_cache, position_ids, attention_bias, head_sink)
/// -> (output, present_key, present_value).
pub(crate) fn group_query_attention(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let (hq, hk) = (n.i("num_heads", 0), n.i("kv_num_heads", 0));
    if hq <= 0 || hk <= 0 || hq % hk != 0 {
        return Err(Error::type_error(format!("num_heads = {hq}, kv_num_heads = {hk}: positive, num_heads a multiple of kv_num_heads")));
    }
    if n.i("qk_output", 0) != 0 {
        return Err(n.unsupported("qk_output (the QK output)"));
    }
    let (hq, hk) = (hq as u32, hk as u32);
    let group = hq / hk;
    let query = a.req(0)?;
    let qs = cx.shape(query)?;
    let [b, s, width] = qs[..] else {
        return Err(Error::type_error(format!("query is {qs:?}; [batch, sequence, hidden] is read")));
    };
    let packed = a.get(1).is_none();
    if packed != a.get(2).is_none() {
        return Err(Error::type_error("key and value are both given, or both absent (packed QKV)"));
    }
    let d = if packed { width / (hq + 2 * hk) } else { width / hq };
    if d == 0 || width != d * if packed { hq + 2 * hk } else { hq } {
        return Err(Error::type_error(format!("a query of width {width} does not split into heads of {hq} and {hk}")));
    }
    let dt = cx.dt(query)?;
    let x = a.op(cx, 0)?;
    let part = |cx: &mut Cx, x: Operand, start: u32, size: u32| {
        cx.b.slice(x, vec![0, 0, start], vec![b, s, size], SliceOptions { label: cx.label.clone(), ..Default::default() })
    };
    let (q, k, v) = if packed {
        (part(cx, x, 0, hq * d)?, part(cx, x, hq * d, hk * d)?, part(cx, x, (hq + hk) * d, hk * d)?)
    } else {
        for i in [1, 2] {
            let shape = cx.shape(a.req(i)?)?;
            if shape != [b, s, hk * d] {
                return Err(Error::type_error(format!("input {i} is {shape:?}; [{b}, {s}, {}] is read", hk * d)));
            }
        }
        (x, a.op(cx, 1)?, a.op(cx, 2)?)
    };

    // The past, and the present length.
    let past = match (a.get(3), a.get(4)) {
        (Some(pk), Some(pv)) => {
            let (ks, vs) = (cx.shape(pk)?, cx.shape(pv)?);
            if ks.len() != 4 || ks != vs || ks[0] != b || ks[1] != hk || ks[3] != d {
                return Err(Error::type_error(format!("past_key {ks:?} and past_value {vs:?} must both be [{b}, {hk}, past, {d}]")));
            }
            Some((a.op(cx, 3)?, a.op(cx, 4)?, ks[2]))
        }
        (None, None) => None,
        _ => return Err(Error::type_error("past_key and past_value are both given, or both absent")),
    };
    let past_len = past.map_or(0, |p| p.2);
    let total = match a.get(6) {
        Some(Value::Host(h)) => h.ints().first().map(|&t| t as u32),
        _ => None,
    };
    let present_len = n
        .outputs
        .get(1)
        .and_then(|name| cx.declared(name))
        .and_then(|shape| shape.get(2).copied().flatten())
        .or(total.map(|t| t.max(past_len)))
        .unwrap_or(if past.is_some() { past_len } else { s });
    if present_len < past_len.max(1) || present_len < s {
        return Err(Error::type_error(format!("a present length of {present_len} holds neither the past ({past_len}) nor the new {s} positions")));
    }

    // Where each sequence's new tokens go: past_b + s.
    let i32 = DataType::Int32;
    let seqlens = a.op(cx, 5)?;
    if cx.b.desc(seqlens)?.data_type != i32 || cx.shape(a.req(5)?)? != [b] {
        return Err(Error::type_error(format!("seqlens_k must be int32 [{b}]")));
    }
    let int = |cx: &mut Cx, shape: Vec<usize>, v: &[i64]| cx.operand(&Value::Host(Host::from_ints(i32, shape, v)));
    let offset = int(cx, vec![], &[1 - i64::from(s)])?;
    let mut base = cx.b.add(seqlens, offset, cx.o())?;
    if let Some(t) = a.get(6) {
        // A first prompt (S == total_sequence_length) starts every sequence at 0, padded or not.
        let t = cx.operand(t)?;
        let t = cx.b.reshape(t, vec![], cx.o())?;
        let (sv, zero) = (int(cx, vec![], &[i64::from(s)])?, int(cx, vec![], &[0])?);
        let first = cx.b.equal(t, sv, cx.o())?;
        base = cx.b.where_(first, zero, base, cx.o())?;
    }
    let base = cx.b.reshape(base, dims(&[b, 1]), cx.o())?;
    let steps: Vec<i64> = (0..i64::from(s)).collect();
    let steps = int(cx, vec![1, s as usize], &steps)?;
    let pos = cx.b.add(base, steps, cx.o())?; // [B, S]

    // Rotary embedding of q and k at the positions (or the given position ids).
    let heads = |cx: &mut Cx, x: Operand, h: u32| cx.b.reshape(x, dims(&[b, s, h, d]), cx.o());
    let (mut q, mut k) = (heads(cx, q, hq)?, heads(cx, k, hk)?);
    if n.i("do_rotary", 0) != 0 {
        let (cos, sin) = (a.req(7)?, a.req(8)?);
        let cache = cx.shape(cos)?;
        if cache.len() != 2 || cx.shape(sin)? != cache || cache[1] == 0 || 2 * cache[1] > d {
            return Err(Error::type_error(format!("cos_cache and sin_cache must both be [max_position, rotary_dim / 2], rotary_dim at most {d}")));
        }
        let ids = match a.opt_op(cx, 9)? {
            Some(p) => p,
            None => pos,
        };
        let (cos, sin) = (a.op(cx, 7)?, a.op(cx, 8)?);
        let gather = |cx: &mut Cx, t: Operand| cx.b.gather(t, ids, GatherOptions { label: cx.label.clone(), axis: 0 });
        let (cos, sin) = (gather(cx, cos)?, gather(cx, sin)?); // [B, S, half]
        let interleaved = n.i("rotary_interleaved", 0) != 0;
        q = rotary(cx, q, [b, s, hq, d], cos, sin, cache[1], interleaved)?;
        k = rotary(cx, k, [b, s, hk, d], cos, sin, cache[1], interleaved)?;
    }

    // The present caches: the past (padded to the present length) with the new rows written
    // at [b, h, pos].
    let bnsh = TransposeOptions { label: cx.label.clone(), permutation: Some(vec![0, 2, 1, 3]) };
    let k = cx.b.transpose(k, bnsh.clone())?;
    let v = cx.b.reshape(v, dims(&[b, s, hk, d]), cx.o())?;
    let v = cx.b.transpose(v, bnsh)?;
    let grid = |axis: usize| -> Vec<i64> {
        let n = (b * hk * s) as usize;
        (0..n).map(|i| [i / (hk * s) as usize, i / s as usize % hk as usize][axis] as i64).collect()
    };
    let bi = int(cx, vec![b as usize, hk as usize, s as usize, 1], &grid(0))?;
    let hi = int(cx, vec![b as usize, hk as usize, s as usize, 1], &grid(1))?;
    let pi = cx.b.reshape(pos, dims(&[b, 1, s, 1]), cx.o())?;
    let pi = cx.b.expand(pi, dims(&[b, hk, s, 1]), cx.o())?;
    let indices = cx.b.concat(&[bi, hi, pi], 3, cx.o())?;
    let present = |cx: &mut Cx, old: Option<Operand>, new: Operand| -> Result<Operand> {
        let data = match old {
            Some(old) if present_len > past_len => {
                let pad = PadOptions { label: cx.label.clone(), ..Default::default() };
                cx.b.pad(old, vec![0; 4], vec![0, 0, present_len - past_len, 0], pad)?
            }
            Some(old) => old,
            // Without a past the new rows are the first ones (a first prompt).
            None if present_len == s => return Ok(new),
            None => {
                let pad = PadOptions { label: cx.label.clone(), ..Default::default() };
                return cx.b.pad(new, vec![0; 4], vec![0, 0, present_len - s, 0], pad);
            }
        };
        cx.b.scatter_nd(data, indices, new, cx.o())
    };
    let present_k = present(cx, past.map(|p| p.0), k)?;
    let present_v = present(cx, past.map(|p| p.1), v)?;

    // Attention of each kv head's group of query heads over the present keys. A batch of
    // one drops the batch axis: q [Hkv, G, S, D], the caches viewed [Hkv, 1, rows, D], the
    // mask [S, rows], the form `webnn_core::fusion::attentions` matches (head-major caches).
    let batched = b > 1;
    let batch: &[u32] = if batched { &[b] } else { &[] };
    let lead = |v: &[u32]| -> Vec<Dim> { dims(&[batch, v].concat()) };
    let label = cx.label.clone();
    let perm = |batched_perm: Vec<u32>, single: Vec<u32>| TransposeOptions {
        label: label.clone(),
        permutation: Some(if batched { batched_perm } else { single }),
    };
    let q = cx.b.reshape(q, lead(&[s, hk, group, d]), cx.o())?;
    let q = cx.b.transpose(q, perm(vec![0, 2, 3, 1, 4], vec![1, 2, 0, 3]))?;
    let keys = cx.b.reshape(present_k, lead(&[hk, 1, present_len, d]), cx.o())?;
    let keys = cx.b.transpose(keys, perm(vec![0, 1, 2, 4, 3], vec![0, 1, 3, 2]))?;
    let mut scores = cx.b.matmul(q, keys, cx.o())?;
    let scale = match n.f("scale", 0.0) {
        0.0 => 1.0 / f64::from(d).sqrt(),
        s => f64::from(s),
    };
    let scale = cx.scalar(dt, scale)?;
    scores = cx.b.mul(scores, scale, cx.o())?;
    let softcap = n.f("softcap", 0.0);
    if softcap > 0.0 {
        let c = cx.scalar(dt, f64::from(softcap))?;
        let t = cx.b.div(scores, c, cx.o())?;
        let t = cx.b.tanh(t, cx.o())?;
        scores = cx.b.mul(t, c, cx.o())?;
    }
    // Key j is seen by the query at position p when j <= p and, with a local window, j is
    // one of the window's last keys, p's own included (j > p - window): ONNX Runtime 1.31's
    // kernels (older ones took one key more).
    let keys_at: Vec<i64> = (0..i64::from(present_len)).collect();
    let (key_shape, query_shape) = if batched { (vec![1, 1, 1, 1, present_len], vec![b, 1, 1, s, 1]) } else { (vec![1, present_len], vec![s, 1]) };
    let keys_at = int(cx, key_shape.iter().map(|&x| x as usize).collect(), &keys_at)?;
    let query_at = cx.b.reshape(pos, dims(&query_shape), cx.o())?;
    let mut seen = cx.b.lesser_or_equal(keys_at, query_at, cx.o())?;
    let window = n.i("local_window_size", -1);
    if window > 0 {
        let w = int(cx, vec![], &[window])?;
        let oldest = cx.b.sub(query_at, w, cx.o())?;
        let recent = cx.b.greater(keys_at, oldest, cx.o())?;
        seen = cx.b.logical_and(seen, recent, cx.o())?;
    }
    // A masked score: far below any real one, finite so that softmax stays defined.
    let hidden = cx.scalar(dt, if dt == DataType::Float16 { -65504.0 } else { -1e30 })?;
    // attention_bias [B or 1, Hq or 1, S, rows], added after softcap and before the mask, as
    // ONNX Runtime 1.31 adds it (a test with both tells the orders apart).
    if let Some(bias) = a.get(10) {
        let shape = cx.shape(bias)?;
        let [bb, bh, bs, bt] = shape[..] else {
            return Err(Error::type_error(format!("attention_bias is {shape:?}; [batch or 1, num_heads or 1, sequence, total] is read")));
        };
        if !(bb == b || bb == 1) || !(bh == hq || bh == 1) || bs != s || bt != present_len {
            return Err(n.unsupported(format!("attention_bias of shape {shape:?} over a present of {present_len} rows ([{b} or 1, {hq} or 1, {s}, {present_len}] is read)")));
        }
        let heads = if bh == 1 { [1, 1] } else { [hk, group] };
        let mut view = if batched { vec![bb] } else { vec![] };
        view.extend([heads[0], heads[1], s, present_len]);
        let bias = a.op(cx, 10)?;
        let bias = cx.b.reshape(bias, dims(&view), cx.o())?;
        scores = cx.b.add(scores, bias, cx.o())?;
    }
    scores = cx.b.where_(seen, scores, hidden, cx.o())?;
    // A sink: one more logit per query row that takes its share of the softmax and is then
    // dropped (`smooth_softmax`: 0 for every head; `head_sink`: one per query head).
    let sink = match (a.get(11), n.i("smooth_softmax", 0) != 0) {
        (Some(_), _) => {
            if cx.shape(a.req(11)?)? != [hq] {
                return Err(Error::type_error(format!("head_sink must be [{hq}] (one per query head)")));
            }
            let h = a.op(cx, 11)?;
            let view = if batched { dims(&[1, hk, group, 1, 1]) } else { dims(&[hk, group, 1, 1]) };
            Some(cx.b.reshape(h, view, cx.o())?)
        }
        (None, true) => Some(cx.scalar(dt, 0.0)?),
        (None, false) => None,
    };
    let last = if batched { 4 } else { 3 };
    let probs = match sink {
        Some(sink) => {
            let rows_shape = lead(&[hk, group, s, 1]);
            let sink = cx.b.expand(sink, rows_shape.clone(), cx.o())?;
            let wide = cx.b.concat(&[scores, sink], last, cx.o())?;
            let p = cx.b.softmax(wide, last, cx.o())?;
            let mut sizes = lead(&[hk, group, s, present_len]);
            sizes[last as usize] = Dim::Static(present_len);
            cx.b.slice_dims(p, vec![0; last as usize + 1], sizes, SliceOptions { label: cx.label.clone(), ..Default::default() })?
        }
        None => cx.b.softmax(scores, last, cx.o())?,
    };
    let values = cx.b.reshape(present_v, lead(&[hk, 1, present_len, d]), cx.o())?;
    let y = cx.b.matmul(probs, values, cx.o())?; // [(B,) Hkv, G, S, D]
    let y = cx.b.transpose(y, perm(vec![0, 3, 1, 2, 4], vec![2, 0, 1, 3]))?;
    let y = cx.b.reshape(y, dims(&[b, s, hq * d]), cx.o())?;
    Ok(Some(vec![Value::Op(y), Value::Op(present_k), Value::Op(present_v)]))
}

/// `x` `[B, S, H, D]` with its first `2 · half` dims of each head rotated by `cos`/`sin`
/// `[B, S, half]` (ONNX Runtime's partial rotary leaves the rest as they are).
fn rotary(cx: &mut Cx, x: Operand, [b, s, h, d]: [u32; 4], cos: Operand, sin: Operand, half: u32, interleaved: bool) -> Result<Operand> {
    let r = 2 * half;
    let slice = |cx: &mut Cx, start: u32, size: u32| {
        cx.b.slice(x, vec![0, 0, 0, start], vec![b, s, h, size], SliceOptions { label: cx.label.clone(), ..Default::default() })
    };
    let rotated = if r == d { x } else { slice(cx, 0, r)? };
    // A batch of one drops the batch axis: `[S, H, half, 2]`, the fast cpu's rope step.
    let batch: &[u32] = if b > 1 { &[b] } else { &[] };
    let (view, table) = if interleaved {
        ([batch, &[s, h, half, 2]].concat(), [batch, &[s, 1, half, 1]].concat())
    } else {
        ([batch, &[s, h, r]].concat(), [batch, &[s, 1, half]].concat())
    };
    let y = rotate(cx, rotated, &view, cos, sin, &table, interleaved)?;
    let y = cx.b.reshape(y, dims(&[b, s, h, r]), cx.o())?;
    if r == d {
        return Ok(y);
    }
    let rest = slice(cx, r, d - r)?;
    cx.b.concat(&[y, rest], 3, cx.o())
}
