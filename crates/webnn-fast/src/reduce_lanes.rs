//! Reductions (mean, sum, max, min, L1, L2, sum of squares, log-sum, log-sum-exp, product)
//! in float32 over one contiguous block of axes (other axis sets are copied into one
//! first): each output is one lane of `len` elements `inner` apart, folded in f64 in the
//! reference kernel's order (webnn-cpu `reduction.rs` folds each group in element order), so
//! the results equal the reference's bit for bit. The trailing-axis reductions of layer
//! normalizations written as primitives (ONNX exports) and squeeze-excite means run here.

use crate::exec::{Ctx, Step, Values, TASK};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::Reduce;
use webnn_core::{Error, Result};
use webnn_cpu::kernels::reduction::{fmax, fmin};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    Mean,
    Sum,
    Max,
    Min,
    L1,
    L2,
    SumSquare,
    LogSum,
    LogSumExp,
    Product,
}

pub(crate) struct ReduceStep {
    input: usize,
    out: usize,
    fold: Fold,
    outer: usize,
    len: usize,
    inner: usize,
    out_shape: Vec<usize>,
}

/// The fast step for a float32 reduction, static shapes. Over a contiguous block of axes
/// it reads the input as it is; other axes go through a strided copy first (a step of its
/// own, `copy::Permute`) that puts the kept axes before the last reduced one ahead of the
/// reduced axes, each group's elements still in the reference's order. An empty list of
/// axes folds each element alone.
pub(crate) fn plan(p: &mut Planner, n: usize, fold: Fold, a: &Reduce) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.is_f32(y) || !p.orig.desc(a.input).is_static() {
        return None;
    }
    let shape = p.shape(a.input);
    if shape.contains(&0) {
        return None;
    }
    let mut reduced = vec![a.options.axes.is_none(); shape.len()];
    for &x in a.options.axes.iter().flatten() {
        *reduced.get_mut(x as usize)? = true;
    }
    let mut input = p.logical(a.input);
    let (outer, len, inner) = match reduced.iter().rposition(|&r| r) {
        None => (shape.iter().product(), 1, 1),
        Some(last) => {
            // Kept axes before the last reduced one, then the reduced ones, then the rest.
            let (ahead, rest): (Vec<usize>, Vec<usize>) = (0..=last).partition(|&d| !reduced[d]);
            let inner: usize = shape[last + 1..].iter().product();
            let (outer, len) = (ahead.iter().map(|&d| shape[d]).product(), rest.iter().map(|&d| shape[d]).product());
            let contiguous = rest.windows(2).all(|w| w[1] == w[0] + 1) && ahead.iter().all(|&d| d < rest[0]);
            if !contiguous {
                let order: Vec<usize> = ahead.iter().chain(&rest).copied().chain(last + 1..shape.len()).collect();
                let st = webnn_cpu::tensor::strides(&shape);
                let walk: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
                let walk_strides = order.iter().map(|&d| st[d]).collect();
                let desc = webnn_core::OperandDescriptor::new(webnn_core::DataType::Float32, &walk.iter().map(|&d| d as u32).collect::<Vec<_>>());
                let t = p.new_slot(desc);
                p.push_step(Step::Permute(Box::new(crate::copy::Permute::strided("reduction's axes", input, t, walk, walk_strides, 0))));
                input = t;
            }
            (outer, len, inner)
        }
    };
    Some(Step::Reduce(Box::new(ReduceStep { input, out: y.index(), fold, outer, len, inner, out_shape: p.shape(y) })))
}

