//! 3x3 stride-1 convolutions by Winograd's minimal filtering, F(2x2, 3x3) (Lavin and Gray,
//! "Fast Algorithms for Convolutional Neural Networks", 2016): each 2x2 block of outputs
//! from a 4x4 tile of input in 16 multiplications per channel pair where the direct form
//! takes 36, so 2.25 times fewer. Per tile, the input tile is transformed (`V = Bᵀ d B`,
//! additions only), the 16 elements become 16 GEMMs over channels against the filter
//! transformed at compile time (`U = G g Gᵀ`), and their results are transformed back to
//! the 2x2 outputs (`Y = Aᵀ M A`, additions only). The GEMMs are the existing kernels; the
//! transforms run along channels, which are contiguous in NHWC, so they vectorize.
//!
//! It pays where the GEMMs dominate the transforms, with many input and output channels (a
//! style transfer network's residual blocks, ResNet's 3x3 layers); the planner takes it
//! from `MIN_CHANNELS`. The transforms mix a tile's values, so an infinity or NaN in the
//! input would spread to outputs the direct form keeps finite or infinite: a dispatch whose
//! input holds one takes the im2col GEMM instead (`Kind::Winograd`'s fallback).
//!
//! Rounding differs from the direct sum's, by a few units in the last place of the sums'
//! magnitude (the transforms' additions), inside every tolerance the tests and WPT use.
//! Each tile's arithmetic depends only on the shape (tasks are whole bands of tile rows,
//! fixed per shape), so every thread count gives the same bits.

use crate::simd::Simd;
use crate::vector::{F32s, Scalar};
use std::cell::RefCell;
use webnn_gemm::{gemm, Epilogue, Isa, PackedB};

/// Input and output channels from which the planner takes this form: below, the
/// transforms' additions weigh too much against the GEMMs' multiply-adds.
pub(crate) const MIN_CHANNELS: usize = 16;

/// Tiles per GEMM, about: enough rows for the kernels, few enough that a band's 16
/// transformed matrices stay in L2.
const TILES: usize = 96;

pub(crate) struct Winograd {
    c: usize,
    oc: usize,
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    /// Padding at the top and the left.
    pad: [usize; 2],
    /// `U[ξ]`, `ξ = 4i + j`: the transformed filter's element (i, j) for every (input,
    /// output) channel pair, a `c` x `oc` B.
    u: Vec<PackedB>,
    /// `oc` values (zeros without a bias).
    bias: Vec<f32>,
    /// `c` zeros: the input window's pixels outside the image.
    zeros: Vec<f32>,
    /// Tile rows per task.
    band: usize,
}

