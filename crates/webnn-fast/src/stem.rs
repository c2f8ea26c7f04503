//! Dense convolutions over a few input channels into many output channels: an image
//! network's first layer (RGB, 3x3, stride 2, 32 channels out). As an im2col GEMM its K is
//! 27 and every output pixel's window is copied first; here each output pixel's channels
//! are vectors of accumulators that stay in registers while every tap's few input values
//! are broadcast into them, four pixels at a time so that each weight vector loaded feeds
//! four FMAs. The input is read where it lies, NHWC or NCHW (a graph input), so an NCHW
//! input needs no transpose either.

use crate::pixels::{self, Block, Columns};
use crate::simd::{taps, Simd};
use crate::vector::{F32s, Scalar};
use std::ops::Range;

/// The input channels this path takes.
pub(crate) const MAX_INPUT_CHANNELS: usize = 4;

/// A dense convolution with at most `MAX_INPUT_CHANNELS` input channels.
pub(crate) struct Stem {
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub ow: usize,
    pub oc: usize,
    pub kh: usize,
    pub kw: usize,
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub pad: [usize; 2],
    /// The input image is stored NCHW (else NHWC).
    pub nchw: bool,
    /// `[kh][kw][c][oc]`: a tap's output channels are contiguous.
    pub weights: Vec<f32>,
    /// `oc` values (zeros without a bias).
    pub bias: Vec<f32>,
}

/// One output row's geometry: the window's first input row, its taps inside the image, the
/// input's strides (channel, row, column) and the clamp.
struct Row {
    iy0: isize,
    kys: Range<usize>,
    strides: [usize; 3],
    lo: f32,
    hi: f32,
}

impl Stem {
    /// Output row `oy` (`ow * oc` values) of the image `x` (`c * h * w` values), clamped to
    /// `[lo, hi]`.
    pub(crate) fn row(&self, simd: Simd, x: &[f32], oy: usize, out: &mut [f32], lo: f32, hi: f32) {
        // The kernels index by pointer: these bounds are what they rely on.
        assert!(x.len() >= self.c * self.h * self.w && out.len() >= self.ow * self.oc);
        assert!(self.weights.len() >= self.kh * self.kw * self.c * self.oc && self.bias.len() >= self.oc);
        let iy0 = (oy * self.stride[0]) as isize - self.pad[0] as isize;
        let strides = match self.nchw {
            true => [self.h * self.w, self.w, 1],
            false => [1, self.w * self.c, self.c],
        };
        let row = Row { iy0, kys: taps(iy0, self.dilation[0], self.h, self.kh), strides, lo, hi };
        match simd {
            // SAFETY: `Simd` comes from `Isa::detect`, which checked the features.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { row_avx512(self, x, &row, out) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { row_avx2(self, x, &row, out) },
            // SAFETY: the bounds were asserted above (simd128 is a build-time feature).
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            _ => unsafe { row_generic::<crate::vector::Simd128, Scalar>(self, x, &row, out) },
            // SAFETY: the bounds were asserted above.
            #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
            _ => unsafe { row_generic::<Scalar, Scalar>(self, x, &row, out) },
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn row_avx512(s: &Stem, x: &[f32], row: &Row, out: &mut [f32]) {
    unsafe { row_generic::<crate::vector::Avx512, crate::vector::Avx2>(s, x, row, out) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn row_avx2(s: &Stem, x: &[f32], row: &Row, out: &mut [f32]) {
    unsafe { row_generic::<crate::vector::Avx2, Scalar>(s, x, row, out) }
}

/// `V` the widest vector, `H` a narrower one for the channels left over (an 8-channel
/// layer on AVX-512 takes AVX2's vectors, not eight single lanes).
#[inline(always)]
unsafe fn row_generic<V: F32s, H: F32s>(s: &Stem, x: &[f32], row: &Row, out: &mut [f32]) {
    let cols = Columns { w: s.w, ow: s.ow, kw: s.kw, stride: s.stride[1], dilation: s.dilation[1], pad: s.pad[1] };
    unsafe { pixels::row::<V, H, _>(&StemRow { s, x, row }, &cols, out) }
}

/// One output row of the stem kernel, as `pixels::row` walks it.
struct StemRow<'a> {
    s: &'a Stem,
    x: &'a [f32],
    row: &'a Row,
}

impl Block for StemRow<'_> {
    fn channels(&self) -> usize {
        self.s.oc
    }

    #[inline(always)]
    unsafe fn block<V: F32s, const R: usize, const P: usize>(&self, ix0: isize, kxs: Range<usize>, c0: usize, out: *mut f32) {
        let (s, row) = (self.s, self.row);
        let (oc, lanes) = (s.oc, V::LANES);
        let [cs, ys, xs] = row.strides;
        let (x, w) = (self.x.as_ptr(), s.weights.as_ptr());
        // SAFETY (all pointer offsets): taps keep (iy, ix) inside the image for every pixel
        // of the block, channels stay below `c` and `oc`, and `row` asserted the slices'
        // lengths.
        unsafe {
            let mut acc = pixels::biased::<V, R, P>(s.bias.as_ptr(), c0);
            for ky in row.kys.clone() {
                let iy = (row.iy0 + (ky * s.dilation[0]) as isize) as usize;
                for kx in kxs.clone() {
                    let ix = (ix0 + (kx * s.dilation[1]) as isize) as usize;
                    for ic in 0..s.c {
                        let wp = w.add(((ky * s.kw + kx) * s.c + ic) * oc + c0);
                        let xp = x.add(ic * cs + iy * ys + ix * xs);
                        let wv: [V; R] = std::array::from_fn(|r| V::load(wp.add(r * lanes)));
                        for (p, a) in acc.iter_mut().enumerate() {
                            let xv = V::splat(*xp.add(p * s.stride[1] * xs));
                            for r in 0..R {
                                a[r] = xv.mul_add(wv[r], a[r]);
                            }
                        }
                    }
                }
            }
            pixels::store(&acc, out, oc, c0, row.lo, row.hi);
        }
    }
}
