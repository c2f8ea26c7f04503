//! Depthwise convolution over NHWC: each output channel reads one input channel, so the
//! natural vector runs along channels. Four adjacent output pixels are computed together
//! where their windows lie inside the image: each weight vector loaded feeds four FMAs, and
//! four independent accumulator chains (times two vectors of channels) hide FMA latency.

use crate::pixels::{self, Block, Columns};
use crate::simd::{taps, Simd};
use crate::vector::{F32s, Scalar};
use std::cell::RefCell;
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

/// `src`'s bytes decoded into `dst` as `Decoded` loads them: `(b - offset) * scale`, the
/// stored values bit for bit (`stored::Bytes`).
pub(crate) fn decode(simd: Simd, src: &[u8], offset: f32, scale: f32, dst: &mut [f32]) {
    crate::simd::dispatch!(simd, decode_generic(src, offset, scale, dst))
}

#[inline(always)]
fn decode_generic<const VEX: bool>(src: &[u8], offset: f32, scale: f32, dst: &mut [f32]) {
    for (d, &b) in dst.iter_mut().zip(src) {
        *d = (b as f32 - offset) * scale;
    }
}

thread_local! {
    /// Each thread's ring of input rows (`Ring`), kept between steps.
    static RING: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// A task's window rows, computed once each as its output rows move down: a ring of
/// `(kh - 1) * dilation + 1` rows of `w * c` values where input row `iy` lies at slot
/// `iy % slots` (`Depthwise::ring_row`). The rows come from a fused expansion's GEMM
/// (`expand.rs`) or from 8-bit activations decoded once (a byte input's window rows are
/// read by up to `kh * kw` taps each, and decoding as they load cost four vector operations
/// per tap where the FMA is one).
pub(crate) struct Ring<'a> {
    d: &'a Depthwise,
    rows: &'a mut Vec<f32>,
    slots: usize,
    /// The image and input row the ring holds rows up to (excluded).
    next: Option<(usize, usize)>,
}

impl Ring<'_> {
    /// Output row `oy` of image `b` into `out`, clamped to `[lo, hi]`, after `fill(b, iy,
    /// slot)` has put each window row not yet in the ring into its slot. Rows of an image
    /// come in increasing order.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn row(&mut self, simd: Simd, b: usize, oy: usize, out: &mut [f32], lo: f32, hi: f32, mut fill: impl FnMut(usize, usize, &mut [f32])) {
        let (d, line) = (self.d, self.d.w * self.d.c);
        let window = d.window_rows(oy);
        let (first, end) = (window.start.max(0) as usize, (window.end.max(0) as usize).min(d.h));
        let from = match self.next {
            Some((image, iy)) if image == b => iy.max(first),
            _ => first,
        };
        for iy in from..end {
            fill(b, iy, &mut self.rows[(iy % self.slots) * line..][..line]);
        }
        self.next = Some((b, end.max(from)));
        d.ring_row(simd, self.rows, self.slots, oy, out, lo, hi);
    }
}

/// The most window rows (`(kh - 1) * dilation + 1`) a ring of input rows serves
/// (`Depthwise::ring_row`).
pub(crate) const RING_TAPS: usize = 16;

/// Where a row's window rows lie: in the image, row `iy` at `iy * w * c`; or in a ring of
/// input rows, tap row `ky` at `lines[ky]` (`Depthwise::ring_row`).
#[derive(Clone, Copy)]
enum Lines {
    Image,
    Ring([usize; RING_TAPS]),
}

impl Depthwise {
    /// Output row `oy` (`ow * c` values) of the image `x` (`h * w * c` values), clamped to
    /// `[lo, hi]`.
    pub(crate) fn row(&self, simd: Simd, x: Input, oy: usize, out: &mut [f32], lo: f32, hi: f32) {
        // The kernels index by pointer: these bounds are what they rely on.
        assert!(x.len() >= self.h * self.w * self.c);
        match x {
            Input::Floats(v) => self.row_isa(simd, Floats(v.as_ptr()), oy, Lines::Image, out, lo, hi),
            Input::Bytes(v, offset, scale) => self.row_isa(simd, Decoded(v.as_ptr(), offset, scale), oy, Lines::Image, out, lo, hi),
        }
    }

    /// `f` with this thread's ring, empty, sized for this convolution.
    pub(crate) fn with_ring<R>(&self, f: impl FnOnce(&mut Ring) -> R) -> R {
        let slots = self.window_rows(0).len();
        RING.with_borrow_mut(|rows| {
            // Grown, never shrunk: a resize down then up would zero the ring again.
            if rows.len() < slots * self.w * self.c {
                rows.resize(slots * self.w * self.c, 0.0);
            }
            f(&mut Ring { d: self, rows, slots, next: None })
        })
    }

