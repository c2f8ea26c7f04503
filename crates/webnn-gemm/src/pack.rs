//! Prepacked weights.
//!
//! A kernel reads B one row of `nr` values per K step. In a row-major K x N matrix those rows
//! are `n` apart, so every step would touch a new cache line and the hardware prefetcher sees
//! `N/nr` interleaved streams. Packing copies each `nr`-column panel into one contiguous run
//! (bias first, then K rows of `nr`), zero-padded on the right, so a kernel reads one
//! sequential stream and never needs a partial load. Weights are constant across inferences,
//! so this is paid once per model.

use crate::isa::Isa;
use crate::kernel::Kernels;
use std::fmt;

/// Alignment of each panel's start, in bytes: a cache line, so no B row is split across two.
const ALIGN: usize = 64;

/// B (K x N, row-major) and an optional bias (N), rearranged for one ISA's kernel.
pub struct PackedB {
    isa: Isa,
    pub(crate) kernels: Kernels,
    k: usize,
    n: usize,
    data: Vec<f32>,
    /// Index in `data` where the first panel starts, chosen for [`ALIGN`].
    start: usize,
}

/// Rows `r0..r0 + 8` of a panel's first columns from column-major `columns` (`k` values
/// each) into `tile` (rows of `nr`), eight columns at a time by register transposes where the
/// ISA has AVX; the columns it copied (the caller copies the rest).
fn transpose_tile(isa: Isa, columns: &[f32], k: usize, r0: usize, width: usize, tile: &mut [f32], nr: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if matches!(isa, Isa::Avx2Fma | Isa::Avx512) && tile.len() == 8 * nr {
        let mut c0 = 0;
        while c0 + 8 <= width {
            let src: [&[f32]; 8] = std::array::from_fn(|c| &columns[(c0 + c) * k + r0..][..8]);
            // SAFETY: these ISAs' kernels exist only where the CPU has AVX (`Isa::kernels`,
            // checked by `zeroed`).
            unsafe { transpose8(src, &mut tile[c0..], nr) };
            c0 += 8;
        }
        return c0;
    }
    let _ = (isa, columns, k, r0, width, tile, nr);
    0
}

/// `dst[r * stride + c] = src[c][r]` for eight columns and rows: eight loads, the 8x8
/// transpose in registers, eight stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn transpose8(src: [&[f32]; 8], dst: &mut [f32], stride: usize) {
    use std::arch::x86_64::*;
    assert!(src.iter().all(|c| c.len() >= 8) && dst.len() >= 7 * stride + 8);
    // SAFETY: the assert keeps every load and store inside its slice.
    unsafe {
        let r: [__m256; 8] = std::array::from_fn(|c| _mm256_loadu_ps(src[c].as_ptr()));
        let (t0, t1) = (_mm256_unpacklo_ps(r[0], r[1]), _mm256_unpackhi_ps(r[0], r[1]));
        let (t2, t3) = (_mm256_unpacklo_ps(r[2], r[3]), _mm256_unpackhi_ps(r[2], r[3]));
        let (t4, t5) = (_mm256_unpacklo_ps(r[4], r[5]), _mm256_unpackhi_ps(r[4], r[5]));
        let (t6, t7) = (_mm256_unpacklo_ps(r[6], r[7]), _mm256_unpackhi_ps(r[6], r[7]));
        let (u0, u1) = (_mm256_shuffle_ps::<0x44>(t0, t2), _mm256_shuffle_ps::<0xee>(t0, t2));
        let (u2, u3) = (_mm256_shuffle_ps::<0x44>(t1, t3), _mm256_shuffle_ps::<0xee>(t1, t3));
        let (u4, u5) = (_mm256_shuffle_ps::<0x44>(t4, t6), _mm256_shuffle_ps::<0xee>(t4, t6));
        let (u6, u7) = (_mm256_shuffle_ps::<0x44>(t5, t7), _mm256_shuffle_ps::<0xee>(t5, t7));
        let rows = [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ];
        for (i, v) in rows.into_iter().enumerate() {
            _mm256_storeu_ps(dst.as_mut_ptr().add(i * stride), v);
        }
    }
}