thread_local! {
    /// Each thread's transformed input (`[16][tiles][c]`) and GEMM results
    /// (`[16][tiles][oc]`): GEMM `ξ`'s rows contiguous. (A tile's 16 rows side by side
    /// would put GEMM rows 16 rows apart, a power-of-two stride whose rows all fall in one
    /// L1 set: 20% slower.)
    static SCRATCH: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

impl Winograd {
    /// The form for an OIHW 3x3 filter over `c` channels into `oc`, an `h` x `w` input and
    /// an `oh` x `ow` output with padding `pad` at the top and left.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(isa: Isa, oihw: &[f32], (c, oc): (usize, usize), (h, w): (usize, usize), (oh, ow): (usize, usize), pad: [usize; 2], bias: Vec<f32>) -> Winograd {
        // U = G g Gᵀ per channel pair, in f64 and rounded once.
        const G: [[f64; 3]; 4] = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]];
        let mut u = vec![vec![0.0f32; c * oc]; 16];
        for o in 0..oc {
            for ic in 0..c {
                let g = &oihw[(o * c + ic) * 9..][..9];
                let mut gg = [[0.0f64; 3]; 4];
                for (i, row) in gg.iter_mut().enumerate() {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = (0..3).map(|k| G[i][k] * g[k * 3 + j] as f64).sum();
                    }
                }
                for i in 0..4 {
                    for j in 0..4 {
                        u[i * 4 + j][ic * oc + o] = (0..3).map(|k| gg[i][k] * G[j][k]).sum::<f64>() as f32;
                    }
                }
            }
        }
        let u = u.iter().map(|b| PackedB::new(isa, c, oc, b, None)).collect();
        let band = (TILES / ow.div_ceil(2)).max(1);
        Winograd { c, oc, h, w, oh, ow, pad, u, bias, zeros: vec![0.0; c], band }
    }

    /// Tasks over `n` images: bands of `band` tile rows, none across images.
    pub(crate) fn tasks(&self, n: usize) -> usize {
        n * self.oh.div_ceil(2).div_ceil(self.band)
    }

    /// Task `task`'s image and its output rows.
    pub(crate) fn rows(&self, task: usize) -> (usize, std::ops::Range<usize>) {
        let bands = self.oh.div_ceil(2).div_ceil(self.band);
        let (b, k) = (task / bands, task % bands);
        (b, 2 * k * self.band..(2 * (k + 1) * self.band).min(self.oh))
    }

    /// Output rows `rows` (`ow * oc` values each, into `out`) of image `x` (`h * w * c`
    /// values), clamped to `[lo, hi]`. `rows` starts on an even row (a task's).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn band(&self, simd: Simd, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32], lo: f32, hi: f32) {
        let (c, oc) = (self.c, self.oc);
        assert!(x.len() >= self.h * self.w * c && out.len() >= rows.len() * self.ow * oc && rows.start.is_multiple_of(2));
        let (ty0, ty1, tw) = (rows.start / 2, rows.end.div_ceil(2), self.ow.div_ceil(2));
        let tiles = (ty1 - ty0) * tw;
        SCRATCH.with_borrow_mut(|(v, m)| {
            v.resize(16 * tiles * c, 0.0);
            m.resize(16 * tiles * oc, 0.0);
            dispatch_input(simd, self, x, (ty0, ty1), v);
            for (xi, u) in self.u.iter().enumerate() {
                gemm(tiles, &v[xi * tiles * c..][..tiles * c], c, u, &mut m[xi * tiles * oc..][..tiles * oc], oc, Epilogue::NONE);
            }
            dispatch_output(simd, self, m, (ty0, ty1), rows.start, out, (lo, hi));
        });
    }
}

