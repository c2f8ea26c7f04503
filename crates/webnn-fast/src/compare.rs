//! equal, notEqual, greater, greaterOrEqual, lesser and lesserOrEqual, and the logical ops
//! (and, or, xor, not: uint8, nonzero true), with broadcasting (a uint8 result of 0 or 1 per
//! element), and `where` on float32 values: walked row by row over
//! the output with each operand's strides (0 along a broadcast axis), static shapes. The comparisons are the reference's
//! (IEEE for floats: NaN compares false, and not-equal true), on float32, float16 and the
//! integer types, without its float64 copies and 8-byte index maps.

use crate::exec::{Ctx, Step, Values};
use crate::pool::SharedMut;
use crate::plan::Planner;
use webnn_core::ops::Op;
use webnn_core::{DataType, Error, Result};
use webnn_cpu::Data;

#[derive(Clone, Copy, Debug)]
enum Test {
    Equal,
    NotEqual,
    Greater,
    GreaterOrEqual,
    Lesser,
    LesserOrEqual,
    /// The logical ops, on uint8 (nonzero is true); `Not` reads `a` only.
    And,
    Or,
    Xor,
    Not,
}

pub(crate) struct CompareStep {
    test: Test,
    a: usize,
    b: usize,
    out: usize,
    out_shape: Vec<usize>,
    /// Each operand's stride along each output axis (0 where it is broadcast).
    a_strides: Vec<usize>,
    b_strides: Vec<usize>,
}

/// `shape`'s strides along the axes of an output of rank `rank` it broadcasts to.
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let lead = out.len() - shape.len();
    let mut strides = vec![0; out.len()];
    let mut s = 1;
    for d in (0..shape.len()).rev() {
        if shape[d] == out[lead + d] && shape[d] != 1 {
            strides[lead + d] = s;
        }
        s *= shape[d];
    }
    strides
}

pub(crate) fn plan(p: &mut Planner, n: usize) -> Option<Step> {
    let node = &p.orig.nodes[n];
    let (test, a, b) = match &node.op {
        Op::Equal(x) => (Test::Equal, x.a, x.b),
        Op::NotEqual(x) => (Test::NotEqual, x.a, x.b),
        Op::Greater(x) => (Test::Greater, x.a, x.b),
        Op::GreaterOrEqual(x) => (Test::GreaterOrEqual, x.a, x.b),
        Op::Lesser(x) => (Test::Lesser, x.a, x.b),
        Op::LesserOrEqual(x) => (Test::LesserOrEqual, x.a, x.b),
        Op::LogicalAnd(x) => (Test::And, x.a, x.b),
        Op::LogicalOr(x) => (Test::Or, x.a, x.b),
        Op::LogicalXor(x) => (Test::Xor, x.a, x.b),
        Op::LogicalNot(x) => (Test::Not, x.input, x.input),
        _ => return None,
    };
    let y = node.outputs[0];
    let t = p.orig.desc(a).data_type;
    let handled = matches!(t, DataType::Float32 | DataType::Float16 | DataType::Int32 | DataType::Uint32 | DataType::Int64 | DataType::Uint64 | DataType::Int8 | DataType::Uint8);
    if !handled || ![a, b, y].iter().all(|&o| p.orig.desc(o).is_static()) {
        return None;
    }
    let out_shape = p.shape(y);
    let (a_strides, b_strides) = (broadcast_strides(&p.shape(a), &out_shape), broadcast_strides(&p.shape(b), &out_shape));
    let (a, b) = (p.logical(a), p.logical(b));
    Some(Step::Compare(Box::new(CompareStep { test, a, b, out: y.index(), out_shape, a_strides, b_strides })))
}

