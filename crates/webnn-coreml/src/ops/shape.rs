//! Shape and data movement: concat, expand, pad, reshape, reverse, slice, split, tile,
//! transpose, triangular, where.

use crate::emit::{Em, In, Ty, V};
use webnn_core::ops::{Concat, Expand, NumberCast, Pad, PaddingMode, Reshape, Reverse, Slice, Split, Splits, Tile, Transpose, Triangular, Where};
use webnn_core::{Operand, Result};

fn ints(v: impl IntoIterator<Item = usize>) -> In {
    In::Ints(v.into_iter().map(|x| x as i64).collect())
}

pub fn concat(em: &mut Em, a: &Concat, out: Operand) -> Result<()> {
    let mut values = Vec::new();
    for &o in &a.inputs {
        let v = em.v(o)?;
        values.push(em.arith(&v));
    }
    let shape = em.shape(out)?;
    let ty = values[0].ty;
    let inputs = vec![("values", In::Vs(values)), ("axis", In::Int(a.axis as i64)), ("interleave", In::Bool(false))];
    let r = em.op("concat", inputs, ty, shape);
    em.bind(out, r)
}

/// `x` broadcast to `shape` by a reshape to its rank and a tile of the unit axes.
pub(crate) fn broadcast_to(em: &mut Em, x: &V, shape: &[usize]) -> V {
    let mut lifted = vec![1; shape.len() - x.rank()];
    lifted.extend(&x.shape);
    let x = em.reshape(x, lifted.clone());
    let reps: Vec<usize> = shape.iter().zip(&lifted).map(|(&o, &i)| if i == o { 1 } else { o }).collect();
    if reps.iter().all(|&r| r == 1) {
        return x;
    }
    let ty = x.ty;
    em.op("tile", vec![("x", In::V(x)), ("reps", ints(reps))], ty, shape.to_vec())
}

pub fn expand(em: &mut Em, a: &Expand, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let shape = em.shape(out)?;
    let r = broadcast_to(em, &x, &shape);
    em.bind(out, r)
}

pub fn pad(em: &mut Em, a: &Pad, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let dt = em.g.desc(a.input).data_type;
    let pads = a.beginning_padding.iter().zip(&a.ending_padding).flat_map(|(&b, &e)| [b as usize, e as usize]);
    let mode = match a.options.mode {
        PaddingMode::Constant => "constant",
        PaddingMode::Edge => "replicate",
        PaddingMode::Reflection => "reflect",
    };
    let value = match a.options.value.cast(dt) {
        NumberCast::Float(f) => f,
        NumberCast::Int(i) => i as f64,
    };
    let shape = em.shape(out)?;
    let ty = x.ty;
    let inputs = vec![("x", In::V(x)), ("pad", ints(pads)), ("mode", In::Str(mode)), ("constant_val", In::Num(ty, value))];
    let r = em.op("pad", inputs, ty, shape);
    em.bind(out, r)
}

pub fn reshape(em: &mut Em, a: &Reshape, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let shape = em.shape(out)?;
    let r = em.reshape(&x, shape);
    em.bind(out, r)
}

pub fn reverse(em: &mut Em, a: &Reverse, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let axes: Vec<usize> = match &a.options.axes {
        Some(axes) => axes.iter().map(|&i| i as usize).collect(),
        None => (0..x.rank()).collect(),
    };
    if axes.is_empty() {
        return em.bind(out, x);
    }
    let x = em.arith(&x);
    let r = em.unary("reverse", &x, vec![("axes", ints(axes))]);
    em.bind(out, r)
}

pub fn slice(em: &mut Em, a: &Slice, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    if x.rank() == 0 {
        return em.bind(out, x);
    }
    let x = em.arith(&x);
    let strides: Vec<usize> = match &a.options.strides {
        Some(s) => s.iter().map(|&n| n as usize).collect(),
        None => vec![1; x.rank()],
    };
    let begin: Vec<usize> = a.starts.iter().map(|&n| n as usize).collect();
    let end: Vec<usize> = begin.iter().zip(&a.sizes).map(|(&b, s)| b + s.max_size() as usize).collect();
    let shape = em.shape(out)?;
    let ty = x.ty;
    let inputs = vec![("x", In::V(x)), ("begin", ints(begin)), ("end", ints(end)), ("stride", ints(strides))];
    let r = em.op("slice_by_index", inputs, ty, shape);
    em.bind(out, r)
}

pub fn split(em: &mut Em, a: &Split, outs: &[Operand]) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let axis = a.options.axis as usize;
    let sizes: Vec<usize> = match &a.splits {
        Splits::Count(n) => vec![x.shape[axis] / *n as usize; *n as usize],
        Splits::Sizes(s) => s.iter().map(|&n| n as usize).collect(),
    };
    let types = sizes
        .iter()
        .map(|&n| {
            let mut s = x.shape.clone();
            s[axis] = n;
            (x.ty, s)
        })
        .collect();
    let inputs = vec![("x", In::V(x.clone())), ("split_sizes", ints(sizes)), ("axis", In::Int(axis as i64))];
    let parts = em.op_n("split", inputs, types);
    for (&o, v) in outs.iter().zip(parts) {
        em.bind(o, v)?;
    }
    Ok(())
}

pub fn tile(em: &mut Em, a: &Tile, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    if x.rank() == 0 {
        return em.bind(out, x);
    }
    let x = em.arith(&x);
    let shape = em.shape(out)?;
    let ty = x.ty;
    let r = em.op("tile", vec![("x", In::V(x)), ("reps", ints(a.repetitions.iter().map(|&n| n as usize)))], ty, shape);
    em.bind(out, r)
}

pub fn transpose(em: &mut Em, a: &Transpose, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let perm: Vec<usize> = match &a.options.permutation {
        Some(p) => p.iter().map(|&i| i as usize).collect(),
        None => (0..x.rank()).rev().collect(),
    };
    let x = em.arith(&x);
    let r = em.transpose(&x, &perm);
    em.bind(out, r)
}

/// A constant mask of the kept triangle selects between the input and zero.
pub fn triangular(em: &mut Em, a: &Triangular, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let (h, w) = (x.shape[x.rank() - 2], x.shape[x.rank() - 1]);
    let k = a.options.diagonal as i64;
    let mask: Vec<u8> = (0..h as i64)
        .flat_map(|i| (0..w as i64).map(move |j| if a.options.upper { j - i >= k } else { j - i <= k } as u8))
        .collect();
    let mask = em.constant(Ty::Bool, &[h, w], &mask);
    let zero = em.scalar(x.ty, 0.0);
    let ty = x.ty;
    let shape = x.shape.clone();
    let r = em.op("select", vec![("cond", In::V(mask)), ("a", In::V(x)), ("b", In::V(zero))], ty, shape);
    em.bind(out, r)
}

pub fn where_(em: &mut Em, a: &Where, out: Operand) -> Result<()> {
    let c = em.v(a.condition)?;
    let c = em.cast(&c, Ty::Bool);
    let t = em.v(a.true_value)?;
    let t = em.arith(&t);
    let f = em.v(a.false_value)?;
    let f = em.arith(&f);
    let shape = em.shape(out)?;
    // coremltools' select broadcasts only `a` with `b`; a condition of higher rank needs
    // `a` already at the output's shape.
    let t = if crate::emit::broadcast(&t.shape, &f.shape) == shape { t } else { broadcast_to(em, &t, &shape) };
    let ty = t.ty;
    let r = em.op("select", vec![("cond", In::V(c)), ("a", In::V(t)), ("b", In::V(f))], ty, shape);
    em.bind(out, r)
}
