//! Evaluation at import. `Constant`, `Shape`, `Size`, `ConstantOfShape` and `Range` always
//! give tensors known at import; the arithmetic, gathers and reshapes that exports chain on
//! shapes are evaluated when every input is known and small. WebNN takes shapes, axes and
//! pads as arguments, so this is what lets `Reshape(x, Concat(Shape(x)[0], -1))` import.

use super::host::Host;
use super::node::OnnxNode;
use super::tensor::axis;
use super::{Cx, Value};
use webnn_core::{DataType, Error, Result};

/// Known tensors larger than this stay graph constants rather than being computed here.
const FOLD_LIMIT: usize = 1 << 16;
/// The most bytes a tensor made at import (ConstantOfShape, Range) may hold: WebNN's largest
/// tensor. A model asking for more is refused before any memory is taken.
const MAKE_LIMIT: u64 = webnn_core::builder::MAX_TENSOR_BYTE_LENGTH;

/// The element count of `shape` when `width`-byte elements of it fit `MAKE_LIMIT`.
fn checked_count(shape: &[usize], width: u64) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&c| (c as u64).saturating_mul(width) <= MAKE_LIMIT)
        .ok_or_else(|| Error::not_supported(format!("a tensor of shape {shape:?} made at import exceeds the largest WebNN tensor")))
}

