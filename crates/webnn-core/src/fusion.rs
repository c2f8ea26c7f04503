//! Recognisers of decomposed patterns that backends run as one fused kernel. No user can name
//! a fused op: a framework writes the primitive ops (as WebNN requires), a recogniser here
//! finds the pattern exactly, and a backend that has the kernel lowers the match instead of
//! its nodes. Anything that differs from the pattern (other axes, types, shapes, extra
//! readers) is not matched and runs op by op, correctly.

use crate::graph::{Graph, Operand, Source};
use crate::ops::{Gemm, Op};
use crate::{DataType, Dim};

/// `x · Wᵀ` where `W` is a blockwise-dequantized constant: a 4-bit (int4/uint4) or 8-bit
/// (int8/uint8) matrix `q` `[n, k]` with a float32 `scale` and a `zero_point` per block of
/// `block` elements along k, and optionally a float32 `offset` per block added after
/// scaling (GGUF Q4_1's minimum):
///
/// ```text
/// W = dequantizeLinear(q, scale, zero_point)                        // [n, k]
/// W = reshape(add(reshape(W, [n, k/block, block]), offset), [n, k]) // with an offset
/// y = gemm(x, W, {bTranspose: true})                                // x [m, k] -> y [m, n]
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantizedLinear {
    /// The gemm node (its output is the match's output).
    pub node: usize,
    /// The nodes the fused kernel replaces (dequantizeLinear, the reshapes and the add).
    pub absorbed: Vec<usize>,
    pub input: Operand,
    pub weight: Operand,
    pub scale: Operand,
    pub zero_point: Operand,
    pub offset: Option<Operand>,
    pub n: u32,
    pub k: u32,
    pub block: u32,
}

/// The node producing `o`, if a node does.
fn producer(g: &Graph, o: Operand) -> Option<usize> {
    match g.info(o).source {
        Source::Node { node, .. } => Some(node),
        Source::Input(_) | Source::Constant(_) => None,
    }
}

fn is_constant(g: &Graph, o: Operand) -> bool {
    matches!(g.info(o).source, Source::Constant(_))
}

/// Per operand: how many node operands and graph outputs read it (counted once per
/// recogniser run, so matching stays linear in the graph).
fn reader_counts(g: &Graph) -> Vec<usize> {
    let mut counts = vec![0; g.operands.len()];
    for o in g.nodes.iter().flat_map(|n| n.op.operands()).chain(g.outputs.iter().map(|(_, o)| *o)) {
        counts[o.index()] += 1;
    }
    counts
}

fn readers(u: &[usize], o: Operand) -> usize {
    u[o.index()]
}

fn statics(g: &Graph, o: Operand) -> Option<Vec<u32>> {
    g.desc(o).static_shape()
}

/// Every `QuantizedLinear` of the graph.
pub fn quantized_linears(g: &Graph) -> Vec<QuantizedLinear> {
    let u = &reader_counts(g);
    g.nodes.iter().enumerate().filter_map(|(n, node)| match &node.op {
        Op::Gemm(a) => quantized_gemm(g, u, n, a),
        _ => None,
    })
    .collect()
}