impl PackedB {
    /// Packs `b` (`k` rows of `n`) and `bias` (`n` values; `None` is zero) for `isa`.
    ///
    /// Panics when `isa` is not supported here (check with [`Isa::is_supported`]) or a slice
    /// length does not match.
    pub fn new(isa: Isa, k: usize, n: usize, b: &[f32], bias: Option<&[f32]>) -> PackedB {
        let size = k.checked_mul(n).expect("k * n overflows");
        assert_eq!(b.len(), size, "B must hold k * n = {k} * {n} values");
        let mut packed = PackedB::zeroed(isa, k, n, bias);
        let nr = packed.kernels.nr;
        for p in 0..n.div_ceil(nr) {
            let n0 = p * nr;
            let width = nr.min(n - n0);
            let rows = &mut packed.panel_mut(p)[nr..];
            for (dst, src) in rows.chunks_exact_mut(nr).zip(b.chunks_exact(n.max(1))) {
                dst[..width].copy_from_slice(&src[n0..n0 + width]);
            }
        }
        packed
    }

    /// Packs B (`k` x `n`) column by column: `column(j, values)` writes column `j`'s `k`
    /// values into `values`. For weights produced per output column (dequantized ones), this
    /// writes each value once, into its panel, with no row-major copy of B in between.
    ///
    /// Panics as [`PackedB::new`] does.
    pub fn from_columns(
        isa: Isa,
        k: usize,
        n: usize,
        bias: Option<&[f32]>,
        mut column: impl FnMut(usize, &mut [f32]),
    ) -> PackedB {
        let mut packed = PackedB::zeroed(isa, k, n, bias);
        let nr = packed.kernels.nr;
        // A panel's columns, one after another, then copied across into its rows of `nr`.
        let mut columns = vec![0.0f32; nr * k];
        for p in 0..n.div_ceil(nr) {
            let n0 = p * nr;
            let width = nr.min(n - n0);
            for (c, values) in columns.chunks_exact_mut(k.max(1)).take(width).enumerate() {
                column(n0 + c, values);
            }
            // Eight rows at a time: each column's eight values are read together, and the
            // eight rows written stay in the cache. On x86, eight columns' eight values are
            // transposed in registers (scalar, the copy took as long as dequantizing a
            // weight panel).
            let rows = &mut packed.panel_mut(p)[nr..];
            for (t, tile) in rows.chunks_mut(8 * nr).enumerate() {
                let r0 = 8 * t;
                let c0 = transpose_tile(isa, &columns, k, r0, width, tile, nr);
                for c in c0..width {
                    let values = &columns[c * k + r0..][..tile.len() / nr];
                    for (row, &v) in tile.chunks_exact_mut(nr).zip(values) {
                        row[c] = v;
                    }
                }
            }
        }
        packed
    }

    /// The panels laid out with their bias and zero weights.
    fn zeroed(isa: Isa, k: usize, n: usize, bias: Option<&[f32]>) -> PackedB {
        let kernels = isa
            .kernels()
            .unwrap_or_else(|| panic!("{isa} is not supported here"));
        k.checked_mul(n).expect("k * n overflows");
        if let Some(bias) = bias {
            assert_eq!(bias.len(), n, "bias must hold n = {n} values");
        }
        let nr = kernels.nr;
        let panels = n.div_ceil(nr);
        let stride = (k + 1) * nr;
        let pad = ALIGN / size_of::<f32>();
        let data = vec![0.0f32; panels * stride + pad];
        let start = data.as_ptr().align_offset(ALIGN).min(pad);
        let mut packed = PackedB { isa, kernels, k, n, data, start };
        if let Some(bias) = bias {
            for p in 0..panels {
                let n0 = p * nr;
                let width = nr.min(n - n0);
                packed.panel_mut(p)[..width].copy_from_slice(&bias[n0..n0 + width]);
            }
        }
        packed
    }

    fn panel_mut(&mut self, p: usize) -> &mut [f32] {
        let stride = (self.k + 1) * self.kernels.nr;
        &mut self.data[self.start + p * stride..][..stride]
    }

    /// The ISA this was packed for; [`crate::gemm`] runs that ISA's kernel.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Rows of B (the reduction length).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns of B (and of C).
    pub fn n(&self) -> usize {
        self.n
    }

    /// The kernel's tile, rows by columns. A caller splitting M across threads does best with
    /// row ranges that start at multiples of the first number.
    pub fn tile(&self) -> (usize, usize) {
        (self.kernels.mr, self.kernels.nr)
    }

    /// How many panels of `nr` columns B is packed into (the last one zero-padded).
    pub fn panels(&self) -> usize {
        self.n.div_ceil(self.kernels.nr)
    }

    /// Panel `p`: `nr` bias values, then `k` rows of `nr` weights.
    pub(crate) fn panel(&self, p: usize) -> &[f32] {
        let stride = (self.k + 1) * self.kernels.nr;
        &self.data[self.start + p * stride..][..stride]
    }
}

impl fmt::Debug for PackedB {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackedB")
            .field("isa", &self.isa)
            .field("k", &self.k)
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}