impl ReduceStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        format!("reduce ({:?}) {} lanes of {}", self.fold, self.outer * self.inner, self.len)
    }

    /// One lane's result.
    fn lane(&self, x: &[f32]) -> f64 {
        let lane = || x.iter().map(|&v| v as f64);
        match self.fold {
            Fold::Sum => lane().fold(0.0, |a, x| a + x),
            Fold::Mean => lane().fold(0.0, |a, x| a + x) / self.len as f64,
            Fold::L1 => lane().fold(0.0, |a, x| a + x.abs()),
            Fold::L2 => lane().fold(0.0, |a, x| a + x * x).sqrt(),
            Fold::SumSquare => lane().fold(0.0, |a, x| a + x * x),
            Fold::Max => lane().fold(f64::NEG_INFINITY, fmax),
            Fold::Min => lane().fold(f64::INFINITY, fmin),
            Fold::LogSum => lane().fold(0.0, |a, x| a + x).ln(),
            Fold::Product => lane().fold(1.0, |a, x| a * x),
            Fold::LogSumExp => {
                let max = lane().fold(f64::NEG_INFINITY, fmax);
                log_sum_exp(max, lane().fold(0.0, |a, x| a + (x - max).exp()))
            }
        }
    }

    /// `inner` lanes side by side (lane `i` holds elements `i`, `i + inner`, ...), folded a
    /// row of the block at a time into `acc` (and, for log-sum-exp's second pass, `sums`):
    /// each lane still in element order, as `lane` folds it, but the loops run along the
    /// rows, where they vectorize.
    fn lanes(&self, xb: &[f32], acc: &mut [f64], sums: &mut [f64], out: &mut [f32]) {
        let first = match self.fold {
            Fold::Max | Fold::LogSumExp => f64::NEG_INFINITY,
            Fold::Min => f64::INFINITY,
            Fold::Product => 1.0,
            _ => 0.0,
        };
        acc.fill(first);
        for row in xb.chunks_exact(acc.len()) {
            match self.fold {
                Fold::Sum | Fold::Mean | Fold::LogSum => fold_row(acc, row, |a, x| a + x),
                Fold::L1 => fold_row(acc, row, |a, x| a + x.abs()),
                Fold::L2 | Fold::SumSquare => fold_row(acc, row, |a, x| a + x * x),
                Fold::Max | Fold::LogSumExp => fold_row(acc, row, fmax),
                Fold::Min => fold_row(acc, row, fmin),
                Fold::Product => fold_row(acc, row, |a, x| a * x),
            }
        }
        if self.fold == Fold::LogSumExp {
            sums.fill(0.0);
            for row in xb.chunks_exact(acc.len()) {
                for ((s, &m), &x) in sums.iter_mut().zip(acc.iter()).zip(row) {
                    *s += (x as f64 - m).exp();
                }
            }
            for ((o, &m), &s) in out.iter_mut().zip(acc.iter()).zip(sums.iter()) {
                *o = log_sum_exp(m, s) as f32;
            }
            return;
        }
        let len = self.len as f64;
        for (o, &a) in out.iter_mut().zip(acc.iter()) {
            *o = match self.fold {
                Fold::Mean => a / len,
                Fold::L2 => a.sqrt(),
                Fold::LogSum => a.ln(),
                _ => a,
            } as f32;
        }
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (len, inner) = (self.len, self.inner);
        let block = len * inner;
        if values.f32(self.input)?.len() != self.outer * block {
            return Err(Error::operation_error("reduction: the input's size differs from the plan's"));
        }
        let mut y = values.alloc(self.outer * inner);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            let per = (TASK / block.max(1)).max(1);
            ctx.pool.run(self.outer.div_ceil(per), &|t| {
                let blocks = t * per..((t + 1) * per).min(self.outer);
                // SAFETY: each task writes its own blocks' outputs.
                let out = unsafe { dst.range(blocks.start * inner, blocks.len() * inner) };
                let mut acc = vec![0.0f64; if inner > 1 { inner } else { 0 }];
                let mut sums = vec![0.0f64; if inner > 1 && self.fold == Fold::LogSumExp { inner } else { 0 }];
                for (b, ob) in blocks.zip(out.chunks_exact_mut(inner)) {
                    let xb = &x[b * block..(b + 1) * block];
                    match (self.fold, inner) {
                        (Fold::Max, 1) => ob[0] = extreme::<true>(xb),
                        (Fold::Min, 1) => ob[0] = extreme::<false>(xb),
                        (_, 1) => ob[0] = self.lane(xb) as f32,
                        _ => self.lanes(xb, &mut acc, &mut sums, ob),
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}

/// `max + ln Σ exp(x - max)` from the lane's max and that sum, as the reference finishes it
/// (an infinite or NaN max is the result).
fn log_sum_exp(max: f64, sum: f64) -> f64 {
    if max.is_finite() {
        max + sum.ln()
    } else {
        max
    }
}

#[inline(always)]
fn fold_row(acc: &mut [f64], row: &[f32], f: impl Fn(f64, f64) -> f64) {
    for (a, &x) in acc.iter_mut().zip(row) {
        *a = f(*a, x as f64);
    }
}

/// The largest (or smallest) of `x`, NaN if any is NaN, as `fmax`/`fmin` fold it: a max of
/// float32 values is one of them, so float32 lanes give the f64 fold's value. Sixteen
/// independent lanes, so the loop vectorizes instead of waiting on one running maximum.
fn extreme<const MAX: bool>(x: &[f32]) -> f32 {
    let max = MAX;
    let mut m = [if max { f32::NEG_INFINITY } else { f32::INFINITY }; 16];
    let mut nan = [false; 16];
    let chunks = x.chunks_exact(16);
    let tail = chunks.remainder();
    for c in chunks {
        for k in 0..16 {
            let v = c[k];
            nan[k] |= v.is_nan();
            m[k] = if max == (v > m[k]) { v } else { m[k] };
        }
    }
    let mut r = if max { f32::NEG_INFINITY } else { f32::INFINITY };
    for &v in m.iter().chain(tail) {
        if v.is_nan() {
            return f32::NAN;
        }
        r = if max == (v > r) { v } else { r };
    }
    if nan.iter().any(|&n| n) {
        f32::NAN
    } else {
        r
    }
}