fn quantized_gemm(g: &Graph, u: &[usize], node: usize, a: &Gemm) -> Option<QuantizedLinear> {
    let o = &a.options;
    if !o.b_transpose || o.a_transpose || o.alpha != 1.0 || o.c.is_some() {
        return None;
    }
    if g.desc(a.a).data_type != DataType::Float32 || readers(u, a.b) != 1 {
        return None;
    }
    let mut absorbed = Vec::new();
    let mut w = a.b;
    // The optional offset: reshape(add(reshape(D, [n, blocks, block]), offset), [n, k]).
    let mut offset = None;
    if let Some(p) = producer(g, w) {
        if let Op::Reshape(outer) = &g.nodes[p].op {
            let add = producer(g, outer.input)?;
            let Op::Add(sum) = &g.nodes[add].op else { return None };
            let (inner_out, off) = if is_constant(g, sum.b) { (sum.a, sum.b) } else { (sum.b, sum.a) };
            let inner = producer(g, inner_out)?;
            let Op::Reshape(r) = &g.nodes[inner].op else { return None };
            if readers(u, outer.input) != 1 || readers(u, inner_out) != 1 || readers(u, r.input) != 1 {
                return None;
            }
            if !is_constant(g, off) || g.desc(off).data_type != DataType::Float32 {
                return None;
            }
            absorbed.extend([p, add, inner]);
            offset = Some((off, inner_out));
            w = r.input;
        }
    }
    let d = producer(g, w)?;
    let Op::DequantizeLinear(q) = &g.nodes[d].op else { return None };
    absorbed.push(d);
    if ![q.input, q.scale, q.zero_point].iter().all(|o| is_constant(g, *o)) {
        return None;
    }
    let t = g.desc(q.input).data_type;
    if !matches!(t, DataType::Int4 | DataType::Uint4 | DataType::Int8 | DataType::Uint8) {
        return None;
    }
    let (shape, scale) = (statics(g, q.input)?, statics(g, q.scale)?);
    if shape.len() != 2 || scale.len() != 2 || scale[0] != shape[0] || scale[1] == 0 || shape[1] % scale[1] != 0 {
        return None;
    }
    if g.desc(q.scale).data_type != DataType::Float32 || statics(g, q.zero_point)? != scale {
        return None;
    }
    let (n, k, blocks) = (shape[0], shape[1], scale[1]);
    let block = k / blocks;
    if let Some((off, inner_out)) = offset {
        // The reshapes split k into (blocks, block) and join it back; the offset is per block.
        let split = [Dim::Static(n), Dim::Static(blocks), Dim::Static(block)];
        if g.desc(inner_out).shape != split || statics(g, off)? != [n, blocks, 1] {
            return None;
        }
        if g.desc(a.b).shape != [Dim::Static(n), Dim::Static(k)] {
            return None;
        }
    }
    if g.desc(a.a).shape.last() != Some(&Dim::Static(k)) {
        return None;
    }
    absorbed.sort_unstable();
    Some(QuantizedLinear {
        node,
        absorbed,
        input: a.a,
        weight: q.input,
        scale: q.scale,
        zero_point: q.zero_point,
        offset: offset.map(|(o, _)| o),
        n,
        k,
        block,
    })
}

/// RMSNorm over the last axis: `mul(div(x, sqrt(add(reduceMean(pow(x, 2), [last], keep), eps))), w)`
/// with `w` a float32 constant of the last dimension's size and `eps` a float32 constant scalar.
#[derive(Clone, Debug, PartialEq)]
pub struct RmsNorm {
    /// The final mul (its output is the match's output).
    pub node: usize,
    /// pow, reduceMean, add, sqrt and div.
    pub absorbed: Vec<usize>,
    pub input: Operand,
    pub weight: Operand,
    pub epsilon: f32,
}

