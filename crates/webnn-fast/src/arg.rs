//! argMin and argMax of float32 (or float16) along one axis, with int32 or int64 indices: a language
//! model's greedy next token (argMax over a vocabulary of tens of thousands) runs it every
//! step. The reference's rule (webnn-cpu `reduction.rs`): the first extreme wins ties, and a
//! lane's first NaN wins outright.

use crate::exec::{Step, Values};
use crate::plan::Planner;
use webnn_core::ops::ArgMinMax;
use webnn_core::{DataType, Error, Result};
use webnn_cpu::{Data, Tensor};

pub(crate) struct ArgStep {
    input: usize,
    out: usize,
    max: bool,
    /// The input as `outer` blocks of `n` values along the axis, each `inner` apart.
    outer: usize,
    n: usize,
    inner: usize,
    int64: bool,
    out_shape: Vec<usize>,
}

pub(crate) fn plan(p: &mut Planner, n: usize, a: &ArgMinMax, max: bool) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    let int64 = match a.options.output_data_type {
        DataType::Int32 => false,
        DataType::Int64 => true,
        _ => return None,
    };
    let t = p.orig.desc(a.input).data_type;
    if !matches!(t, DataType::Float32 | DataType::Float16) || !p.orig.desc(a.input).is_static() {
        return None;
    }
    let xs = p.shape(a.input);
    let axis = a.axis as usize;
    let input = p.logical(a.input);
    Some(Step::Arg(Box::new(ArgStep {
        input,
        out: y.index(),
        max,
        outer: xs[..axis].iter().product(),
        n: xs[axis],
        inner: xs[axis + 1..].iter().product(),
        int64,
        out_shape: p.shape(y),
    })))
}

/// The index of a lane's extreme: `better(x, best)` says when `x` replaces the best so far.
#[inline(always)]
fn lane(v: impl Iterator<Item = f32>, better: impl Fn(f32, f32) -> bool) -> usize {
    let mut v = v.enumerate();
    let Some((_, mut best)) = v.next() else { return 0 };
    if best.is_nan() {
        return 0;
    }
    let mut at = 0;
    for (k, x) in v {
        if x.is_nan() {
            return k;
        }
        if better(x, best) {
            (at, best) = (k, x);
        }
    }
    at
}

/// A contiguous lane: its extreme value found in eight partial extremes first (any NaN
/// makes the first NaN's index the answer), then its first index.
#[inline(always)]
fn contiguous(v: &[f32], max: bool) -> usize {
    if let Some(k) = v.iter().position(|x| x.is_nan()) {
        return k;
    }
    let pick = |a: f32, b: f32| if max == (b > a) { b } else { a };
    let mut acc = [v.first().copied().unwrap_or(0.0); 8];
    let chunks = v.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = pick(*a, x);
        }
    }
    let best = tail.iter().fold(acc.iter().copied().fold(acc[0], pick), |a, &x| pick(a, x));
    v.iter().position(|&x| x == best).unwrap_or(0)
}

impl ArgStep {
    pub(crate) fn describe(&self) -> String {
        format!("{} over {} lanes of {}", if self.max { "argMax" } else { "argMin" }, self.outer * self.inner, self.n)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn run(&self, values: &mut Values) -> Result<()> {
        let (outer, n, inner) = (self.outer, self.n, self.inner);
        // float16 (a float16 graph's values leave its float32 computation rounded to float16)
        // widens exactly, so the order and the NaNs are the same.
        let widened: Vec<f32>;
        let x = match &values.get(self.input)?.data {
            Data::F32(v) => v.as_slice(),
            Data::F16(v) => {
                widened = v.iter().map(|h| h.to_f32()).collect();
                &widened
            }
            other => return Err(Error::operation_error(format!("argMin/argMax: {} input", other.data_type()))),
        };
        if x.len() != outer * n * inner {
            return Err(Error::operation_error("argMin/argMax: the input's size differs from the plan's"));
        }
        let mut idx = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            let block = &x[o * n * inner..(o + 1) * n * inner];
            for i in 0..inner {
                idx.push(match (inner, self.max) {
                    (1, max) => contiguous(block, max),
                    (_, true) => lane(block[i..].iter().step_by(inner).copied(), |x, b| x > b),
                    (_, false) => lane(block[i..].iter().step_by(inner).copied(), |x, b| x < b),
                });
            }
        }
        let data = match self.int64 {
            true => Data::I64(idx.iter().map(|&k| k as i64).collect()),
            false => Data::I32(idx.iter().map(|&k| k as i32).collect()),
        };
        values.put_tensor(self.out, Tensor::new(self.out_shape.clone(), data));
        Ok(())
    }
}
