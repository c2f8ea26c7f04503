//! softmax along any axis and layerNormalization over trailing axes, in float32, split over
//! the pool by lanes (softmax) or rows (layer normalization): a transformer encoder's
//! per-token ops.
//!
//! Both compute like the reference kernels (webnn-cpu `reduction.rs`, `normalization.rs`),
//! in f64 with the same formulas, so the results equal theirs but for a last-bit difference
//! now and then: softmax's exponentials come from `vmath::exp` (within 1e-14 of libm's), and
//! softmax over the last axis and layer normalization sum in eight partial sums (`sum`).

use crate::exec::{Ctx, Step, Values, TASK};
use crate::plan::Planner;
use crate::pool::SharedMut;
use crate::simd::dispatch;
// `dispatch!` names the variants on x86-64 only.
#[cfg(target_arch = "x86_64")]
use crate::simd::Simd;
use webnn_core::ops::*;
use webnn_core::{Error, Result};
use webnn_cpu::kernels::reduction::fmax;

pub(crate) struct SoftmaxStep {
    input: usize,
    out: usize,
    /// The lanes: `outer` blocks of `len` elements `inner` apart.
    outer: usize,
    len: usize,
    inner: usize,
    shape: Vec<usize>,
}

/// The fast step for a float32 softmax with static shapes.
pub(crate) fn plan_softmax(p: &mut Planner, n: usize, a: &Softmax) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.is_f32(y) || !p.orig.desc(y).is_static() {
        return None;
    }
    let shape = p.shape(a.input);
    let axis = a.axis as usize;
    let input = p.logical(a.input);
    Some(Step::Softmax(Box::new(SoftmaxStep {
        input,
        out: y.index(),
        outer: shape[..axis].iter().product(),
        len: shape[axis],
        inner: shape[axis + 1..].iter().product(),
        shape,
    })))
}

impl SoftmaxStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        format!("softmax over {} lanes of {}", self.outer * self.inner, self.len)
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (len, inner) = (self.len, self.inner);
        let total = self.outer * len * inner;
        if values.f32(self.input)?.len() != total {
            return Err(Error::operation_error("softmax: the input's size differs from the plan's"));
        }
        let mut y = values.alloc(total);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            // Tasks of whole blocks (outer index): a block's lanes interleave when inner > 1.
            let block = len * inner;
            let per = (TASK / block).max(1);
            ctx.pool.run(self.outer.div_ceil(per), &|t| {
                let blocks = t * per..((t + 1) * per).min(self.outer);
                // SAFETY: each task writes its own blocks.
                let out = unsafe { dst.range(blocks.start * block, blocks.len() * block) };
                let x = &x[blocks.start * block..][..blocks.len() * block];
                let mut e = vec![0.0f64; len];
                for (xb, ob) in x.chunks_exact(block).zip(out.chunks_exact_mut(block)) {
                    if inner == 1 {
                        // A contiguous lane (softmax over the last axis): slices, no strides,
                        // compiled for the machine's widest vectors.
                        dispatch!(ctx.simd, softmax_lane(xb, ob, &mut e));
                        continue;
                    }
                    for i in 0..inner {
                        let lane = (0..len).map(|k| xb[k * inner + i] as f64);
                        let max = lane.clone().fold(f64::NEG_INFINITY, fmax);
                        // The exponentials in a loop of their own, which vectorizes
                        // (vmath::exp); the sum in the reference's order.
                        for (ek, v) in e.iter_mut().zip(lane) {
                            *ek = crate::vmath::exp(v - max);
                        }
                        let sum = e.iter().fold(0.0f64, |s, &ek| s + ek);
                        for (k, ek) in e.iter().enumerate() {
                            ob[k * inner + i] = (ek / sum) as f32;
                        }
                    }
                }
            });
        }
        values.put(self.out, self.shape.clone(), y);
        Ok(())
    }
}

pub(crate) struct LayerNormStep {
    input: usize,
    out: usize,
    scale: Option<usize>,
    bias: Option<usize>,
    epsilon: f64,
    rows: usize,
    len: usize,
    shape: Vec<usize>,
}

