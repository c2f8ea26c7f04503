//! The microkernels and the contract between them and the driver.
//!
//! A microkernel computes one tile of `R` rows by `NR` columns of C over a run of `k` steps,
//! keeping the whole tile in registers. The driver picks `R <= MR` per call, so remainder rows
//! cost only their own work; remainder columns are handled by the driver with a scratch tile,
//! which keeps the kernels free of partial stores.

pub(crate) mod scalar;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) mod wasm;

/// One tile's worth of work. Slices start at the tile's origin; rows are `lda` / `ldc` apart.
pub(crate) struct Tile<'a> {
    /// Steps of the dot products.
    pub k: usize,
    /// A, from the tile's first row and first `k` column.
    pub a: &'a [f32],
    pub lda: usize,
    /// The packed panel from its first row in this K block: `k` rows, `ldb` apart.
    pub b: &'a [f32],
    pub ldb: usize,
    /// `NR` values to start from; `None` adds onto what C already holds (a later K block).
    pub bias: Option<&'a [f32]>,
    /// C, from the tile's origin, `NR` columns wide in every row it touches.
    pub c: &'a mut [f32],
    pub ldc: usize,
    pub min: f32,
    pub max: f32,
    /// Where the next panel's rows for this K block begin (`k` rows, `ldb` apart), for
    /// kernels that prefetch them into L2 while they compute (the driver passes it to a
    /// panel's first tile only); `None` after the last panel, and for the other tiles.
    pub next: Option<&'a [f32]>,
}

impl Tile<'_> {
    /// Panics unless every element a `rows` x `nr` kernel reads or writes lies inside the
    /// slices. The SIMD kernels walk raw pointers and rely on this check for their safety.
    #[inline]
    pub(crate) fn check(&self, rows: usize, nr: usize) {
        let span = |rows: usize, stride: usize, width: usize| {
            (rows - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(width))
        };
        assert!(rows >= 1);
        assert!(span(rows, self.lda, self.k).is_some_and(|need| need <= self.a.len()));
        assert!(self.k == 0 || span(self.k, self.ldb, nr).is_some_and(|need| need <= self.b.len()));
        assert!(span(rows, self.ldc, nr).is_some_and(|need| need <= self.c.len()));
        assert!(self.bias.is_none_or(|bias| bias.len() >= nr));
        assert!(self.next.is_none_or(|next| self.k == 0 || span(self.k, self.ldb, nr).is_some_and(|need| need <= next.len())));
    }
}

/// Computes one tile; only reachable through [`Kernels`], which exists only for an ISA this
/// CPU has.
pub(crate) type TileFn = for<'a> fn(Tile<'a>);

/// An ISA's kernels and the blocking that suits them.
#[derive(Clone, Copy)]
pub(crate) struct Kernels {
    /// Rows of the largest tile.
    pub mr: usize,
    /// Columns of every tile, and the width of a packed panel.
    pub nr: usize,
    /// K steps per pass: a `kc` x `nr` slice of a panel should stay in L1 across a row block.
    pub kc: usize,
    /// Rows per block: an `mc` x `kc` block of A should stay in L2 across all panels.
    pub mc: usize,
    /// `tiles[r - 1]` computes an `r`-row tile.
    pub tiles: &'static [TileFn],
    /// Like `tiles` but `nr / 2` columns wide, for a last panel that narrow: half the work
    /// where N leaves a small remainder.
    pub narrow: Option<&'static [TileFn]>,
}