/// The input transform for the tiles of tile rows `tys`, compiled for the machine's
/// vectors (`input`).
fn dispatch_input(simd: Simd, wg: &Winograd, x: &[f32], tys: (usize, usize), v: &mut [f32]) {
    match simd {
        // SAFETY: `Simd` comes from `Isa::detect`, which checked the features.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { x86::input_avx512(wg, x, tys, v) },
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { x86::input_avx2(wg, x, tys, v) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        _ => input::<crate::vector::Simd128>(wg, x, tys, v),
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        _ => input::<Scalar>(wg, x, tys, v),
    }
}

/// The output transform, as `dispatch_input` (`output`).
fn dispatch_output(simd: Simd, wg: &Winograd, m: &[f32], tys: (usize, usize), oy0: usize, out: &mut [f32], bounds: (f32, f32)) {
    match simd {
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { x86::output_avx512(wg, m, tys, oy0, out, bounds) },
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { x86::output_avx2(wg, m, tys, oy0, out, bounds) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        _ => output::<crate::vector::Simd128>(wg, m, tys, oy0, out, bounds),
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        _ => output::<Scalar>(wg, m, tys, oy0, out, bounds),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{input, output, Winograd};
    use crate::vector::{Avx2, Avx512};

    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(super) unsafe fn input_avx512(wg: &Winograd, x: &[f32], tys: (usize, usize), v: &mut [f32]) {
        input::<Avx512>(wg, x, tys, v)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn input_avx2(wg: &Winograd, x: &[f32], tys: (usize, usize), v: &mut [f32]) {
        input::<Avx2>(wg, x, tys, v)
    }

    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(super) unsafe fn output_avx512(wg: &Winograd, m: &[f32], tys: (usize, usize), oy0: usize, out: &mut [f32], bounds: (f32, f32)) {
        output::<Avx512>(wg, m, tys, oy0, out, bounds)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn output_avx2(wg: &Winograd, m: &[f32], tys: (usize, usize), oy0: usize, out: &mut [f32], bounds: (f32, f32)) {
        output::<Avx2>(wg, m, tys, oy0, out, bounds)
    }
}

/// `V = Bᵀ d B` for the tiles of tile rows `tys` into `v` (`[16][tiles][c]`): d is the 4x4
/// input window from (2 ty - pad, 2 tx - pad), zeros outside the image. Channels `V::LANES`
/// at a time, then one at a time.
#[inline(always)]
fn input<V: F32s>(wg: &Winograd, x: &[f32], (ty0, ty1): (usize, usize), v: &mut [f32]) {
    let (c, tw) = (wg.c, wg.ow.div_ceil(2));
    let tiles = (ty1 - ty0) * tw;
    assert!(x.len() >= wg.h * wg.w * c && v.len() >= tiles * 16 * c);
    for ty in ty0..ty1 {
        for tx in 0..tw {
            let t = (ty - ty0) * tw + tx;
            let (iy0, ix0) = ((2 * ty) as isize - wg.pad[0] as isize, (2 * tx) as isize - wg.pad[1] as isize);
            let px = |i: usize, j: usize| {
                let (iy, ix) = (iy0 + i as isize, ix0 + j as isize);
                match (0..wg.h as isize).contains(&iy) && (0..wg.w as isize).contains(&ix) {
                    true => x[(iy as usize * wg.w + ix as usize) * c..][..c].as_ptr(),
                    false => wg.zeros.as_ptr(),
                }
            };
            let d: [[*const f32; 4]; 4] = std::array::from_fn(|i| std::array::from_fn(|j| px(i, j)));
            // Tile `t`'s row of element ξ's matrix.
            let dst = v[t * c..].as_mut_ptr();
            let mut ch = 0;
            // SAFETY (both): every `d` points at `c` floats, `dst` at row `t` of 16 matrices
            // of `tiles` rows of `c`, and the channels stay below `c`.
            while ch + V::LANES <= c {
                unsafe { tile_in::<V>(&d, ch, dst, tiles * c) };
                ch += V::LANES;
            }
            for ch in ch..c {
                unsafe { tile_in::<Scalar>(&d, ch, dst, tiles * c) };
            }
        }
    }
}

/// One tile's input transform for channels `at..at + LANES`: element ξ to `dst + ξ·step`.
///
/// # Safety
/// Each `d` has those channels, and `dst + ξ·step` too, for ξ < 16.
#[inline(always)]
unsafe fn tile_in<V: F32s>(d: &[[*const f32; 4]; 4], at: usize, dst: *mut f32, step: usize) {
    unsafe {
        // (No closures over intrinsics here: a closure does not inherit the caller's target
        // features, and one left out of line would call them as functions.)
        // Bᵀ d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3 (t[r][j]: row r, column j).
        let mut t = [[V::splat(0.0); 4]; 4];
        for j in 0..4 {
            let (d0, d1) = (V::load(d[0][j].add(at)), V::load(d[1][j].add(at)));
            let (d2, d3) = (V::load(d[2][j].add(at)), V::load(d[3][j].add(at)));
            t[0][j] = d0.sub(d2);
            t[1][j] = d1.add(d2);
            t[2][j] = d2.sub(d1);
            t[3][j] = d1.sub(d3);
        }
        // (Bᵀ d) B: the same along each row.
        for (r, t) in t.iter().enumerate() {
            let row = [t[0].sub(t[2]), t[1].add(t[2]), t[2].sub(t[1]), t[1].sub(t[3])];
            for (j, val) in row.into_iter().enumerate() {
                val.store(dst.add((r * 4 + j) * step + at));
            }
        }
    }
}

/// `Y = Aᵀ M A` plus the bias, clamped, for the tiles of tile rows `tys` from `m`
/// (`[16][tiles][oc]`) into `out`, output rows from `oy0`; a tile's outputs beyond the
/// image's last row or column are not stored (they go to a scratch row).
#[inline(always)]
fn output<V: F32s>(wg: &Winograd, m: &[f32], (ty0, ty1): (usize, usize), oy0: usize, out: &mut [f32], (lo, hi): (f32, f32)) {
    let (oc, tw) = (wg.oc, wg.ow.div_ceil(2));
    let row_len = wg.ow * oc;
    let (rows, tiles) = ((2 * ty1).min(wg.oh) - oy0, (ty1 - ty0) * tw);
    assert!(m.len() >= tiles * 16 * oc && out.len() >= rows * row_len && wg.bias.len() >= oc);
    let mut scratch = vec![0.0f32; oc];
    for ty in ty0..ty1 {
        for tx in 0..tw {
            let t = (ty - ty0) * tw + tx;
            let (oy, ox) = (2 * ty - oy0, 2 * tx);
            let src = m[t * oc..].as_ptr();
            let mut y = [scratch.as_mut_ptr(); 4];
            for (k, y) in y.iter_mut().enumerate() {
                let (dy, dx) = (k / 2, k % 2);
                if oy + dy < rows && ox + dx < wg.ow {
                    *y = out[(oy + dy) * row_len + (ox + dx) * oc..][..oc].as_mut_ptr();
                }
            }
            let mut o = 0;
            // SAFETY (both): `src + ξ·tiles·oc` has `oc` floats for ξ < 16, each `y` `oc`,
            // the bias `oc`.
            while o + V::LANES <= oc {
                unsafe { tile_out::<V>(src, wg.bias.as_ptr(), o, tiles * oc, (lo, hi), &y) };
                o += V::LANES;
            }
            for o in o..oc {
                unsafe { tile_out::<Scalar>(src, wg.bias.as_ptr(), o, tiles * oc, (lo, hi), &y) };
            }
        }
    }
}

/// One tile's output transform for output channels `at..at + LANES` (element ξ at
/// `m + ξ·step`), plus the bias, clamped.
///
/// # Safety
/// `m + ξ·step`, `bias` and each `y` have those channels.
#[inline(always)]
unsafe fn tile_out<V: F32s>(m: *const f32, bias: *const f32, at: usize, step: usize, (lo, hi): (f32, f32), y: &[*mut f32; 4]) {
    unsafe {
        // Aᵀ M: rows m0 + m1 + m2 and m1 - m2 - m3 (row i: elements 4i..4i + 4).
        let (mut r0, mut r1) = ([V::splat(0.0); 4], [V::splat(0.0); 4]);
        for (j, (r0, r1)) in r0.iter_mut().zip(&mut r1).enumerate() {
            let (m0, m1) = (V::load(m.add(j * step + at)), V::load(m.add((4 + j) * step + at)));
            let (m2, m3) = (V::load(m.add((8 + j) * step + at)), V::load(m.add((12 + j) * step + at)));
            *r0 = m0.add(m1).add(m2);
            *r1 = m1.sub(m2).sub(m3);
        }
        let r = [r0, r1];
        let (b, lo, hi) = (V::load(bias.add(at)), V::splat(lo), V::splat(hi));
        for (i, r) in r.iter().enumerate() {
            let first = r[0].add(r[1]).add(r[2]).add(b);
            let second = r[1].sub(r[2]).sub(r[3]).add(b);
            first.clamp(lo, hi).store(y[2 * i].add(at));
            second.clamp(lo, hi).store(y[2 * i + 1].add(at));
        }
    }
}

/// Whether every value is finite (the transforms need it: module comment).
pub(crate) fn finite(simd: Simd, x: &[f32]) -> bool {
    #[inline(always)]
    fn generic<const FMA: bool>(x: &[f32], ok: &mut bool) {
        // A count, not `all`: the sum vectorizes as a reduction.
        *ok = x.chunks(4096).all(|c| c.iter().map(|v| u32::from(!v.is_finite())).sum::<u32>() == 0);
    }
    let mut ok = true;
    crate::simd::dispatch!(simd, generic(x, &mut ok));
    ok
}