/// A float32 constant holding one value (any shape of one element).
fn scalar(g: &Graph, o: Operand) -> Option<f32> {
    let d = g.desc(o);
    if d.data_type != DataType::Float32 || d.max_elements() != 1 {
        return None;
    }
    let b = g.constant_data(o)?;
    Some(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Every `RmsNorm` of the graph.
pub fn rms_norms(g: &Graph) -> Vec<RmsNorm> {
    let u = &reader_counts(g);
    g.nodes.iter().enumerate().filter_map(|(n, node)| match &node.op {
        Op::Mul(m) => rms_norm(g, u, n, m.a, m.b).or_else(|| rms_norm(g, u, n, m.b, m.a)),
        _ => None,
    })
    .collect()
}

fn rms_norm(g: &Graph, u: &[usize], node: usize, normed: Operand, weight: Operand) -> Option<RmsNorm> {
    let single = |o: Operand| readers(u, o) == 1;
    let div = producer(g, normed)?;
    let Op::Div(d) = &g.nodes[div].op else { return None };
    let x = d.a;
    let sqrt = producer(g, d.b)?;
    let Op::Sqrt(s) = &g.nodes[sqrt].op else { return None };
    let add = producer(g, s.input)?;
    let Op::Add(a) = &g.nodes[add].op else { return None };
    let (mean_out, eps) = match (scalar(g, a.b), scalar(g, a.a)) {
        (Some(e), _) => (a.a, e),
        (None, Some(e)) => (a.b, e),
        (None, None) => return None,
    };
    let mean = producer(g, mean_out)?;
    let Op::ReduceMean(r) = &g.nodes[mean].op else { return None };
    let pow = producer(g, r.input)?;
    let Op::Pow(p) = &g.nodes[pow].op else { return None };
    let desc = g.desc(x);
    let rank = desc.rank() as u32;
    let last = desc.shape.last()?.as_static()?;
    let ok = p.a == x
        && scalar(g, p.b) == Some(2.0)
        && r.options.axes.as_deref() == Some(&[rank - 1][..])
        && r.options.keep_dimensions
        && desc.data_type == DataType::Float32
        && is_constant(g, weight)
        && statics(g, weight)? == [last]
        && [normed, d.b, s.input, mean_out, r.input].into_iter().all(single);
    ok.then(|| {
        let mut absorbed = vec![pow, mean, add, sqrt, div];
        absorbed.sort_unstable();
        RmsNorm { node, absorbed, input: x, weight, epsilon: eps }
    })
}

/// Rotary embedding on adjacent pairs: with `x` of shape `[..., half, 2]` and `cos`, `sin`
/// broadcastable to `[..., half, 1]`,
///
/// ```text
/// even = slice(x, [0, .., 0], [.., 1]); odd = slice(x, [0, .., 1], [.., 1])
/// y = concat([sub(mul(even, cos), mul(odd, sin)), add(mul(even, sin), mul(odd, cos))], last)
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rope {
    /// The concat (its output is the match's output, of `x`'s shape).
    pub node: usize,
    /// The slices, multiplications, sub and add.
    pub absorbed: Vec<usize>,
    pub input: Operand,
    pub cos: Operand,
    pub sin: Operand,
}

/// Every `Rope` of the graph.
pub fn ropes(g: &Graph) -> Vec<Rope> {
    let u = &reader_counts(g);
    g.nodes.iter().enumerate().filter_map(|(n, node)| match &node.op {
        Op::Concat(c) => rope(g, u, n, c),
        _ => None,
    })
    .collect()
}

/// The two operands of a node's mul, in either order, as (one of `pick`, the other).
fn mul_of(g: &Graph, o: Operand, pick: &[Operand; 2]) -> Option<(usize, Operand, Operand)> {
    let n = producer(g, o)?;
    let Op::Mul(m) = &g.nodes[n].op else { return None };
    if pick.contains(&m.a) {
        Some((n, m.a, m.b))
    } else if pick.contains(&m.b) {
        Some((n, m.b, m.a))
    } else {
        None
    }
}

fn rope(g: &Graph, u: &[usize], node: usize, c: &crate::ops::Concat) -> Option<Rope> {
    let [first, second] = c.inputs[..] else { return None };
    let rank = g.desc(first).rank();
    if rank < 2 || c.axis as usize != rank - 1 || g.desc(first).data_type != DataType::Float32 {
        return None;
    }
    let sub = producer(g, first)?;
    let Op::Sub(s) = &g.nodes[sub].op else { return None };
    let add = producer(g, second)?;
    let Op::Add(a) = &g.nodes[add].op else { return None };
    // The halves: even and odd, slices of one x at the last axis' 0 and 1.
    let half = |o: Operand| -> Option<(usize, Operand, u32)> {
        let n = producer(g, o)?;
        let Op::Slice(sl) = &g.nodes[n].op else { return None };
        let shape = &g.desc(sl.input).shape;
        let r = shape.len();
        if r == 0 {
            return None;
        }
        let last = *sl.starts.last()?;
        let whole = sl.starts[..r - 1].iter().all(|&s| s == 0)
            && sl.sizes[..r - 1] == shape[..r - 1]
            && sl.sizes[r - 1] == Dim::Static(1)
            && shape[r - 1] == Dim::Static(2)
            && sl.options.strides.as_ref().is_none_or(|s| s.iter().all(|&x| x == 1));
        whole.then_some((n, sl.input, last))
    };
    // sub(mul(even, cos), mul(odd, sin)): find the slices through the muls' operands.
    let slices_of = |m: usize| -> Vec<Operand> {
        let Op::Mul(x) = &g.nodes[m].op else { return Vec::new() };
        [x.a, x.b].into_iter().filter(|o| half(*o).is_some()).collect()
    };
    let m0 = producer(g, s.a)?;
    let m1 = producer(g, s.b)?;
    let even = *slices_of(m0).first()?;
    let odd = *slices_of(m1).first()?;
    let (se, x, e0) = half(even)?;
    let (so, x1, e1) = half(odd)?;
    if x != x1 || (e0, e1) != (0, 1) {
        return None;
    }
    let pair = [even, odd];
    let (_, _, cos) = mul_of(g, s.a, &[even, even])?;
    let (_, _, sin) = mul_of(g, s.b, &[odd, odd])?;
    // add(mul(even, sin), mul(odd, cos)), in either order.
    let (ma, p, q) = (mul_of(g, a.a, &pair)?, a.a, a.b);
    let mb = mul_of(g, q, &pair)?;
    let _ = p;
    let (es, oc) = if ma.1 == even { (ma, mb) } else { (mb, ma) };
    if es.1 != even || es.2 != sin || oc.1 != odd || oc.2 != cos {
        return None;
    }
    let single = |o: Operand| readers(u, o) == 1;
    let reads = |o: Operand| readers(u, o) == 2;
    let shape_ok = g.desc(first).shape.last() == Some(&Dim::Static(1));
    let ok = shape_ok
        && [first, second, s.a, s.b, a.a, a.b].into_iter().all(single)
        && [even, odd].into_iter().all(reads)
        && [cos, sin].iter().all(|o| g.desc(*o).data_type == DataType::Float32);
    ok.then(|| {
        let mut absorbed = vec![se, so, m0, m1, es.0, oc.0, sub, add];
        absorbed.sort_unstable();
        Rope { node, absorbed, input: x, cos, sin }
    })
}

/// Grouped-query attention over a key/value cache laid out `[total, kv_heads * head_dim]`:
///
/// ```text
/// kh = transpose(reshape(keys, [total, kv_heads, 1, head_dim]), [1, 2, 3, 0])
/// vh = transpose(reshape(values, [total, kv_heads, 1, head_dim]), [1, 2, 0, 3])
/// p  = softmax(where(mask, mul(matmul(q, kh), scale), masked), 3)
/// y  = matmul(p, vh)
/// ```
///
/// with `q` `[kv_heads, group, seq, head_dim]`, `mask` uint8 `[seq, total]`, and `scale`,
/// `masked` float32 constant scalars; `y` is `[kv_heads, group, seq, head_dim]`. Caches kept
/// in float16 (half the bytes a decode step streams) are read through a `cast` to float32
/// before the reshape: `keys` and `values` are then the float16 operands, the casts absorbed.
///
/// Head-major caches (`[1, kv_heads, rows, head_dim]`, ONNX Runtime's GroupQueryAttention
/// layout, float32) match too, viewed without moving a row:
///
/// ```text
/// kh = transpose(reshape(keys, [kv_heads, 1, rows, head_dim]), [0, 1, 3, 2])
/// vh = reshape(values, [kv_heads, 1, rows, head_dim])
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Attention {
    /// The final matmul (its output is the match's output).
    pub node: usize,
    /// The reshapes and transposes of the keys and values, the first matmul, mul, where and
    /// softmax.
    pub absorbed: Vec<usize>,
    pub query: Operand,
    pub keys: Operand,
    pub values: Operand,
    pub mask: Operand,
    /// The first matmul's output, `q · kᵀ` `[kv_heads, group, seq, total]`, and that node
    /// (absorbed): a backend may keep its buffer as scratch.
    pub scores: Operand,
    pub scores_node: usize,
    pub scale: f32,
    pub masked: f32,
    pub layout: CacheLayout,
}

/// How an `Attention`'s caches hold their rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheLayout {
    /// `[total, kv_heads * head_dim]`: a row holds every kv head's key of one position.
    TokenMajor,
    /// `[1, kv_heads, rows, head_dim]`: each kv head's rows together.
    HeadMajor,
}

/// Every `Attention` of the graph.
pub fn attentions(g: &Graph) -> Vec<Attention> {
    let u = &reader_counts(g);
    g.nodes.iter().enumerate().filter_map(|(n, node)| match &node.op {
        Op::Matmul(m) => attention(g, u, n, m.a, m.b),
        _ => None,
    })
    .collect()
}

/// `t = transpose(reshape(x, [total, heads, 1, hd]), perm)`, x float32 or `cast(x16)` of a
/// float16 x16: the cache operand, the nodes, (heads, hd).
fn cache_view(g: &Graph, u: &[usize], t: Operand, perm: [u32; 4]) -> Option<(Operand, Vec<usize>, [u32; 2])> {
    let tn = producer(g, t)?;
    let Op::Transpose(tr) = &g.nodes[tn].op else { return None };
    if tr.options.permutation.as_deref() != Some(&perm[..]) {
        return None;
    }
    let rn = producer(g, tr.input)?;
    let Op::Reshape(r) = &g.nodes[rn].op else { return None };
    let mut nodes = vec![tn, rn];
    let mut x = r.input;
    if let Some(cn) = producer(g, x) {
        if let Op::Cast(c) = &g.nodes[cn].op {
            let widens = g.desc(c.input).data_type == DataType::Float16 && c.data_type == DataType::Float32;
            if !widens || readers(u, x) != 1 {
                return None;
            }
            nodes.push(cn);
            x = c.input;
        }
    }
    let xd = g.desc(x);
    let [total, heads, one, hd] = &r.new_shape[..] else { return None };
    let width = heads.as_static()? * hd.as_static()?;
    let ok = *one == Dim::Static(1)
        && matches!(xd.data_type, DataType::Float32 | DataType::Float16)
        && xd.rank() == 2
        && xd.shape[0] == *total
        && xd.shape[1] == Dim::Static(width)
        && readers(u, tr.input) == 1
        && readers(u, t) == 1;
    ok.then_some((x, nodes, [heads.as_static()?, hd.as_static()?]))
}

/// The head-major views: `t = transpose(reshape(x, [heads, 1, rows, hd]), [0, 1, 3, 2])` for
/// keys, `t = reshape(x, [heads, 1, rows, hd])` for values, `x` float32 `[1, heads, rows, hd]`:
/// the cache operand, the nodes, (heads, hd).
fn head_major_view(g: &Graph, u: &[usize], t: Operand, keys: bool) -> Option<(Operand, Vec<usize>, [u32; 2])> {
    let mut nodes = Vec::new();
    let mut r = t;
    if keys {
        let tn = producer(g, t)?;
        let Op::Transpose(tr) = &g.nodes[tn].op else { return None };
        if tr.options.permutation.as_deref() != Some(&[0, 1, 3, 2][..]) || readers(u, tr.input) != 1 {
            return None;
        }
        nodes.push(tn);
        r = tr.input;
    }
    let rn = producer(g, r)?;
    let Op::Reshape(re) = &g.nodes[rn].op else { return None };
    nodes.push(rn);
    let x = g.desc(re.input);
    let [heads, one, rows, hd] = &re.new_shape[..] else { return None };
    let (heads, hd) = (heads.as_static()?, hd.as_static()?);
    let ok = *one == Dim::Static(1)
        && x.data_type == DataType::Float32
        && x.shape == [Dim::Static(1), Dim::Static(heads), rows.clone(), Dim::Static(hd)]
        && readers(u, t) == 1;
    ok.then_some((re.input, nodes, [heads, hd]))
}

fn attention(g: &Graph, u: &[usize], node: usize, probs: Operand, vh: Operand) -> Option<Attention> {
    let (values, value_nodes, vdims, layout) = match cache_view(g, u, vh, [1, 2, 0, 3]) {
        Some((v, n, d)) => (v, n, d, CacheLayout::TokenMajor),
        None => {
            let (v, n, d) = head_major_view(g, u, vh, false)?;
            (v, n, d, CacheLayout::HeadMajor)
        }
    };
    let sm = producer(g, probs)?;
    let Op::Softmax(s) = &g.nodes[sm].op else { return None };
    let wn = producer(g, s.input)?;
    let Op::Where(w) = &g.nodes[wn].op else { return None };
    let masked = scalar(g, w.false_value)?;
    let mn = producer(g, w.true_value)?;
    let Op::Mul(m) = &g.nodes[mn].op else { return None };
    let (scores, scale) = match (scalar(g, m.b), scalar(g, m.a)) {
        (Some(s), _) => (m.a, s),
        (None, Some(s)) => (m.b, s),
        (None, None) => return None,
    };
    let qn = producer(g, scores)?;
    let Op::Matmul(qk) = &g.nodes[qn].op else { return None };
    let (keys, key_nodes, kdims) = match layout {
        CacheLayout::TokenMajor => cache_view(g, u, qk.b, [1, 2, 3, 0])?,
        CacheLayout::HeadMajor => head_major_view(g, u, qk.b, true)?,
    };
    let (q, mask) = (g.desc(qk.a), g.desc(w.condition));
    let total = match layout {
        CacheLayout::TokenMajor => &g.desc(keys).shape[0],
        CacheLayout::HeadMajor => &g.desc(keys).shape[2],
    };
    let ok = s.axis == 3
        && q.rank() == 4
        && vdims == kdims
        && q.shape[0] == Dim::Static(kdims[0])
        && q.shape[3] == Dim::Static(kdims[1])
        && q.data_type == DataType::Float32
        && mask.rank() == 2
        && mask.shape[0] == q.shape[2]
        && mask.shape[1] == *total
        && g.desc(values) == g.desc(keys)
        && [scores, s.input, w.true_value, probs].into_iter().all(|o| readers(u, o) == 1);
    ok.then(|| {
        let mut absorbed = [value_nodes, key_nodes, vec![qn, mn, wn, sm]].concat();
        absorbed.sort_unstable();
        Attention { node, absorbed, query: qk.a, keys, values, mask: w.condition, scores, scores_node: qn, scale, masked, layout }
    })
}

/// Where an `Attention`'s query comes from and its output goes in a transformer that keeps
/// activations token-major, `[seq, kv_heads, group, head_dim]` (the projections' layout):
///
/// ```text
/// q = transpose(t, [1, 2, 0, 3])      // t [seq, kv_heads, group, head_dim]
/// o = transpose(y, [2, 0, 1, 3])      // y the attention's output -> [seq, kv_heads, group, head_dim]
/// ```
///
/// A backend that reads and writes that layout itself skips both transposes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenLayout {
    /// `t` and the transpose node, when the transpose's only reader is the attention.
    pub query: Option<(Operand, usize)>,
    /// The transpose node reading the output, when it is the output's only reader.
    pub output: Option<usize>,
}

