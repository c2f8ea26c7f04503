//! The loops around the microkernel: K blocks, then row blocks, then panels, then tiles.
//!
//! The order is chosen for the caches, not the arithmetic. Within one K block a `kc` x `nr`
//! slice of a panel is reused by every tile of a row block, so it stays in L1, while the row
//! block's `mc` x `kc` slice of A is reused by every panel, so it stays in L2. Splitting K costs
//! one extra read and write of C per block, which is small next to the `kc` multiply-adds per
//! element it buys.

use crate::kernel::Tile;
use crate::{Epilogue, PackedB};
use std::ops::Range;

/// Room for the largest tile of any kernel (8 x 32 on AVX-512).
const SCRATCH: usize = 256;

/// `C = clamp(A·B + bias)` for an `m` x K matrix A with rows `lda` apart, writing `m` x N
/// into C with rows `ldc` apart. K, N, B, the bias and the ISA come from `packed`.
///
/// Panics when `lda < K`, `ldc < N`, or a slice is too short for the rows it must hold.
pub fn gemm(
    m: usize,
    a: &[f32],
    lda: usize,
    packed: &PackedB,
    c: &mut [f32],
    ldc: usize,
    epilogue: Epilogue,
) {
    gemm_rows(0..m, a, lda, packed, c, ldc, epilogue);
}

/// The matrix-vector case, `c = clamp(a·B + bias)` with `a` of length K and `c` of length N.
/// The kernels give a single row its own code path (independent accumulators over K), so this
/// is as fast as a dedicated GEMV.
pub fn gemv(a: &[f32], packed: &PackedB, c: &mut [f32], epilogue: Epilogue) {
    assert_eq!(a.len(), packed.k(), "a must hold K values");
    assert_eq!(c.len(), packed.n(), "c must hold N values");
    gemm(1, a, packed.k(), packed, c, packed.n(), epilogue);
}

/// Only rows `rows` of the product, so that a thread pool can split M: `a` is the whole of A
/// (row `i` at `a[i * lda..]`), while `c` holds just the output rows, row `rows.start` at
/// `c[0]`. Disjoint ranges can then write into disjoint `chunks_mut` of one C. When every
/// range starts at a multiple of [`PackedB::tile`]'s rows, the tiles are the ones [`gemm`]
/// would run and the result is bit-identical; other cuts can differ by rounding, because a
/// one-row tile sums K in a different order.
pub fn gemm_rows(
    rows: Range<usize>,
    a: &[f32],
    lda: usize,
    packed: &PackedB,
    c: &mut [f32],
    ldc: usize,
    epilogue: Epilogue,
) {
    gemm_block(rows, 0..packed.panels(), a, lda, packed, c, ldc, epilogue);
}

