//! WebAssembly SIMD kernels, 4x8 tiles: 8 accumulators, 2 vectors of B, 1 broadcast of A.
//!
//! Engines map wasm SIMD onto 16 xmm registers on x86 and need a few as scratch, so the tile
//! is smaller than native AVX2's. Relaxed SIMD differs only in the multiply-add: fused where
//! the host has FMA, two rounded steps where it does not, which is why it is a separate,
//! opt-in build.

use super::{Kernels, Tile, TileFn};
use core::arch::wasm32::*;

const MR: usize = 4;
const NR: usize = 8;

/// How one step accumulates `a * b` onto `acc`.
trait Madd {
    fn madd(a: v128, b: v128, acc: v128) -> v128;
}

/// Separate multiply and add, exact per step on every engine.
struct Plain;
impl Madd for Plain {
    #[inline(always)]
    fn madd(a: v128, b: v128, acc: v128) -> v128 {
        f32x4_add(acc, f32x4_mul(a, b))
    }
}

/// `f32x4.relaxed_madd`: one instruction where the engine can fuse.
#[cfg(target_feature = "relaxed-simd")]
struct Relaxed;
#[cfg(target_feature = "relaxed-simd")]
impl Madd for Relaxed {
    #[inline(always)]
    fn madd(a: v128, b: v128, acc: v128) -> v128 {
        f32x4_relaxed_madd(a, b, acc)
    }
}

pub(crate) fn kernels_simd128() -> Kernels {
    static TILES: [TileFn; MR] = [
        tile::<Plain, 1>,
        tile::<Plain, 2>,
        tile::<Plain, 3>,
        tile::<Plain, 4>,
    ];
    Kernels {
        mr: MR,
        nr: NR,
        kc: 256,
        mc: 64,
        tiles: &TILES,
        narrow: None,
    }
}

#[cfg(target_feature = "relaxed-simd")]
pub(crate) fn kernels_relaxed() -> Kernels {
    static TILES: [TileFn; MR] = [
        tile::<Relaxed, 1>,
        tile::<Relaxed, 2>,
        tile::<Relaxed, 3>,
        tile::<Relaxed, 4>,
    ];
    Kernels {
        mr: MR,
        nr: NR,
        kc: 256,
        mc: 64,
        tiles: &TILES,
        narrow: None,
    }
}

fn tile<M: Madd, const R: usize>(t: Tile<'_>) {
    t.check(R, NR);
    let (a, b, c) = (t.a.as_ptr(), t.b.as_ptr(), t.c.as_mut_ptr());
    let mut acc = [[f32x4_splat(0.0); 2]; R];
    // SAFETY: the module is compiled only with simd128 enabled, and `check` proved every
    // offset below in bounds: rows `< R` of A and C, `k` columns of A, `k` rows `ldb` apart of NR in B,
    // NR values of C per row and of bias. wasm loads and stores need no alignment.
    unsafe {
        for (i, acc) in acc.iter_mut().enumerate() {
            let src = match t.bias {
                Some(bias) => bias.as_ptr(),
                None => c.add(i * t.ldc),
            };
            *acc = [v128_load(src.cast()), v128_load(src.add(4).cast())];
        }
        for p in 0..t.k {
            let bp = b.add(p * t.ldb);
            let (b0, b1) = (v128_load(bp.cast()), v128_load(bp.add(4).cast()));
            for (i, acc) in acc.iter_mut().enumerate() {
                let ai = f32x4_splat(*a.add(i * t.lda + p));
                acc[0] = M::madd(ai, b0, acc[0]);
                acc[1] = M::madd(ai, b1, acc[1]);
            }
        }
        let (lo, hi) = (f32x4_splat(t.min), f32x4_splat(t.max));
        // `x < lo ? lo : x`, then `hi < y ? hi : y`: NaN in x passes through, as on the other
        // ISAs. Spelled as compare and select because with relaxed-simd enabled LLVM lowers
        // f32x4.pmin/pmax to relaxed min/max, which lose the NaN on x86 hosts (the wasm
        // kernel test caught it in the threads build).
        let clamp = |x| {
            let y = v128_bitselect(lo, x, f32x4_lt(x, lo));
            v128_bitselect(hi, y, f32x4_lt(hi, y))
        };
        for (i, acc) in acc.iter().enumerate() {
            let dst = c.add(i * t.ldc);
            v128_store(dst.cast(), clamp(acc[0]));
            v128_store(dst.add(4).cast(), clamp(acc[1]));
        }
    }
}