/// The token-major neighbours of attention `a` (see `TokenLayout`).
pub fn token_layout(g: &Graph, a: &Attention) -> TokenLayout {
    let u = &reader_counts(g);
    let transpose = |n: usize, perm: [u32; 4]| match &g.nodes[n].op {
        Op::Transpose(t) if t.options.permutation.as_deref() == Some(&perm[..]) => Some(t.input),
        _ => None,
    };
    let query = producer(g, a.query)
        .filter(|_| readers(u, a.query) == 1)
        .and_then(|n| Some((transpose(n, [1, 2, 0, 3])?, n)));
    let out = g.nodes[a.node].outputs[0];
    let reader = g.nodes.iter().enumerate().skip(a.node + 1).find(|(_, n)| n.op.operands().contains(&out));
    let is_output = g.outputs.iter().any(|(_, o)| *o == out);
    let output = reader
        .filter(|_| readers(u, out) == 1 && !is_output)
        .and_then(|(n, _)| transpose(n, [2, 0, 1, 3]).map(|_| n));
    TokenLayout { query, output }
}

/// The SiLU-gated product of a gated MLP: `mul(mul(g, sigmoid(g)), u)`, operands of each mul
/// in either order, `g` and `u` float32 of one shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiluGate {
    /// The outer mul (its output is the match's output).
    pub node: usize,
    /// The sigmoid and the inner mul.
    pub absorbed: Vec<usize>,
    pub gate: Operand,
    pub up: Operand,
}

