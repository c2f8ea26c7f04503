//! Builders of op patterns that [`crate::fusion`] recognises. Code that writes RMSNorm or a
//! rotary embedding as primitives (webnn-llm's decoder, the ONNX importer's contrib ops)
//! calls these, so what it emits and what the fused kernels match stay the same pattern.

use crate::builder::GraphBuilder;
use crate::graph::Operand;
use crate::ops::{MLNumber, OpOptions, ReduceOptions, SliceOptions};
use crate::{Dim, Result};

/// RMSNorm over `axes`, the pattern of [`crate::fusion::RmsNorm`]:
/// `mul(div(x, sqrt(add(reduceMean(pow(x, 2), axes, keep), eps))), weight)`. Returns the
/// result and the root mean square (`sqrt(...)`, kept dimensions).
pub fn rms_norm(b: &mut GraphBuilder, x: Operand, axes: Vec<u32>, eps: f64, weight: Operand, o: &OpOptions) -> Result<(Operand, Operand)> {
    let dt = b.desc(x)?.data_type;
    let two = b.constant_scalar(dt, MLNumber::Double(2.0))?;
    let eps = b.constant_scalar(dt, MLNumber::Double(eps))?;
    let sq = b.pow(x, two, o.clone())?;
    let reduce = ReduceOptions { label: o.label.clone(), axes: Some(axes), keep_dimensions: true };
    let mean = b.reduce_mean(sq, reduce)?;
    let var = b.add(mean, eps, o.clone())?;
    let rms = b.sqrt(var, o.clone())?;
    let y = b.div(x, rms, o.clone())?;
    Ok((b.mul(y, weight, o.clone())?, rms))
}

/// The rotation of a rotary embedding, the pattern of [`crate::fusion::Rope`]: `x` split
/// along its last axis into two parts (adjacent pairs when `interleaved`, the last axis then
/// of size 2; else the two halves), and `concat(x1·cos - x2·sin, x1·sin + x2·cos)` along that
/// axis, `cos` and `sin` broadcasting against each part.
pub fn rotate(b: &mut GraphBuilder, x: Operand, cos: Operand, sin: Operand, interleaved: bool, o: &OpOptions) -> Result<Operand> {
    let shape = b.desc(x)?.shape.clone();
    let last = shape.len() - 1;
    let width = shape[last].as_static().unwrap_or(0);
    let size = if interleaved { 1 } else { width / 2 };
    let part = |b: &mut GraphBuilder, k: u32| {
        let mut starts = vec![0; shape.len()];
        let mut sizes = shape.clone();
        starts[last] = k * size;
        sizes[last] = Dim::Static(size);
        b.slice_dims(x, starts, sizes, SliceOptions { label: o.label.clone(), ..Default::default() })
    };
    let (x1, x2) = (part(b, 0)?, part(b, 1)?);
    let (c1, s2) = (b.mul(x1, cos, o.clone())?, b.mul(x2, sin, o.clone())?);
    let (s1, c2) = (b.mul(x1, sin, o.clone())?, b.mul(x2, cos, o.clone())?);
    let first = b.sub(c1, s2, o.clone())?;
    let second = b.add(s1, c2, o.clone())?;
    b.concat(&[first, second], last as u32, o.clone())
}
