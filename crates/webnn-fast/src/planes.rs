//! Dense convolutions with few output channels over an NCHW image, for a stride-1,
//! undilated window without padding (an image-to-image network's last layer, `32 -> 3` over
//! a 9x9 window after an explicit reflection pad). Output pixels lie side by side in a
//! vector: at each tap the input row is loaded at the tap's column and multiplied by the
//! tap's weight, broadcast, for every output channel at once. Each load feeds one FMA per
//! output channel, and each tap's weights are loaded once per block of output pixels, where
//! the dot products of `narrow.rs` load an input and a weight for every FMA and reduce
//! across lanes at the end of each pixel.

use crate::simd::Simd;
use crate::vector::{F32s, Scalar};

/// The filter and geometry of such a convolution.
pub(crate) struct Planes {
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub oc: usize,
    pub ow: usize,
    pub kh: usize,
    pub kw: usize,
    /// `[c][kh][kw][oc]`: a tap's weights for every output channel together.
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
}

/// The output channels this path takes (accumulators for each must fit the registers).
pub(crate) const MAX_CHANNELS: usize = 4;

impl Planes {
    /// Output row `oy` of one image (`x`: its `c` planes of `h * w`) into `out` ([ow, oc],
    /// NHWC), clamped to `[lo, hi]`.
    pub(crate) fn row(&self, simd: Simd, x: &[f32], oy: usize, out: &mut [f32], lo: f32, hi: f32) {
        // The kernels index by pointer: these bounds are what they rely on.
        assert!(x.len() >= self.c * self.h * self.w && out.len() >= self.ow * self.oc);
        assert!(oy + self.kh <= self.h && self.ow + self.kw - 1 <= self.w);
        assert!(self.weights.len() >= self.c * self.kh * self.kw * self.oc && self.bias.len() >= self.oc);
        assert!((1..=MAX_CHANNELS).contains(&self.oc));
        let mut sums = vec![0.0f32; self.oc * self.ow];
        match simd {
            // SAFETY: `Simd` comes from `Isa::detect`, which checked the features.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { row_avx512(self, x, oy, &mut sums) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { row_avx2(self, x, oy, &mut sums) },
            // SAFETY: the bounds were asserted above (simd128 is a build-time feature).
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            _ => unsafe { by_channels::<crate::vector::Simd128, 4, 3>(self, x, oy, &mut sums) },
            // SAFETY: the bounds were asserted above.
            #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
            _ => unsafe { by_channels::<Scalar, 4, 3>(self, x, oy, &mut sums) },
        }
        for (ox, px) in out.chunks_exact_mut(self.oc).take(self.ow).enumerate() {
            for (o, v) in px.iter_mut().enumerate() {
                *v = crate::simd::clamp(sums[o * self.ow + ox] + self.bias[o], lo, hi);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn row_avx512(p: &Planes, x: &[f32], oy: usize, sums: &mut [f32]) {
    // 32 registers: up to 24 accumulators, a weight per channel and the input.
    unsafe { by_channels::<crate::vector::Avx512, 8, 6>(p, x, oy, sums) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn row_avx2(p: &Planes, x: &[f32], oy: usize, sums: &mut [f32]) {
    // 16 registers.
    unsafe { by_channels::<crate::vector::Avx2, 4, 3>(p, x, oy, sums) }
}

/// The row for `p.oc` output channels, `XB` vectors of pixels at a time for up to three
/// channels, `XB4` for four (the accumulators must stay in registers).
#[inline(always)]
unsafe fn by_channels<V: F32s, const XB: usize, const XB4: usize>(p: &Planes, x: &[f32], oy: usize, sums: &mut [f32]) {
    unsafe {
        match p.oc {
            1 => blocks::<V, XB, 1>(p, x, oy, sums),
            2 => blocks::<V, XB, 2>(p, x, oy, sums),
            3 => blocks::<V, XB, 3>(p, x, oy, sums),
            _ => blocks::<V, XB4, 4>(p, x, oy, sums),
        }
    }
}

/// Pixel blocks of `XB` vectors across the row, then single vectors, then single pixels.
#[inline(always)]
unsafe fn blocks<V: F32s, const XB: usize, const OC: usize>(p: &Planes, x: &[f32], oy: usize, sums: &mut [f32]) {
    let mut x0 = 0;
    unsafe {
        while x0 + XB * V::LANES <= p.ow {
            block::<V, XB, OC>(p, x, oy, x0, sums);
            x0 += XB * V::LANES;
        }
        while x0 + V::LANES <= p.ow {
            block::<V, 1, OC>(p, x, oy, x0, sums);
            x0 += V::LANES;
        }
        while x0 < p.ow {
            block::<Scalar, 1, OC>(p, x, oy, x0, sums);
            x0 += 1;
        }
    }
}

/// Output pixels `x0..x0 + XB * LANES` of row `oy` for the `OC` channels into `sums`
/// ([oc][ow]), without the bias.
#[inline(always)]
unsafe fn block<V: F32s, const XB: usize, const OC: usize>(p: &Planes, x: &[f32], oy: usize, x0: usize, sums: &mut [f32]) {
    unsafe {
        let mut acc = [[V::splat(0.0); XB]; OC];
        let taps = p.kh * p.kw;
        for ch in 0..p.c {
            for ky in 0..p.kh {
                let row = x.as_ptr().add((ch * p.h + oy + ky) * p.w + x0);
                let weights = p.weights.as_ptr().add((ch * taps + ky * p.kw) * OC);
                for kx in 0..p.kw {
                    let w: [V; OC] = std::array::from_fn(|o| V::splat(*weights.add(kx * OC + o)));
                    for b in 0..XB {
                        let v = V::load(row.add(kx + b * V::LANES));
                        for o in 0..OC {
                            acc[o][b] = v.mul_add(w[o], acc[o][b]);
                        }
                    }
                }
            }
        }
        for (o, acc) in acc.iter().enumerate() {
            for (b, v) in acc.iter().enumerate() {
                v.store(sums.as_mut_ptr().add(o * p.ow + x0 + b * V::LANES));
            }
        }
    }
}
