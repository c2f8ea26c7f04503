//! Portable 4x4 kernel: the fallback on targets without a SIMD kernel, and the simplest
//! statement of the tile contract that the SIMD kernels follow.

use super::{Kernels, Tile, TileFn};

const MR: usize = 4;
const NR: usize = 4;

pub(crate) fn kernels() -> Kernels {
    Kernels {
        mr: MR,
        nr: NR,
        kc: 256,
        mc: 64,
        tiles: &TILES,
        narrow: None,
    }
}

static TILES: [TileFn; MR] = [tile::<1>, tile::<2>, tile::<3>, tile::<4>];

fn tile<const R: usize>(t: Tile<'_>) {
    t.check(R, NR);
    let mut acc = [[0.0f32; NR]; R];
    for (i, row) in acc.iter_mut().enumerate() {
        *row = match t.bias {
            Some(bias) => bias[..NR].try_into().unwrap(),
            None => t.c[i * t.ldc..][..NR].try_into().unwrap(),
        };
    }
    for p in 0..t.k {
        let b = &t.b[p * t.ldb..][..NR];
        for (i, row) in acc.iter_mut().enumerate() {
            let a = t.a[i * t.lda + p];
            for (c, &b) in row.iter_mut().zip(b) {
                *c += a * b;
            }
        }
    }
    let clamp = crate::Epilogue {
        min: t.min,
        max: t.max,
    };
    for (i, row) in acc.iter().enumerate() {
        for (c, &x) in t.c[i * t.ldc..][..NR].iter_mut().zip(row) {
            *c = clamp.apply(x);
        }
    }
}
