//! Matrix products and convolutions on the tiled gemm frame.

use super::{dims8, elements, strides32, u32_of, Cx, Lowering};
use crate::kernel::{a_binding, gemm_rows, lanes_for, ABinding, KernelId, ParamBinding, Tail, DEPTHWISE_PATCH, DEPTHWISE_TILE, TILE};
use crate::patterns::Takeover;
use crate::params::{ConvParams, DepthwiseParams, MatmulParams, Params, Uniform};
use bytemuck::Zeroable;
use webnn_core::ops::*;
use webnn_core::{Operand, Result};

/// Products with at most this many rows run on the gemv kernel.
const GEMV_ROWS: u32 = 4;
/// Quantized products with at most this many rows run on the quantized gemv kernel on CPU
/// adapters (GPUs run it at every row count).
const QGEMV_ROWS: u32 = 8;

/// The tiled kernels number their output tiles (of all products) in a u32.
fn check_tiles(rows: u32, cols: u32, tile: [u32; 2], products: u32) -> Result<()> {
    let n = rows.div_ceil(tile[0]) as u64 * cols.div_ceil(tile[1]) as u64 * products as u64;
    u32_of(n).map(|_| ())
}

/// Strides of the leading (batch) dimensions of an operand of shape `s`, broadcast to the
/// batch shape `batch` (numpy rules, aligned at the end).
fn batch_strides(s: &[u32], batch: &[u32]) -> Result<Vec<u32>> {
    let lead = &s[..s.len() - 2];
    let st = strides32(s)?;
    let offset = batch.len() - lead.len();
    Ok((0..batch.len())
        .map(|d| {
            if d < offset || lead[d - offset] == 1 {
                0
            } else {
                st[d - offset]
            }
        })
        .collect())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul>: batch dimensions broadcast.
pub fn matmul(cx: &Cx, args: &Binary) -> Result<Lowering> {
    let (sa, sb, so) = (cx.shape(args.a)?, cx.shape(args.b)?, cx.shape(cx.out())?);
    let r = so.len();
    let batch = &so[..r - 2];
    let (m, n, k) = (so[r - 2], so[r - 1], sa[sa.len() - 1]);
    let batches = u32_of(elements(batch))?;
    let mut p = MatmulParams::zeroed();
    p.m = m;
    p.n = n;
    p.k = k;
    p.batch_rank = batch.len() as u32;
    p.a_m = k;
    p.a_k = 1;
    p.b_k = n;
    p.b_n = 1;
    p.batches = batches;
    p.alpha = 1.0;
    p.batch_shape = dims8(batch)?;
    p.a_batch = dims8(&batch_strides(&sa, batch)?)?;
    p.b_batch = dims8(&batch_strides(&sb, batch)?)?;
    matmul_call(cx, p, args.a, args.b, None)
}

/// A matmul-kernel lowering with the node's fused clamp, if any.
fn matmul_call(
    cx: &Cx,
    mut p: MatmulParams,
    a: Operand,
    b: Operand,
    c: Option<Operand>,
) -> Result<Lowering> {
    let rows = gemm_rows(p.m);
    check_tiles(p.m, p.n, [8 * rows, TILE], p.batches)?;
    let [low, high] = cx.clamp.unwrap_or([f32::NEG_INFINITY, f32::INFINITY]);
    (p.clamp_low, p.clamp_high) = (low, high);
    let (has_c, clamp) = (c.is_some(), cx.clamp.is_some());
    // Few rows: one output per row of the row frame, splitting the sum over k.
    let kernel = if p.m <= GEMV_ROWS {
        let lanes = lanes_for(p.k.div_ceil(128));
        KernelId::Gemv {
            c: has_c,
            clamp,
            lanes,
        }
    } else {
        KernelId::Matmul {
            c: has_c,
            clamp,
            rows,
        }
    };
    cx.one(kernel, vec![a, b, c.unwrap_or(a)], Uniform::Matmul(p))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm>: alpha * A' B' + beta * C with the
/// transposes as strides and C broadcast to the output.
pub fn gemm(cx: &Cx, args: &Gemm) -> Result<Lowering> {
    let o = &args.options;
    let (sa, sb, so) = (cx.shape(args.a)?, cx.shape(args.b)?, cx.shape(cx.out())?);
    let (m, n) = (so[0], so[1]);
    let mut p = MatmulParams::zeroed();
    p.m = m;
    p.n = n;
    p.k = if o.a_transpose { sa[0] } else { sa[1] };
    (p.a_m, p.a_k) = if o.a_transpose {
        (1, sa[1])
    } else {
        (sa[1], 1)
    };
    (p.b_k, p.b_n) = if o.b_transpose {
        (1, sb[1])
    } else {
        (sb[1], 1)
    };
    p.batches = 1;
    p.alpha = o.alpha as f32;
    p.beta = o.beta as f32;
    if let Some(c) = o.c {
        let cs = Params::broadcast_strides(&cx.shape(c)?, &so)?;
        (p.c_m, p.c_n) = (cs[0], cs[1]);
    }
    matmul_call(cx, p, args.a, args.b, o.c)
}

/// The strides of a 4-D operand of shape `s` along its axes `perm` (canonical order).
fn canonical(s: &[u32], perm: [usize; 4]) -> Result<([u32; 4], [u32; 4])> {
    let st = strides32(s)?;
    Ok((perm.map(|p| s[p]), perm.map(|p| st[p])))
}

/// The geometry both convolutions share: sizes of input, output and filter taps, strides,
/// dilations and the leading padding.
#[allow(clippy::too_many_arguments)]
fn conv_params(
    cx: &Cx,
    input: Operand,
    layout: InputLayout,
    taps: [u32; 2],
    padding: &Option<Vec<u32>>,
    strides: &Option<Vec<u32>>,
    dilations: &Option<Vec<u32>>,
    groups: u32,
) -> Result<ConvParams> {
    let ax = layout.nchw_axes();
    let (si, in_strides) = canonical(&cx.shape(input)?, ax)?;
    let (so, out_strides) = canonical(&cx.shape(cx.out())?, ax)?;
    let mut p = ConvParams::zeroed();
    p.n = u32_of(so[0] as u64 * so[2] as u64 * so[3] as u64)?;
    p.groups = groups.max(1);
    (p.kh, p.kw) = (taps[0], taps[1]);
    (p.oh, p.ow, p.ih, p.iw) = (so[2], so[3], si[2], si[3]);
    p.icg = si[1] / p.groups;
    [p.stride_h, p.stride_w] = spatial_pair(strides);
    [p.dilation_h, p.dilation_w] = spatial_pair(dilations);
    [p.pad_top, _, p.pad_left, _] = spatial_padding(padding);
    p.in_strides = in_strides;
    p.out_strides = out_strides;
    p.clamp_low = f32::NEG_INFINITY;
    p.clamp_high = f32::INFINITY;
    Ok(p)
}

/// The implicit-product convolution, with the node's fused clamp.
fn conv_lowering(
    cx: &Cx,
    args: (Operand, Operand, Option<Operand>),
    mut p: ConvParams,
    transposed: bool,
) -> Result<Lowering> {
    let rows = gemm_rows(p.m);
    check_tiles(p.m, p.n, [8 * rows, TILE], p.groups)?;
    let (input, filter, bias) = args;
    if let Some([low, high]) = cx.clamp {
        (p.clamp_low, p.clamp_high) = (low, high);
    }
    let kernel = KernelId::Conv {
        transposed,
        bias: bias.is_some(),
        clamp: cx.clamp.is_some(),
        rows,
    };
    let inputs = vec![input, filter, bias.unwrap_or(input)];
    cx.one(kernel, inputs, Uniform::Conv(p))
}

/// A depthwise convolution (one input and one output channel per group) on the tiled
/// depthwise kernel, when its input patch fits in workgroup memory.
fn depthwise(
    cx: &Cx,
    args: (Operand, Operand, Option<Operand>),
    p: &ConvParams,
    batch: u32,
) -> Result<Option<Lowering>> {
    let patch = |tile: u32, k: u32, stride: u32, dilation: u32| {
        (tile as u64 - 1) * stride as u64 + (k as u64 - 1) * dilation as u64 + 1
    };
    let [th, tw] = DEPTHWISE_TILE;
    let ph = patch(th, p.kh, p.stride_h, p.dilation_h);
    let pw = patch(tw, p.kw, p.stride_w, p.dilation_w);
    if ph * pw > DEPTHWISE_PATCH as u64 {
        return Ok(None);
    }
    let planes = u32_of(batch as u64 * p.groups as u64)?;
    check_tiles(p.oh, p.ow, DEPTHWISE_TILE, planes)?;
    let (input, filter, bias) = args;
    let [low, high] = cx.clamp.unwrap_or([f32::NEG_INFINITY, f32::INFINITY]);
    let d = DepthwiseParams {
        channels: p.groups,
        kh: p.kh,
        kw: p.kw,
        patch_h: ph as u32,
        patch_w: pw as u32,
        oh: p.oh,
        ow: p.ow,
        ih: p.ih,
        iw: p.iw,
        stride_h: p.stride_h,
        stride_w: p.stride_w,
        dilation_h: p.dilation_h,
        dilation_w: p.dilation_w,
        pad_top: p.pad_top,
        pad_left: p.pad_left,
        planes,
        clamp_low: low,
        clamp_high: high,
        pad1: 0,
        pad2: 0,
        in_strides: p.in_strides,
        filter_strides: p.filter_strides,
        out_strides: p.out_strides,
    };
    let kernel = KernelId::Depthwise {
        bias: bias.is_some(),
        clamp: cx.clamp.is_some(),
    };
    let inputs = vec![input, filter, bias.unwrap_or(input)];
    Ok(Some(cx.one(kernel, inputs, Uniform::Depthwise(d))?))
}

/// A 1x1 convolution with unit strides and no padding is a matrix product: per image,
/// filter [out, in] times input [in, pixels] (NCHW), or pixels [batch * pixels, in] times
/// filterᵀ (NHWC). The bias is the product's addend.
fn pointwise(
    cx: &Cx,
    args: (Operand, Operand, Option<Operand>),
    p: &ConvParams,
    batch: u32,
    layout: InputLayout,
) -> Result<Lowering> {
    let (input, filter, bias) = args;
    let pixels = p.oh * p.ow;
    let (s, f) = (p.in_strides, p.filter_strides);
    let mut m = MatmulParams::zeroed();
    m.k = p.icg;
    m.alpha = 1.0;
    m.beta = 1.0;
    m.batches = 1;
    match layout {
        InputLayout::Nchw => {
            (m.m, m.n) = (p.m, pixels);
            (m.a_m, m.a_k, m.b_k, m.b_n) = (f[0], f[1], s[1], s[3]);
            (m.c_m, m.c_n) = (1, 0);
            m.batches = batch;
            m.batch_rank = 1;
            m.batch_shape[0] = batch;
            m.b_batch[0] = s[0];
            matmul_call(cx, m, filter, input, bias)
        }
        InputLayout::Nhwc => {
            (m.m, m.n) = (u32_of(batch as u64 * pixels as u64)?, p.m);
            (m.a_m, m.a_k, m.b_k, m.b_n) = (s[3], s[1], f[1], f[0]);
            (m.c_m, m.c_n) = (0, 1);
            matmul_call(cx, m, input, filter, bias)
        }
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d>
pub fn conv2d(cx: &Cx, args: &Conv2d) -> Result<Lowering> {
    let o = &args.options;
    // The filter's (output channel, input channel, row, column) sizes and strides.
    let (fs, fst) = canonical(&cx.shape(args.filter)?, o.filter_layout.oihw_axes())?;
    let mut p = conv_params(
        cx,
        args.input,
        o.input_layout,
        [fs[2], fs[3]],
        &o.padding,
        &o.strides,
        &o.dilations,
        o.groups,
    )?;
    p.m = fs[0] / p.groups;
    p.icg = fs[1];
    p.k = u32_of(fs[1] as u64 * fs[2] as u64 * fs[3] as u64)?;
    p.filter_strides = fst;
    let operands = (args.input, args.filter, o.bias);
    let batch = cx.shape(args.input)?[0];
    if p.m == 1 && p.icg == 1 && p.groups > 1 {
        if let Some(l) = depthwise(cx, operands, &p, batch)? {
            return Ok(l);
        }
    }
    let unpadded = spatial_padding(&o.padding) == [0; 4];
    if p.groups == 1 && p.kh == 1 && p.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && unpadded {
        return pointwise(cx, operands, &p, batch, o.input_layout);
    }
    conv_lowering(cx, operands, p, false)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d>: the output size (with
/// outputPadding or outputSizes) comes from the validated output shape.
pub fn conv_transpose2d(cx: &Cx, args: &ConvTranspose2d) -> Result<Lowering> {
    let o = &args.options;
    // The filter's (input channel, output channel within the group, row, column) sizes and
    // strides.
    let (fs, fst) = canonical(&cx.shape(args.filter)?, o.filter_layout.iohw_axes())?;
    let mut p = conv_params(
        cx,
        args.input,
        o.input_layout,
        [fs[2], fs[3]],
        &o.padding,
        &o.strides,
        &o.dilations,
        o.groups,
    )?;
    p.m = fs[1];
    p.k = u32_of(p.icg as u64 * fs[2] as u64 * fs[3] as u64)?;
    // conv.wgsl reads filter_strides as (output channel, input channel, row, column).
    p.filter_strides = [fst[1], fst[0], fst[2], fst[3]];
    conv_lowering(cx, (args.input, args.filter, o.bias), p, true)
}

/// A `QuantizedLinear` match (`webnn_core::fusion`): `x · Wᵀ` from the 4/8-bit weight, its
/// scales, zero points and offsets, without expanding W. `cx.node` is the match's gemm.
/// On a CPU adapter each output gets one invocation (no workgroup reduction): its barriers
/// cost more there than splitting the blocks gains (2.4x on lavapipe). There, too, its
/// parameters are bound as storage (`ParamBinding::Storage`: a decode step's gemv time
/// halves on lavapipe) and with one row of x an invocation computes 4 outputs from one load
/// of x (another 2.5x), which it reads through a uniform binding (`ABinding`: another 2x).
/// The product of a `QuantizedLinear` match, with the steps it takes over from its
/// neighbours (`crate::patterns`):
/// - `tail`: the epilogue op and its operand (a residual added, a SiLU gate multiplied)
///   where the one reader of the product was absorbed;
/// - `norm`: the RMSNorm whose output is x, which the gemv applies itself (GPUs only,
///   `Patterns::norm`), reading the norm's input and weight;
/// - `store`: the rotary embedding of its output pairs, and the cache rows its rows are
///   scattered into; the product then runs at that later node (`cx.node`), writing its
///   output (first copying the scatter's input there, which an in-place update skips);
/// - `pair`: a gate product of the same x and formats computed beside this one, the output
///   being this product times the gate's SiLU (on the gemv's row frame at every size).
pub fn quantized_linear(cx: &Cx, q: &webnn_core::fusion::QuantizedLinear, takeover: Takeover, cpu_adapter: bool) -> Result<Lowering> {
    let Takeover { tail, norm, store, pair } = takeover;
    let sx = cx.shape(q.input)?;
    let m = u32_of(elements(&sx[..sx.len() - 1]))?;
    let rope = store.and_then(|s| s.rope.as_ref());
    let scatter = store.and_then(|s| s.scatter);
    let mut p = MatmulParams::zeroed();
    (p.m, p.n, p.k) = (m, q.n, q.k);
    (p.a_m, p.a_k) = (q.k, 1);
    (p.c_m, p.c_n) = (q.block, q.k / q.block);
    p.batches = 1;
    p.alpha = 1.0;
    let [low, high] = cx.clamp.unwrap_or([f32::NEG_INFINITY, f32::INFINITY]);
    (p.clamp_low, p.clamp_high) = (low, high);
    let (weight, offset, clamp) = (cx.dtype(q.weight), q.offset.is_some(), cx.clamp.is_some());
    let tail_op = tail.map_or(Tail::None, |(t, _)| t);
    // GGUF's formats have no zero points: the graph gives zeros, which are never bound.
    let zeros = cx.graph.constant_data(q.zero_point).is_some_and(|d| d.iter().all(|&b| b == 0));
    let zero_point = !zeros;
    // Rotary pairs: the head dim, and cos/sin's strides per row and per pair
    // ([rows or 1, 1, half, 1], `crate::patterns::Store`).
    if let Some(r) = rope {
        let x = cx.shape(r.input)?;
        let c = cx.shape(r.cos)?;
        p.batch_shape[0] = 2 * x[2];
        p.batch_shape[1] = if c[0] == 1 { 0 } else { c[2] };
        p.batch_shape[2] = 1;
    }
    if let Some((cache, _)) = scatter {
        p.batch_shape[3] = cx.shape(cache)?[0];
    }
    let (rope_on, scatter_on) = (rope.is_some(), scatter.is_some());
    // Prompts on a CPU adapter: the tiled kernel reads each weight once per 16 to 64 rows of
    // x, the gemv kernel once per 4 (rotary pairs need the tiled kernel's columns). On a GPU
    // the tiled kernel's 64-row tiles leave most of the device idle at prompt sizes (a
    // 64x576 product is 9 workgroups, 238 us on an H100 for 2 us of arithmetic), so every
    // row count runs the gemv kernel there: four rows of x against four weight rows per
    // frame row, 576 workgroups for that product.
    // A pair and a norm run only on the row frame (`Patterns::find_for` finds neither for
    // CPU adapters; patterns found for a GPU and lowered for a CPU adapter still compute
    // them, if slowly).
    let tiled = cpu_adapter && (m > QGEMV_ROWS || (rope_on && m > 1)) && pair.is_none() && norm.is_none();
    let kernel = if tiled {
        let rows = gemm_rows(m);
        check_tiles(m, q.n, [8 * rows, TILE], 1)?;
        KernelId::QGemm { weight, offset, clamp, rows, zero_point, tail: tail_op, rope: rope_on, scatter: scatter_on }
    } else {
        let (lanes, params, cols) = if cpu_adapter {
            (1, ParamBinding::Storage, if pair.is_some() { 1 } else { 4 })
        } else {
            (lanes_for((q.k / q.block).div_ceil(2)), ParamBinding::Uniform, if rope_on { 4 } else { 1 })
        };
        // One row of x: the same bytes, and the same pipeline, at every step.
        let x = match m {
            1 => a_binding(cpu_adapter, cx.dtype(q.input), u64::from(q.k)),
            _ => ABinding::Storage,
        };
        let norm = norm.is_some();
        let pair = pair.is_some();
        KernelId::QGemv { weight, offset, clamp, lanes, params, cols, x, zero_point, tail: tail_op, norm, rope: rope_on, scatter: scatter_on, pair }
    };
    // The norm's epsilon where it runs here (the gemv has no C, so beta is free).
    if let Some(r) = norm {
        p.beta = r.epsilon;
    }
    let key = crate::kernel::KernelKey::new(kernel, cx.dtype(q.input), cx.dtype(cx.out()));
    // The inputs in the order the module binds them (`ProductIo`).
    let x = norm.map_or(q.input, |r| r.input);
    let mut inputs = vec![x, q.weight, q.scale];
    inputs.extend(Some(q.zero_point).filter(|_| zero_point));
    inputs.extend(q.offset);
    if let Some(g) = pair {
        inputs.extend([g.weight, g.scale]);
        inputs.extend(Some(g.zero_point).filter(|_| zero_point));
        inputs.extend(g.offset);
    }
    inputs.extend(tail.map(|(_, r)| r));
    inputs.extend(norm.map(|r| r.weight));
    inputs.extend(rope.into_iter().flat_map(|r| [r.cos, r.sin]));
    inputs.extend(scatter.map(|(_, indices)| indices));
    let product = cx.call(key, inputs, Uniform::Matmul(p));
    match scatter {
        Some((cache, _)) => Ok(Lowering::Kernels(vec![super::movement::copy_to_output(cx, cache)?, product])),
        None => Ok(Lowering::Kernels(vec![product])),
    }
}
