//! Depthwise convolution over NHWC: each output channel reads one input channel, so the
//! natural vector runs along channels. Four adjacent output pixels are computed together
//! where their windows lie inside the image: each weight vector loaded feeds four FMAs, and
//! four independent accumulator chains (times two vectors of channels) hide FMA latency.

use crate::pixels::{self, Block, Columns};
use crate::simd::{taps, Simd};
use crate::vector::{F32s, Scalar};
use std::ops::Range;

/// A depthwise convolution over an NHWC image (one input channel per output channel).
pub(crate) struct Depthwise {
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub ow: usize,
    pub kh: usize,
    pub kw: usize,
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub pad: [usize; 2],
    /// `[kh][kw][c]`: the taps of one channel block are contiguous.
    pub weights: Vec<f32>,
    /// `c` values (zeros without a bias).
    pub bias: Vec<f32>,
}

/// A depthwise convolution's input: float32 values, or 8-bit activations stored as bytes
/// (`stored::Bytes`: value `(b - offset) * scale`), decoded as the kernel loads them.
#[derive(Clone, Copy)]
pub(crate) enum Input<'a> {
    Floats(&'a [f32]),
    Bytes(&'a [u8], f32, f32),
}

impl Input<'_> {
    fn len(&self) -> usize {
        match self {
            Input::Floats(x) => x.len(),
            Input::Bytes(x, ..) => x.len(),
        }
    }
}

/// How the kernel loads `LANES` input values from element `i`.
trait Load: Copy {
    unsafe fn load<V: F32s>(self, i: usize) -> V;
}

#[derive(Clone, Copy)]
struct Floats(*const f32);

impl Load for Floats {
    #[inline(always)]
    unsafe fn load<V: F32s>(self, i: usize) -> V {
        unsafe { V::load(self.0.add(i)) }
    }
}

/// Bytes decoded as `stored::Bytes::decode` does: `b - offset` is exact, so the product
/// rounds once, to the stored value.
#[derive(Clone, Copy)]
struct Decoded(*const u8, f32, f32);

impl Load for Decoded {
    #[inline(always)]
    unsafe fn load<V: F32s>(self, i: usize) -> V {
        unsafe { V::load_bytes(self.0.add(i)).sub(V::splat(self.1)).mul(V::splat(self.2)) }
    }
}

impl Depthwise {
    /// Output row `oy` (`ow * c` values) of the image `x` (`h * w * c` values), clamped to
    /// `[lo, hi]`.
    pub(crate) fn row(&self, simd: Simd, x: Input, oy: usize, out: &mut [f32], lo: f32, hi: f32) {
        let iy0 = (oy * self.stride[0]) as isize - self.pad[0] as isize;
        // The kernels index by pointer: these bounds are what they rely on.
        assert!(x.len() >= self.h * self.w * self.c && out.len() >= self.ow * self.c);
        assert!(self.weights.len() >= self.kh * self.kw * self.c && self.bias.len() >= self.c);
        match x {
            Input::Floats(v) => self.row_isa(simd, Floats(v.as_ptr()), iy0, out, lo, hi),
            Input::Bytes(v, offset, scale) => self.row_isa(simd, Decoded(v.as_ptr(), offset, scale), iy0, out, lo, hi),
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn row_isa<S: Load>(&self, simd: Simd, x: S, iy0: isize, out: &mut [f32], lo: f32, hi: f32) {
        match simd {
            // SAFETY: `Simd` comes from `Isa::detect`, which checked the features.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { row_avx512(self, x, iy0, out, lo, hi) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { row_avx2(self, x, iy0, out, lo, hi) },
            // SAFETY: the bounds were asserted by the caller (simd128 is a build-time feature).
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            _ => unsafe { row_generic::<crate::vector::Simd128, Scalar, S>(self, x, iy0, out, lo, hi) },
            // SAFETY: the bounds were asserted by the caller.
            #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
            _ => unsafe { row_generic::<Scalar, Scalar, S>(self, x, iy0, out, lo, hi) },
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn row_avx512<S: Load>(d: &Depthwise, x: S, iy0: isize, out: &mut [f32], lo: f32, hi: f32) {
    unsafe { row_generic::<crate::vector::Avx512, crate::vector::Avx2, S>(d, x, iy0, out, lo, hi) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn row_avx2<S: Load>(d: &Depthwise, x: S, iy0: isize, out: &mut [f32], lo: f32, hi: f32) {
    unsafe { row_generic::<crate::vector::Avx2, Scalar, S>(d, x, iy0, out, lo, hi) }
}

/// The geometry of one output row, shared by its pixel blocks.
struct Row {
    iy0: isize,
    kys: Range<usize>,
    lo: f32,
    hi: f32,
}

/// One output row whose window starts at input row `iy0`: `V` the widest vector, `H` a
/// narrower one for the channels left over.
#[inline(always)]
unsafe fn row_generic<V: F32s, H: F32s, S: Load>(
    d: &Depthwise,
    x: S,
    iy0: isize,
    out: &mut [f32],
    lo: f32,
    hi: f32,
) {
    let row = Row {
        iy0,
        kys: taps(iy0, d.dilation[0], d.h, d.kh),
        lo,
        hi,
    };
    let cols = Columns { w: d.w, ow: d.ow, kw: d.kw, stride: d.stride[1], dilation: d.dilation[1], pad: d.pad[1] };
    unsafe { pixels::row::<V, H, _>(&DepthwiseRow { d, x, row }, &cols, out) }
}

/// One output row of the depthwise kernel, as `pixels::row` walks it.
struct DepthwiseRow<'a, S> {
    d: &'a Depthwise,
    x: S,
    row: Row,
}

impl<S: Load> Block for DepthwiseRow<'_, S> {
    fn channels(&self) -> usize {
        self.d.c
    }

    #[inline(always)]
    unsafe fn block<V: F32s, const R: usize, const P: usize>(&self, ix0: isize, kxs: Range<usize>, c0: usize, out: *mut f32) {
        let (d, x, row) = (self.d, self.x, &self.row);
        let (c, lanes, sx) = (d.c, V::LANES, d.stride[1] * d.c);
        let w = d.weights.as_ptr();
        // SAFETY (all pointer offsets): taps keep (iy, ix) inside the image for every pixel
        // of the block, channels stay below `c`, and `row` asserted the slices' lengths.
        unsafe {
            let mut acc = pixels::biased::<V, R, P>(d.bias.as_ptr(), c0);
            for ky in row.kys.clone() {
                let iy = (row.iy0 + (ky * d.dilation[0]) as isize) as usize;
                for kx in kxs.clone() {
                    let ix = (ix0 + (kx * d.dilation[1]) as isize) as usize;
                    let xi = (iy * d.w + ix) * c + c0;
                    let wp = w.add((ky * d.kw + kx) * c + c0);
                    for r in 0..R {
                        let wv = V::load(wp.add(r * lanes));
                        for (p, a) in acc.iter_mut().enumerate() {
                            a[r] = x.load::<V>(xi + p * sx + r * lanes).mul_add(wv, a[r]);
                        }
                    }
                }
            }
            pixels::store(&acc, out, c, c0, row.lo, row.hi);
        }
    }
}

