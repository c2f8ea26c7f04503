//! Grouped-query attention over a key/value cache (`webnn_core::fusion::Attention`) as one
//! step: per query row, the scores against every cached key, the mask, a softmax and the
//! weighted sum of the values, read straight from the `[total, kv_heads * head_dim]` rows.
//! The decomposed graph would transpose both caches into head-major copies, multiply, scale,
//! select and normalise in five more passes over `[heads, seq, total]` scores.

use crate::exec::{Ctx, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use crate::simd::{self, fma};
// `simd::dispatch!` names the x86 levels.
#[cfg(target_arch = "x86_64")]
use crate::simd::Simd;
use webnn_core::fusion::Attention;
use webnn_core::{DataType, Error, Result};
use webnn_cpu::Data;

pub(crate) struct AttentionStep {
    query: usize,
    keys: usize,
    values: usize,
    mask: usize,
    out: usize,
    heads: usize,
    group: usize,
    head_dim: usize,
    scale: f32,
    masked: f32,
}

/// Whether the step takes a match: float32 operands, a uint8 mask, static head sizes.
pub(crate) fn fits(g: &webnn_core::Graph, a: &Attention) -> bool {
    let f32s = [a.query, a.keys, a.values].iter().all(|&o| g.desc(o).data_type == DataType::Float32);
    f32s && g.desc(a.mask).data_type == DataType::Uint8 && head_dims(g, a).is_some()
}

/// (kv heads, group, head_dim) from the query's `[kv_heads, group, seq, head_dim]`.
fn head_dims(g: &webnn_core::Graph, a: &Attention) -> Option<Vec<u32>> {
    let q = g.desc(a.query);
    [0, 1, 3].iter().map(|&d| q.shape.get(d)?.as_static()).collect()
}

/// The step for a match that `fits`.
pub(crate) fn plan(p: &mut Planner, a: &Attention) -> Option<AttentionStep> {
    let g = p.orig;
    let dims = head_dims(g, a)?;
    let out = g.nodes[a.node].outputs[0];
    Some(AttentionStep {
        query: p.logical(a.query),
        keys: p.logical(a.keys),
        values: p.logical(a.values),
        mask: p.logical(a.mask),
        out: out.index(),
        heads: dims[0] as usize,
        group: dims[1] as usize,
        head_dim: dims[2] as usize,
        scale: a.scale,
        masked: a.masked,
    })
}

impl AttentionStep {
    pub(crate) fn describe(&self) -> String {
        format!("attention, {}x{} heads of {}", self.heads, self.group, self.head_dim)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.query, self.keys, self.values, self.mask]
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (h, g, d) = (self.heads, self.group, self.head_dim);
        let width = h * d;
        let mut y = values.alloc(values.f32(self.query)?.len());
        let shape = values.get(self.query)?.shape.clone();
        let q = values.f32(self.query)?;
        let (keys, vals) = (values.f32(self.keys)?, values.f32(self.values)?);
        let total = keys.len() / width;
        let seq = q.len() / (h * g * d);
        let Data::U8(mask) = &values.get(self.mask)?.data else {
            return Err(Error::operation_error("attention: the mask is not uint8"));
        };
        if vals.len() != keys.len() || mask.len() != seq * total || q.len() != h * g * seq * d {
            return Err(Error::operation_error("attention: operand sizes disagree"));
        }
        {
            let dst = SharedMut::new(&mut y);
            // One unit per (kv head, query row): the group's queries share each key and
            // value row while it is loaded.
            let job = Job { step: self, q, keys, vals, mask, total, seq, dst: &dst };
            ctx.pool.run(h * seq, &|unit| simd::dispatch!(ctx.simd, attend((&job, unit))));
        }
        values.put(self.out, shape, y);
        Ok(())
    }
}

/// What every unit of one run reads and where it writes.
struct Job<'a> {
    step: &'a AttentionStep,
    q: &'a [f32],
    keys: &'a [f32],
    vals: &'a [f32],
    mask: &'a [u8],
    total: usize,
    seq: usize,
    dst: &'a SharedMut<'a>,
}

/// Unit `unit` = (kv head, query row): scores of the group's queries against every key,
/// masked, softmax, then the weighted sum of the values.
#[inline(always)]
fn attend<const FMA: bool>((job, unit): (&Job, usize)) {
    let s = job.step;
    let (g, d, total, seq) = (s.group, s.head_dim, job.total, job.seq);
    let width = s.heads * d;
    let (head, i) = (unit / seq, unit % seq);
    // Row of q and y for group member m: [head, m, i].
    let row = |m: usize| ((head * g + m) * seq + i) * d;
    let mut scores = vec![0.0f32; g * total];
    let mut best = vec![f32::NEG_INFINITY; g];
    for j in 0..total {
        let key = &job.keys[j * width + head * d..][..d];
        let keep = job.mask[i * total + j] != 0;
        for m in 0..g {
            let v = match keep {
                true => dot::<FMA>(&job.q[row(m)..row(m) + d], key) * s.scale,
                false => s.masked,
            };
            scores[m * total + j] = v;
            best[m] = best[m].max(v);
        }
    }
    let mut sums = vec![0.0f32; g];
    for m in 0..g {
        for v in &mut scores[m * total..(m + 1) * total] {
            *v = (*v - best[m]).exp();
            sums[m] += *v;
        }
    }
    let mut acc = vec![0.0f32; g * d];
    for j in 0..total {
        let value = &job.vals[j * width + head * d..][..d];
        for m in 0..g {
            let w = scores[m * total + j] / sums[m];
            for (o, v) in acc[m * d..(m + 1) * d].iter_mut().zip(value) {
                *o = fma::<FMA>(w, *v, *o);
            }
        }
    }
    for m in 0..g {
        // SAFETY: each unit writes its own rows.
        let out = unsafe { job.dst.range(row(m), d) };
        out.copy_from_slice(&acc[m * d..(m + 1) * d]);
    }
}

/// A dot product in sixteen running sums (vector registers where the caller has them).
#[inline(always)]
fn dot<const FMA: bool>(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..16 {
            acc[l] = fma::<FMA>(x[l], y[l], acc[l]);
        }
    }
    acc.iter().sum::<f32>() + tail
}
