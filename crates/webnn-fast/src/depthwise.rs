//! Depthwise convolution over NHWC: each output channel reads one input channel, so the
//! natural vector runs along channels. Four adjacent output pixels are computed together
//! where their windows lie inside the image: each weight vector loaded feeds four FMAs, and
//! four independent accumulator chains (times two vectors of channels) hide FMA latency.

use crate::simd::{inside_columns, taps, Simd};
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
    let (first, end) = inside_columns(d.w, d.ow, d.kw, d.stride[1], d.dilation[1], d.pad[1]);
    let mut ox = 0;
    while ox < d.ow {
        if ox >= first && ox + 4 <= end {
            unsafe { pixels::<V, H, S, 4>(d, x, &row, ox, out) };
            ox += 4;
        } else {
            unsafe { pixels::<V, H, S, 1>(d, x, &row, ox, out) };
            ox += 1;
        }
    }
}

/// Output pixels `ox..ox + P`, every channel: blocks of two vectors, then one, then one of
/// `H`, then single lanes. With `P > 1` all their taps must lie inside the image.
#[inline(always)]
unsafe fn pixels<V: F32s, H: F32s, S: Load, const P: usize>(
    d: &Depthwise,
    x: S,
    row: &Row,
    ox: usize,
    out: &mut [f32],
) {
    let (c, lanes) = (d.c, V::LANES);
    let ix0 = (ox * d.stride[1]) as isize - d.pad[1] as isize;
    let kxs = if P == 1 {
        taps(ix0, d.dilation[1], d.w, d.kw)
    } else {
        0..d.kw
    };
    let out = out[ox * c..].as_mut_ptr();
    let mut c0 = 0;
    while c0 + 2 * lanes <= c {
        unsafe { block::<V, S, 2, P>(d, x, row, ix0, kxs.clone(), c0, out) };
        c0 += 2 * lanes;
    }
    while c0 + lanes <= c {
        unsafe { block::<V, S, 1, P>(d, x, row, ix0, kxs.clone(), c0, out) };
        c0 += lanes;
    }
    // A narrower vector for the channels left over (88 channels on AVX-512: five vectors
    // and one of AVX2's, not eight single lanes).
    while H::LANES > 1 && c0 + H::LANES <= c {
        unsafe { block::<H, S, 1, P>(d, x, row, ix0, kxs.clone(), c0, out) };
        c0 += H::LANES;
    }
    while c0 < c {
        unsafe { block::<Scalar, S, 1, P>(d, x, row, ix0, kxs.clone(), c0, out) };
        c0 += 1;
    }
}

/// Channels `c0..c0 + R * LANES` of `P` pixels; `out` points at the first pixel's channel 0.
#[inline(always)]
unsafe fn block<V: F32s, S: Load, const R: usize, const P: usize>(
    d: &Depthwise,
    x: S,
    row: &Row,
    ix0: isize,
    kxs: Range<usize>,
    c0: usize,
    out: *mut f32,
) {
    let (c, lanes, sx) = (d.c, V::LANES, d.stride[1] * d.c);
    let (w, bias) = (d.weights.as_ptr(), d.bias.as_ptr());
    // SAFETY (all pointer offsets): taps keep (iy, ix) inside the image for every pixel of
    // the block, channels stay below `c`, and `row` asserted the slices' lengths.
    unsafe {
        let mut acc = [[V::splat(0.0); R]; P];
        for r in 0..R {
            let b = V::load(bias.add(c0 + r * lanes));
            for a in acc.iter_mut() {
                a[r] = b;
            }
        }
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
        let (lo, hi) = (V::splat(row.lo), V::splat(row.hi));
        for (p, a) in acc.iter().enumerate() {
            for (r, v) in a.iter().enumerate() {
                v.clamp(lo, hi).store(out.add(p * c + c0 + r * lanes));
            }
        }
    }
}

