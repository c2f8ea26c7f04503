//! slice, expand and split as strided copies (`copy::Permute` from an offset, a broadcast
//! axis read with stride 0), gather as block copies, and triangular as each matrix row's kept
//! run copied and the rest zeroed, reverse as rows read from their mirrored rows: static
//! shapes, the elements the reference's index maps pick, without those maps (8 bytes per
//! output element) or its float64 copies. Triangular and reverse take any element type; the
//! others float32.

use crate::copy::Permute;
use crate::exec::{each_row, Ctx, Step, Values};
use crate::plan::Planner;
use webnn_core::ops::*;
use webnn_core::{Error, Operand, Result};
use webnn_cpu::kernels::gather::resolve;
use webnn_cpu::tensor::strides;
use webnn_cpu::Data;

/// Whether node `n` reads and writes float32 with static shapes only.
fn static_f32(p: &Planner, n: usize, input: Operand) -> bool {
    let node = &p.orig.nodes[n];
    p.is_f32(input) && node.outputs.iter().all(|&y| p.is_f32(y) && p.orig.desc(y).is_static())
}

pub(crate) fn plan_slice(p: &mut Planner, n: usize, a: &Slice) -> Option<Step> {
    if !static_f32(p, n, a.input) {
        return None;
    }
    let y = p.orig.nodes[n].outputs[0];
    let (xs, ys) = (p.shape(a.input), p.shape(y));
    let st = strides(&xs);
    let step = |d: usize| a.options.strides.as_ref().map_or(1, |s| s[d] as usize);
    let offset = a.starts.iter().zip(&st).map(|(&s, &t)| s as usize * t).sum();
    let walk_strides = (0..xs.len()).map(|d| st[d] * step(d)).collect();
    let input = p.logical(a.input);
    Some(Step::Permute(Box::new(Permute::strided("slice", input, y.index(), ys, walk_strides, offset))))
}

pub(crate) fn plan_expand(p: &mut Planner, n: usize, a: &Expand) -> Option<Step> {
    if !static_f32(p, n, a.input) {
        return None;
    }
    let y = p.orig.nodes[n].outputs[0];
    let (xs, ys) = (p.shape(a.input), p.shape(y));
    // The input's axes align with the output's last ones; a size-1 axis repeats (stride 0).
    let walk_strides = crate::copy::broadcast_strides(&xs, &ys);
    let input = p.logical(a.input);
    Some(Step::Permute(Box::new(Permute::strided("expand", input, y.index(), ys, walk_strides, 0))))
}

/// split: one strided copy per output.
pub(crate) struct SplitStep {
    parts: Vec<Permute>,
    input: usize,
}

pub(crate) fn plan_split(p: &mut Planner, n: usize, a: &Split) -> Option<Step> {
    if !static_f32(p, n, a.input) {
        return None;
    }
    let xs = p.shape(a.input);
    let st = strides(&xs);
    let axis = a.options.axis as usize;
    let input = p.logical(a.input);
    let mut start = 0;
    let mut parts = Vec::new();
    for &y in &p.orig.nodes[n].outputs {
        let ys = p.shape(y);
        parts.push(Permute::strided("split", input, y.index(), ys.clone(), st.clone(), start * st[axis]));
        start += ys[axis];
    }
    Some(Step::Split(Box::new(SplitStep { parts, input })))
}

impl SplitStep {
    pub(crate) fn describe(&self) -> String {
        format!("split into {} parts", self.parts.len())
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        self.parts.iter().try_for_each(|p| p.run(ctx, values))
    }
}

/// gather along an axis: for each outer index and each index value, one contiguous block of
/// the input (everything after the axis) copied.
pub(crate) struct GatherStep {
    input: usize,
    indices: usize,
    out: usize,
    /// Input elements before the axis (outer), along it (n) and after it (inner).
    outer: usize,
    n: usize,
    inner: usize,
    out_shape: Vec<usize>,
}

