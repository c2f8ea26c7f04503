//! Dense convolutions with few output channels (an image-to-image network's last layer,
//! `32 -> 3` over a 9x9 window): a GEMM would fill 3 of a 16-column panel, so each output
//! pixel is instead a handful of dot products, one per output channel, along the window's
//! rows (in NHWC a window row is `kw * c` contiguous inputs, and the filter is laid out to
//! match). Eight partial sums per dot product let the compiler vectorise it.

use crate::simd::{self, dispatch, fma, Simd};

/// The filter and geometry of such a convolution.
pub(crate) struct Narrow {
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub oc: usize,
    pub kh: usize,
    pub kw: usize,
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub pad: [usize; 2],
    /// `[oc][kh][kw][c]`.
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
}

/// The output channels this path takes (a 16-wide panel would be at most a quarter full).
pub(crate) const MAX_CHANNELS: usize = 4;

impl Narrow {
    /// Output row `oy` of one image (`x`: its NHWC pixels) into `out` ([ow, oc]), clamped.
    pub(crate) fn row(&self, simd: Simd, x: &[f32], oy: usize, out: &mut [f32], lo: f32, hi: f32) {
        dispatch!(simd, row_generic(self, x, oy, out, lo, hi))
    }
}

#[inline(always)]
fn row_generic<const FMA: bool>(n: &Narrow, x: &[f32], oy: usize, out: &mut [f32], lo: f32, hi: f32) {
    let (c, oc, kw) = (n.c, n.oc, n.kw);
    let iy0 = (oy * n.stride[0]) as isize - n.pad[0] as isize;
    let rows = simd::taps(iy0, n.dilation[0], n.h, n.kh);
    for (ox, px) in out.chunks_exact_mut(oc).enumerate() {
        let ix0 = (ox * n.stride[1]) as isize - n.pad[1] as isize;
        let cols = simd::taps(ix0, n.dilation[1], n.w, kw);
        px.copy_from_slice(&n.bias);
        for ky in rows.clone() {
            let iy = (iy0 + (ky * n.dilation[0]) as isize) as usize;
            let x_row = &x[iy * n.w * c..][..n.w * c];
            // Without dilation the in-image window columns are contiguous: one segment.
            let (segments, count) = match n.dilation[1] {
                1 => (cols.start..cols.start + usize::from(!cols.is_empty()), cols.len()),
                _ => (cols.clone(), 1),
            };
            for kx in segments {
                let ix = (ix0 + (kx * n.dilation[1]) as isize) as usize;
                let xs = &x_row[ix * c..][..count * c];
                let ws = &n.weights[(ky * kw + kx) * c..];
                dots::<FMA>(xs, ws, n.kh * kw * c, px);
            }
        }
        px.iter_mut().for_each(|v| *v = simd::clamp(*v, lo, hi));
    }
}

/// `out[o] += xs · ws[o * stride..]` for every output channel at once: each 8-wide block
/// of `xs` is loaded once for all channels, and two blocks are in flight, so the channels'
/// sums are independent chains the FMA units overlap (one chain alone waits on the previous
/// FMA's latency at every step).
#[inline(always)]
fn dots<const FMA: bool>(xs: &[f32], ws: &[f32], stride: usize, out: &mut [f32]) {
    let (len, oc) = (xs.len(), out.len());
    let mut acc = [[[0.0f32; 8]; 2]; MAX_CHANNELS];
    let blocks = len / 8;
    let mut i = 0;
    while i + 2 <= blocks {
        for (half, a) in [i, i + 1].into_iter().enumerate() {
            let x = &xs[a * 8..][..8];
            for (o, acc) in acc.iter_mut().enumerate().take(oc) {
                let w = &ws[o * stride + a * 8..][..8];
                for l in 0..8 {
                    acc[half][l] = fma::<FMA>(x[l], w[l], acc[half][l]);
                }
            }
        }
        i += 2;
    }
    if i < blocks {
        let x = &xs[i * 8..][..8];
        for (o, acc) in acc.iter_mut().enumerate().take(oc) {
            let w = &ws[o * stride + i * 8..][..8];
            for l in 0..8 {
                acc[0][l] = fma::<FMA>(x[l], w[l], acc[0][l]);
            }
        }
    }
    for (o, sum) in out.iter_mut().enumerate() {
        let a = &acc[o];
        let lanes: [f32; 8] = std::array::from_fn(|l| a[0][l] + a[1][l]);
        let tail: f32 = (blocks * 8..len).map(|j| xs[j] * ws[o * stride + j]).sum();
        *sum += ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7])) + tail;
    }
}
