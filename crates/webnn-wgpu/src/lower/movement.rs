//! Data movement: transpose, expand, slice, reverse, split, tile, pad, concat, triangular,
//! the gathers and scatters, and resample2d. Most are the strided gather kernel with the
//! right strides; the scatters copy the input, then write the updates.

use super::{dims8, element_bits, strides32, Cx, KernelCall, Lowering};
use crate::kernel::{KernelId, KernelKey, RemapMode, ResampleMode};
use crate::params::{Params, Uniform};
use crate::storage::Storage;
use webnn_core::ops::*;
use webnn_core::{Error, Operand, Result};

/// out = input read through `a_strides` from `base`: a word copy when that read is contiguous
/// whole words.
fn strided(
    cx: &Cx,
    input: Operand,
    output: Operand,
    base: u32,
    a_strides: &[u32],
) -> Result<KernelCall> {
    if let Some(copy) = word_copy(cx, input, output, base, a_strides)? {
        return Ok(copy);
    }
    let mut params = cx.output_params(output)?;
    params.base = base;
    params.a_strides = dims8(a_strides)?;
    let t = cx.dtype(input);
    Ok(KernelCall {
        key: KernelKey::new(KernelId::Strided, t, t),
        inputs: vec![input],
        output,
        uniform: Uniform::Params(params),
    })
}

