//! Data movement: concat, expand, pad, reshape, reverse, slice, split, tile, transpose,
//! triangular, where.

use crate::emit::{arith, attr_i, attr_ints, attr_s, held, Em};
use webnn_core::ops::{
    Concat, Expand, NumberCast, Pad, PaddingMode, Reshape, Reverse, Slice, Split, Splits, Tile,
    Transpose, Triangular, Where,
};
use webnn_core::{DataType, Dim, Node, Operand, Result};

/// Pad and Tile lack float16 kernels in ONNX Runtime's CPU provider; float32 holds every
/// float16 value exactly.
fn movable(dt: DataType) -> DataType {
    if dt == DataType::Float16 {
        DataType::Float32
    } else {
        held(dt)
    }
}

pub fn concat(em: &mut Em, a: &Concat, out: Operand) -> Result<()> {
    let ct = held(em.dt(out));
    em.simple(
        "Concat",
        &a.inputs,
        ct,
        vec![attr_i("axis", a.axis as i64)],
        out,
    )
}

pub fn expand(em: &mut Em, a: &Expand, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let s = em.shape_value(&em.dims(out))?;
    let y = em.node("Expand", &[&x, &s], vec![]);
    em.output_from(out, y, held(em.dt(a.input)))
}

pub fn reshape(em: &mut Em, a: &Reshape, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let s = em.shape_value(&em.dims(out))?;
    let y = em.node("Reshape", &[&x, &s], vec![]);
    em.output_from(out, y, held(em.dt(a.input)))
}

pub fn pad(em: &mut Em, a: &Pad, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let ct = movable(dt);
    let x = em.input_as(a.input, ct)?;
    let pads: Vec<i64> = a
        .beginning_padding
        .iter()
        .chain(a.ending_padding.iter())
        .map(|&p| p as i64)
        .collect();
    if pads.iter().all(|&p| p == 0) {
        return em.output_from(out, x, ct);
    }
    let pads = em.i64s(&pads);
    let (mode, value) = match a.options.mode {
        PaddingMode::Constant => {
            let v = match a.options.value.cast(dt) {
                NumberCast::Float(f) => em.scalar(ct, f),
                NumberCast::Int(i) => em.scalar_int(ct, i),
            };
            ("constant", v)
        }
        PaddingMode::Edge => ("edge", String::new()),
        PaddingMode::Reflection => ("reflect", String::new()),
    };
    let y = em.node("Pad", &[&x, &pads, &value], vec![attr_s("mode", mode)]);
    em.output_from(out, y, ct)
}

pub fn reverse(em: &mut Em, a: &Reverse, out: Operand) -> Result<()> {
    let rank = em.rank(a.input) as i64;
    let axes: Vec<i64> = match &a.options.axes {
        Some(v) => v.iter().map(|&x| x as i64).collect(),
        None => (0..rank).collect(),
    };
    let x = em.v(a.input)?;
    if axes.is_empty() {
        em.set(out, x);
        return Ok(());
    }
    let n = axes.len();
    let (starts, ends, ax, steps) = (
        em.i64s(&vec![-1; n]),
        em.i64s(&vec![i64::MIN; n]),
        em.i64s(&axes),
        em.i64s(&vec![-1; n]),
    );
    let y = em.node("Slice", &[&x, &starts, &ends, &ax, &steps], vec![]);
    em.output_from(out, y, held(em.dt(a.input)))
}

pub fn slice(em: &mut Em, a: &Slice, out: Operand) -> Result<()> {
    let x = em.v(a.input)?;
    let rank = a.starts.len();
    if rank == 0 {
        em.set(out, x);
        return Ok(());
    }
    let strides: Vec<i64> = match &a.options.strides {
        Some(s) => s.iter().map(|&x| x as i64).collect(),
        None => vec![1; rank],
    };
    let starts: Vec<i64> = a.starts.iter().map(|&x| x as i64).collect();
    let e = match a.sizes.iter().map(Dim::as_static).collect::<Option<Vec<u32>>>() {
        // WebNN's sizes count input elements (the output has ceil(size / stride)), so the
        // window ends at starts + sizes whatever the stride.
        Some(sizes) => {
            let ends: Vec<i64> = (0..rank).map(|i| starts[i] + sizes[i] as i64).collect();
            em.i64s(&ends)
        }
        // Sizes naming dynamic dimensions: the same sum, with the sizes read at run time.
        None => {
            let sizes = em.shape_value(&a.sizes)?;
            let base = em.i64s(&starts);
            em.node("Add", &[&sizes, &base], vec![])
        }
    };
    let axes: Vec<i64> = (0..rank as i64).collect();
    let (s, ax, st) = (em.i64s(&starts), em.i64s(&axes), em.i64s(&strides));
    let y = em.node("Slice", &[&x, &s, &e, &ax, &st], vec![]);
    em.output_from(out, y, held(em.dt(a.input)))
}