impl CompareStep {
    pub(crate) fn describe(&self) -> String {
        format!("{:?} to {:?}", self.test, self.out_shape)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.a, self.b]
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let len: usize = self.out_shape.iter().product();
        // The result in a spare byte buffer, which returns to the set when it dies.
        let mut out = values.alloc_bytes(len);
        {
            let (a, b) = (&values.get(self.a)?.data, &values.get(self.b)?.data);
            match (a, b) {
                (Data::F32(x), Data::F32(y)) => self.walk(ctx, x, y, &mut out),
                // half's comparisons are IEEE's (NaN unordered, -0 equal to +0).
                (Data::F16(x), Data::F16(y)) => self.walk(ctx, x, y, &mut out),
                (Data::I32(x), Data::I32(y)) => self.walk(ctx, x, y, &mut out),
                (Data::U32(x), Data::U32(y)) => self.walk(ctx, x, y, &mut out),
                (Data::I64(x), Data::I64(y)) => self.walk(ctx, x, y, &mut out),
                (Data::U64(x), Data::U64(y)) => self.walk(ctx, x, y, &mut out),
                (Data::I8(x), Data::I8(y)) => self.walk(ctx, x, y, &mut out),
                (Data::U8(x), Data::U8(y)) => self.walk(ctx, x, y, &mut out),
                (x, y) => Err(Error::operation_error(format!("compare: {} with {}", x.data_type(), y.data_type()))),
            }?;
        }
        values.put_bytes(self.out, self.out_shape.clone(), out);
        Ok(())
    }

    /// Rows along the last axis, in tasks of whole rows across the pool.
    fn walk<T: PartialOrd + Copy + Sync + Default>(&self, ctx: &Ctx, a: &[T], b: &[T], out: &mut [u8]) -> Result<()> {
        let len = out.len();
        if len > 0 && (a.len() < reach(&self.out_shape, &self.a_strides) || b.len() < reach(&self.out_shape, &self.b_strides)) {
            return Err(Error::operation_error("compare: the operands' sizes differ from the plan's"));
        }
        let last = self.out_shape.last().copied().unwrap_or(1).max(1);
        let (sa, sb) = (self.a_strides.last().copied().unwrap_or(0), self.b_strides.last().copied().unwrap_or(0));
        let (rows, per) = (len / last, (crate::exec::TASK / last).max(1));
        let dst = SharedMut::new(out);
        ctx.pool.run(rows.div_ceil(per), &|t| {
            let range = t * per..((t + 1) * per).min(rows);
            // SAFETY: each task writes its own rows.
            let out = unsafe { dst.range(range.start * last, range.len() * last) };
            for (r, row) in range.zip(out.chunks_exact_mut(last)) {
                let (ao, bo) = (row_offset(r, &self.out_shape, &self.a_strides), row_offset(r, &self.out_shape, &self.b_strides));
                let (x, y) = (Side::of(a, ao, sa, last), Side::of(b, bo, sb, last));
                match self.test {
                    Test::Equal => sides(row, x, y, |x, y| x == y),
                    Test::NotEqual => sides(row, x, y, |x, y| x != y),
                    Test::Greater => sides(row, x, y, |x, y| x > y),
                    Test::GreaterOrEqual => sides(row, x, y, |x, y| x >= y),
                    Test::Lesser => sides(row, x, y, |x, y| x < y),
                    Test::LesserOrEqual => sides(row, x, y, |x, y| x <= y),
                    // (Validation gives the logical ops uint8 operands: 0 is false.)
                    Test::And => sides(row, x, y, |x, y| x != T::default() && y != T::default()),
                    Test::Or => sides(row, x, y, |x, y| x != T::default() || y != T::default()),
                    Test::Xor => sides(row, x, y, |x, y| (x != T::default()) != (y != T::default())),
                    Test::Not => sides(row, x, y, |x, _| x == T::default()),
                }
            }
        });
        Ok(())
    }
}

/// The offset of output row `r`'s first element (rows along the last axis) in an operand
/// with these strides.
fn row_offset(r: usize, out_shape: &[usize], strides: &[usize]) -> usize {
    let (mut rest, mut at) = (r, 0);
    for d in (0..out_shape.len().saturating_sub(1)).rev() {
        at += (rest % out_shape[d]) * strides[d];
        rest /= out_shape[d];
    }
    at
}

/// How many elements an operand with these strides must hold for a non-empty output.
fn reach(out_shape: &[usize], strides: &[usize]) -> usize {
    1 + strides.iter().zip(out_shape).map(|(&s, &n)| s * (n - 1)).sum::<usize>()
}