pub(crate) fn fold(cx: &mut Cx, n: &OnnxNode, inputs: &[Option<Value>]) -> Result<Option<Vec<Host>>> {
    if !matches!(n.domain.as_str(), "" | "ai.onnx") {
        return Ok(None);
    }
    match n.op_type.as_str() {
        "Constant" => return constant(n).map(|h| Some(vec![h])),
        "Shape" | "Size" => {
            let v = inputs.first().cloned().flatten().ok_or_else(|| Error::type_error("input 0 is required"))?;
            let shape: Vec<i64> = cx.shape(&v)?.iter().map(|&d| d as i64).collect();
            if n.op_type == "Size" {
                return Ok(Some(vec![Host::from_ints(DataType::Int64, vec![], &[shape.iter().product()])]));
            }
            let r = shape.len() as i64;
            let clampi = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
            let (s, e) = (clampi(n.i("start", 0)), clampi(n.i("end", r)));
            let part = if s < e { shape[s..e].to_vec() } else { vec![] };
            return Ok(Some(vec![Host::from_ints(DataType::Int64, vec![part.len()], &part)]));
        }
        _ => {}
    }
    let mut hosts = Vec::new();
    for v in inputs {
        match v {
            Some(Value::Host(h)) if h.elements() <= FOLD_LIMIT => hosts.push(Some(h.clone())),
            None => hosts.push(None),
            _ => return Ok(None),
        }
    }
    let get = |i: usize| hosts.get(i).cloned().flatten().ok_or_else(|| Error::type_error(format!("input {i} is required")));
    let out = match n.op_type.as_str() {
        "ConstantOfShape" => {
            let shape: Vec<usize> = get(0)?.ints().iter().map(|&d| d.max(0) as usize).collect();
            let value = n.tensor("value")?.unwrap_or_else(|| Host::from_floats(DataType::Float32, vec![1], &[0.0]));
            if value.elements() != 1 || value.dt.bits() < 8 {
                return Err(Error::type_error("ConstantOfShape's value must be one element of at least 8 bits"));
            }
            let count = checked_count(&shape, value.data.len() as u64)?;
            if count == 0 {
                return Err(Error::not_supported("ConstantOfShape makes an empty tensor; WebNN has none"));
            }
            // The value's bytes repeated: no wider copy on the way.
            Host { dt: value.dt, shape, data: value.data.repeat(count).into() }
        }
        "Range" => {
            let (s, l, d) = (get(0)?, get(1)?, get(2)?);
            if s.dt.is_float() {
                let (s, l, d) = (s.floats()[0], l.floats()[0], d.floats()[0]);
                let count = ((l - s) / d).ceil().max(0.0);
                if !count.is_finite() {
                    return Err(Error::type_error("Range's bounds or delta are not finite"));
                }
                let count = checked_count(&[count as usize], 8)?;
                let v: Vec<f64> = (0..count).map(|i| s + i as f64 * d).collect();
                Host::from_floats(s_dt(&get(0)?), vec![count], &v)
            } else {
                let (s0, l, d) = (s.ints()[0], l.ints()[0], d.ints()[0]);
                if d == 0 {
                    return Err(Error::type_error("Range's delta is 0"));
                }
                let count = checked_count(&[((l as f64 - s0 as f64) / d as f64).ceil().max(0.0) as usize], 8)?;
                let v: Vec<i64> = (0..count as i64).map(|i| s0 + i * d).collect();
                Host::from_ints(s.dt, vec![count], &v)
            }
        }
        "Cast" => {
            let to = super::host::webnn_type(n.i("to", 0))?;
            let x = get(0)?;
            if n.i("to", 0) == crate::proto::tensor_proto::DataType::Bool as i64 {
                let v: Vec<i64> = x.floats().iter().map(|&f| (f != 0.0) as i64).collect();
                Host::from_ints(DataType::Uint8, x.shape.clone(), &v)
            } else {
                x.cast(to)
            }
        }
        "Gather" => {
            let (x, idx) = (get(0)?, get(1)?);
            let ax = axis(n.i("axis", 0), x.shape.len())?;
            gather(&x, &idx, ax)?
        }
        "Concat" => {
            let parts: Vec<Host> = hosts.iter().flatten().cloned().collect();
            let first = parts.first().ok_or_else(|| Error::type_error("Concat has no inputs"))?;
            let ax = axis(n.i("axis", 0), first.shape.len())?;
            concat(&parts, ax)?
        }
        "Unsqueeze" | "Squeeze" | "Reshape" | "Flatten" | "Identity" | "Slice" | "Expand" | "Tile" | "Transpose" => {
            return Ok(None); // the layout lowering keeps known tensors known (tensor.rs)
        }
        "Add" | "Sub" | "Mul" | "Div" | "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "Max" | "Min"
        | "And" | "Or" | "Mod"
            if hosts.len() == 2 =>
        {
            binary(&n.op_type, &get(0)?, &get(1)?, n.i("fmod", 0) != 0)?
        }
        "Neg" | "Abs" | "Not" | "Sqrt" | "Floor" | "Ceil" => {
            let x = get(0)?;
            let f = |v: f64| match n.op_type.as_str() {
                "Neg" => -v,
                "Abs" => v.abs(),
                "Not" => (v == 0.0) as i64 as f64,
                "Sqrt" => v.sqrt(),
                "Floor" => v.floor(),
                _ => v.ceil(),
            };
            if x.dt.is_float() {
                Host::from_floats(x.dt, x.shape.clone(), &x.floats().into_iter().map(f).collect::<Vec<_>>())
            } else {
                Host::from_ints(x.dt, x.shape.clone(), &x.ints().into_iter().map(|v| f(v as f64) as i64).collect::<Vec<_>>())
            }
        }
        "Where" => {
            let (c, t, f) = (get(0)?, get(1)?, get(2)?);
            let shape = broadcast(&[&c.shape, &t.shape, &f.shape])?;
            let (ci, ti, fi) = (index_map(&c.shape, &shape), index_map(&t.shape, &shape), index_map(&f.shape, &shape));
            let (cv, tv, fv) = (c.ints(), t.floats(), f.floats());
            let v: Vec<f64> = (0..ci.len()).map(|i| if cv[ci[i]] != 0 { tv[ti[i]] } else { fv[fi[i]] }).collect();
            if t.dt.is_float() {
                Host::from_floats(t.dt, shape, &v)
            } else {
                let (tv, fv) = (t.ints(), f.ints());
                let v: Vec<i64> = (0..ci.len()).map(|i| if cv[ci[i]] != 0 { tv[ti[i]] } else { fv[fi[i]] }).collect();
                Host::from_ints(t.dt, shape, &v)
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![out]))
}

fn s_dt(h: &Host) -> DataType {
    h.dt
}

fn constant(n: &OnnxNode) -> Result<Host> {
    if let Some(t) = n.tensor("value")? {
        return Ok(t);
    }
    if n.has("value_float") {
        return Ok(Host::from_floats(DataType::Float32, vec![], &[n.f("value_float", 0.0) as f64]));
    }
    if let Some(v) = n.floats("value_floats") {
        let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        return Ok(Host::from_floats(DataType::Float32, vec![f.len()], &f));
    }
    if n.has("value_int") {
        return Ok(Host::from_ints(DataType::Int64, vec![], &[n.i("value_int", 0)]));
    }
    if let Some(v) = n.ints("value_ints") {
        return Ok(Host::from_ints(DataType::Int64, vec![v.len()], &v));
    }
    Err(n.unsupported("a Constant without a tensor, float or int value (sparse and string values)"))
}

/// The numpy broadcast of several shapes.
fn broadcast(shapes: &[&Vec<usize>]) -> Result<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes {
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(Error::type_error(format!("shapes {shapes:?} do not broadcast")));
            }
        }
    }
    Ok(out)
}

/// For each element of `out`, the index of the element of a tensor shaped `shape` that
/// broadcasts to it.
fn index_map(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let total: usize = out.iter().product();
    let lead = out.len() - shape.len();
    let mut strides = vec![0usize; out.len()];
    let mut s = 1;
    for i in (0..shape.len()).rev() {
        strides[lead + i] = if shape[i] == 1 { 0 } else { s };
        s *= shape[i];
    }
    (0..total)
        .map(|mut flat| {
            let mut idx = 0;
            for i in (0..out.len()).rev() {
                idx += (flat % out[i]) * strides[i];
                flat /= out[i];
            }
            idx
        })
        .collect()
}

