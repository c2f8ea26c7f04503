//! Reductions (mean, sum, max, min, L1, L2, sum of squares) over one contiguous block of
//! axes, in float32: each output is one lane of `len` elements `inner` apart, folded in f64 in
//! the reference kernel's order (webnn-cpu `reduction.rs` folds each group in element order),
//! so the results equal the reference's bit for bit. The trailing-axis reductions of
//! layer normalizations written as primitives (ONNX exports) and squeeze-excite means run here.

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

/// The fast step for a float32 reduction over a contiguous block of axes, static shapes.
pub(crate) fn plan(p: &mut Planner, n: usize, fold: Fold, a: &Reduce) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.is_f32(y) || !p.orig.desc(a.input).is_static() {
        return None;
    }
    let shape = p.shape(a.input);
    let mut axes: Vec<usize> = match &a.options.axes {
        Some(v) => v.iter().map(|&x| x as usize).collect(),
        None => (0..shape.len()).collect(),
    };
    axes.sort_unstable();
    axes.dedup();
    let (&first, &last) = (axes.first()?, axes.last()?);
    if last - first + 1 != axes.len() {
        return None;
    }
    let input = p.logical(a.input);
    Some(Step::Reduce(Box::new(ReduceStep {
        input,
        out: y.index(),
        fold,
        outer: shape[..first].iter().product(),
        len: shape[first..=last].iter().product(),
        inner: shape[last + 1..].iter().product(),
        out_shape: p.shape(y),
    })))
}

impl ReduceStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        format!("reduce ({:?}) {} lanes of {}", self.fold, self.outer * self.inner, self.len)
    }

    /// One lane's result.
    fn lane(&self, lane: impl Iterator<Item = f64>) -> f64 {
        match self.fold {
            Fold::Sum => lane.fold(0.0, |a, x| a + x),
            Fold::Mean => lane.fold(0.0, |a, x| a + x) / self.len as f64,
            Fold::L1 => lane.fold(0.0, |a, x| a + x.abs()),
            Fold::L2 => lane.fold(0.0, |a, x| a + x * x).sqrt(),
            Fold::SumSquare => lane.fold(0.0, |a, x| a + x * x),
            Fold::Max => lane.fold(f64::NEG_INFINITY, fmax),
            Fold::Min => lane.fold(f64::INFINITY, fmin),
        }
    }

    /// `inner` lanes side by side (lane `i` holds elements `i`, `i + inner`, ...), folded a
    /// row of the block at a time into `acc`: each lane still in element order, as `lane`
    /// folds it, but the loops run along the rows, where they vectorize.
    fn lanes(&self, xb: &[f32], acc: &mut [f64], out: &mut [f32]) {
        let first = match self.fold {
            Fold::Max => f64::NEG_INFINITY,
            Fold::Min => f64::INFINITY,
            _ => 0.0,
        };
        acc.fill(first);
        for row in xb.chunks_exact(acc.len()) {
            match self.fold {
                Fold::Sum | Fold::Mean => fold_row(acc, row, |a, x| a + x),
                Fold::L1 => fold_row(acc, row, |a, x| a + x.abs()),
                Fold::L2 | Fold::SumSquare => fold_row(acc, row, |a, x| a + x * x),
                Fold::Max => fold_row(acc, row, fmax),
                Fold::Min => fold_row(acc, row, fmin),
            }
        }
        let len = self.len as f64;
        for (o, &a) in out.iter_mut().zip(acc.iter()) {
            *o = match self.fold {
                Fold::Mean => a / len,
                Fold::L2 => a.sqrt(),
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
                for (b, ob) in blocks.zip(out.chunks_exact_mut(inner)) {
                    let xb = &x[b * block..(b + 1) * block];
                    match (self.fold, inner) {
                        (Fold::Max, 1) => ob[0] = extreme::<true>(xb),
                        (Fold::Min, 1) => ob[0] = extreme::<false>(xb),
                        (_, 1) => ob[0] = self.lane(xb.iter().map(|&v| v as f64)) as f32,
                        _ => self.lanes(xb, &mut acc, ob),
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
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
