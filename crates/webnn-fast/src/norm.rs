//! batchNormalization and instanceNormalization in float32, one pass (batch) or three
//! (instance: sum, squared deviations, output) over memory, on NHWC-stored features where
//! they lie (channels last; the result stays NHWC) or on the logical layout.
//!
//! Both compute like the reference kernels (webnn-cpu `normalization.rs`), in f64 with the
//! same formula and summation order, so the results equal theirs bit for bit:
//! `(x - mean) * (1 / sqrt(variance + epsilon)) * scale + bias`, epsilon cast to float32.

use crate::exec::{unit_rows, Ctx, Post, Step, Values, TASK};
// `Simd` names the x86 arms of `simd::dispatch!`.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_imports))]
use crate::simd::{self, Simd};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::*;
use webnn_core::{Error, Operand, Result};

/// The per-channel parameters' slots.
struct Params {
    scale: Option<usize>,
    bias: Option<usize>,
}

impl Params {
    fn reads(&self) -> impl Iterator<Item = usize> + '_ {
        self.scale.iter().chain(&self.bias).copied()
    }

    /// Scale and bias per channel as f64 (1 and 0 where absent, which the formula applies
    /// as the reference does).
    fn load(&self, values: &Values, c: usize) -> Result<(Vec<f64>, Vec<f64>)> {
        let get = |slot: Option<usize>, default: f64| -> Result<Vec<f64>> {
            match slot {
                None => Ok(vec![default; c]),
                Some(s) => per_channel(values, s, c),
            }
        };
        Ok((get(self.scale, 1.0)?, get(self.bias, 0.0)?))
    }
}

fn per_channel(values: &Values, slot: usize, c: usize) -> Result<Vec<f64>> {
    let v = values.f32(slot)?;
    if v.len() != c {
        return Err(Error::operation_error(format!("a per-channel operand has {} elements, not {c}", v.len())));
    }
    Ok(v.iter().map(|&x| x as f64).collect())
}

#[inline]
fn normalize(x: f64, mean: f64, inv_std: f64, scale: f64, bias: f64) -> f64 {
    (x - mean) * inv_std * scale + bias
}

/// Where a normalized tensor lies: `outer` groups of `c` channels of `inner` elements.
#[derive(Clone, Copy, Debug)]
struct Lanes {
    outer: usize,
    c: usize,
    inner: usize,
}

pub(crate) struct BatchNorm {
    input: usize,
    out: usize,
    mean: usize,
    variance: usize,
    params: Params,
    epsilon: f64,
    lanes: Lanes,
    out_shape: Vec<usize>,
}

fn all_f32(p: &Planner, operands: &[Operand]) -> bool {
    operands.iter().all(|&o| p.is_f32(o))
}

/// The fast step for a float32 batchNormalization node with static shapes.
pub(crate) fn plan_batch(p: &mut Planner, n: usize, a: &BatchNormalization) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !all_f32(p, &webnn_core::ops::OpArgs::operands(a)) || !p.orig.desc(y).is_static() {
        return None;
    }
    let axis = a.options.axis as usize;
    let shape = p.shape(a.input);
    // NCHW features stored NHWC, normalized along their channels: channels last, in place.
    let (input, lanes, out_shape, nhwc) = if p.is_nhwc(a.input) && axis == 1 && shape.len() == 4 {
        let [nb, c, h, w] = [shape[0], shape[1], shape[2], shape[3]];
        (a.input.index(), Lanes { outer: nb * h * w, c, inner: 1 }, vec![nb, h, w, c], true)
    } else {
        let outer = shape[..axis].iter().product();
        (p.logical(a.input), Lanes { outer, c: shape[axis], inner: shape[axis + 1..].iter().product() }, shape, false)
    };
    p.set_nhwc(y, nhwc);
    Some(Step::BatchNorm(Box::new(BatchNorm {
        input,
        out: y.index(),
        mean: a.mean.index(),
        variance: a.variance.index(),
        params: Params { scale: a.options.scale.map(|o| o.index()), bias: a.options.bias.map(|o| o.index()) },
        epsilon: a.options.epsilon as f32 as f64,
        lanes,
        out_shape,
    })))
}

impl BatchNorm {
    pub(crate) fn reads(&self) -> Vec<usize> {
        [self.input, self.mean, self.variance].into_iter().chain(self.params.reads()).collect()
    }