/// where(condition, trueValue, falseValue) on float32 values and a uint8 condition.
pub(crate) struct WhereStep {
    operands: [usize; 3],
    strides: [Vec<usize>; 3],
    out: usize,
    out_shape: Vec<usize>,
}

pub(crate) fn plan_where(p: &mut Planner, n: usize, a: &webnn_core::ops::Where) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    let operands = [a.condition, a.true_value, a.false_value];
    if !p.is_f32(y) || !operands.iter().chain([&y]).all(|&o| p.orig.desc(o).is_static()) {
        return None;
    }
    let out_shape = p.shape(y);
    let strides = operands.map(|o| broadcast_strides(&p.shape(o), &out_shape));
    let operands = operands.map(|o| p.logical(o));
    Some(Step::Where(Box::new(WhereStep { operands, strides, out: y.index(), out_shape })))
}

impl WhereStep {
    pub(crate) fn describe(&self) -> String {
        format!("where to {:?}", self.out_shape)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        self.operands.to_vec()
    }

    pub(crate) fn run(&self, values: &mut Values) -> Result<()> {
        let len: usize = self.out_shape.iter().product();
        let mut y = values.alloc(len);
        {
            let Data::U8(c) = &values.get(self.operands[0])?.data else {
                return Err(Error::operation_error("where: the condition is not uint8"));
            };
            let (t, f) = (values.f32(self.operands[1])?, values.f32(self.operands[2])?);
            let sizes = [c.len(), t.len(), f.len()];
            if len > 0 && sizes.iter().zip(&self.strides).any(|(&n, s)| n < reach(&self.out_shape, s)) {
                return Err(Error::operation_error("where: the operands' sizes differ from the plan's"));
            }
            let last = self.out_shape.last().copied().unwrap_or(1);
            let [sc, st, sf] = [0, 1, 2].map(|k| self.strides[k].last().copied().unwrap_or(0));
            for (r, row) in y.chunks_exact_mut(last.max(1)).enumerate() {
                let [co, to, fo] = [0, 1, 2].map(|k| row_offset(r, &self.out_shape, &self.strides[k]));
                for (k, o) in row.iter_mut().enumerate() {
                    *o = if c[co + k * sc] != 0 { t[to + k * st] } else { f[fo + k * sf] };
                }
            }
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}

/// One operand along one output row: a single value (broadcast along the row), a run of
/// values, or values `stride` apart.
#[derive(Clone, Copy)]
enum Side<'a, T> {
    One(T),
    Run(&'a [T]),
    Strided(&'a [T], usize),
}

impl<'a, T: Copy> Side<'a, T> {
    /// The row of `len` values from `at`, `stride` apart (`walk` checked the reach).
    fn of(v: &'a [T], at: usize, stride: usize, len: usize) -> Side<'a, T> {
        match stride {
            0 => Side::One(v[at]),
            1 => Side::Run(&v[at..at + len]),
            s => Side::Strided(&v[at..], s),
        }
    }
}

/// One row of results, `test` known at compile time in each caller's loop; a broadcast
/// value and contiguous runs as iterators, so that the loops vectorize.
#[inline(always)]
fn sides<T: Copy>(row: &mut [u8], x: Side<T>, y: Side<T>, test: impl Fn(T, T) -> bool) {
    let put = |o: &mut u8, x: T, y: T| *o = u8::from(test(x, y));
    match (x, y) {
        (Side::One(x), Side::Run(y)) => row.iter_mut().zip(y).for_each(|(o, &y)| put(o, x, y)),
        (Side::Run(x), Side::One(y)) => row.iter_mut().zip(x).for_each(|(o, &x)| put(o, x, y)),
        (Side::Run(x), Side::Run(y)) => row.iter_mut().zip(x).zip(y).for_each(|((o, &x), &y)| put(o, x, y)),
        (x, y) => {
            let at = |s: Side<T>, k: usize| match s {
                Side::One(v) => v,
                Side::Run(v) => v[k],
                Side::Strided(v, stride) => v[k * stride],
            };
            row.iter_mut().enumerate().for_each(|(k, o)| put(o, at(x, k), at(y, k)));
        }
    }
}
