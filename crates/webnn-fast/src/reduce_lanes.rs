//! Reductions (mean, sum, max, min, L1, L2, sum of squares) over one contiguous block of
//! axes, in float32: each output is one lane of `len` elements `inner` apart, folded in f64 in
//! the reference kernel's order (webnn-cpu `reduction.rs` folds each group in element order),
//! so the results equal the reference's bit for bit. The trailing-axis reductions of
//! layer normalizations written as primitives (ONNX exports) and squeeze-excite means run here.

use crate::exec::{Ctx, Step, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::Reduce;
use webnn_core::{Error, Result};
use webnn_cpu::kernels::reduction::{fmax, fmin};

/// Lanes per task, scaled by their length.
const TASK: usize = 16_384;

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
                for (b, ob) in blocks.zip(out.chunks_exact_mut(inner)) {
                    let xb = &x[b * block..(b + 1) * block];
                    for (i, o) in ob.iter_mut().enumerate() {
                        *o = self.lane((0..len).map(|k| xb[k * inner + i] as f64)) as f32;
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}