/// Rows `rows` and column panels `panels` ([`PackedB::tile`]'s `nr` columns each, the last
/// one possibly narrower) of the product: `c` holds just that block, element (`rows.start`,
/// `panels.start * nr`) at `c[0]`, rows `ldc` apart. A B too large for the cache can thus be
/// split by columns, each block streaming its part of B once for all rows. Every element is
/// computed as [`gemm_rows`] over the same rows computes it, bit for bit.
///
/// Panics when `panels` reaches past the last panel, `ldc` is below the block's width, or a
/// slice is too short.
#[allow(clippy::too_many_arguments)]
pub fn gemm_block(
    rows: Range<usize>,
    panels: Range<usize>,
    a: &[f32],
    lda: usize,
    packed: &PackedB,
    c: &mut [f32],
    ldc: usize,
    epilogue: Epilogue,
) {
    let (k, n_all) = (packed.k(), packed.n());
    let nr = packed.tile().1;
    assert!(panels.start <= panels.end && panels.end <= packed.panels(), "panels {panels:?} out of range");
    let col0 = panels.start * nr;
    let n = (panels.end * nr).min(n_all).saturating_sub(col0);
    assert!(
        rows.start <= rows.end,
        "empty row range {rows:?} must not be reversed"
    );
    assert!(lda >= k, "lda = {lda} is below K = {k}");
    assert!(ldc >= n, "ldc = {ldc} is below N = {n}");
    assert!(
        epilogue.min <= epilogue.max,
        "epilogue bounds out of order or NaN: {epilogue:?}"
    );
    let m = rows.len();
    if m == 0 || n == 0 {
        return;
    }
    let need_a = (rows.end - 1)
        .checked_mul(lda)
        .and_then(|x| x.checked_add(k));
    assert!(
        need_a.is_some_and(|need| need <= a.len()),
        "A is too short for rows {rows:?}"
    );
    let need_c = (m - 1).checked_mul(ldc).and_then(|x| x.checked_add(n));
    assert!(
        need_c.is_some_and(|need| need <= c.len()),
        "C is too short for {m} rows"
    );

    let ker = packed.kernels;
    let mr = ker.mr;
    debug_assert!(mr * nr <= SCRATCH && ker.mc.is_multiple_of(mr));
    // Blocking K only pays when a panel slice is reused by several tiles. The blocks are
    // equal, so a K just above `kc` does not leave a tiny last block.
    let kc = if m <= mr {
        k
    } else {
        k.div_ceil(k.div_ceil(ker.kc).max(1))
    }
    .max(1);
    let blocks = k.div_ceil(kc).max(1);
    let mut scratch = [0.0f32; SCRATCH];

    for block in 0..blocks {
        let k0 = block * kc;
        let kn = kc.min(k - k0);
        let first = block == 0;
        // Partial sums must not be clamped; only the last block applies the epilogue.
        let clamp = if block + 1 == blocks {
            epilogue
        } else {
            Epilogue::NONE
        };
        for m0 in (0..m).step_by(ker.mc) {
            let m1 = (m0 + ker.mc).min(m);
            for p in panels.clone() {
                let (bias, weights) = packed.panel(p).split_at(nr);
                let b = &weights[k0 * nr..];
                // The next panel's slice of this K block: the panel's first tile prefetches
                // it while it computes, so that with B out of the cache (a layer's weights
                // are read once per run) the next panel's first tile does not wait on memory.
                // Past `panels` too: a caller splitting B by panels runs the next one next.
                let next = (p + 1 < packed.panels()).then(|| &packed.panel(p + 1)[nr + k0 * nr..]);
                // The panel's first column within the block.
                let n0 = p * nr - col0;
                let width = nr.min(n - n0);
                let (tiles, tw) = match ker.narrow {
                    Some(narrow) if width <= nr / 2 => (narrow, nr / 2),
                    _ => (ker.tiles, nr),
                };
                for i0 in (m0..m1).step_by(mr) {
                    let r = mr.min(m1 - i0);
                    let tile = |c, ldc| Tile {
                        k: kn,
                        a: &a[(rows.start + i0) * lda + k0..],
                        lda,
                        b,
                        ldb: nr,
                        bias: first.then_some(bias),
                        c,
                        ldc,
                        min: clamp.min,
                        max: clamp.max,
                        next: if i0 == m0 { next } else { None },
                    };
                    let out = &mut c[i0 * ldc + n0..];
                    if width == tw {
                        (tiles[r - 1])(tile(out, ldc));
                        continue;
                    }
                    // The last panel is narrower than the kernel: run the tile on scratch and
                    // copy the real columns, so kernels never need a partial store.
                    let tmp = &mut scratch[..r * tw];
                    if !first {
                        for (dst, src) in tmp.chunks_exact_mut(tw).zip(out.chunks(ldc)) {
                            dst[..width].copy_from_slice(&src[..width]);
                        }
                    }
                    (tiles[r - 1])(tile(&mut *tmp, tw));
                    for (src, dst) in tmp.chunks_exact(tw).zip(out.chunks_mut(ldc)) {
                        dst[..width].copy_from_slice(&src[..width]);
                    }
                }
            }
        }
    }
}