/// The `Copy` call of a strided read of the whole input in order (exactly the output's own
/// strides); None otherwise. The rule must not depend on sizes: a dynamic graph runs the
/// kernels chosen at its bounds at every size (`KernelKey::tuned_like`), so a contiguous
/// part of the input, or a transpose that only moves dimensions of size 1, stays strided.
fn word_copy(cx: &Cx, input: Operand, output: Operand, base: u32, a_strides: &[u32]) -> Result<Option<KernelCall>> {
    let shape = cx.shape(output)?;
    let n = super::elements(&shape);
    let in_order = strides32(&shape)? == a_strides;
    if base != 0 || !in_order || n != super::elements(&cx.shape(input)?) {
        return Ok(None);
    }
    // Every word of the input's buffer (a packed type's last word whole).
    let words = if n == 0 { 0 } else { Storage::of(cx.dtype(input)).buffer_bytes(n).ok_or_else(super::too_large)? / 4 };
    let params = Params::new(&[super::u32_of(words)?], words)?;
    let word = webnn_core::DataType::Uint32;
    Ok(Some(KernelCall {
        key: KernelKey::new(KernelId::Copy, word, word),
        inputs: vec![input],
        output,
        uniform: Uniform::Params(params),
    }))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose>: the permutation defaults to
/// reversing the dimensions.
pub fn transpose(cx: &Cx, args: &Transpose) -> Result<Lowering> {
    let s = cx.shape(args.input)?;
    let rank = s.len() as u32;
    let perm: Vec<u32> = args
        .options
        .permutation
        .clone()
        .unwrap_or_else(|| (0..rank).rev().collect());
    if perm.iter().enumerate().all(|(k, &p)| p == k as u32) {
        return Ok(Lowering::Alias(args.input));
    }
    let st = strides32(&s)?;
    let a: Vec<u32> = perm.iter().map(|&p| st[p as usize]).collect();
    Ok(Lowering::Kernels(vec![strided(
        cx,
        args.input,
        cx.out(),
        0,
        &a,
    )?]))
}

pub fn expand(cx: &Cx, args: &Expand) -> Result<Lowering> {
    let (s, so) = (cx.shape(args.input)?, cx.shape(cx.out())?);
    if s == so {
        return Ok(Lowering::Alias(args.input));
    }
    let a = Params::broadcast_strides(&s, &so)?;
    Ok(Lowering::Kernels(vec![strided(
        cx,
        args.input,
        cx.out(),
        0,
        &a[..so.len()],
    )?]))
}

/// Whether a slice is the leading part of its input in memory (row-major): it starts at 0
/// with unit strides, takes one element of the axes before the first it shortens and all of
/// those after. Such a slice (a KV cache's first `total` rows) shares the input's buffer.
fn prefix(s: &[u32], so: &[u32], starts: &[u32], steps: &[u32]) -> bool {
    if starts.iter().any(|&x| x != 0) || steps.iter().any(|&x| x != 1) {
        return false;
    }
    let Some(first) = s.iter().zip(so).position(|(a, b)| a != b) else {
        return true;
    };
    so[..first].iter().all(|&n| n == 1) && s[first + 1..] == so[first + 1..]
}

pub fn slice(cx: &Cx, args: &Slice) -> Result<Lowering> {
    let (s, so) = (cx.shape(args.input)?, cx.shape(cx.out())?);
    let st = strides32(&s)?;
    let steps: Vec<u32> = match &args.options.strides {
        Some(v) => v.clone(),
        None => vec![1; s.len()],
    };
    // A prefix that is a graph output is copied instead: the output's tensor holds only the
    // slice, and a tensor bound in place of the whole input's buffer would be written past
    // its end by the kernel making the input (robust buffer access may clamp such writes
    // into the tensor: SwiftShader did, found by the fuzzer's page).
    let is_output = cx.graph.outputs.iter().any(|(_, o)| *o == cx.out());
    if s == so || (!is_output && prefix(&s, &so, &args.starts, &steps)) {
        return Ok(Lowering::Alias(args.input));
    }
    let base: u32 = args.starts.iter().zip(&st).map(|(&a, &b)| a * b).sum();
    let a: Vec<u32> = st.iter().zip(&steps).map(|(&x, &k)| x * k).collect();
    Ok(Lowering::Kernels(vec![strided(
        cx,
        args.input,
        cx.out(),
        base,
        &a,
    )?]))
}

/// Reversed axes read with negated strides from their far end (the sums wrap; see params.wgsl).
pub fn reverse(cx: &Cx, args: &Reverse) -> Result<Lowering> {
    let s = cx.shape(args.input)?;
    let mut reversed = vec![args.options.axes.is_none(); s.len()];
    for &a in args.options.axes.iter().flatten() {
        reversed[a as usize] = true;
    }
    if !reversed.iter().zip(&s).any(|(&r, &n)| r && n > 1) {
        return Ok(Lowering::Alias(args.input));
    }
    let st = strides32(&s)?;
    let mut base = 0u32;
    let a: Vec<u32> = (0..s.len())
        .map(|d| {
            if reversed[d] {
                base = base.wrapping_add((s[d] - 1).wrapping_mul(st[d]));
                st[d].wrapping_neg()
            } else {
                st[d]
            }
        })
        .collect();
    Ok(Lowering::Kernels(vec![strided(
        cx,
        args.input,
        cx.out(),
        base,
        &a,
    )?]))
}

/// Each output is a slice along the axis.
pub fn split(cx: &Cx, args: &Split) -> Result<Lowering> {
    let s = cx.shape(args.input)?;
    let st = strides32(&s)?;
    let axis = args.options.axis as usize;
    let mut start = 0u32;
    let mut calls = Vec::with_capacity(cx.node.outputs.len());
    for &o in &cx.node.outputs {
        calls.push(strided(cx, args.input, o, start * st[axis], &st)?);
        start += cx.shape(o)?[axis];
    }
    Ok(Lowering::Kernels(calls))
}

fn remap(
    cx: &Cx,
    input: Operand,
    mode: RemapMode,
    lo: &[u32],
    value: [u32; 2],
) -> Result<Lowering> {
    let s = cx.shape(input)?;
    let mut params = cx.output_params(cx.out())?;
    params.a_strides = dims8(&strides32(&s)?)?;
    params.dims = dims8(&s)?;
    params.lo = dims8(lo)?;
    params.j = [value[0], value[1], 0, 0];
    cx.one(KernelId::Remap(mode), vec![input], Uniform::Params(params))
}

pub fn tile(cx: &Cx, args: &Tile) -> Result<Lowering> {
    remap(cx, args.input, RemapMode::Tile, &[], [0, 0])
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad>: the constant is cast to the input's
/// type as the spec's cast does.
pub fn pad(cx: &Cx, args: &Pad) -> Result<Lowering> {
    let mode = match args.options.mode {
        PaddingMode::Constant => RemapMode::Constant,
        PaddingMode::Edge => RemapMode::Edge,
        PaddingMode::Reflection => RemapMode::Reflection,
    };
    let value = element_bits(cx.dtype(args.input), args.options.value);
    remap(cx, args.input, mode, &args.beginning_padding, value)
}

/// Each input is placed into its region of the output.
pub fn concat(cx: &Cx, args: &Concat) -> Result<Lowering> {
    let out = cx.out();
    let st = strides32(&cx.shape(out)?)?;
    let axis = args.axis as usize;
    let mut start = 0u32;
    let mut calls = Vec::with_capacity(args.inputs.len());
    for &input in &args.inputs {
        let s = cx.shape(input)?;
        let n = super::u32_of(super::elements(&s))?;
        let mut params = Params::new(&s, n as u64)?;
        params.base = start * st[axis];
        params.a_strides = dims8(&st)?;
        let t = cx.dtype(input);
        calls.push(KernelCall {
            key: KernelKey::new(KernelId::Place, t, t),
            inputs: vec![input],
            output: out,
            uniform: Uniform::Params(params),
        });
        start += s[axis];
    }
    Ok(Lowering::Kernels(calls))
}

pub fn triangular(cx: &Cx, args: &Triangular) -> Result<Lowering> {
    let mut params = cx.output_params(cx.out())?;
    params.i = [
        u32::from(args.options.upper),
        args.options.diagonal as u32,
        0,
        0,
    ];
    cx.one(
        KernelId::Triangular,
        vec![args.input],
        Uniform::Params(params),
    )
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather>: output dimensions are the
/// input's before the axis, the indices', then the input's after the axis.
pub fn gather(cx: &Cx, args: &Gather) -> Result<Lowering> {
    let (s, si) = (cx.shape(args.input)?, cx.shape(args.indices)?);
    let (st, sti) = (strides32(&s)?, strides32(&si)?);
    let axis = args.options.axis as usize;
    let r = si.len();
    let rank = cx.shape(cx.out())?.len();
    let mut a = vec![0u32; rank];
    let mut b = vec![0u32; rank];
    for d in 0..rank {
        if d < axis {
            a[d] = st[d];
        } else if d < axis + r {
            b[d] = sti[d - axis];
        } else {
            a[d] = st[d + 1 - r];
        }
    }
    gather_call(cx, args, &a, &b, st[axis], s[axis])
}

/// gatherElements: the output has the indices' shape; an element's index replaces its
/// coordinate along the axis.
pub fn gather_elements(cx: &Cx, args: &Gather) -> Result<Lowering> {
    let (s, si) = (cx.shape(args.input)?, cx.shape(args.indices)?);
    let axis = args.options.axis as usize;
    let mut a = strides32(&s)?;
    let axis_stride = a[axis];
    a[axis] = 0;
    gather_call(cx, args, &a, &strides32(&si)?, axis_stride, s[axis])
}

fn gather_call(
    cx: &Cx,
    args: &Gather,
    a: &[u32],
    b: &[u32],
    axis_stride: u32,
    axis_size: u32,
) -> Result<Lowering> {
    let mut params = cx.output_params(cx.out())?;
    params.a_strides = dims8(a)?;
    params.b_strides = dims8(b)?;
    params.i = [axis_stride, axis_size, 0, 0];
    let kernel = KernelId::Gather {
        index: cx.dtype(args.indices),
    };
    cx.one(
        kernel,
        vec![args.input, args.indices],
        Uniform::Params(params),
    )
}

/// gatherND: the indices' last dimension holds coordinates into the input's leading
/// dimensions; the output is the indices' other dimensions, then the addressed slices'.
pub fn gather_nd(cx: &Cx, args: &GatherNd) -> Result<Lowering> {
    let (s, si) = (cx.shape(args.input)?, cx.shape(args.indices)?);
    let (st, sti) = (strides32(&s)?, strides32(&si)?);
    let k = *si
        .last()
        .ok_or_else(|| Error::operation_error("gatherND indices have rank 0"))?
        as usize;
    let batch = si.len() - 1;
    let rank = cx.shape(cx.out())?.len();
    let mut a = vec![0u32; rank];
    let mut b = vec![0u32; rank];
    for d in 0..rank {
        if d < batch {
            b[d] = sti[d];
        } else {
            a[d] = st[k + d - batch];
        }
    }
    let mut params = cx.output_params(cx.out())?;
    params.a_strides = dims8(&a)?;
    params.b_strides = dims8(&b)?;
    params.dims = dims8(&s[..k])?;
    params.lo = dims8(&st[..k])?;
    params.i = [k as u32, 0, 0, 0];
    let kernel = KernelId::GatherNd {
        index: cx.dtype(args.indices),
    };
    cx.one(
        kernel,
        vec![args.input, args.indices],
        Uniform::Params(params),
    )
}

/// The scatter frame's call writing `updates` through `indices` into the node's output,
/// after a plain copy of the input.
/// A copy of `input` (of the node's output shape) into the node's output: the first call of
/// a scatter, which a dispatch skips where the update runs in place (`exec::build`).
pub(crate) fn copy_to_output(cx: &Cx, input: Operand) -> Result<KernelCall> {
    let s = cx.shape(input)?;
    strided(cx, input, cx.out(), 0, &strides32(&s)?)
}

fn scatter(
    cx: &Cx,
    input: Operand,
    indices: Operand,
    updates: Operand,
    kernel: KernelId,
    params: Params,
) -> Result<Lowering> {
    let copy = copy_to_output(cx, input)?;
    let t = cx.dtype(updates);
    let call = KernelCall {
        key: KernelKey::new(kernel, t, t),
        inputs: vec![indices, updates],
        output: cx.out(),
        uniform: Uniform::Params(params),
    };
    Ok(Lowering::Kernels(vec![copy, call]))
}

pub fn scatter_elements(cx: &Cx, args: &ScatterElements) -> Result<Lowering> {
    let (s, si) = (cx.shape(args.input)?, cx.shape(args.indices)?);
    let axis = args.options.axis as usize;
    let mut a = strides32(&s)?;
    let axis_stride = a[axis];
    a[axis] = 0;
    let n = super::elements(&si);
    let mut params = Params::new(&si, n)?;
    params.a_strides = dims8(&a)?;
    params.i = [axis_stride, s[axis], 0, 0];
    let kernel = KernelId::ScatterElements {
        index: cx.dtype(args.indices),
    };
    scatter(cx, args.input, args.indices, args.updates, kernel, params)
}

pub fn scatter_nd(cx: &Cx, args: &ScatterNd) -> Result<Lowering> {
    let (s, si, su) = (
        cx.shape(args.input)?,
        cx.shape(args.indices)?,
        cx.shape(args.updates)?,
    );
    let st = strides32(&s)?;
    let k = *si
        .last()
        .ok_or_else(|| Error::operation_error("scatterND indices have rank 0"))?
        as usize;
    let slice = super::u32_of(super::elements(&s[k..]))?;
    let n = super::elements(&su);
    let mut params = Params::new(&su, n)?;
    params.dims = dims8(&s[..k])?;
    params.lo = dims8(&st[..k])?;
    params.i = [k as u32, slice, 0, 0];
    let kernel = KernelId::ScatterNd {
        index: cx.dtype(args.indices),
    };
    scatter(cx, args.input, args.indices, args.updates, kernel, params)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method>
pub fn resample2d(cx: &Cx, args: &Resample2d) -> Result<Lowering> {
    let s = cx.shape(args.input)?;
    let axes = match &args.options.axes {
        Some(a) if a.len() == 2 => [a[0], a[1]],
        _ => [2, 3],
    };
    let mut params = cx.output_params(cx.out())?;
    params.a_strides = dims8(&strides32(&s)?)?;
    params.dims = dims8(&s)?;
    params.i = [axes[0], axes[1], 0, 0];
    let mode = match args.options.mode {
        InterpolationMode::NearestNeighbor => ResampleMode::Nearest,
        InterpolationMode::Linear => ResampleMode::Linear,
    };
    cx.one(
        KernelId::Resample(mode),
        vec![args.input],
        Uniform::Params(params),
    )
}
