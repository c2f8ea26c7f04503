//! maxPool2d, averagePool2d and l2Pool2d over windows (any size, stride, dilation and padding) in
//! float32. Features a convolution stored NHWC are pooled where they lie, channels last (the
//! inner loop runs along the channels, contiguous for every window element), and the result
//! stays NHWC for the next convolution; NCHW inputs are pooled plane by plane.
//!
//! The results equal the reference kernel's bit for bit: max keeps its NaN rule (a NaN wins
//! once seen), averages sum in f64 over the in-bounds elements in the reference's order
//! (rows, then columns) and divide by their count, padding not counted, and L2 norms sum
//! the squares so and take the root.

use crate::exec::{Ctx, Step, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
#[cfg(target_arch = "x86_64")]
use crate::simd::Simd;
use webnn_core::ops::*;
use webnn_core::Result;

/// Outputs per task.
const TASK: usize = 8_192;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Max,
    Average,
    /// The square root of the window's sum of squares.
    L2,
}

pub(crate) struct WindowPool {
    kind: Kind,
    input: usize,
    out: usize,
    /// Batch, channels, input rows and columns, output rows and columns.
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    window: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    /// Top and left padding (bottom and right follow from the output size).
    pad: [usize; 2],
    channels_last: bool,
    out_shape: Vec<usize>,
}

/// The fast step for a float32 maxPool2d or averagePool2d node with static shapes.
pub(crate) fn plan_l2(p: &mut Planner, n: usize, a: &Pool2d) -> Option<Step> {
    plan_kind(p, n, a, Kind::L2)
}

pub(crate) fn plan(p: &mut Planner, n: usize, a: &Pool2d, max: bool) -> Option<Step> {
    plan_kind(p, n, a, if max { Kind::Max } else { Kind::Average })
}

fn plan_kind(p: &mut Planner, n: usize, a: &Pool2d, kind: Kind) -> Option<Step> {
    let o = &a.options;
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.is_f32(y) || !p.orig.desc(y).is_static() {
        return None;
    }
    let axes = o.layout.nchw_axes();
    let (xs, ys) = (p.shape(a.input), p.shape(y));
    let [nb, c, h, w] = axes.map(|i| xs[i]);
    let [_, _, oh, ow] = axes.map(|i| ys[i]);
    let window = o.window_dimensions.as_deref().map_or([h, w], |v| [v[0] as usize, v[1] as usize]);
    let [top, _, left, _] = spatial_padding(&o.padding).map(|v| v as usize);
    let (input, channels_last) = match o.layout {
        InputLayout::Nchw => (a.input.index(), p.is_nhwc(a.input)),
        InputLayout::Nhwc => (p.logical(a.input), true),
    };
    // NCHW features stored NHWC stay so: the pool's result is stored NHWC too.
    let stored_nhwc = o.layout == InputLayout::Nchw && channels_last;
    p.set_nhwc(y, stored_nhwc);
    let out_shape = match channels_last {
        true => vec![nb, oh, ow, c],
        false => vec![nb, c, oh, ow],
    };
    Some(Step::WindowPool(Box::new(WindowPool {
        kind,
        input,
        out: y.index(),
        n: nb,
        c,
        h,
        w,
        oh,
        ow,
        window,
        strides: spatial_pair(&o.strides).map(|v| v as usize),
        dilations: spatial_pair(&o.dilations).map(|v| v as usize),
        pad: [top, left],
        channels_last,
        out_shape,
    })))
}

/// The input indices `start + k * dilation` of the window positions `k` (of `size`) that
/// lie in `0..len`, in order (the in-bounds positions from `simd::taps`).
fn taps(start: isize, dilation: usize, len: usize, size: usize) -> impl Iterator<Item = usize> + Clone {
    crate::simd::taps(start, dilation, len, size).map(move |k| (start + (k * dilation) as isize) as usize)
}

/// The max rule of the reference: a NaN wins once seen, else the larger value.
#[inline]
fn max_rule(m: f32, v: f32) -> f32 {
    if v.is_nan() || v > m {
        v
    } else {
        m
    }
}

