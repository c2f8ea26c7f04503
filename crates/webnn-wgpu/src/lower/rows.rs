//! Row kernels (reductions, arg reductions, softmax, cumulative sums, layer and instance
//! normalization, pooling) and batchNormalization.

use super::{dims8, elements, float_option, strides32, u32_of, Cx, KernelCall, Lowering};
use crate::kernel::{a_binding, lanes_for, KernelId, KernelKey, ReduceOp};
use crate::params::{PoolParams, Rows, Uniform};
use bytemuck::Zeroable;
use webnn_core::ops::*;
use webnn_core::{Error, Operand, Result};

/// The block for rows over `input`: the kept axes enumerate the rows in order, `inner` (in
/// the order given) the elements of each row.
fn rows_over(cx: &Cx, input: Operand, inner: &[usize]) -> Result<Rows> {
    let s = cx.shape(input)?;
    let st = strides32(&s)?;
    let outer: Vec<usize> = (0..s.len()).filter(|d| !inner.contains(d)).collect();
    let pick = |axes: &[usize], v: &[u32]| -> Vec<u32> { axes.iter().map(|&d| v[d]).collect() };
    let mut r = Rows::zeroed();
    r.rows = u32_of(elements(&pick(&outer, &s)))?;
    r.len = u32_of(elements(&pick(inner, &s)))?;
    r.outer_rank = outer.len() as u32;
    r.inner_rank = inner.len() as u32;
    r.outer_shape = dims8(&pick(&outer, &s))?;
    r.outer_strides = dims8(&pick(&outer, &st))?;
    r.inner_shape = dims8(&pick(inner, &s))?;
    r.inner_strides = dims8(&pick(inner, &st))?;
    Ok(r)
}

/// The ten reductions. Absent axes reduce every axis; an empty list none.
pub fn reduce(cx: &Cx, op: ReduceOp, args: &Reduce) -> Result<Lowering> {
    let rank = cx.shape(args.input)?.len();
    let axes: Vec<usize> = match &args.options.axes {
        None => (0..rank).collect(),
        Some(a) => {
            let mut a: Vec<usize> = a.iter().map(|&x| x as usize).collect();
            a.sort_unstable();
            a.dedup();
            a
        }
    };
    let rows = rows_over(cx, args.input, &axes)?;
    let kernel = KernelId::Reduce {
        op,
        lanes: lanes_for(rows.len),
    };
    cx.one(kernel, vec![args.input], Uniform::Rows(rows))
}

pub fn arg_reduce(cx: &Cx, max: bool, args: &ArgMinMax) -> Result<Lowering> {
    let rows = rows_over(cx, args.input, &[args.axis as usize])?;
    let kernel = KernelId::ArgReduce {
        max,
        lanes: lanes_for(rows.len),
    };
    cx.one(kernel, vec![args.input], Uniform::Rows(rows))
}

pub fn softmax(cx: &Cx, args: &Softmax) -> Result<Lowering> {
    let rows = rows_over(cx, args.input, &[args.axis as usize])?;
    let kernel = KernelId::Softmax {
        lanes: lanes_for(rows.len),
    };
    cx.one(kernel, vec![args.input], Uniform::Rows(rows))
}

pub fn cumulative_sum(cx: &Cx, args: &CumulativeSum) -> Result<Lowering> {
    let mut rows = rows_over(cx, args.input, &[args.axis as usize])?;
    rows.i = [
        u32::from(args.options.exclusive),
        u32::from(args.options.reversed),
        0,
        0,
    ];
    cx.one(KernelId::CumSum, vec![args.input], Uniform::Rows(rows))
}

/// Scale and bias operands, the input standing in for an absent one (never read: the
/// pipeline's HAS_SCALE / HAS_BIAS say which are real).
fn optional(input: Operand, o: Option<Operand>) -> Operand {
    o.unwrap_or(input)
}

fn normalize(
    cx: &Cx,
    input: Operand,
    rows: Rows,
    scale: Option<Operand>,
    bias: Option<Operand>,
) -> Result<Lowering> {
    let kernel = KernelId::Normalize {
        scale: scale.is_some(),
        bias: bias.is_some(),
        rms: false,
        lanes: lanes_for(rows.len),
    };
    let inputs = vec![input, optional(input, scale), optional(input, bias)];
    cx.one(kernel, inputs, Uniform::Rows(rows))
}

