//! Two decoder patterns as single passes over rows (`webnn_core::fusion`): RMSNorm (six ops
//! and two temporaries per layer norm) and rotary embedding on adjacent pairs (two slices,
//! four products, a difference, a sum and a concat). Rows are split across the pool in
//! shape-fixed units, so results do not depend on the thread count.

use crate::exec::{Ctx, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::fusion::{RmsNorm, Rope};
use webnn_core::{DataType, Dim, Error, Result};

/// Rows per unit of work.
const ROWS: usize = 16;

/// `x / sqrt(mean(x²) + eps) * weight` over the last axis.
pub(crate) struct RmsNormStep {
    input: usize,
    out: usize,
    weight: Vec<f32>,
    epsilon: f32,
}

/// Whether the step takes a match: float32 in and out, a readable weight.
pub(crate) fn rms_norm_fits(p: &Planner, r: &RmsNorm) -> bool {
    let out = p.orig.nodes[r.node].outputs[0];
    p.is_f32(r.input) && p.is_f32(out) && p.const_f32(r.weight).is_some()
}

/// The step for a match that fits.
pub(crate) fn plan_rms_norm(p: &mut Planner, r: &RmsNorm) -> Option<RmsNormStep> {
    let weight = p.const_f32(r.weight)?;
    let out = p.orig.nodes[r.node].outputs[0];
    Some(RmsNormStep { input: p.logical(r.input), out: out.index(), weight, epsilon: r.epsilon })
}

impl RmsNormStep {
    pub(crate) fn describe(&self) -> String {
        format!("rms norm over {}", self.weight.len())
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let dim = self.weight.len();
        let shape = values.get(self.input)?.shape.clone();
        let mut y = values.alloc(values.f32(self.input)?.len());
        let x = values.f32(self.input)?;
        let rows = x.len() / dim;
        {
            let dst = SharedMut::new(&mut y);
            ctx.pool.run(rows.div_ceil(ROWS), &|u| {
                for r in u * ROWS..((u + 1) * ROWS).min(rows) {
                    let xr = &x[r * dim..(r + 1) * dim];
                    // As the ops compute it: squares rounded to f32, their mean, + eps, sqrt.
                    let mean = xr.iter().map(|v| (v * v) as f64).sum::<f64>() / dim as f64;
                    let rms = (mean as f32 + self.epsilon).sqrt();
                    // SAFETY: each unit writes its own rows.
                    let out = unsafe { dst.range(r * dim, dim) };
                    for ((o, v), w) in out.iter_mut().zip(xr).zip(&self.weight) {
                        *o = v / rms * w;
                    }
                }
            });
        }
        values.put(self.out, shape, y);
        Ok(())
    }
}

/// Rotary embedding: `x` `[seq, heads, pairs, 2]`, `cos`/`sin` `[seq, 1, pairs, 1]`; each pair
/// `(a, b)` becomes `(a·cos − b·sin, a·sin + b·cos)`.
pub(crate) struct RopeStep {
    input: usize,
    cos: usize,
    sin: usize,
    out: usize,
    heads: usize,
    pairs: usize,
}

/// (heads, pairs) when the step takes a match: float32 `[seq, heads, pairs, 2]` turned by
/// `[seq, 1, pairs, 1]` tables into the same shape.
pub(crate) fn rope_fits(p: &Planner, r: &Rope) -> Option<(usize, usize)> {
    let g = p.orig;
    let out = g.nodes[r.node].outputs[0];
    let x = &g.desc(r.input).shape;
    let [seq, heads, pairs, two] = &x[..] else { return None };
    let table = [seq.clone(), Dim::Static(1), pairs.clone(), Dim::Static(1)];
    let f32s = [r.input, r.cos, r.sin, out].iter().all(|&o| g.desc(o).data_type == DataType::Float32);
    let ok = f32s
        && *two == Dim::Static(2)
        && g.desc(r.cos).shape == table
        && g.desc(r.sin).shape == table
        && g.desc(out).shape == *x;
    ok.then_some((heads.as_static()? as usize, pairs.as_static()? as usize))
}

/// The step for a match that fits.
pub(crate) fn plan_rope(p: &mut Planner, r: &Rope) -> Option<RopeStep> {
    let (heads, pairs) = rope_fits(p, r)?;
    let out = p.orig.nodes[r.node].outputs[0];
    Some(RopeStep { input: p.logical(r.input), cos: p.logical(r.cos), sin: p.logical(r.sin), out: out.index(), heads, pairs })
}

impl RopeStep {
    pub(crate) fn describe(&self) -> String {
        format!("rope, {} heads of {} pairs", self.heads, self.pairs)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input, self.cos, self.sin]
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (h, p) = (self.heads, self.pairs);
        let shape = values.get(self.input)?.shape.clone();
        let mut y = values.alloc(values.f32(self.input)?.len());
        let (x, cos, sin) = (values.f32(self.input)?, values.f32(self.cos)?, values.f32(self.sin)?);
        let seq = x.len() / (h * p * 2);
        if cos.len() != seq * p || sin.len() != seq * p {
            return Err(Error::operation_error("rope: the tables do not match the input"));
        }
        {
            let dst = SharedMut::new(&mut y);
            // One unit per (token, head): `pairs` pairs each.
            ctx.pool.run(seq * h, &|u| {
                let s = u / h;
                let (c, sn) = (&cos[s * p..(s + 1) * p], &sin[s * p..(s + 1) * p]);
                let xr = &x[u * 2 * p..(u + 1) * 2 * p];
                // SAFETY: each unit writes its own row.
                let out = unsafe { dst.range(u * 2 * p, 2 * p) };
                for i in 0..p {
                    let (a, b) = (xr[2 * i], xr[2 * i + 1]);
                    out[2 * i] = a * c[i] - b * sn[i];
                    out[2 * i + 1] = a * sn[i] + b * c[i];
                }
            });
        }
        values.put(self.out, shape, y);
        Ok(())
    }
}
