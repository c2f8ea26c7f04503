//! Grouped-query attention over a key/value cache (`webnn_core::fusion::Attention`) as one
//! step: per query row, the scores against every cached key, the mask, a softmax and the
//! weighted sum of the values, read straight from the `[total, kv_heads * head_dim]` rows.
//! The decomposed graph would transpose both caches into head-major copies, multiply, scale,
//! select and normalise in five more passes over `[heads, seq, total]` scores.
//!
//! Head-major caches (`[1, kv_heads, rows, head_dim]`, an imported GroupQueryAttention's) are
//! first gathered into token-major rows, only up to the last row the mask lets any query
//! see: a cache's rows past every sequence's end are masked for every query, and their
//! exponentials are exactly 0, so leaving them out changes nothing.

mod rows;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::buffers::Buf;
use crate::exec::{Ctx, Values};
use rows::{rows, Rows, Scratch};
use crate::plan::Planner;
use crate::pool::SharedMut;
use crate::simd::{self, fma};
// `simd::dispatch!` names the x86 levels.
#[cfg(target_arch = "x86_64")]
use crate::simd::Simd;
use webnn_core::fusion::{Attention, CacheLayout};
use webnn_core::{DataType, Error, Result};
use webnn_cpu::Data;

pub(crate) struct AttentionStep {
    query: usize,
    pub keys: usize,
    pub values: usize,
    /// The cache inputs (slots) whose bytes hold the keys and values, when they are the
    /// leading rows of caches written in place (`plan::link_caches`): read there, not from
    /// a decoded copy.
    pub cached: Option<(usize, usize)>,
    /// Whether the caches hold float16.
    half: bool,
    /// The rows per kv head of head-major caches (`CacheLayout::HeadMajor`).
    head_major: Option<usize>,
    mask: usize,
    out: usize,
    heads: usize,
    group: usize,
    head_dim: usize,
    scale: f32,
    masked: f32,
}

/// Whether the step takes a match: a float32 query, float32 or float16 caches (the match
/// gives both one type; head-major ones float32 with a static row count), a uint8 mask,
/// static head sizes.
pub(crate) fn fits(g: &webnn_core::Graph, a: &Attention) -> bool {
    let caches = match a.layout {
        CacheLayout::TokenMajor => matches!(g.desc(a.keys).data_type, DataType::Float32 | DataType::Float16),
        CacheLayout::HeadMajor => g.desc(a.keys).data_type == DataType::Float32 && head_major_rows(g, a).is_some(),
    };
    g.desc(a.query).data_type == DataType::Float32
        && caches
        && g.desc(a.mask).data_type == DataType::Uint8
        && head_dims(g, a).is_some()
}

