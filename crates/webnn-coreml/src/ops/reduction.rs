//! Reductions, argMin/argMax and cumulativeSum.

use super::mil_name;
use crate::emit::{Em, In, Ty};
use webnn_core::ops::{ArgMinMax, CumulativeSum, Reduce};
use webnn_core::{OpKind, Operand, Result};

/// The shape after reducing `axes` of `shape`.
fn reduced(shape: &[usize], axes: &[usize], keep: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &n)| match (axes.contains(&i), keep) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

pub fn reduce(em: &mut Em, kind: OpKind, a: &Reduce, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    // float16 sums overflow where WebNN's result does not (24 values of 272 square to more
    // than 65504): accumulate in float32 and round once.
    let x = match kind {
        OpKind::ReduceMax | OpKind::ReduceMin => x,
        _ if x.ty == Ty::F16 => em.cast(&x, Ty::F32),
        _ => x,
    };
    let axes: Vec<usize> = match &a.options.axes {
        Some(axes) => axes.iter().map(|&i| i as usize).collect(),
        None => (0..x.rank()).collect(),
    };
    // Reducing over no axes reduces each element alone.
    let r = if axes.is_empty() {
        match kind {
            OpKind::ReduceL1 | OpKind::ReduceL2 => em.unary("abs", &x, vec![]),
            OpKind::ReduceLogSum => em.unary("log", &x, vec![("epsilon", In::Num(x.ty, 0.0))]),
            OpKind::ReduceSumSquare => em.arith2("mul", &x, &x),
            _ => x,
        }
    } else {
        let shape = reduced(&x.shape, &axes, a.options.keep_dimensions);
        let axes = axes.iter().map(|&i| i as i64).collect();
        let inputs =
            vec![("x", In::V(x.clone())), ("axes", In::Ints(axes)), ("keep_dims", In::Bool(a.options.keep_dimensions))];
        em.op(mil_name(kind)?, inputs, x.ty, shape)
    };
    em.bind(out, r)
}

pub fn arg(em: &mut Em, kind: OpKind, a: &ArgMinMax, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let axis = a.axis as usize;
    let shape = reduced(&x.shape, &[axis], a.options.keep_dimensions);
    let inputs = vec![
        ("x", In::V(x)),
        ("axis", In::Int(axis as i64)),
        ("keep_dims", In::Bool(a.options.keep_dimensions)),
    ];
    let r = em.op(mil_name(kind)?, inputs, Ty::I32, shape);
    em.bind(out, r)
}

pub fn cumulative_sum(em: &mut Em, a: &CumulativeSum, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let x = em.arith(&x);
    let params = vec![
        ("axis", In::Int(a.axis as i64)),
        ("exclusive", In::Bool(a.options.exclusive)),
        ("reverse", In::Bool(a.options.reversed)),
    ];
    let r = em.unary("cumsum", &x, params);
    em.bind(out, r)
}