/// layerNormalization over `axes` (default: every axis but the first); scale and bias are
/// indexed by the position in the row, which enumerates `axes` in their given order.
pub fn layer_normalization(cx: &Cx, args: &LayerNormalization) -> Result<Lowering> {
    let rank = cx.shape(args.input)?.len();
    let axes: Vec<usize> = match &args.options.axes {
        None => (1..rank).collect(),
        Some(a) => a.iter().map(|&x| x as usize).collect(),
    };
    let mut rows = rows_over(cx, args.input, &axes)?;
    rows.f[0] = float_option(cx.dtype(args.input), args.options.epsilon);
    let o = &args.options;
    normalize(cx, args.input, rows, o.scale, o.bias)
}

/// instanceNormalization: rows are (batch, channel), elements the spatial positions; scale
/// and bias are per channel (row % channels).
pub fn instance_normalization(cx: &Cx, args: &InstanceNormalization) -> Result<Lowering> {
    let s = cx.shape(args.input)?;
    let (channel_axis, inner) = match args.options.layout {
        InputLayout::Nchw => (1, [2, 3]),
        InputLayout::Nhwc => (3, [1, 2]),
    };
    let mut rows = rows_over(cx, args.input, &inner)?;
    rows.f[0] = float_option(cx.dtype(args.input), args.options.epsilon);
    rows.i[0] = s[channel_axis];
    let o = &args.options;
    normalize(cx, args.input, rows, o.scale, o.bias)
}