pub(crate) fn plan_gather(p: &mut Planner, n: usize, a: &Gather) -> Option<Step> {
    if !static_f32(p, n, a.input) || !p.orig.desc(a.indices).is_static() {
        return None;
    }
    let y = p.orig.nodes[n].outputs[0];
    let xs = p.shape(a.input);
    let axis = a.options.axis as usize;
    if xs.get(axis).is_none_or(|&n| n == 0) {
        return None;
    }
    let input = p.logical(a.input);
    let indices = p.logical(a.indices);
    Some(Step::Gather(Box::new(GatherStep {
        input,
        indices,
        out: y.index(),
        outer: xs[..axis].iter().product(),
        n: xs[axis],
        inner: xs[axis + 1..].iter().product(),
        out_shape: p.shape(y),
    })))
}

impl GatherStep {
    pub(crate) fn describe(&self) -> String {
        format!("gather to {:?}", self.out_shape)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input, self.indices]
    }

    pub(crate) fn run(&self, values: &mut Values) -> Result<()> {
        let (outer, n, inner) = (self.outer, self.n, self.inner);
        let rows: Vec<usize> = match &values.get(self.indices)?.data {
            Data::I32(v) => v.iter().map(|&i| resolve(i as i128, n)).collect(),
            Data::U32(v) => v.iter().map(|&i| resolve(i as i128, n)).collect(),
            Data::I64(v) => v.iter().map(|&i| resolve(i as i128, n)).collect(),
            Data::U64(v) => v.iter().map(|&i| resolve(i as i128, n)).collect(),
            // Validation admits int32, uint32 and int64 indices (uint64 is kept for any
            // extension of that list).
            other => return Err(Error::operation_error(format!("gather: {} indices", other.data_type()))),
        };
        let len = outer * rows.len() * inner;
        if len != self.out_shape.iter().product::<usize>() || values.f32(self.input)?.len() != outer * n * inner {
            return Err(Error::operation_error("gather: the operands' sizes differ from the plan's"));
        }
        let mut y = values.alloc(len);
        {
            let x = values.f32(self.input)?;
            let blocks = y.chunks_exact_mut(inner.max(1));
            for (k, block) in blocks.enumerate() {
                let (o, r) = (k / rows.len(), rows[k % rows.len()]);
                let at = (o * n + r) * inner;
                block.copy_from_slice(&x[at..at + inner]);
            }
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}

/// triangular: the last two axes are matrices; each row keeps the run of columns on the
/// kept side of the `diagonal`-th diagonal (upper: `j - i >= diagonal`, lower: `<=`) and
/// the rest become zeros.
pub(crate) struct TriangularStep {
    input: usize,
    out: usize,
    rows: usize,
    cols: usize,
    upper: bool,
    diagonal: i64,
    out_shape: Vec<usize>,
}

pub(crate) fn plan_triangular(p: &mut Planner, n: usize, a: &Triangular) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    let shape = p.shape(a.input);
    // int4/uint4 (two to a byte) stay on the reference.
    let packed = p.orig.desc(a.input).data_type.bits() < 8;
    if packed || !p.orig.desc(a.input).is_static() || shape.len() < 2 {
        return None;
    }
    let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let input = p.logical(a.input);
    let (upper, diagonal) = (a.options.upper, a.options.diagonal as i64);
    Some(Step::Triangular(Box::new(TriangularStep { input, out: y.index(), rows, cols, upper, diagonal, out_shape: shape })))
}

impl TriangularStep {
    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        run_rows(self, ctx, values, (self.input, self.out), &self.out_shape, &self.out_shape, "triangular")
    }

    pub(crate) fn describe(&self) -> String {
        format!("triangular ({}, diagonal {}) of {:?}", if self.upper { "upper" } else { "lower" }, self.diagonal, self.out_shape)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    /// Row `i`'s kept columns.
    fn kept(&self, i: usize) -> std::ops::Range<usize> {
        let (i, cols) = (i as i64, self.cols as i64);
        let (lo, hi) = match self.upper {
            true => ((i + self.diagonal).clamp(0, cols), cols),
            false => (0, (i + self.diagonal + 1).clamp(0, cols)),
        };
        lo as usize..hi.max(lo) as usize
    }
}

impl Rows for TriangularStep {
    /// `y`'s rows from `x`'s: each row's kept run copied, the rest zeros (`T::default()`).
    fn rows<T: Copy + Default + Send + Sync>(&self, ctx: &Ctx, x: &[T], y: &mut [T]) {
        let cols = self.cols.max(1);
        each_row(ctx, y, cols, |r, row| {
            let keep = self.kept(r % self.rows.max(1));
            row.fill(T::default());
            row[keep.clone()].copy_from_slice(&x[r * cols..][keep]);
        });
    }
}