/// The rows per kv head of head-major caches `[1, kv_heads, rows, head_dim]`.
fn head_major_rows(g: &webnn_core::Graph, a: &Attention) -> Option<usize> {
    g.desc(a.keys).shape.get(2)?.as_static().map(|r| r as usize)
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
        cached: None,
        half: g.desc(a.keys).data_type == DataType::Float16,
        head_major: match a.layout {
            CacheLayout::TokenMajor => None,
            CacheLayout::HeadMajor => Some(head_major_rows(g, a)?),
        },
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
        let caches = if self.half { ", float16 caches" } else { "" };
        let layout = if self.head_major.is_some() { ", head-major caches" } else { "" };
        format!("attention, {}x{} heads of {}{caches}{layout}", self.heads, self.group, self.head_dim)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        match self.cached {
            Some(_) => vec![self.query, self.mask],
            None => vec![self.query, self.keys, self.values, self.mask],
        }
    }

    /// `lent`: the bytes of the key and value caches when `cached`.
    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values, lent: Option<(&[u8], &[u8])>) -> Result<()> {
        let (h, g, d) = (self.heads, self.group, self.head_dim);
        let width = h * d;
        let mut y = values.alloc(values.f32(self.query)?.len());
        let shape = values.get(self.query)?.shape.clone();
        let seq = y.len() / (h * g * d);
        // The mask is [seq, total]: the cached rows to read.
        let mask_stride = values.get(self.mask)?.data.len() / seq.max(1);
        let mut total = match lent {
            Some(_) => mask_stride,
            None => values.get(self.keys)?.data.len() / width,
        };
        // Head-major caches: their rows up to the last one any query sees, token-major.
        let gathered = match self.head_major {
            Some(rows) => {
                total = visible_rows(values, self.mask, mask_stride, rows)?;
                Some(self.gather_head_major(values, lent, rows, total)?)
            }
            None => None,
        };
        // Units: (query row, block of keys), every kv head. Each block leaves, per kv head and
        // group member, its running maximum, sum of exponentials and weighted values; the
        // merge rescales them to the row's maximum. Blocks depend only on `total`, so the
        // results do not depend on the thread count; a decode step (one row) still splits
        // into a unit per 256 keys.
        let blocks = total.div_ceil(KEYS).max(1);
        let stride = g * (d + 2);
        let mut partial = values.alloc(h * seq * blocks * stride);
        let (mut kd, mut vd) = (Scratch::default(), Scratch::default());
        let (keys, vals) = match (&gathered, lent) {
            (Some((k, v)), _) => (Rows::F32(k), Rows::F32(v)),
            (None, Some((k, v))) => (rows(k, self.half, total * width, &mut kd)?, rows(v, self.half, total * width, &mut vd)?),
            (None, None) => (Rows::of(&values.get(self.keys)?.data)?, Rows::of(&values.get(self.values)?.data)?),
        };
        let Data::U8(mask) = &values.get(self.mask)?.data else {
            return Err(Error::operation_error("attention: the mask is not uint8"));
        };
        let q = values.f32(self.query)?;
        if vals.len() != keys.len() || mask.len() != seq * mask_stride || total > mask_stride || q.len() != h * g * seq * d {
            return Err(Error::operation_error("attention: operand sizes disagree"));
        }
        {
            let dst = SharedMut::new(&mut partial);
            let job = Job { step: self, q, keys, vals, mask, mask_stride, total, seq, blocks, dst: &dst };
            ctx.pool.run(seq * blocks, &|unit| simd::dispatch!(ctx.simd, attend((&job, unit))));
        }
        for row in 0..h * seq {
            let (head, i) = (row / seq, row % seq);
            let parts = &partial[row * blocks * stride..(row + 1) * blocks * stride];
            for m in 0..g {
                let at = |b: usize| &parts[b * stride + m * (d + 2)..][..d + 2];
                let top = (0..blocks).map(|b| at(b)[0]).fold(f32::NEG_INFINITY, f32::max);
                let out = &mut y[((head * g + m) * seq + i) * d..][..d];
                out.fill(0.0);
                let mut sum = 0.0f32;
                for b in 0..blocks {
                    let p = at(b);
                    let w = (p[0] - top).exp();
                    sum += p[1] * w;
                    out.iter_mut().zip(&p[2..]).for_each(|(o, v)| *o += v * w);
                }
                out.iter_mut().for_each(|o| *o /= sum);
            }
        }
        values.recycle(partial);
        if let Some((k, v)) = gathered {
            values.recycle(k);
            values.recycle(v);
        }
        values.put(self.out, shape, y);
        Ok(())
    }
}

/// How many leading rows of a head-major cache any query sees: one past the last row the mask
/// `[seq, rows]` shows. Every row when some query sees none (its softmax spreads over all).
fn visible_rows(values: &Values, mask: usize, stride: usize, rows: usize) -> Result<usize> {
    let Data::U8(mask) = &values.get(mask)?.data else {
        return Err(Error::operation_error("attention: the mask is not uint8"));
    };
    if stride != rows {
        return Err(Error::operation_error("attention: operand sizes disagree"));
    }
    let last: Option<Vec<usize>> = mask.chunks(stride.max(1)).map(|m| m.iter().rposition(|&v| v != 0)).collect();
    Ok(last.and_then(|l| l.into_iter().max()).map_or(rows, |l| l + 1))
}