    pub(crate) fn describe(&self) -> String {
        let l = self.lanes;
        format!("batch normalization of {} channels over {}x{}", l.c, l.outer, l.inner)
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let Lanes { outer, c, inner } = self.lanes;
        let len = outer * c * inner;
        if values.f32(self.input)?.len() != len {
            return Err(Error::operation_error("batchNormalization: the input's size differs from the plan's"));
        }
        let mean = per_channel(values, self.mean, c)?;
        let inv_std: Vec<f64> = per_channel(values, self.variance, c)?.iter().map(|v| 1.0 / (v + self.epsilon).sqrt()).collect();
        let (scale, bias) = self.params.load(values, c)?;
        let mut y = values.alloc(len);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            ctx.pool.run(len.div_ceil(TASK), &|t| {
                let range = t * TASK..((t + 1) * TASK).min(len);
                // SAFETY: each task writes its own range.
                let out = unsafe { dst.range(range.start, range.len()) };
                // Runs of elements that share a channel (channels before the spatial axes),
                // or rows that step through the channels (channels last): no division per
                // element, and loops that vectorize.
                let (mut i, mut k) = (range.start, 0);
                while i < range.end {
                    let n = if inner == 1 {
                        let ch = i % c;
                        let n = (c - ch).min(range.end - i);
                        let params = mean[ch..].iter().zip(&inv_std[ch..]).zip(scale[ch..].iter().zip(&bias[ch..]));
                        for ((o, &v), ((&m, &s), (&g, &b))) in out[k..k + n].iter_mut().zip(&x[i..i + n]).zip(params) {
                            *o = normalize(v as f64, m, s, g, b) as f32;
                        }
                        n
                    } else {
                        let ch = (i / inner) % c;
                        let n = (inner - i % inner).min(range.end - i);
                        let (m, s, g, b) = (mean[ch], inv_std[ch], scale[ch], bias[ch]);
                        for (o, &v) in out[k..k + n].iter_mut().zip(&x[i..i + n]) {
                            *o = normalize(v as f64, m, s, g, b) as f32;
                        }
                        n
                    };
                    i += n;
                    k += n;
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}

/// Per channel: the moments, the scale and bias, and the clamp after them.
struct Channels<'a> {
    mean: &'a [f64],
    inv_std: &'a [f64],
    scale: &'a [f64],
    bias: &'a [f64],
    lo: f32,
    hi: f32,
}

/// Pixels stored channels last, normalized and clamped (compiled for the machine's vectors:
/// the float64 arithmetic has no fused multiply-adds, so every ISA computes the same bits).
#[inline(always)]
fn normalize_pixels<const FMA: bool>(x: &[f32], out: &mut [f32], p: &Channels) {
    let c = p.mean.len();
    let (mean, inv_std, scale, bias) = (&p.mean[..c], &p.inv_std[..c], &p.scale[..c], &p.bias[..c]);
    for (o, px) in out.chunks_exact_mut(c).zip(x.chunks_exact(c)) {
        // Zipped slices of one length, no indexing: the loop vectorizes (indexed, it stayed
        // scalar, two thirds of the step's time on a 256x256 image).
        let params = mean.iter().zip(inv_std).zip(scale).zip(bias);
        for ((o, &v), (((&m, &s), &g), &b)) in o.iter_mut().zip(px).zip(params) {
            *o = simd::clamp(normalize(v as f64, m, s, g, b) as f32, p.lo, p.hi);
        }
    }
}

/// Per channel, the sum over pixels stored channels last of the values, or (given the
/// means) of their squared deviations, in pixel order.
#[inline(always)]
fn pixel_sums<const FMA: bool>(x: &[f32], sums: &mut [f64], mean: Option<&[f64]>) {
    let c = sums.len();
    match mean {
        None => {
            for px in x.chunks_exact(c) {
                sums.iter_mut().zip(px).for_each(|(s, &v)| *s += v as f64);
            }
        }
        Some(mean) => {
            for px in x.chunks_exact(c) {
                sums.iter_mut().zip(px).zip(mean).for_each(|((d, &v), m)| *d += (v as f64 - m) * (v as f64 - m));
            }
        }
    }
}

/// Pixels summed by one task of a channels-last instance normalization.
const PIXEL_RUN: usize = 1024;

pub(crate) struct InstanceNorm {
    input: usize,
    out: usize,
    params: Params,
    epsilon: f64,
    n: usize,
    c: usize,
    hw: usize,
    channels_last: bool,
    out_shape: Vec<usize>,
    /// A relu or clamp after it (a style transfer network's), applied as values are written.
    post: Post,
}

/// The fast step for a float32 instanceNormalization node with static shapes.
pub(crate) fn plan_instance(p: &mut Planner, n: usize, a: &InstanceNormalization) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !all_f32(p, &webnn_core::ops::OpArgs::operands(a)) || !p.orig.desc(y).is_static() {
        return None;
    }
    let axes = a.options.layout.nchw_axes();
    let shape = p.shape(a.input);
    let [nb, c, h, w] = axes.map(|i| shape[i]);
    let (input, channels_last) = match a.options.layout {
        InputLayout::Nchw => (a.input.index(), p.is_nhwc(a.input)),
        InputLayout::Nhwc => (p.logical(a.input), true),
    };
    let nhwc_stored = a.options.layout == InputLayout::Nchw && channels_last;
    p.set_nhwc(y, nhwc_stored);
    let (post, out) = p.tail(n, y, false, nhwc_stored);
    Some(Step::InstanceNorm(Box::new(InstanceNorm {
        input,
        out: out.index(),
        post,
        params: Params { scale: a.options.scale.map(|o| o.index()), bias: a.options.bias.map(|o| o.index()) },
        epsilon: a.options.epsilon as f32 as f64,
        n: nb,
        c,
        hw: h * w,
        channels_last,
        out_shape: if channels_last { vec![nb, h, w, c] } else { vec![nb, c, h, w] },
    })))
}

impl InstanceNorm {
    pub(crate) fn reads(&self) -> Vec<usize> {
        std::iter::once(self.input).chain(self.params.reads()).collect()
    }

    pub(crate) fn describe(&self) -> String {
        let order = if self.channels_last { "NHWC" } else { "NCHW" };
        format!("instance normalization of {} channels over {} ({order}){}", self.c, self.hw, self.post.describe())
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (c, hw) = (self.c, self.hw);
        let len = self.n * c * hw;
        if values.f32(self.input)?.len() != len {
            return Err(Error::operation_error("instanceNormalization: the input's size differs from the plan's"));
        }
        let (scale, bias) = self.params.load(values, c)?;
        let mut y = values.alloc(len);
        {
            let x = values.f32(self.input)?;
            if self.channels_last {
                for (x, out) in x.chunks_exact(c * hw).zip(y.chunks_exact_mut(c * hw)) {
                    self.image(ctx, x, out, &scale, &bias);
                }
            } else {
                let dst = SharedMut::new(&mut y);
                // One task per plane.
                ctx.pool.run(self.n * c, &|t| {
                    // SAFETY: each task writes its own plane.
                    let out = unsafe { dst.range(t * hw, hw) };
                    let x = &x[t * hw..][..hw];
                    let ch = t % c;
                    let (mean, inv_std) = self.moments(x.iter().map(|&v| v as f64));
                    let (lo, hi) = self.post.kernel_bounds();
                    for (o, &v) in out.iter_mut().zip(x) {
                        *o = simd::clamp(normalize(v as f64, mean, inv_std, scale[ch], bias[ch]) as f32, lo, hi);
                    }
                    self.post.finish(ctx.simd, out, None, t * hw);
                });
            }
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }

    /// Mean and 1/sqrt(variance + epsilon) of one channel's values, in the reference's order.
    fn moments(&self, v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
        let mean = v.clone().fold(0.0, |a, x| a + x) / self.hw as f64;
        let var = v.map(|x| (x - mean) * (x - mean)).sum::<f64>() / self.hw as f64;
        (mean, 1.0 / (var + self.epsilon).sqrt())
    }

    /// One image stored channels last ([hw, c]), in three parallel passes over runs of
    /// whole pixels: each run's sums per channel, then (with the means) each run's squared
    /// deviations, then the normalized values. One pass per image would leave all but one
    /// thread idle (a style transfer network's images are one per dispatch). The runs are
    /// fixed (`PIXEL_RUN` pixels), and their sums are added in order, so every thread count
    /// gives the same bits.
    fn image(&self, ctx: &Ctx, x: &[f32], out: &mut [f32], scale: &[f64], bias: &[f64]) {
        let (c, hw) = (self.c, self.hw);
        let runs = hw.div_ceil(PIXEL_RUN);
        let per_run = |each: &(dyn Fn(&[f32], &mut [f64]) + Sync)| -> Vec<f64> {
            let mut partial = vec![0.0f64; runs * c];
            let dst = SharedMut::new(&mut partial);
            ctx.pool.run(runs, &|t| {
                // SAFETY: each task writes its own run's sums.
                let sums = unsafe { dst.range(t * c, c) };
                let pixels = t * PIXEL_RUN..hw.min((t + 1) * PIXEL_RUN);
                each(&x[pixels.start * c..pixels.end * c], sums);
            });
            let mut total = vec![0.0f64; c];
            for sums in partial.chunks_exact(c) {
                total.iter_mut().zip(sums).for_each(|(t, s)| *t += s);
            }
            total
        };
        let sums = per_run(&|x, sums| simd::dispatch!(ctx.simd, pixel_sums(x, sums, None)));
        let mean: Vec<f64> = sums.iter().map(|s| s / hw as f64).collect();
        let devs = per_run(&|x, devs| simd::dispatch!(ctx.simd, pixel_sums(x, devs, Some(&mean))));
        let inv_std: Vec<f64> = devs.iter().map(|d| 1.0 / (d / hw as f64 + self.epsilon).sqrt()).collect();
        let pixels = unit_rows(self.hw, 1, 8 * c);
        let dst = SharedMut::new(out);
        ctx.pool.run(self.hw.div_ceil(pixels), &|t| {
            let run = t * pixels..self.hw.min((t + 1) * pixels);
            // SAFETY: each task writes its own pixels.
            let out = unsafe { dst.range(run.start * c, run.len() * c) };
            let (lo, hi) = self.post.kernel_bounds();
            let x = &x[run.start * c..run.end * c];
            let params = Channels { mean: &mean, inv_std: &inv_std, scale, bias, lo, hi };
            simd::dispatch!(ctx.simd, normalize_pixels(x, out, &params));
            self.post.finish(ctx.simd, out, None, run.start * c);
        });
    }
}