/// batchNormalization: element-wise with per-channel mean, variance, scale and bias.
pub fn batch_normalization(cx: &Cx, args: &BatchNormalization) -> Result<Lowering> {
    let s = cx.shape(args.input)?;
    let axis = args.options.axis as usize;
    let inner = u32_of(elements(&s[axis + 1..]))?;
    let mut params = cx.output_params(cx.out())?;
    params.i = [inner, s[axis], 0, 0];
    params.f[0] = float_option(cx.dtype(args.input), args.options.epsilon);
    let (x, o) = (args.input, &args.options);
    let kernel = KernelId::BatchNorm {
        scale: o.scale.is_some(),
        bias: o.bias.is_some(),
    };
    let inputs = vec![
        x,
        args.mean,
        args.variance,
        optional(x, o.scale),
        optional(x, o.bias),
    ];
    cx.one(kernel, inputs, Uniform::Params(params))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d>: each output element folds the
/// in-bounds elements of its window.
pub fn pool(cx: &Cx, op: ReduceOp, args: &Pool2d) -> Result<Lowering> {
    let o = &args.options;
    let s = cx.shape(args.input)?;
    let so = cx.shape(cx.out())?;
    let st = strides32(&s)?;
    let nhwc = o.layout == InputLayout::Nhwc;
    // (n, c, h, w) axes of the layout.
    let ax = o.layout.nchw_axes();
    let window = match &o.window_dimensions {
        Some(w) if w.len() == 2 => [w[0], w[1]],
        _ => [s[ax[2]], s[ax[3]]],
    };
    let (strides, dilations) = (spatial_pair(&o.strides), spatial_pair(&o.dilations));
    let [pad_top, _, pad_left, _] = spatial_padding(&o.padding);
    let p = PoolParams {
        rows: u32_of(elements(&so))?,
        len: window[0]
            .checked_mul(window[1])
            .ok_or_else(|| Error::not_supported("the pooling window is too large"))?,
        kh: window[0],
        kw: window[1],
        oh: so[ax[2]],
        ow: so[ax[3]],
        channels: so[ax[1]],
        nhwc: u32::from(nhwc),
        ih: s[ax[2]],
        iw: s[ax[3]],
        stride_h: strides[0],
        stride_w: strides[1],
        dilation_h: dilations[0],
        dilation_w: dilations[1],
        pad_top,
        pad_left,
        sn: st[ax[0]],
        sc: st[ax[1]],
        sh: st[ax[2]],
        sw: st[ax[3]],
    };
    let kernel = KernelId::Pool {
        op,
        lanes: lanes_for(p.len),
    };
    cx.one(kernel, vec![args.input], Uniform::Pool(p))
}

/// An RMSNorm match (`webnn_core::fusion::RmsNorm`) over the last axis: the normalize kernel
/// without the mean. `cx.node` is the match's final mul.
pub fn rms_norm(cx: &Cx, r: &webnn_core::fusion::RmsNorm) -> Result<Lowering> {
    let rank = cx.shape(r.input)?.len();
    let mut rows = rows_over(cx, r.input, &[rank - 1])?;
    rows.f[0] = r.epsilon;
    let kernel = KernelId::Normalize { scale: true, bias: false, rms: true, lanes: lanes_for(rows.len) };
    cx.one(kernel, vec![r.input, r.weight, r.input], Uniform::Rows(rows))
}

/// Query rows per tile of attention_tiled.wgsl (its TR).
const TILED_ROWS: u32 = 16;
/// The fewest tiles a GPU runs the tiled prompt attention with: 4 per multiprocessor of a
/// 132-SM GPU. A choice by that reasoning, not a measured crossover.
const GPU_TILES: u64 = 528;

/// An `Attention` match (`webnn_core::fusion`): a workgroup per (kv head, quad of its group's
/// query heads, query), or tiles of 16 query rows of one kv head for prompts, over `total`
/// keys read from the cache layout. `cx.node` is the match's final matmul.
pub fn attention(
    cx: &Cx,
    a: &webnn_core::fusion::Attention,
    layout: &webnn_core::fusion::TokenLayout,
    cpu_adapter: bool,
) -> Result<Lowering> {
    let q = cx.shape(a.query)?;
    let keys = cx.shape(a.keys)?;
    let [kv_heads, group, seq, hd] = q[..] else {
        return Err(webnn_core::Error::operation_error("attention: q must have rank 4"));
    };
    let mut r = Rows::zeroed();
    let per_head = u32_of(elements(&[group, seq]))?;
    // The caches' strides of a key and of a kv head: `[total, kv_heads * head_dim]`, or
    // head-major `[1, kv_heads, total, head_dim]` (an imported GroupQueryAttention's).
    let (total, cache_strides) = match a.layout {
        webnn_core::fusion::CacheLayout::TokenMajor => (keys[0], [u32_of(u64::from(kv_heads) * u64::from(hd))?, hd]),
        webnn_core::fusion::CacheLayout::HeadMajor => (keys[2], [hd, u32_of(u64::from(keys[2]) * u64::from(hd))?]),
    };
    r.outer_strides[4..6].copy_from_slice(&cache_strides);
    r.len = total;
    r.i = [seq, hd, group, kv_heads];
    r.f = [a.scale, a.masked, 0.0, 0.0];
    // The strides of a head and of a position in q and in the output: head-major as the
    // pattern's shapes are, or token-major where the transposes around it were skipped.
    let heads = u32_of(u64::from(kv_heads) * u64::from(group))?;
    let token_major = [hd, u32_of(u64::from(heads) * u64::from(hd))?];
    let head_major = [u32_of(u64::from(seq) * u64::from(hd))?, hd];
    let [qh, qs] = if layout.query.is_some() { token_major } else { head_major };
    let [oh, os] = if layout.output.is_some() { token_major } else { head_major };
    r.outer_strides[..4].copy_from_slice(&[qh, qs, oh, os]);
    // Prompts: tiles of query rows share each staged key and value (attention_tiled.wgsl's
    // TR rows, head dims up to its HD); decode steps: a workgroup per query position and
    // quad of query heads, which share each key and value loaded. On a GPU the tiles of a
    // short prompt are too few workgroups to fill it (SmolLM2's 64-token chunks: 36 tiles,
    // 417 us per layer on an H100), where the per-query kernel gives 192 and the keys,
    // loaded once per query, stay in its cache: prompts with fewer than GPU_TILES tiles run
    // it there.
    let query = layout.query.map_or(a.query, |(t, _)| t);
    let inputs = vec![query, a.keys, a.values, a.mask];
    let cache = cx.dtype(a.keys);
    let tiles = u64::from(kv_heads) * u64::from(per_head.div_ceil(TILED_ROWS));
    let enough = cpu_adapter || tiles >= GPU_TILES;
    if per_head >= TILED_ROWS && hd <= 64 && enough {
        r.rows = u32_of(kv_heads as u64 * per_head.div_ceil(TILED_ROWS) as u64)?;
        return cx.one(KernelId::AttentionTiled { cache }, inputs, Uniform::Rows(r));
    }
    let quads = group.div_ceil(4);
    let frame_rows = u32_of(kv_heads as u64 * quads as u64 * seq as u64)?;
    r.rows = frame_rows;
    (r.outer_shape[0], r.outer_shape[1], r.outer_shape[2]) = (1, total, quads);
    // Decode steps over long caches: blocks of `split_keys` keys per workgroup, merged by a
    // second pass, the partials kept in the scores' buffer (the pattern's scratch) when
    // they fit there: query rows * total floats. On a CPU adapter, blocks of 512 keys: a
    // few workgroups per kv head even out the cores' shares (lavapipe, SmolLM2's 3 kv
    // heads on 2 cores at 1,024 keys: 4.7-4.8 ms per layer unsplit, 3.9-4.6 split), where
    // blocks of 256 gained nothing over their merge. On a GPU, `GPU_SPLIT_KEYS`.
    let rows = u64::from(kv_heads) * u64::from(per_head);
    // A block's partials (head_dim + 2 floats per query row) fit in the scores' buffer
    // (total floats per query row) for blocks of `keys`.
    let fits = |keys: u32| u64::from(total.div_ceil(keys)) * (u64::from(hd) + 2) <= u64::from(total);
    let split_keys = match cpu_adapter {
        true => CPU_SPLIT_KEYS,
        false => GPU_SPLIT_KEYS.into_iter().find(|&k| fits(k)).unwrap_or(GPU_SPLIT_KEYS[1]),
    };
    let blocks = total.div_ceil(split_keys);
    let fits = fits(split_keys);
    let q = a_binding(cpu_adapter, cx.dtype(a.query), elements(&q));
    if blocks < 2 || !fits {
        return cx.one(KernelId::Attention { cache, q }, inputs, Uniform::Rows(r));
    }
    r.rows = u32_of(frame_rows as u64 * blocks as u64)?;
    (r.outer_shape[0], r.outer_shape[1]) = (blocks, split_keys);
    let mut merge = Rows::zeroed();
    merge.rows = u32_of(rows)?;
    merge.i = [blocks, hd, seq, 0];
    merge.outer_strides[2..4].copy_from_slice(&[oh, os]);
    let (f32s, out) = (cx.dtype(a.query), cx.dtype(cx.out()));
    let split = KernelCall {
        key: KernelKey::new(KernelId::AttentionSplit { cache, q }, f32s, f32s),
        inputs,
        output: a.scores,
        uniform: Uniform::Rows(r),
    };
    let merged = cx.call(KernelKey::new(KernelId::AttentionMerge, f32s, out), vec![a.scores], Uniform::Rows(merge));
    Ok(Lowering::Kernels(vec![split, merged]))
}

/// Keys per workgroup of a split decode step on a GPU (attention.wgsl with SPLIT): 128
/// where the blocks' partials fit in the scores' buffer (head_dim + 2 floats per block;
/// from 132 keys for 64-wide heads), else 256. On an H200 SmolLM2's steps over 1,024 keys
/// took 45 us per layer in 256-key blocks, 12 workgroups for 3 kv heads; 128-key blocks
/// give 24, each with half the values to weigh (phase 3 of attention.wgsl; its scoring
/// phase costs the same, its lanes scoring four keys each whatever the block). Not yet
/// timed on a GPU. Steps over 132 to 256 keys then split too, for one more kernel per
/// layer (the merge).
const GPU_SPLIT_KEYS: [u32; 2] = [128, 256];
/// Keys per workgroup of a split decode step on CPU adapters.
const CPU_SPLIT_KEYS: u32 = 512;
