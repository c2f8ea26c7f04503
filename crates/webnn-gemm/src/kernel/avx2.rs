//! AVX2 + FMA kernel, 6x16 tiles.
//!
//! Sixteen ymm registers: 12 accumulators (6 rows x 2 vectors), 2 for the current row of B
//! and 1 for the broadcast of A. Twelve independent FMA chains cover the FMA latency times the
//! two FMA ports of current x86 cores, which is what keeps the units busy. A narrow 6x8 variant
//! serves a last panel of at most 8 columns (N = 24, 40, ...) without computing zeros.

use super::{Kernels, Tile, TileFn};
use core::arch::x86_64::*;

const MR: usize = 6;
const LANES: usize = 8;

pub(crate) fn kernels() -> Option<Kernels> {
    let ok = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    let (tiles, narrow) = (&TILES, Some(&NARROW[..]));
    ok.then_some(Kernels {
        mr: MR,
        nr: 2 * LANES,
        kc: 256,
        mc: 96,
        tiles,
        narrow,
    })
}

static TILES: [TileFn; MR] = [
    tile::<1, 2>,
    tile::<2, 2>,
    tile::<3, 2>,
    tile::<4, 2>,
    tile::<5, 2>,
    tile::<6, 2>,
];
static NARROW: [TileFn; MR] = [
    tile::<1, 1>,
    tile::<2, 1>,
    tile::<3, 1>,
    tile::<4, 1>,
    tile::<5, 1>,
    tile::<6, 1>,
];

/// `R` rows by `V` vectors of columns.
fn tile<const R: usize, const V: usize>(t: Tile<'_>) {
    t.check(R, V * LANES);
    // SAFETY: `kernels()` hands out these tables only after detecting AVX2 and FMA, and
    // `check` proved that every offset the kernels form stays inside the slices.
    unsafe {
        match (R, t.next.is_some()) {
            (1, true) => row::<V, true>(t),
            (1, false) => row::<V, false>(t),
            (_, true) => rows::<R, V, true>(t),
            (_, false) => rows::<R, V, false>(t),
        }
    }
}

/// # Safety
/// AVX2 and FMA present; `t` passed `Tile::check(R, V * LANES)`.
/// With `PF`, it prefetches the next panel (`Tile::next`) as it goes.
#[target_feature(enable = "avx2,fma")]
unsafe fn rows<const R: usize, const V: usize, const PF: bool>(t: Tile<'_>) {
    let (a, b, c) = (t.a.as_ptr(), t.b.as_ptr(), t.c.as_mut_ptr());
    let mut acc = [[_mm256_setzero_ps(); V]; R];
    // SAFETY (all blocks below): offsets are within the bounds `check` established: rows
    // `< R` of A, `k` columns; `k` rows `ldb` apart of `V * LANES` in B; rows `< R` of
    // `V * LANES` in C; `V * LANES` of bias.
    unsafe {
        for (i, acc) in acc.iter_mut().enumerate() {
            let src = t
                .bias
                .map_or(c.add(i * t.ldc).cast_const(), |bias| bias.as_ptr());
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = _mm256_loadu_ps(src.add(v * LANES));
            }
        }
        let next = t.next.map_or(b, |n| n.as_ptr());
        for p in 0..t.k {
            let bp = b.add(p * t.ldb);
            if PF {
                prefetch_row::<V>(next.add(p * t.ldb));
            }
            let mut bv = [_mm256_setzero_ps(); V];
            for (v, bv) in bv.iter_mut().enumerate() {
                *bv = _mm256_loadu_ps(bp.add(v * LANES));
            }
            for (i, acc) in acc.iter_mut().enumerate() {
                let ai = _mm256_broadcast_ss(&*a.add(i * t.lda + p));
                for (acc, &bv) in acc.iter_mut().zip(&bv) {
                    *acc = _mm256_fmadd_ps(ai, bv, *acc);
                }
            }
        }
        let (lo, hi) = (_mm256_set1_ps(t.min), _mm256_set1_ps(t.max));
        for (i, acc) in acc.iter().enumerate() {
            for (v, &acc) in acc.iter().enumerate() {
                _mm256_storeu_ps(c.add(i * t.ldc + v * LANES), clamp(acc, lo, hi));
            }
        }
    }
}

/// One row (the matrix-vector case). A single row has only `V` accumulator chains, too few to
/// hide FMA latency, so K is dealt round-robin to four sets of accumulators summed at the end.
///
/// # Safety
/// AVX2 and FMA present; `t` passed `Tile::check(1, V * LANES)`.
#[target_feature(enable = "avx2,fma")]
unsafe fn row<const V: usize, const PF: bool>(t: Tile<'_>) {
    let (a, b, c) = (t.a.as_ptr(), t.b.as_ptr(), t.c.as_mut_ptr());
    let mut acc = [[_mm256_setzero_ps(); V]; 4];
    // SAFETY (all blocks below): `p < k` indexes A's row and B's `k` rows `ldb` apart;
    // C and bias are read and written for `V * LANES` values, as `check` allowed.
    unsafe {
        let src = t.bias.map_or(c.cast_const(), |bias| bias.as_ptr());
        for (v, acc) in acc[0].iter_mut().enumerate() {
            *acc = _mm256_loadu_ps(src.add(v * LANES));
        }
        let next = t.next.map_or(b, |n| n.as_ptr());
        let step = |acc: &mut [__m256; V], p: usize| {
            if PF {
                prefetch_row::<V>(next.add(p * t.ldb));
            }
            let ap = _mm256_broadcast_ss(&*a.add(p));
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = _mm256_fmadd_ps(ap, _mm256_loadu_ps(b.add(p * t.ldb + v * LANES)), *acc);
            }
        };
        let mut p = 0;
        while p + 4 <= t.k {
            for (j, acc) in acc.iter_mut().enumerate() {
                step(acc, p + j);
            }
            p += 4;
        }
        for p in p..t.k {
            step(&mut acc[0], p);
        }
        let (lo, hi) = (_mm256_set1_ps(t.min), _mm256_set1_ps(t.max));
        let [s0, s1, s2, s3] = acc;
        for (v, (((x0, x1), x2), x3)) in s0.into_iter().zip(s1).zip(s2).zip(s3).enumerate() {
            let sum = _mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3));
            _mm256_storeu_ps(c.add(v * LANES), clamp(sum, lo, hi));
        }
    }
}

/// The cache lines of one `V * LANES`-float row of a panel, into L2 (one line per 16 floats).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn prefetch_row<const V: usize>(row: *const f32) {
    for v in (0..V * LANES).step_by(16) {
        // SAFETY: a prefetch does not fault; the address is inside the next panel anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T1>(row.add(v) as *const i8) };
    }
}

/// `x` clamped to `[lo, hi]`. x86 max/min return their second operand when either is NaN, so
/// `x` goes second to let NaN through, matching the other ISAs.
#[target_feature(enable = "avx")]
#[inline]
fn clamp(x: __m256, lo: __m256, hi: __m256) -> __m256 {
    _mm256_min_ps(hi, _mm256_max_ps(lo, x))
}