impl AttentionStep {
    /// The first `total` rows of head-major key and value caches `[1, heads, rows, head_dim]`
    /// as token-major rows `[total, heads * head_dim]`, in buffers from the spare ones: from
    /// the bound bytes when the caches are written in place (`lent`), else from the values.
    fn gather_head_major(&self, values: &mut Values, lent: Option<(&[u8], &[u8])>, rows: usize, total: usize) -> Result<(Buf, Buf)> {
        let (h, d) = (self.heads, self.head_dim);
        let width = h * d;
        let (mut k_out, mut v_out) = (values.alloc(total * width), values.alloc(total * width));
        // Row j of kv head `head` is elements (head · rows + j) · d of the cache.
        let gather = |out: &mut [f32], row: &dyn Fn(usize, &mut [f32])| {
            for head in 0..h {
                for j in 0..total {
                    row(head * rows + j, &mut out[j * width + head * d..][..d]);
                }
            }
        };
        match lent {
            Some((k, v)) => {
                if k.len() != h * rows * d * 4 || v.len() != k.len() {
                    return Err(Error::operation_error("attention: the bound caches have another size"));
                }
                let from = |bytes: &[u8], r: usize, out: &mut [f32]| {
                    for (o, b) in out.iter_mut().zip(bytes[r * d * 4..(r + 1) * d * 4].chunks_exact(4)) {
                        *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    }
                };
                gather(&mut k_out, &|r, out| from(k, r, out));
                gather(&mut v_out, &|r, out| from(v, r, out));
            }
            None => {
                let (k, v) = (values.f32(self.keys)?, values.f32(self.values)?);
                if k.len() != h * rows * d || v.len() != k.len() {
                    return Err(Error::operation_error("attention: operand sizes disagree"));
                }
                gather(&mut k_out, &|r, out| out.copy_from_slice(&k[r * d..(r + 1) * d]));
                gather(&mut v_out, &|r, out| out.copy_from_slice(&v[r * d..(r + 1) * d]));
            }
        }
        Ok((k_out, v_out))
    }
}

/// Keys per unit of work.
const KEYS: usize = 256;

/// What every unit of one run reads and where it writes.
struct Job<'a> {
    step: &'a AttentionStep,
    q: &'a [f32],
    keys: Rows<'a>,
    vals: Rows<'a>,
    mask: &'a [u8],
    /// The mask's row length: the cache's rows (`total` may stop short of it).
    mask_stride: usize,
    total: usize,
    seq: usize,
    blocks: usize,
    /// Per unit, per group member: maximum, sum of exponentials, weighted values (head_dim).
    dst: &'a SharedMut<'a>,
}

