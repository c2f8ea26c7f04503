//! Reductions, argMin/argMax and cumulativeSum.

use crate::emit::{arith, attr_i, Em};
use webnn_core::ops::{ArgMinMax, CumulativeSum, Reduce};
use webnn_core::{DataType, OpKind, Operand, Result};

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce>. Reducing over no axes (an
/// empty list, or a scalar input) applies the reduction to each element alone (reduceL1 is
/// |x|, reduceSumSquare x^2, ...); ONNX would return the input unchanged, so the input gets a
/// trailing axis of size 1 and that axis is reduced.
pub fn reduce(em: &mut Em, kind: OpKind, a: &Reduce, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let rank = em.rank(a.input);
    let axes: Vec<i64> = match &a.options.axes {
        Some(v) => v.iter().map(|&x| x as i64).collect(),
        None => (0..rank as i64).collect(),
    };
    let float_only = matches!(
        kind,
        OpKind::ReduceL2 | OpKind::ReduceLogSum | OpKind::ReduceLogSumExp | OpKind::ReduceMean
    );
    let ct = if float_only {
        DataType::Float32
    } else {
        arith(dt)
    };
    if matches!(kind, OpKind::ReduceMax | OpKind::ReduceMin)
        && ct == DataType::Int64
        && !axes.is_empty()
    {
        return extreme_i64(em, kind == OpKind::ReduceMax, a.input, &axes, out);
    }
    let integer_fold = !ct.is_float()
        && matches!(
            kind,
            OpKind::ReduceL1 | OpKind::ReduceProduct | OpKind::ReduceSum | OpKind::ReduceSumSquare
        );
    let mut x = em.input_as(a.input, ct)?;
    let alone = axes.is_empty();
    let (axes, keep) = if alone {
        let at = em.i64s(&[rank as i64]);
        x = em.node("Unsqueeze", &[&x, &at], vec![]);
        (vec![rank as i64], 0)
    } else {
        (axes, a.options.keep_dimensions as i64)
    };
    if integer_fold {
        let x = match kind {
            // Unsigned values held in int64 may look negative: |x| is x for them.
            OpKind::ReduceL1 if dt.is_signed() => em.node("Abs", &[&x], vec![]),
            OpKind::ReduceSumSquare => em.node("Mul", &[&x, &x], vec![]),
            _ => x,
        };
        let mut shape = em.dims(a.input);
        if alone {
            shape.push(webnn_core::Dim::Static(1));
        }
        let y = fold(
            em,
            kind == OpKind::ReduceProduct,
            &x,
            &shape,
            &axes,
            ct,
            out,
        )?;
        return em.output_from(out, y, ct);
    }
    let axes = em.i64s(&axes);
    let reduce =
        |em: &mut Em, op: &str, v: &str| em.node(op, &[v, &axes], vec![attr_i("keepdims", keep)]);
    let y = match kind {
        OpKind::ReduceL1 => {
            let abs = em.node("Abs", &[&x], vec![]);
            reduce(em, "ReduceSum", &abs)
        }
        OpKind::ReduceL2 => {
            let sq = em.node("Mul", &[&x, &x], vec![]);
            let s = reduce(em, "ReduceSum", &sq);
            em.node("Sqrt", &[&s], vec![])
        }
        OpKind::ReduceLogSum => {
            let s = reduce(em, "ReduceSum", &x);
            em.node("Log", &[&s], vec![])
        }
        OpKind::ReduceLogSumExp => reduce(em, "ReduceLogSumExp", &x),
        OpKind::ReduceMax | OpKind::ReduceMin if ct == DataType::Float32 => {
            // ONNX Runtime's ReduceMax/ReduceMin skip NaN; in WebNN's (and the reference's)
            // maximum and minimum it wins.
            let op = if kind == OpKind::ReduceMax {
                "ReduceMax"
            } else {
                "ReduceMin"
            };
            let y = reduce(em, op, &x);
            let flags = em.node("IsNaN", &[&x], vec![]);
            let flags = em.node(
                "Cast",
                &[&flags],
                vec![attr_i("to", crate::emit::onnx_type(ct) as i64)],
            );
            let any = reduce(em, "ReduceMax", &flags);
            let zero = em.scalar(ct, 0.0);
            let found = em.node("Greater", &[&any, &zero], vec![]);
            let nan = em.scalar(ct, f64::NAN);
            em.node("Where", &[&found, &nan, &y], vec![])
        }
        OpKind::ReduceMax => reduce(em, "ReduceMax", &x),
        OpKind::ReduceMean => reduce(em, "ReduceMean", &x),
        OpKind::ReduceMin => reduce(em, "ReduceMin", &x),
        OpKind::ReduceProduct => reduce(em, "ReduceProd", &x),
        OpKind::ReduceSum => reduce(em, "ReduceSum", &x),
        OpKind::ReduceSumSquare => {
            let sq = em.node("Mul", &[&x, &x], vec![]);
            reduce(em, "ReduceSum", &sq)
        }
        other => return Err(crate::ops::misrouted(other)),
    };
    em.output_from(out, y, ct)
}

/// argMin/argMax: the first index of the extreme value.
pub fn arg(em: &mut Em, kind: OpKind, a: &ArgMinMax, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let ct = arith(dt);
    let x = if dt == DataType::Uint64 {
        let v = em.v(a.input)?;
        crate::ops::elementwise::ordered_u64(em, &v)
    } else {
        em.input_as(a.input, ct)?
    };
    let op = if kind == OpKind::ArgMax {
        "ArgMax"
    } else {
        "ArgMin"
    };
    let attrs = vec![
        attr_i("axis", a.axis as i64),
        attr_i("keepdims", a.options.keep_dimensions as i64),
        attr_i("select_last_index", 0),
    ];
    let mut y = em.node(op, &[&x], attrs.clone());
    if ct == DataType::Float32 {
        // The first NaN is the extreme (ONNX Runtime's choice with NaN depends on the data):
        // where a lane holds one, take the first index of its NaN flags' maximum.
        let flags = em.node("IsNaN", &[&x], vec![]);
        let flags = em.node(
            "Cast",
            &[&flags],
            vec![attr_i("to", crate::emit::onnx_type(ct) as i64)],
        );
        let first = em.node("ArgMax", &[&flags], attrs);
        let axis = em.i64s(&[a.axis as i64]);
        let keep = a.options.keep_dimensions as i64;
        let any = em.node(
            "ReduceMax",
            &[&flags, &axis],
            vec![attr_i("keepdims", keep)],
        );
        let zero = em.scalar(ct, 0.0);
        let found = em.node("Greater", &[&any, &zero], vec![]);
        y = em.node("Where", &[&found, &first, &y], vec![]);
    }
    em.output_from(out, y, DataType::Int64)
}

pub fn cumulative_sum(em: &mut Em, a: &CumulativeSum, out: Operand) -> Result<()> {
    let ct = arith(em.dt(a.input));
    let x = em.input_as(a.input, ct)?;
    let axis = em.scalar_int(DataType::Int64, a.axis as i128);
    let attrs = vec![
        attr_i("exclusive", a.options.exclusive as i64),
        attr_i("reverse", a.options.reversed as i64),
    ];
    let y = em.node("CumSum", &[&x, &axis], attrs);
    em.output_from(out, y, ct)
}

/// reduceMax/reduceMin of 64-bit values (and uint32, held in int64), which ONNX Runtime's
/// ReduceMax/ReduceMin compare only by their low 32 bits: the reduced axes are moved last
/// and flattened, ArgMax/ArgMin (exact) picks the element and GatherElements takes it.
/// uint64 goes through the sign-flipped order.
fn extreme_i64(em: &mut Em, max: bool, input: Operand, axes: &[i64], out: Operand) -> Result<()> {
    let dt = em.dt(input);
    let shape = em.dims(input);
    let rank = shape.len();
    let reduced: Vec<usize> = axes.iter().map(|&a| a as usize).collect();
    let kept: Vec<usize> = (0..rank).filter(|d| !reduced.contains(d)).collect();
    let (_, r) = reduced_size(em, &shape, &reduced)?;
    let mut x = if dt == DataType::Uint64 {
        let v = em.v(input)?;
        crate::ops::elementwise::ordered_u64(em, &v)
    } else {
        em.input_as(input, DataType::Int64)?
    };
    let perm: Vec<i64> = kept
        .iter()
        .chain(reduced.iter())
        .map(|&d| d as i64)
        .collect();
    x = em.node(
        "Transpose",
        &[&x],
        vec![crate::emit::attr_ints("perm", &perm)],
    );
    let minus_one = em.i64s(&[-1]);
    let flat = em.node("Concat", &[&minus_one, &r], vec![attr_i("axis", 0)]);
    x = em.node("Reshape", &[&x, &flat], vec![]);
    let attrs = vec![
        attr_i("axis", -1),
        attr_i("keepdims", 1),
        attr_i("select_last_index", 0),
    ];
    let idx = em.node(if max { "ArgMax" } else { "ArgMin" }, &[&x], attrs);
    let mut y = em.node("GatherElements", &[&x, &idx], vec![attr_i("axis", -1)]);
    let out_shape = em.shape_value(&em.dims(out))?;
    y = em.node("Reshape", &[&y, &out_shape], vec![]);
    if dt == DataType::Uint64 {
        let bit = em.scalar_int(DataType::Int64, i64::MIN as i128);
        y = em.node("BitwiseXor", &[&y, &bit], vec![]);
    }
    em.output_from(out, y, DataType::Int64)
}

/// An integer sum or product over `axes` by pairwise Add/Mul, which wrap as WebNN's integer
/// arithmetic does; ONNX Runtime's integer ReduceSum/ReduceProd saturate instead. The
/// reduced axes are moved last and flattened, then halved until one column is left.
fn fold(
    em: &mut Em,
    product: bool,
    x: &str,
    shape: &[webnn_core::Dim],
    axes: &[i64],
    ct: DataType,
    out: Operand,
) -> Result<String> {
    let rank = shape.len();
    let reduced: Vec<usize> = axes.iter().map(|&a| a as usize).collect();
    let kept: Vec<usize> = (0..rank).filter(|d| !reduced.contains(d)).collect();
    let perm: Vec<i64> = kept
        .iter()
        .chain(reduced.iter())
        .map(|&d| d as i64)
        .collect();
    let mut v = em.node(
        "Transpose",
        &[x],
        vec![crate::emit::attr_ints("perm", &perm)],
    );
    let (mut r, r_value) = reduced_size(em, shape, &reduced)?;
    let minus_one = em.i64s(&[-1]);
    let flat = em.node("Concat", &[&minus_one, &r_value], vec![attr_i("axis", 0)]);
    v = em.node("Reshape", &[&v, &flat], vec![]);
    let identity = em.scalar_int(ct, product as i128);
    if reduced.iter().any(|&d| shape[d].is_dynamic()) {
        // A dynamic count: pad with the identity up to its bound, so the halving is static.
        let bound = em.i64s(&[r]);
        let missing = em.node("Sub", &[&bound, &r_value], vec![]);
        let zeros = em.i64s(&[0, 0, 0]);
        let pads = em.node("Concat", &[&zeros, &missing], vec![attr_i("axis", 0)]);
        v = em.node(
            "Pad",
            &[&v, &pads, &identity],
            vec![crate::emit::attr_s("mode", "constant")],
        );
    }
    let (op, one_axis) = (if product { "Mul" } else { "Add" }, em.i64s(&[1]));
    while r > 1 {
        if r % 2 == 1 {
            let pads = em.i64s(&[0, 0, 0, 1]);
            v = em.node(
                "Pad",
                &[&v, &pads, &identity],
                vec![crate::emit::attr_s("mode", "constant")],
            );
            r += 1;
        }
        let half = r / 2;
        let (s0, s1, s2) = (em.i64s(&[0]), em.i64s(&[half]), em.i64s(&[r]));
        let lo = em.node("Slice", &[&v, &s0, &s1, &one_axis], vec![]);
        let hi = em.node("Slice", &[&v, &s1, &s2, &one_axis], vec![]);
        v = em.node(op, &[&lo, &hi], vec![]);
        r = half;
    }
    let out_shape = em.shape_value(&em.dims(out))?;
    if r == 0 {
        // No elements: the sum is 0 and the product 1.
        return Ok(em.node("Expand", &[&identity, &out_shape], vec![]));
    }
    Ok(em.node("Reshape", &[&v, &out_shape], vec![]))
}

/// The number of elements over the reduced axes: at the dimensions' bounds, and as a 1-D
/// int64 value of this run's count.
fn reduced_size(
    em: &mut Em,
    shape: &[webnn_core::Dim],
    reduced: &[usize],
) -> Result<(i64, String)> {
    let bound: i64 = reduced
        .iter()
        .map(|&d| shape[d].max_size() as i64)
        .product();
    if reduced.iter().all(|&d| !shape[d].is_dynamic()) {
        return Ok((bound, em.i64s(&[bound])));
    }
    let mut value = em.i64s(&[1]);
    for &d in reduced {
        let n = em.shape_value(std::slice::from_ref(&shape[d]))?;
        value = em.node("Mul", &[&value, &n], vec![]);
    }
    Ok((bound, value))
}