pub fn split(em: &mut Em, a: &Split, node: &Node) -> Result<()> {
    let axis = a.options.axis as usize;
    let x = em.v(a.input)?;
    let n = node.outputs.len();
    let ys = if let (Splits::Count(_), true) = (&a.splits, em.dims(a.input)[axis].is_dynamic()) {
        // Equal parts of a dynamic size: ONNX splits by count at run time.
        let attrs = vec![attr_i("axis", axis as i64), attr_i("num_outputs", n as i64)];
        em.node_n("Split", &[&x], n, attrs)
    } else {
        let sizes: Vec<i64> = node
            .outputs
            .iter()
            .map(|&o| Ok(em.static_dim(o, axis)? as i64))
            .collect::<Result<_>>()?;
        let s = em.i64s(&sizes);
        em.node_n("Split", &[&x, &s], n, vec![attr_i("axis", axis as i64)])
    };
    let ct = held(em.dt(a.input));
    for (o, y) in node.outputs.iter().zip(ys) {
        em.output_from(*o, y, ct)?;
    }
    Ok(())
}

pub fn tile(em: &mut Em, a: &Tile, out: Operand) -> Result<()> {
    let ct = movable(em.dt(a.input));
    let x = em.input_as(a.input, ct)?;
    if a.repetitions.is_empty() {
        return em.output_from(out, x, ct);
    }
    let reps: Vec<i64> = a.repetitions.iter().map(|&r| r as i64).collect();
    let r = em.i64s(&reps);
    let y = em.node("Tile", &[&x, &r], vec![]);
    em.output_from(out, y, ct)
}

pub fn transpose(em: &mut Em, a: &Transpose, out: Operand) -> Result<()> {
    let rank = em.rank(a.input);
    let perm: Vec<i64> = match &a.options.permutation {
        Some(p) => p.iter().map(|&x| x as i64).collect(),
        None => (0..rank as i64).rev().collect(),
    };
    let x = em.v(a.input)?;
    if rank == 0 {
        em.set(out, x);
        return Ok(());
    }
    let y = em.node("Transpose", &[&x], vec![attr_ints("perm", &perm)]);
    em.output_from(out, y, held(em.dt(a.input)))
}

/// The upper (j - i >= diagonal) or lower (j - i <= diagonal) triangle of the last two
/// axes, zeros elsewhere, by a mask (any data type): a constant, or built from Range at run
/// time when those sizes are dynamic.
pub fn triangular(em: &mut Em, a: &Triangular, out: Operand) -> Result<()> {
    let rank = em.rank(a.input);
    let d = a.options.diagonal as i64;
    let dims = em.dims(a.input);
    let (Some(h), Some(w)) = (dims[rank - 2].as_static(), dims[rank - 1].as_static()) else {
        let (zero, one, diagonal) = (
            em.scalar_int(DataType::Int64, 0),
            em.scalar_int(DataType::Int64, 1),
            em.scalar_int(DataType::Int64, d as i128),
        );
        let (h, w) = (
            em.dim_scalar(&dims[rank - 2])?,
            em.dim_scalar(&dims[rank - 1])?,
        );
        let rows = em.node("Range", &[&zero, &h, &one], vec![]);
        let axis = em.i64s(&[1]);
        let rows = em.node("Unsqueeze", &[&rows, &axis], vec![]);
        let cols = em.node("Range", &[&zero, &w, &one], vec![]);
        let k = em.node("Sub", &[&cols, &rows], vec![]);
        let op = if a.options.upper {
            "GreaterOrEqual"
        } else {
            "LessOrEqual"
        };
        let m = em.node(op, &[&k, &diagonal], vec![]);
        return masked(em, a, &m, out);
    };
    let (h, w) = (h as i64, w as i64);
    let mask: Vec<u8> = (0..h)
        .flat_map(|i| (0..w).map(move |j| (j - i, i)))
        .map(|(k, _)| {
            if a.options.upper {
                (k >= d) as u8
            } else {
                (k <= d) as u8
            }
        })
        .collect();
    let m = em.tensor(DataType::Uint8, &[h, w], mask);
    let m = crate::ops::elementwise::to_bool(em, &m);
    masked(em, a, &m, out)
}

/// The input where the boolean mask `m` holds, zero elsewhere.
fn masked(em: &mut Em, a: &Triangular, m: &str, out: Operand) -> Result<()> {
    let ct = arith(em.dt(a.input));
    let x = em.input_as(a.input, ct)?;
    let zero = em.scalar_int(ct, 0);
    let y = em.node("Where", &[m, &x, &zero], vec![]);
    em.output_from(out, y, ct)
}

pub fn where_(em: &mut Em, a: &Where, out: Operand) -> Result<()> {
    let c = em.v(a.condition)?;
    let c = crate::ops::elementwise::to_bool(em, &c);
    let ct = arith(em.dt(out));
    let t = em.input_as(a.true_value, ct)?;
    let f = em.input_as(a.false_value, ct)?;
    let y = em.node("Where", &[&c, &t, &f], vec![]);
    em.output_from(out, y, ct)
}