/// Unit `unit` = (query row, block of keys): every kv head's group of queries scored against
/// the block's keys (each key row loaded once for its group), masked, exponentiated against
/// the block's maximum, and the values weighted by them. Keys are visited once for all kv
/// heads, so the cache rows are read in order, whole.
#[inline(always)]
fn attend<const FMA: bool>((job, unit): (&Job, usize)) {
    let s = job.step;
    let (h, g, d, total, seq) = (s.heads, s.group, s.head_dim, job.total, job.seq);
    let width = h * d;
    let (i, block) = (unit / job.blocks, unit % job.blocks);
    let keys = block * KEYS..((block + 1) * KEYS).min(total);
    let n = keys.len();
    // Score row r = head * g + m (kv head, group member); its q row is [head, m, i].
    let rows = h * g;
    let q_row = |r: usize| (r * seq + i) * d;
    let mut scores = vec![0.0f32; rows * n];
    let mut best = vec![f32::NEG_INFINITY; rows];
    // One cache row widened from float16.
    let mut buf = vec![0.0f32; width];
    // The dot products q · key, into `scores` (kernels take whole groups of eight keys), then
    // masked and scaled.
    let span = |rows| Block { rows, first: keys.start, count: n, width, d };
    let scored = kernel_scores::<FMA>(span(job.keys), g, &|r| &job.q[q_row(r)..q_row(r) + d], &mut scores);
    // The keys past the kernel's whole groups of eight (all of them without the kernel).
    for t in scored..n {
        let j = keys.start + t;
        job.keys.prefetch((j + AHEAD) * width, width);
        let key_row = job.keys.get(j * width, width, &mut buf);
        for r in 0..rows {
            scores[r * n + t] = dot::<FMA>(&job.q[q_row(r)..q_row(r) + d], &key_row[(r / g) * d..][..d]);
        }
    }
    for r in 0..rows {
        for (t, j) in keys.clone().enumerate() {
            let v = &mut scores[r * n + t];
            *v = if job.mask[i * job.mask_stride + j] != 0 { *v * s.scale } else { s.masked };
            best[r] = best[r].max(*v);
        }
    }
    let mut sums = vec![0.0f32; rows];
    for r in 0..rows {
        let row = &mut scores[r * n..(r + 1) * n];
        // Two passes: the exponentials vectorise, the running sum keeps its order.
        row.iter_mut().for_each(|v| *v = exp_nonpositive::<FMA>(*v - best[r]));
        sums[r] = row.iter().sum();
    }
    let mut acc = vec![0.0f32; rows * d];
    let weighed = kernel_weigh::<FMA>(span(job.vals), g, &scores, &mut acc);
    if !weighed {
        for (t, j) in keys.enumerate() {
            job.vals.prefetch((j + AHEAD) * width, width);
            let value_row = job.vals.get(j * width, width, &mut buf);
            for r in 0..rows {
                let value = &value_row[(r / g) * d..][..d];
                let w = scores[r * n + t];
                for (o, v) in acc[r * d..(r + 1) * d].iter_mut().zip(value) {
                    *o = fma::<FMA>(w, *v, *o);
                }
            }
        }
    }
    let stride = g * (d + 2);
    for head in 0..h {
        // SAFETY: each (kv head, query row, block) part is written by one unit.
        let out = unsafe { job.dst.range(((head * seq + i) * job.blocks + block) * stride, stride) };
        for m in 0..g {
            let r = head * g + m;
            let p = &mut out[m * (d + 2)..(m + 1) * (d + 2)];
            p[0] = best[r];
            p[1] = sums[r];
            p[2..].copy_from_slice(&acc[r * d..(r + 1) * d]);
        }
    }
}

/// Where a block's keys or values lie: rows `first..first + count` of `width` elements, one
/// kv head per `d` of them (read by the x86 kernels).
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Block<'a> {
    rows: Rows<'a>,
    first: usize,
    count: usize,
    width: usize,
    d: usize,
}

/// The x86 kernel's dot products of each score row r's query `q(r)` (kv head r / g) with the
/// block's keys, into `scores` (`count` per row): how many keys of each row it scored (whole
/// groups of eight; none without the kernel).
#[inline(always)]
fn kernel_scores<'q, const FMA: bool>(b: Block, g: usize, q: &dyn Fn(usize) -> &'q [f32], scores: &mut [f32]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if FMA && x86::usable(b.rows) {
        // SAFETY: `usable` checked the CPU; FMA kernels run under AVX2 and FMA.
        return unsafe {
            match b.d {
                8 => x86::scores::<1>(b, g, q, scores),
                16 => x86::scores::<2>(b, g, q, scores),
                32 => x86::scores::<4>(b, g, q, scores),
                64 => x86::scores::<8>(b, g, q, scores),
                _ => 0,
            }
        };
    }
    let _ = (b, g, q, scores);
    0
}

/// The x86 kernel's weighted values: `acc` row r (d floats) = the block's values of kv head
/// r / g weighted by score row r; false (nothing done) without the kernel or where it does
/// not apply (groups over 3, d not a multiple of 32).
#[inline(always)]
fn kernel_weigh<const FMA: bool>(b: Block, g: usize, scores: &[f32], acc: &mut [f32]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if FMA && x86::usable(b.rows) && b.count > 0 {
        // SAFETY: `usable` checked the CPU; FMA kernels run under AVX2 and FMA.
        return unsafe { x86::weigh(b, g, scores, acc) };
    }
    let _ = (b, g, scores, acc);
    false
}

/// ln(f32::MIN_POSITIVE): below it `exp_nonpositive` gives 0.
const LOWEST: f32 = -87.336_54;

