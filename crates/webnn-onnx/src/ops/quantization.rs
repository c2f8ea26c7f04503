//! quantizeLinear and dequantizeLinear, per-tensor, per-axis or blockwise over any axes:
//! scale and zero point are repeated over their blocks to the input's shape, then the
//! element-wise formula runs in doubles.

use crate::emit::{attr_i, held, onnx_type, Em};
use webnn_core::ops::QuantizeLinear;
use webnn_core::{DataType, Dim, Error, Operand, Result};

/// `o` (shape `small`, right-aligned with `shape`) with each element repeated over its
/// block: [s0, s1] -> reshape [s0, 1, s1, 1] -> expand [s0, b0, s1, b1] -> [s0*b0, s1*b1].
/// Without blocks (sizes 1 or equal to the input's) broadcasting does it, whatever the sizes.
fn blocks(em: &mut Em, v: &str, small: &[Dim], shape: &[Dim]) -> Result<String> {
    let rank = shape.len();
    let mut s: Vec<Dim> = vec![Dim::Static(1); rank - small.len().min(rank)];
    s.extend(small.iter().cloned());
    let blocked = (0..rank).any(|d| s[d] != Dim::Static(1) && s[d] != shape[d]);
    if !blocked {
        return Ok(v.to_string());
    }
    // Per axis: the scale's size and its block (1 unless blocked, when both are static).
    let mut split = Vec::with_capacity(2 * rank);
    let mut wide = Vec::with_capacity(2 * rank);
    let mut merged = Vec::with_capacity(rank);
    for d in 0..rank {
        let block = if s[d] == Dim::Static(1) || s[d] == shape[d] {
            1
        } else {
            match (s[d].as_static(), shape[d].as_static()) {
                (Some(n), Some(total)) if n > 0 => total / n,
                _ => {
                    return Err(Error::not_supported(
                        "blockwise quantization over a dynamic dimension",
                    ))
                }
            }
        };
        split.extend([s[d].clone(), Dim::Static(1)]);
        wide.extend([s[d].clone(), Dim::Static(block)]);
        merged.push(if block == 1 {
            s[d].clone()
        } else {
            shape[d].clone()
        });
    }
    let (split, wide, merged) = (
        em.shape_value(&split)?,
        em.shape_value(&wide)?,
        em.shape_value(&merged)?,
    );
    let r = em.node("Reshape", &[v, &split], vec![]);
    let e = em.node("Expand", &[&r, &wide], vec![]);
    Ok(em.node("Reshape", &[&e, &merged], vec![]))
}

fn param_f64(em: &mut Em, o: Operand, shape: &[Dim]) -> Result<String> {
    let v = em.v(o)?;
    let small = em.dims(o);
    let d = em.as_f64(&v);
    blocks(em, &d, &small, shape)
}

/// Dequantization of 4- and 8-bit integers to float32 in float32: |x - zeroPoint| <= 510 is
/// exact there and the product rounds once, as the double product's cast does, so the
/// results are the same with intermediates half the size. ONNX Runtime folds a model's
/// constant weights through them when it builds the session: SmolLM2's peaked at 11 GB
/// through int64 and doubles.
fn narrow(em: &mut Em, a: &QuantizeLinear, out: Operand, shape: &[Dim]) -> Result<()> {
    let f = DataType::Float32;
    let x = em.input_as(a.input, f)?;
    let z = em.input_as(a.zero_point, f)?;
    let z = blocks(em, &z, &em.dims(a.zero_point), shape)?;
    let d = em.node("Sub", &[&x, &z], vec![]);
    let s = em.v(a.scale)?;
    let s = blocks(em, &s, &em.dims(a.scale), shape)?;
    let y = em.node("Mul", &[&d, &s], vec![]);
    em.set(out, y);
    Ok(())
}

/// saturate(roundEven(x / scale) + zeroPoint); NaN quotients give the zero point.
pub fn quantize(em: &mut Em, a: &QuantizeLinear, out: Operand) -> Result<()> {
    let shape = em.dims(a.input);
    let x = em.v(a.input)?;
    let x = em.as_f64(&x);
    let s = param_f64(em, a.scale, &shape)?;
    let z = param_f64(em, a.zero_point, &shape)?;
    let q = em.node("Div", &[&x, &s], vec![]);
    let q = em.node("Round", &[&q], vec![]);
    let zero = em.f64_scalar(0.0);
    let nan = em.node("IsNaN", &[&q], vec![]);
    let q = em.node("Where", &[&nan, &zero, &q], vec![]);
    let q = em.node("Add", &[&q, &z], vec![]);
    let dt = em.dt(out);
    let (lo, hi) = dt.int_range().unwrap_or((0, 0));
    let (lo, hi) = (em.f64_scalar(lo as f64), em.f64_scalar(hi as f64));
    let q = em.node("Clip", &[&q, &lo, &hi], vec![]);
    let y = em.node(
        "Cast",
        &[&q],
        vec![attr_i("to", onnx_type(held(dt)) as i64)],
    );
    em.set(out, y);
    Ok(())
}

/// (x - zeroPoint) * scale, the difference exact in int64, the product in doubles; or all in
/// float32 for inputs of at most 8 bits with a float32 scale and output (`narrow`).
pub fn dequantize(em: &mut Em, a: &QuantizeLinear, out: Operand) -> Result<()> {
    let shape = em.dims(a.input);
    if em.dt(a.input).bits() <= 8 && em.dt(a.scale) == DataType::Float32 && em.dt(out) == DataType::Float32 {
        return narrow(em, a, out, &shape);
    }
    let x = em.input_as(a.input, DataType::Int64)?;
    let zv = em.input_as(a.zero_point, DataType::Int64)?;
    let zs = em.dims(a.zero_point);
    let z = blocks(em, &zv, &zs, &shape)?;
    let d = em.node("Sub", &[&x, &z], vec![]);
    let d = em.as_f64(&d);
    let s = param_f64(em, a.scale, &shape)?;
    let y = em.node("Mul", &[&d, &s], vec![]);
    let dt = em.dt(out);
    let y = em.node("Cast", &[&y], vec![attr_i("to", onnx_type(dt) as i64)]);
    em.set(out, y);
    Ok(())
}