impl WindowPool {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        let kind = match self.kind {
            Kind::Max => "max",
            Kind::Average => "average",
            Kind::L2 => "l2",
        };
        let order = if self.channels_last { "NHWC" } else { "NCHW" };
        format!("{kind} pool {}x{} over {}x{}x{} ({order})", self.window[0], self.window[1], self.h, self.w, self.c)
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (c, oh, ow) = (self.c, self.oh, self.ow);
        if values.f32(self.input)?.len() != self.n * c * self.h * self.w {
            return Err(webnn_core::Error::operation_error("pool: the input's size differs from the plan's"));
        }
        let mut y = values.alloc(self.n * c * oh * ow);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            // One task per output row of one image (channels last) or of one plane.
            let rows = if self.channels_last { self.n * oh } else { self.n * c * oh };
            let row_len = if self.channels_last { ow * c } else { ow };
            // Tasks of whole rows, about TASK outputs each: fixed by the shape alone.
            let per = (TASK / row_len).max(1);
            ctx.pool.run(rows.div_ceil(per), &|t| {
                for r in t * per..((t + 1) * per).min(rows) {
                    // SAFETY: each task writes its own output rows.
                    let out = unsafe { dst.range(r * row_len, row_len) };
                    match self.channels_last {
                        true => {
                            #[inline(always)]
                            fn generic<const FMA: bool>(p: &WindowPool, x: &[f32], b: usize, oy: usize, out: &mut [f32]) {
                                p.row_channels_last(x, b, oy, out)
                            }
                            // Compiled for the machine's vectors: the loops run along channels.
                            crate::simd::dispatch!(ctx.simd, generic(self, x, r / oh, r % oh, out))
                        }
                        false => self.row_plane(x, r / oh, r % oh, out),
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }

    fn rows_of(&self, oy: usize) -> impl Iterator<Item = usize> + Clone {
        let top = (oy * self.strides[0]) as isize - self.pad[0] as isize;
        taps(top, self.dilations[0], self.h, self.window[0])
    }

    fn cols_of(&self, ox: usize) -> impl Iterator<Item = usize> + Clone {
        let left = (ox * self.strides[1]) as isize - self.pad[1] as isize;
        taps(left, self.dilations[1], self.w, self.window[1])
    }

    /// Output row `oy` of image `b`, channels last: `out` is [ow, c].
    #[inline(always)]
    fn row_channels_last(&self, x: &[f32], b: usize, oy: usize, out: &mut [f32]) {
        let (c, w) = (self.c, self.w);
        let image = &x[b * self.h * w * c..][..self.h * w * c];
        let mut sums = vec![0.0f64; if self.kind == Kind::Max { 0 } else { c }];
        for (ox, o) in out.chunks_exact_mut(c).enumerate() {
            let rows = self.rows_of(oy);
            let cols = self.cols_of(ox);
            match self.kind {
                Kind::Max => {
                    o.fill(f32::NEG_INFINITY);
                    for iy in rows {
                        for ix in cols.clone() {
                            let px = &image[(iy * w + ix) * c..][..c];
                            o.iter_mut().zip(px).for_each(|(m, &v)| *m = max_rule(*m, v));
                        }
                    }
                }
                Kind::Average => {
                    sums.fill(0.0);
                    let mut count = 0usize;
                    for iy in rows {
                        for ix in cols.clone() {
                            let px = &image[(iy * w + ix) * c..][..c];
                            sums.iter_mut().zip(px).for_each(|(s, &v)| *s += v as f64);
                            count += 1;
                        }
                    }
                    // A window wholly in the padding averages to 0, as the reference's does.
                    let count = count.max(1) as f64;
                    o.iter_mut().zip(&sums).for_each(|(o, &s)| *o = (s / count) as f32);
                }
                Kind::L2 => {
                    sums.fill(0.0);
                    for iy in rows {
                        for ix in cols.clone() {
                            let px = &image[(iy * w + ix) * c..][..c];
                            sums.iter_mut().zip(px).for_each(|(s, &v)| *s += v as f64 * v as f64);
                        }
                    }
                    o.iter_mut().zip(&sums).for_each(|(o, &s)| *o = s.sqrt() as f32);
                }
            }
        }
    }

    /// Output row `oy` of plane `plane` (image and channel), NCHW: `out` is [ow].
    fn row_plane(&self, x: &[f32], plane: usize, oy: usize, out: &mut [f32]) {
        let w = self.w;
        let x = &x[plane * self.h * w..][..self.h * w];
        for (ox, o) in out.iter_mut().enumerate() {
            let rows = self.rows_of(oy);
            let cols = self.cols_of(ox);
            *o = match self.kind {
                Kind::Max => rows.fold(f32::NEG_INFINITY, |m, iy| cols.clone().fold(m, |m, ix| max_rule(m, x[iy * w + ix]))),
                Kind::Average => {
                    let (mut s, mut count) = (0.0f64, 0usize);
                    for iy in rows {
                        for ix in cols.clone() {
                            s += x[iy * w + ix] as f64;
                            count += 1;
                        }
                    }
                    (s / count.max(1) as f64) as f32
                }
                Kind::L2 => rows.fold(0.0f64, |s, iy| cols.clone().fold(s, |s, ix| s + x[iy * w + ix] as f64 * x[iy * w + ix] as f64)).sqrt() as f32,
            };
        }
    }
}