fn binary(op: &str, a: &Host, b: &Host, fmod: bool) -> Result<Host> {
    let shape = broadcast(&[&a.shape, &b.shape])?;
    let (ai, bi) = (index_map(&a.shape, &shape), index_map(&b.shape, &shape));
    let compare = matches!(op, "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or");
    if a.dt.is_float() {
        let (av, bv) = (a.floats(), b.floats());
        let v: Vec<f64> = (0..ai.len())
            .map(|i| {
                let (x, y) = (av[ai[i]], bv[bi[i]]);
                match op {
                    "Add" => x + y,
                    "Sub" => x - y,
                    "Mul" => x * y,
                    "Div" => x / y,
                    "Max" => x.max(y),
                    "Min" => x.min(y),
                    "Mod" => x % y,
                    "Equal" => (x == y) as i64 as f64,
                    "Less" => (x < y) as i64 as f64,
                    "Greater" => (x > y) as i64 as f64,
                    "LessOrEqual" => (x <= y) as i64 as f64,
                    "GreaterOrEqual" => (x >= y) as i64 as f64,
                    _ => f64::NAN,
                }
            })
            .collect();
        return Ok(if compare { Host::from_floats(DataType::Uint8, shape, &v) } else { Host::from_floats(a.dt, shape, &v) });
    }
    let (av, bv) = (a.ints(), b.ints());
    let mut v = Vec::with_capacity(ai.len());
    for i in 0..ai.len() {
        let (x, y) = (av[ai[i]], bv[bi[i]]);
        v.push(match op {
            "Add" => x.wrapping_add(y),
            "Sub" => x.wrapping_sub(y),
            "Mul" => x.wrapping_mul(y),
            "Div" | "Mod" if y == 0 => return Err(Error::type_error("integer division by zero in shape arithmetic")),
            // ONNX integer division truncates toward zero.
            "Div" => x.wrapping_div(y),
            // Integer Mod takes the divisor's sign unless fmod is set.
            "Mod" if fmod => x.wrapping_rem(y),
            "Mod" => ((x % y) + y) % y,
            "Max" => x.max(y),
            "Min" => x.min(y),
            "Equal" => (x == y) as i64,
            "Less" => (x < y) as i64,
            "Greater" => (x > y) as i64,
            "LessOrEqual" => (x <= y) as i64,
            "GreaterOrEqual" => (x >= y) as i64,
            "And" => (x != 0 && y != 0) as i64,
            _ => (x != 0 || y != 0) as i64,
        });
    }
    Ok(Host::from_ints(if compare { DataType::Uint8 } else { a.dt }, shape, &v))
}

fn gather(x: &Host, idx: &Host, ax: usize) -> Result<Host> {
    let dim = x.shape[ax] as i64;
    let outer: usize = x.shape[..ax].iter().product();
    let inner: usize = x.shape[ax + 1..].iter().product();
    let width = (x.dt.bits() / 8).max(1) as usize;
    if x.dt.bits() < 8 {
        return Err(Error::not_supported("gathering from a 4-bit tensor at import"));
    }
    let mut data = Vec::new();
    let indices = idx.ints();
    for o in 0..outer {
        for &i in &indices {
            let i = if i < 0 { i + dim } else { i };
            if i < 0 || i >= dim {
                return Err(Error::type_error(format!("index {i} is out of range for an axis of size {dim}")));
            }
            let start = ((o * dim as usize + i as usize) * inner) * width;
            data.extend_from_slice(&x.data[start..start + inner * width]);
        }
    }
    let mut shape = x.shape[..ax].to_vec();
    shape.extend(&idx.shape);
    shape.extend(&x.shape[ax + 1..]);
    Ok(Host { dt: x.dt, shape, data: data.into() })
}

fn concat(parts: &[Host], ax: usize) -> Result<Host> {
    let dt = parts[0].dt;
    let width = (dt.bits() / 8).max(1) as usize;
    let outer: usize = parts[0].shape[..ax].iter().product();
    for p in parts {
        let same_elsewhere = p.shape.len() == parts[0].shape.len()
            && p.shape.iter().zip(&parts[0].shape).enumerate().all(|(d, (a, b))| d == ax || a == b);
        if p.dt != dt || !same_elsewhere {
            return Err(Error::type_error("Concat's inputs differ in type, or in shape off the axis"));
        }
    }
    let mut data = Vec::new();
    for o in 0..outer {
        for p in parts {
            let chunk: usize = p.shape[ax..].iter().product::<usize>() * width;
            data.extend_from_slice(&p.data[o * chunk..(o + 1) * chunk]);
        }
    }
    let mut shape = parts[0].shape.clone();
    shape[ax] = parts.iter().map(|p| p.shape[ax]).sum();
    Ok(Host { dt, shape, data: data.into() })
}