/// e^x for x <= 0 (a score less its row's maximum) in straight-line arithmetic that
/// vectorises (libm's exp is a call per score), within 2 ulp of e^x (the test checks): x =
/// n ln 2 + r with |r| <= ln 2 / 2 (ln 2 in two parts, so r is exact), e^r = 1 + r + r²P(r)
/// with Cephes' degree-5 P, 2^n from the exponent bits. Below `LOWEST` the result is 0, and
/// NaN stays NaN.
#[inline(always)]
fn exp_nonpositive<const FMA: bool>(x: f32) -> f32 {
    let c = x.max(LOWEST);
    let n = (c * std::f32::consts::LOG2_E + 0.5).floor();
    let r = fma::<FMA>(n, -0.693_359_4, c);
    let r = fma::<FMA>(n, 2.121_944_4e-4, r);
    let mut p = 1.987_569_1e-4;
    // Cephes' last coefficient, 5.0000001e-1, is 0.5 in f32.
    for k in [1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1, 0.5] {
        p = fma::<FMA>(p, r, k);
    }
    let e = fma::<FMA>(p, r * r, r) + 1.0;
    let y = e * f32::from_bits(((n as i32 + 127) as u32) << 23);
    if x.is_nan() {
        x
    } else if x < LOWEST {
        0.0
    } else {
        y
    }
}

/// Keys ahead of the one being read whose rows are prefetched.
const AHEAD: usize = 8;

/// Asks for the cache lines of `v[at..at + len]`, if they exist.
#[inline(always)]
fn prefetch_row<T>(v: &[T], at: usize, len: usize) {
    #[cfg(target_arch = "x86_64")]
    if at + len <= v.len() {
        for k in (0..len).step_by(64 / std::mem::size_of::<T>()) {
            // SAFETY: prefetching never faults, and the address is inside `v`.
            unsafe { std::arch::x86_64::_mm_prefetch(v.as_ptr().add(at + k) as *const i8, std::arch::x86_64::_MM_HINT_T0) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, at, len);
}

/// A dot product: on x86 with FMA two vector sums folded by vector adds (summed in order,
/// scalar sums were a chain of adds longer than the products: head_dim 64, 40% of the
/// attention's time); elsewhere sixteen running sums (vector registers where the caller has
/// them).
#[inline(always)]
fn dot<const FMA: bool>(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if FMA {
        // SAFETY: FMA kernels run only inside `simd::dispatch!`'s AVX2 (or AVX-512) functions,
        // on a CPU `Isa::detect` found to have AVX2 and FMA.
        return unsafe { dot_avx2(a, b) };
    }
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn dot_avx2(a: &[f32], b: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let (mut s0, mut s1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut i = 0;
    // SAFETY (the loads): i + 16 <= n, inside both slices.
    while i + 16 <= n {
        unsafe {
            s0 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), s0);
            s1 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i + 8)), _mm256_loadu_ps(pb.add(i + 8)), s1);
        }
        i += 16;
    }
    let s = _mm256_add_ps(s0, s1);
    let x = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps::<1>(s));
    let x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    let x = _mm_add_ss(x, _mm_movehdup_ps(x));
    let tail: f32 = a[i..n].iter().zip(&b[i..n]).map(|(x, y)| x * y).sum();
    _mm_cvtss_f32(x) + tail
}

#[cfg(test)]
mod tests {
    #[test]
    fn exp_within_2_ulp() {
        let ulp = |a: f32, b: f64| (a.to_bits() as i64 - (b as f32).to_bits() as i64).abs();
        let mut worst = 0;
        for k in 0..=873_000 {
            let x = -(k as f32) * 1e-4;
            let got = super::exp_nonpositive::<true>(x);
            let want = (x as f64).exp();
            if want >= f32::MIN_POSITIVE as f64 {
                worst = worst.max(ulp(got, want));
            }
        }
        assert!(worst <= 2, "{worst} ulp");
        assert_eq!(super::exp_nonpositive::<true>(0.0), 1.0);
        assert_eq!(super::exp_nonpositive::<true>(f32::NEG_INFINITY), 0.0);
        assert_eq!(super::exp_nonpositive::<true>(-1e30), 0.0);
        assert!(super::exp_nonpositive::<true>(f32::NAN).is_nan());
    }
}