    /// The window rows of output row `oy`: `(kh - 1) * dilation + 1` input rows from
    /// `oy * stride - pad`.
    pub(crate) fn window_rows(&self, oy: usize) -> Range<isize> {
        let iy0 = (oy * self.stride[0]) as isize - self.pad[0] as isize;
        iy0..iy0 + ((self.kh - 1) * self.dilation[0] + 1) as isize
    }

    /// `row` reading its window rows from `ring`, `slots` rows of `w * c` values where input
    /// row `iy` is at slot `iy % slots` (a fused expansion's rows, `Conv::expanded`). The
    /// window's rows inside the image must be there; its height at most `RING_TAPS`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ring_row(&self, simd: Simd, ring: &[f32], slots: usize, oy: usize, out: &mut [f32], lo: f32, hi: f32) {
        let iy0 = self.window_rows(oy).start;
        assert!(self.window_rows(oy).len() <= RING_TAPS && slots > 0 && ring.len() >= slots * self.w * self.c);
        let mut lines = [0; RING_TAPS];
        for ky in taps(iy0, self.dilation[0], self.h, self.kh) {
            let iy = (iy0 + (ky * self.dilation[0]) as isize) as usize;
            lines[ky] = (iy % slots) * self.w * self.c;
        }
        self.row_isa(simd, Floats(ring.as_ptr()), oy, Lines::Ring(lines), out, lo, hi)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn row_isa<S: Load>(&self, simd: Simd, x: S, oy: usize, lines: Lines, out: &mut [f32], lo: f32, hi: f32) {
        assert!(out.len() >= self.ow * self.c);
        assert!(self.weights.len() >= self.kh * self.kw * self.c && self.bias.len() >= self.c);
        let iy0 = self.window_rows(oy).start;
        match simd {
            // SAFETY: `Simd` comes from `Isa::detect`, which checked the features.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { row_avx512(self, x, iy0, lines, out, lo, hi) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { row_avx2(self, x, iy0, lines, out, lo, hi) },
            // SAFETY: the bounds were asserted by the callers (simd128 is a build-time
            // feature).
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            _ => unsafe { row_generic::<crate::vector::Simd128, Scalar, S>(self, x, iy0, lines, out, lo, hi) },
            // SAFETY: the bounds were asserted by the callers.
            #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
            _ => unsafe { row_generic::<Scalar, Scalar, S>(self, x, iy0, lines, out, lo, hi) },
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn row_avx512<S: Load>(d: &Depthwise, x: S, iy0: isize, lines: Lines, out: &mut [f32], lo: f32, hi: f32) {
    unsafe { row_generic::<crate::vector::Avx512, crate::vector::Avx2, S>(d, x, iy0, lines, out, lo, hi) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn row_avx2<S: Load>(d: &Depthwise, x: S, iy0: isize, lines: Lines, out: &mut [f32], lo: f32, hi: f32) {
    unsafe { row_generic::<crate::vector::Avx2, Scalar, S>(d, x, iy0, lines, out, lo, hi) }
}

/// The geometry of one output row, shared by its pixel blocks.
struct Row {
    iy0: isize,
    kys: Range<usize>,
    lines: Lines,
    lo: f32,
    hi: f32,
}

impl Row {
    /// The element offset of tap row `ky`'s input row (`iy`), pixel 0, channel 0.
    #[inline(always)]
    fn line(&self, d: &Depthwise, ky: usize, iy: usize) -> usize {
        match &self.lines {
            Lines::Image => iy * d.w * d.c,
            Lines::Ring(lines) => lines[ky],
        }
    }
}

/// One output row whose window starts at input row `iy0`: `V` the widest vector, `H` a
/// narrower one for the channels left over.
#[inline(always)]
unsafe fn row_generic<V: F32s, H: F32s, S: Load>(
    d: &Depthwise,
    x: S,
    iy0: isize,
    lines: Lines,
    out: &mut [f32],
    lo: f32,
    hi: f32,
) {
    let row = Row {
        iy0,
        kys: taps(iy0, d.dilation[0], d.h, d.kh),
        lines,
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
        // of the block, channels stay below `c`, and `row` asserted the slices' lengths
        // (`ring_row`: a ring's lines are whole rows inside it).
        unsafe {
            let mut acc = pixels::biased::<V, R, P>(d.bias.as_ptr(), c0);
            for ky in row.kys.clone() {
                let iy = (row.iy0 + (ky * d.dilation[0]) as isize) as usize;
                let line = row.line(d, ky, iy);
                for kx in kxs.clone() {
                    let ix = (ix0 + (kx * d.dilation[1]) as isize) as usize;
                    let xi = line + ix * c + c0;
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

