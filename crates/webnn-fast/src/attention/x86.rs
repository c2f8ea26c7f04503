//! AVX2 kernels of the attention step, where head_dim is a multiple of 8 (scores) or 32
//! (weighted values). A decode step does about 600 instructions per cached key in portable
//! loops: a horizontal sum per score and a load-FMA-store per output vector per key. Here
//! each query row stays in registers while eight keys are scored into one vector (their sums
//! folded together), and the weighted values of up to three query rows accumulate in
//! registers over chunks of 16 keys, 32 dimensions at a time.

use super::{Block, Rows, AHEAD};
use crate::simd::avx2::sum8;
use std::arch::x86_64::*;

/// Whether the kernels take these rows: float16 ones need F16C to widen.
pub(super) fn usable(rows: Rows) -> bool {
    match rows {
        Rows::F32(_) => true,
        Rows::F16(_) => std::arch::is_x86_feature_detected!("f16c"),
    }
}

/// Eight elements from `at`, widened from float16.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
unsafe fn load8(rows: Rows, at: usize) -> __m256 {
    // SAFETY: callers stay inside the rows (checked once per call by `fits`).
    unsafe {
        match rows {
            Rows::F32(v) => _mm256_loadu_ps(v.as_ptr().add(at)),
            Rows::F16(v) => _mm256_cvtph_ps(_mm_loadu_si128(v.as_ptr().add(at) as *const __m128i)),
        }
    }
}

impl Block<'_> {
    fn fits(&self) -> bool {
        (self.first + self.count) * self.width <= self.rows.len()
    }

    /// Asks for the whole of row `first + t + AHEAD`, if the block has it. The kernels read a
    /// block one head (and 32 dimensions) at a time, a few cache lines of each row: the first
    /// pass brings the rows in whole, in order, for the others to find in the cache.
    #[inline(always)]
    fn prefetch(&self, t: usize) {
        if t + AHEAD < self.count {
            self.rows.prefetch((self.first + t + AHEAD) * self.width, self.width);
        }
    }
}

/// `scores[r * count + t] = q(r) · key(first + t)[r / g]` for the block's keys in groups
/// of eight; returns how many of each row it scored (the rest are the caller's). Group by
/// group, so its rows stay in L1 for every query row. `CH` = d / 8 vectors of q.
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn scores<'q, const CH: usize>(b: Block, g: usize, q: &dyn Fn(usize) -> &'q [f32], scores: &mut [f32]) -> usize {
    let rows = scores.len() / b.count.max(1);
    // Every score row's kv head lies inside a row of keys.
    let heads = g > 0 && rows.div_ceil(g) * b.d <= b.width;
    if !b.fits() || b.d != CH * 8 || !heads || (0..rows).any(|r| q(r).len() < b.d) {
        return 0;
    }
    let done = b.count - b.count % 8;
    for t0 in (0..done).step_by(8) {
        for r in 0..rows {
            // The next group's rows, one per query row: a burst of them would overrun the
            // cache's outstanding misses.
            if r < 8 {
                b.prefetch(t0 + r);
            }
            let qr = q(r).as_ptr();
            let mut acc = [_mm256_setzero_ps(); 8];
            for c in 0..CH {
                // SAFETY: c * 8 + 8 <= d <= q(r)'s length.
                let qv = unsafe { _mm256_loadu_ps(qr.add(c * 8)) };
                for (k, a) in acc.iter_mut().enumerate() {
                    let at = (b.first + t0 + k) * b.width + (r / g) * b.d + c * 8;
                    // SAFETY: the row lies inside the rows (`fits`).
                    *a = _mm256_fmadd_ps(qv, unsafe { load8(b.rows, at) }, *a);
                }
            }
            // SAFETY: r * count + t0 + 8 <= rows * count = scores' length.
            unsafe { _mm256_storeu_ps(scores.as_mut_ptr().add(r * b.count + t0), sum8(&acc)) };
        }
    }
    done
}

/// Keys per chunk of `weigh_rows`: their rows stay in L1 while every head's 32-dimension
/// blocks are weighed.
const CHUNK: usize = 16;

/// `acc[r] = sum over the block's keys t of scores[r * count + t] * value(first + t)[r / g]`
/// (d floats per row r), for groups of up to three query rows per kv head and d a multiple
/// of 32; false (nothing done) otherwise.
///
/// # Safety
/// The CPU has AVX2 and FMA, and F16C for float16 rows (`usable`).
pub(super) unsafe fn weigh(b: Block, g: usize, scores: &[f32], acc: &mut [f32]) -> bool {
    let heads = acc.len() / (g * b.d).max(1);
    let sizes = scores.len() == heads * g * b.count && acc.len() == heads * g * b.d;
    if !b.fits() || !b.d.is_multiple_of(32) || !sizes || b.width < heads * b.d || !(1..=3).contains(&g) {
        return false;
    }
    acc.fill(0.0);
    // SAFETY (each arm): the sizes are checked above; the CPU's features are the caller's.
    unsafe {
        match g {
            1 => weigh_rows::<1>(b, heads, scores, acc),
            2 => weigh_rows::<2>(b, heads, scores, acc),
            3 => weigh_rows::<3>(b, heads, scores, acc),
            _ => return false,
        }
    }
    true
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn weigh_rows<const M: usize>(b: Block, heads: usize, scores: &[f32], out: &mut [f32]) {
    for t0 in (0..b.count).step_by(CHUNK) {
        let end = (t0 + CHUNK).min(b.count);
        for head in 0..heads {
            for blk in (0..b.d).step_by(32) {
                let mut acc = [[_mm256_setzero_ps(); 4]; M];
                for t in t0..end {
                    if head == 0 && blk == 0 {
                        b.prefetch(t);
                    }
                    let at = (b.first + t) * b.width + head * b.d + blk;
                    // SAFETY: inside the rows (`fits`, width >= heads * d); the score index is
                    // below heads * M * count (checked by `weigh`).
                    unsafe {
                        let v = [load8(b.rows, at), load8(b.rows, at + 8), load8(b.rows, at + 16), load8(b.rows, at + 24)];
                        for (r, row) in acc.iter_mut().enumerate() {
                            let x = _mm256_broadcast_ss(scores.get_unchecked((head * M + r) * b.count + t));
                            for (a, v) in row.iter_mut().zip(v) {
                                *a = _mm256_fmadd_ps(x, v, *a);
                            }
                        }
                    }
                }
                for (r, row) in acc.iter().enumerate() {
                    for (c, a) in row.iter().enumerate() {
                        let at = (head * M + r) * b.d + blk + c * 8;
                        // SAFETY: at + 8 <= heads * M * d = out's length.
                        unsafe {
                            let o = out.as_mut_ptr().add(at);
                            _mm256_storeu_ps(o, _mm256_add_ps(_mm256_loadu_ps(o), *a));
                        }
                    }
                }
            }
        }
    }
}