/// The fast step for a float32 layerNormalization over trailing axes in order (the default
/// axes, and a transformer's last axis), with static shapes.
pub(crate) fn plan_layer_norm(p: &mut Planner, n: usize, a: &LayerNormalization) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    let operands = webnn_core::ops::OpArgs::operands(a);
    if operands.iter().any(|&o| !p.is_f32(o)) || !p.orig.desc(y).is_static() {
        return None;
    }
    let shape = p.shape(a.input);
    let rank = shape.len();
    let axes: Vec<usize> = match &a.options.axes {
        None => (1.min(rank)..rank).collect(),
        Some(v) => v.iter().map(|&a| a as usize).collect(),
    };
    let first = rank - axes.len();
    if axes.is_empty() || axes.iter().enumerate().any(|(k, &a)| a != first + k) {
        return None;
    }
    let input = p.logical(a.input);
    Some(Step::LayerNorm(Box::new(LayerNormStep {
        input,
        out: y.index(),
        scale: a.options.scale.map(|o| o.index()),
        bias: a.options.bias.map(|o| o.index()),
        epsilon: a.options.epsilon as f32 as f64,
        rows: shape[..first].iter().product(),
        len: shape[first..].iter().product(),
        shape,
    })))
}

impl LayerNormStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        std::iter::once(self.input).chain(self.scale).chain(self.bias).collect()
    }

    pub(crate) fn describe(&self) -> String {
        format!("layer normalization of {} rows of {}", self.rows, self.len)
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (rows, len) = (self.rows, self.len);
        if values.f32(self.input)?.len() != rows * len {
            return Err(Error::operation_error("layerNormalization: the input's size differs from the plan's"));
        }
        let param = |slot: Option<usize>| -> Result<Option<Vec<f64>>> {
            let Some(s) = slot else { return Ok(None) };
            let v = values.f32(s)?;
            if v.len() != len {
                return Err(Error::operation_error("layerNormalization: a parameter's size differs from the plan's"));
            }
            Ok(Some(v.iter().map(|&x| x as f64).collect()))
        };
        let (scale, bias) = (param(self.scale)?, param(self.bias)?);
        let mut y = values.alloc(rows * len);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            let per = (TASK / len.max(1)).max(1);
            ctx.pool.run(rows.div_ceil(per), &|t| {
                let range = t * per..((t + 1) * per).min(rows);
                // SAFETY: each task writes its own rows.
                let out = unsafe { dst.range(range.start * len, range.len() * len) };
                let x = &x[range.start * len..][..range.len() * len];
                for (xr, or) in x.chunks_exact(len).zip(out.chunks_exact_mut(len)) {
                    let count = len as f64;
                    let mean = sum(xr, |v| v) / count;
                    let var = sum(xr, |v| (v - mean) * (v - mean));
                    let inv_std = 1.0 / (var / count + self.epsilon).sqrt();
                    for (j, (o, &v)) in or.iter_mut().zip(xr).enumerate() {
                        let s = scale.as_ref().map_or(1.0, |s| s[j]);
                        let b = bias.as_ref().map_or(0.0, |b| b[j]);
                        *o = ((v as f64 - mean) * inv_std * s + b) as f32;
                    }
                }
            });
        }
        values.put(self.out, self.shape.clone(), y);
        Ok(())
    }
}

/// Σ f(x) over a row in float64, in eight interleaved partial sums: a dependent chain of
/// adds would wait on each add's latency. The order differs from the reference's one running
/// sum by rounding in float64 (about 1e-16 of the sum), which reaches the float32 result only
/// when it lies that close to a rounding boundary.
#[inline(always)]
fn sum<T: Copy + Into<f64>>(row: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; 8];
    let chunks = row.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += f(v.into());
        }
    }
    let mut total = acc.iter().sum::<f64>();
    for &v in tail {
        total += f(v.into());
    }
    total
}

/// Softmax of one contiguous lane: its maximum (in eight partial maxima, which give the
/// same value in any order), the exponentials (vmath::exp), their sum (in eight partial
/// sums, as `sum` below) and the quotients. Generic over the `dispatch!` variants; no fused
/// multiply-adds in any, so every variant computes the same bits.
#[inline(always)]
fn softmax_lane<const FMA: bool>(x: &[f32], out: &mut [f32], e: &mut [f64]) {
    let mut m = [f64::NEG_INFINITY; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (m, &v) in m.iter_mut().zip(c) {
            *m = fmax(*m, v as f64);
        }
    }
    let max = tail.iter().fold(m.iter().copied().fold(f64::NEG_INFINITY, fmax), |m, &v| fmax(m, v as f64));
    for (ek, &v) in e.iter_mut().zip(x) {
        *ek = crate::vmath::exp(v as f64 - max);
    }
    let total = sum(&e[..x.len()], |v| v);
    for (o, ek) in out.iter_mut().zip(e.iter()) {
        *o = (ek / total) as f32;
    }
}
