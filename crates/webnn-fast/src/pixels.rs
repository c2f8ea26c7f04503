//! The walk over one output row that the window kernels vectorised along channels (the
//! depthwise and stem kernels) share: four adjacent pixels at a time where their windows lie
//! inside the image (each weight vector loaded then feeds four FMAs), single pixels at the
//! edges; each pixel block's channels in blocks of two vectors, then one, then one of a
//! narrower vector, then single lanes. A kernel supplies only its block of accumulators.

use crate::simd::{inside_columns, taps};
use crate::vector::{F32s, Scalar};
use std::ops::Range;

/// A row's column geometry: `w` input columns, `ow` output ones, a window of `kw` taps
/// `dilation` apart from column `ox * stride - pad`.
pub(crate) struct Columns {
    pub w: usize,
    pub ow: usize,
    pub kw: usize,
    pub stride: usize,
    pub dilation: usize,
    pub pad: usize,
}

/// A kernel's block: output channels `c0..c0 + R * LANES` of `P` adjacent output pixels,
/// the first of whose windows starts at input column `ix0` and takes taps `kxs`; `out`
/// points at the first pixel's channel 0.
pub(crate) trait Block {
    /// Output channels per pixel.
    fn channels(&self) -> usize;

    /// # Safety
    /// `kxs` keeps every pixel's taps inside the image, `c0 + R * LANES` is at most
    /// `channels()`, and `out` has room for `P` pixels.
    unsafe fn block<V: F32s, const R: usize, const P: usize>(&self, ix0: isize, kxs: Range<usize>, c0: usize, out: *mut f32);
}

/// Output row `out` (`ow * channels()` values): `V` the widest vector, `H` a narrower one
/// for the channels left over (88 channels on AVX-512: five vectors and one of AVX2's, not
/// eight single lanes).
///
/// # Safety
/// The kernel's `block` relies on the bounds its caller asserted.
#[inline(always)]
pub(crate) unsafe fn row<V: F32s, H: F32s, K: Block>(k: &K, cols: &Columns, out: &mut [f32]) {
    let (first, end) = inside_columns(cols.w, cols.ow, cols.kw, cols.stride, cols.dilation, cols.pad);
    let mut ox = 0;
    while ox < cols.ow {
        if ox >= first && ox + 4 <= end {
            unsafe { pixels::<V, H, K, 4>(k, cols, ox, out) };
            ox += 4;
        } else {
            unsafe { pixels::<V, H, K, 1>(k, cols, ox, out) };
            ox += 1;
        }
    }
}

/// Output pixels `ox..ox + P`, every channel. With `P > 1` all their taps must lie inside
/// the image.
#[inline(always)]
unsafe fn pixels<V: F32s, H: F32s, K: Block, const P: usize>(k: &K, cols: &Columns, ox: usize, out: &mut [f32]) {
    let (c, lanes) = (k.channels(), V::LANES);
    let ix0 = (ox * cols.stride) as isize - cols.pad as isize;
    let kxs = if P == 1 { taps(ix0, cols.dilation, cols.w, cols.kw) } else { 0..cols.kw };
    let out = out[ox * c..].as_mut_ptr();
    let mut c0 = 0;
    // SAFETY (every block): channels stay below `c`, and `out` holds the row's pixels.
    unsafe {
        while c0 + 2 * lanes <= c {
            k.block::<V, 2, P>(ix0, kxs.clone(), c0, out);
            c0 += 2 * lanes;
        }
        while c0 + lanes <= c {
            k.block::<V, 1, P>(ix0, kxs.clone(), c0, out);
            c0 += lanes;
        }
        while H::LANES > 1 && c0 + H::LANES <= c {
            k.block::<H, 1, P>(ix0, kxs.clone(), c0, out);
            c0 += H::LANES;
        }
        while c0 < c {
            k.block::<Scalar, 1, P>(ix0, kxs.clone(), c0, out);
            c0 += 1;
        }
    }
}

/// `P` pixels' accumulators for channels `c0..c0 + R * LANES`, each starting at its bias.
///
/// # Safety
/// `bias` holds those channels.
#[inline(always)]
pub(crate) unsafe fn biased<V: F32s, const R: usize, const P: usize>(bias: *const f32, c0: usize) -> [[V; R]; P] {
    let first: [V; R] = std::array::from_fn(|r| unsafe { V::load(bias.add(c0 + r * V::LANES)) });
    [first; P]
}

/// The accumulators clamped to `[lo, hi]` into `out`, pixel `p` at `p * c`.
///
/// # Safety
/// `out` has room for `P` pixels of `c` channels, and `c0 + R * LANES <= c`.
#[inline(always)]
pub(crate) unsafe fn store<V: F32s, const R: usize, const P: usize>(acc: &[[V; R]; P], out: *mut f32, c: usize, c0: usize, lo: f32, hi: f32) {
    let (lo, hi) = unsafe { (V::splat(lo), V::splat(hi)) };
    for (p, a) in acc.iter().enumerate() {
        for (r, v) in a.iter().enumerate() {
            unsafe { v.clamp(lo, hi).store(out.add(p * c + c0 + r * V::LANES)) };
        }
    }
}