/// Every `SiluGate` of the graph.
pub fn silu_gates(g: &Graph) -> Vec<SiluGate> {
    let u = &reader_counts(g);
    g.nodes.iter().enumerate().filter_map(|(n, node)| match &node.op {
        Op::Mul(m) => silu_gate(g, u, n, m.a, m.b).or_else(|| silu_gate(g, u, n, m.b, m.a)),
        _ => None,
    })
    .collect()
}

fn silu_gate(g: &Graph, u: &[usize], node: usize, silu: Operand, up: Operand) -> Option<SiluGate> {
    let inner = producer(g, silu)?;
    let Op::Mul(m) = &g.nodes[inner].op else { return None };
    let sigmoid_of = |o: Operand| -> Option<(usize, Operand)> {
        let s = producer(g, o)?;
        match &g.nodes[s].op {
            Op::Sigmoid(x) => Some((s, x.input)),
            _ => None,
        }
    };
    let (sig, gate) = match (sigmoid_of(m.b), sigmoid_of(m.a)) {
        (Some((s, x)), _) if x == m.a => (s, m.a),
        (_, Some((s, x))) if x == m.b => (s, m.b),
        _ => return None,
    };
    let (dg, du) = (g.desc(gate), g.desc(up));
    let sig_out = g.nodes[sig].outputs[0];
    let ok = dg.data_type == DataType::Float32
        && dg == du
        && g.desc(silu) == dg
        && readers(u, silu) == 1
        && readers(u, sig_out) == 1;
    ok.then(|| SiluGate { node, absorbed: vec![sig.min(inner), sig.max(inner)], gate, up })
}
