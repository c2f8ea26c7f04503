//! AVX-512F kernel, 8x32 tiles.
//!
//! Thirty-two zmm registers would allow a 14x32 tile, but 16 accumulators already cover FMA
//! latency times throughput, and the shorter tile wastes less on the small M remainders of
//! late network layers (M = 49 or 196). Compared with AVX2 it halves the instructions per
//! flop, which is the gain even on cores that split 512-bit FMAs in two. A narrow 8x16 variant
//! serves a last panel of at most 16 columns (N = 144, 16, ...).

use super::{Kernels, Tile, TileFn};
use core::arch::x86_64::*;

const MR: usize = 8;
const LANES: usize = 16;

pub(crate) fn kernels() -> Option<Kernels> {
    let ok = is_x86_feature_detected!("avx512f");
    let (tiles, narrow) = (&TILES, Some(&NARROW[..]));
    ok.then_some(Kernels {
        mr: MR,
        nr: 2 * LANES,
        kc: 192,
        mc: 128,
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
    tile::<7, 2>,
    tile::<8, 2>,
];
static NARROW: [TileFn; MR] = [
    tile::<1, 1>,
    tile::<2, 1>,
    tile::<3, 1>,
    tile::<4, 1>,
    tile::<5, 1>,
    tile::<6, 1>,
    tile::<7, 1>,
    tile::<8, 1>,
];

/// `R` rows by `V` vectors of columns.
fn tile<const R: usize, const V: usize>(t: Tile<'_>) {
    t.check(R, V * LANES);
    // SAFETY: `kernels()` hands out these tables only after detecting AVX-512F, and
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
/// AVX-512F present; `t` passed `Tile::check(R, V * LANES)`.
/// With `PF`, it prefetches the next panel (`Tile::next`) as it goes.
#[target_feature(enable = "avx512f")]
unsafe fn rows<const R: usize, const V: usize, const PF: bool>(t: Tile<'_>) {
    let (a, b, c) = (t.a.as_ptr(), t.b.as_ptr(), t.c.as_mut_ptr());
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    // SAFETY (all blocks below): offsets are within the bounds `check` established: rows
    // `< R` of A, `k` columns; `k` rows `ldb` apart of `V * LANES` in B; rows `< R` of
    // `V * LANES` in C; `V * LANES` of bias.
    unsafe {
        for (i, acc) in acc.iter_mut().enumerate() {
            let src = t
                .bias
                .map_or(c.add(i * t.ldc).cast_const(), |bias| bias.as_ptr());
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = _mm512_loadu_ps(src.add(v * LANES));
            }
        }
        let next = t.next.map_or(b, |n| n.as_ptr());
        for p in 0..t.k {
            let bp = b.add(p * t.ldb);
            if PF {
                prefetch_row::<V>(next.add(p * t.ldb));
            }
            let mut bv = [_mm512_setzero_ps(); V];
            for (v, bv) in bv.iter_mut().enumerate() {
                *bv = _mm512_loadu_ps(bp.add(v * LANES));
            }
            for (i, acc) in acc.iter_mut().enumerate() {
                let ai = _mm512_set1_ps(*a.add(i * t.lda + p));
                for (acc, &bv) in acc.iter_mut().zip(&bv) {
                    *acc = _mm512_fmadd_ps(ai, bv, *acc);
                }
            }
        }
        let (lo, hi) = (_mm512_set1_ps(t.min), _mm512_set1_ps(t.max));
        for (i, acc) in acc.iter().enumerate() {
            for (v, &acc) in acc.iter().enumerate() {
                _mm512_storeu_ps(c.add(i * t.ldc + v * LANES), clamp(acc, lo, hi));
            }
        }
    }
}

/// One row (the matrix-vector case). A single row has only `V` accumulator chains, too few to
/// hide FMA latency, so K is dealt round-robin to four sets of accumulators summed at the end.
///
/// # Safety
/// AVX-512F present; `t` passed `Tile::check(1, V * LANES)`.
#[target_feature(enable = "avx512f")]
unsafe fn row<const V: usize, const PF: bool>(t: Tile<'_>) {
    let (a, b, c) = (t.a.as_ptr(), t.b.as_ptr(), t.c.as_mut_ptr());
    let mut acc = [[_mm512_setzero_ps(); V]; 4];
    // SAFETY (all blocks below): `p < k` indexes A's row and B's `k` rows `ldb` apart;
    // C and bias are read and written for `V * LANES` values, as `check` allowed.
    unsafe {
        let src = t.bias.map_or(c.cast_const(), |bias| bias.as_ptr());
        for (v, acc) in acc[0].iter_mut().enumerate() {
            *acc = _mm512_loadu_ps(src.add(v * LANES));
        }
        let next = t.next.map_or(b, |n| n.as_ptr());
        let step = |acc: &mut [__m512; V], p: usize| {
            if PF {
                prefetch_row::<V>(next.add(p * t.ldb));
            }
            let ap = _mm512_set1_ps(*a.add(p));
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = _mm512_fmadd_ps(ap, _mm512_loadu_ps(b.add(p * t.ldb + v * LANES)), *acc);
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
        let (lo, hi) = (_mm512_set1_ps(t.min), _mm512_set1_ps(t.max));
        let [s0, s1, s2, s3] = acc;
        for (v, (((x0, x1), x2), x3)) in s0.into_iter().zip(s1).zip(s2).zip(s3).enumerate() {
            let sum = _mm512_add_ps(_mm512_add_ps(x0, x1), _mm512_add_ps(x2, x3));
            _mm512_storeu_ps(c.add(v * LANES), clamp(sum, lo, hi));
        }
    }
}

/// The cache lines of one `V * LANES`-float row of a panel, into L2 (one line per 16 floats).
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn prefetch_row<const V: usize>(row: *const f32) {
    for v in 0..V {
        // SAFETY: a prefetch does not fault; the address is inside the next panel anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T1>(row.add(v * LANES) as *const i8) };
    }
}

/// `x` clamped to `[lo, hi]`. x86 max/min return their second operand when either is NaN, so
/// `x` goes second to let NaN through, matching the other ISAs.
#[target_feature(enable = "avx512f")]
#[inline]
fn clamp(x: __m512, lo: __m512, hi: __m512) -> __m512 {
    _mm512_min_ps(hi, _mm512_max_ps(lo, x))
}