/// reverse: rows along the last axis, each read from the row its leading coordinates map
/// to (reversed along the reversed axes), backwards where the last axis is reversed.
pub(crate) struct ReverseStep {
    input: usize,
    out: usize,
    shape: Vec<usize>,
    reversed: Vec<bool>,
}

pub(crate) fn plan_reverse(p: &mut Planner, n: usize, a: &Reverse) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    // int4/uint4 (two to a byte) stay on the reference.
    let packed = p.orig.desc(a.input).data_type.bits() < 8;
    if packed || !p.orig.desc(a.input).is_static() {
        return None;
    }
    let shape = p.shape(a.input);
    let mut reversed = vec![a.options.axes.is_none(); shape.len()];
    for &x in a.options.axes.iter().flatten() {
        *reversed.get_mut(x as usize)? = true;
    }
    let input = p.logical(a.input);
    Some(Step::Reverse(Box::new(ReverseStep { input, out: y.index(), shape, reversed })))
}

impl ReverseStep {
    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        run_rows(self, ctx, values, (self.input, self.out), &self.shape, &self.shape, "reverse")
    }

    pub(crate) fn describe(&self) -> String {
        format!("reverse {:?} of {:?}", self.reversed, self.shape)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }
}

impl Rows for ReverseStep {
    /// `y`'s rows from `x`'s.
    fn rows<T: Copy + Default + Send + Sync>(&self, ctx: &Ctx, x: &[T], y: &mut [T]) {
        let rank = self.shape.len();
        let last = self.shape.last().copied().unwrap_or(1).max(1);
        let backwards = self.reversed.last().copied().unwrap_or(false);
        let st = strides(&self.shape);
        each_row(ctx, y, last, |r, row| {
            // The source row's offset from the output row's leading coordinates.
            let (mut rest, mut at) = (r, 0);
            for d in (0..rank.saturating_sub(1)).rev() {
                let (n, i) = (self.shape[d], rest % self.shape[d]);
                at += if self.reversed[d] { n - 1 - i } else { i } * st[d];
                rest /= n;
            }
            let src = &x[at..at + last];
            match backwards {
                true => row.iter_mut().zip(src.iter().rev()).for_each(|(o, &v)| *o = v),
                false => row.copy_from_slice(src),
            }
        });
    }
}

/// A step that writes its output from its input of the same element type (moving values,
/// computing none), generic over the type.
pub(crate) trait Rows {
    fn rows<T: Copy + Default + Send + Sync>(&self, ctx: &Ctx, x: &[T], y: &mut [T]);
}

/// `step` from slot `input` (of shape `in_shape`) into slot `out` of shape `shape`: float32
/// into a spare buffer, the other element types (int4/uint4 aside: the plans refuse them)
/// into new vectors.
pub(crate) fn run_rows<S: Rows>(
    step: &S,
    ctx: &Ctx,
    values: &mut Values,
    (input, out): (usize, usize),
    in_shape: &[usize],
    shape: &[usize],
    what: &str,
) -> Result<()> {
    let len: usize = shape.iter().product();
    if values.get(input)?.data.len() != in_shape.iter().product::<usize>() {
        return Err(Error::operation_error(format!("{what}: the input's size differs from the plan's")));
    }
    if let Data::F32(_) = values.get(input)?.data {
        let mut y = values.alloc(len);
        step.rows(ctx, values.f32(input)?, &mut y);
        values.put(out, shape.to_vec(), y);
        return Ok(());
    }
    let data = {
        let x = &values.get(input)?.data;
        macro_rules! each {
            ($($variant:ident),*) => {
                match x {
                    $(Data::$variant(v) => {
                        let mut y = vec![Default::default(); len];
                        step.rows(ctx, v, &mut y);
                        Data::$variant(y)
                    })*
                    other => return Err(Error::operation_error(format!("{what}: {} values", other.data_type()))),
                }
            };
        }
        each!(F16, I8, U8, I32, U32, I64, U64)
    };
    values.put_tensor(out, webnn_cpu::Tensor::new(shape.to_vec(), data));
    Ok(())
}

