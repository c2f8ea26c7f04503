//! AArch64 Advanced SIMD kernel, 8x8 tiles: 16 accumulators of the 32 vector registers, two
//! for B and one broadcast of A, leaving room for the compiler to pipeline loads.

use super::{Kernels, Tile, TileFn};
use core::arch::aarch64::*;

const MR: usize = 8;
const NR: usize = 8;

pub(crate) fn kernels() -> Kernels {
    Kernels {
        mr: MR,
        nr: NR,
        kc: 256,
        mc: 128,
        tiles: &TILES,
        narrow: None,
    }
}

static TILES: [TileFn; MR] = [
    tile::<1>, tile::<2>, tile::<3>, tile::<4>, tile::<5>, tile::<6>, tile::<7>, tile::<8>,
];

fn tile<const R: usize>(t: Tile<'_>) {
    t.check(R, NR);
    let (a, b, c) = (t.a.as_ptr(), t.b.as_ptr(), t.c.as_mut_ptr());
    // SAFETY: NEON is part of the aarch64 baseline, and `check` proved every offset below in
    // bounds: rows `< R` of A and C, `k` columns of A, `k` rows `ldb` apart of NR in B, NR values of C per
    // row and of bias.
    unsafe {
        let mut acc = [[vdupq_n_f32(0.0); 2]; R];
        for (i, acc) in acc.iter_mut().enumerate() {
            let src = match t.bias {
                Some(bias) => bias.as_ptr(),
                None => c.add(i * t.ldc),
            };
            *acc = [vld1q_f32(src), vld1q_f32(src.add(4))];
        }
        for p in 0..t.k {
            let bp = b.add(p * t.ldb);
            let (b0, b1) = (vld1q_f32(bp), vld1q_f32(bp.add(4)));
            for (i, acc) in acc.iter_mut().enumerate() {
                let ai = vld1q_dup_f32(a.add(i * t.lda + p));
                acc[0] = vfmaq_f32(acc[0], ai, b0);
                acc[1] = vfmaq_f32(acc[1], ai, b1);
            }
        }
        let (lo, hi) = (vdupq_n_f32(t.min), vdupq_n_f32(t.max));
        // fmax/fmin return NaN when either input is NaN, so NaN passes through.
        let clamp = |x| vminq_f32(vmaxq_f32(x, lo), hi);
        for (i, acc) in acc.iter().enumerate() {
            let dst = c.add(i * t.ldc);
            vst1q_f32(dst, clamp(acc[0]));
            vst1q_f32(dst.add(4), clamp(acc[1]));
        }
    }
}
