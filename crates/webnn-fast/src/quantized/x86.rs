//! The one- and two-row kernels with AVX2 + FMA and AVX-512.

use super::rows16::X16;
use crate::simd::avx2::sum8;
use std::arch::x86_64::*;

#[target_feature(enable = "avx2,fma")]
unsafe fn sum(v: __m256) -> f32 {
    let h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)))
}

/// `Σ_b Σ_t (q·scale[b] + shift[b])·x` over a 4-bit row (blocks a multiple of 32).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn q4_row(
    row: &[u8],
    x: &[f32],
    scale: &[f32],
    shift: &[f32],
    block: usize,
) -> f32 {
    let half = block / 2;
    assert!(
        row.len() >= scale.len() * half
            && x.len() >= scale.len() * block
            && shift.len() == scale.len()
    );
    let mask = _mm_set1_epi8(15);
    let mut acc = [_mm256_setzero_ps(); 4];
    for b in 0..scale.len() {
        let (s, c) = (_mm256_set1_ps(scale[b]), _mm256_set1_ps(shift[b]));
        let (q, xb) = (row.as_ptr().add(b * half), x.as_ptr().add(b * block));
        for t in (0..half).step_by(16) {
            let bytes = _mm_loadu_si128(q.add(t).cast());
            let lo = _mm_and_si128(bytes, mask);
            let hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
            let w =
                |v: __m128i| _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)), s, c);
            acc[0] = _mm256_fmadd_ps(w(lo), _mm256_loadu_ps(xb.add(t)), acc[0]);
            acc[1] = _mm256_fmadd_ps(
                w(_mm_srli_si128(lo, 8)),
                _mm256_loadu_ps(xb.add(t + 8)),
                acc[1],
            );
            acc[2] = _mm256_fmadd_ps(w(hi), _mm256_loadu_ps(xb.add(half + t)), acc[2]);
            acc[3] = _mm256_fmadd_ps(
                w(_mm_srli_si128(hi, 8)),
                _mm256_loadu_ps(xb.add(half + t + 8)),
                acc[3],
            );
        }
    }
    sum(_mm256_add_ps(
        _mm256_add_ps(acc[0], acc[1]),
        _mm256_add_ps(acc[2], acc[3]),
    ))
}

/// The 4-bit row with AVX-512, for blocks of 32 and 64 (other sizes take the AVX2
/// kernel): a block's sixteen bytes widen to one vector of sixteen lanes, and each lane's
/// nibble picks its weight from the block's sixteen dequantized values (`vpermps` reads
/// only an index's low four bits), so neither a mask nor a conversion is needed per
/// weight. The table is `fma(v, scale, shift)` for v in 0..16, the same rounding as
/// dequantizing each weight.
#[target_feature(enable = "avx512f,avx2,fma")]
pub(super) unsafe fn q4_row_avx512(
    row: &[u8],
    x: &[f32],
    scale: &[f32],
    shift: &[f32],
    block: usize,
) -> f32 {
    let half = block / 2;
    assert!(
        row.len() >= scale.len() * half
            && x.len() >= scale.len() * block
            && shift.len() == scale.len()
    );
    match block {
        32 => q4_blocks::<1>(row, x, scale, shift),
        64 => q4_blocks::<2>(row, x, scale, shift),
        _ => q4_row(row, x, scale, shift, block),
    }
}

/// `q4_row_avx512` for blocks of 32·`V` values (`V` vectors per nibble half), two blocks
/// per pass into independent sums; bounds checked by the caller.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn q4_blocks<const V: usize>(row: &[u8], x: &[f32], scale: &[f32], shift: &[f32]) -> f32 {
    let half = 16 * V;
    let values = _mm512_setr_ps(0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15.);
    let one = |b: usize, acc: &mut [__m512; 2]| {
        let table = _mm512_fmadd_ps(values, _mm512_set1_ps(scale[b]), _mm512_set1_ps(shift[b]));
        let (q, xb) = (row.as_ptr().add(b * half), x.as_ptr().add(2 * b * half));
        for t in 0..V {
            let bytes = _mm512_cvtepu8_epi32(_mm_loadu_si128(q.add(16 * t).cast()));
            let lo = _mm512_permutexvar_ps(bytes, table);
            let hi = _mm512_permutexvar_ps(_mm512_srli_epi32(bytes, 4), table);
            acc[0] = _mm512_fmadd_ps(lo, _mm512_loadu_ps(xb.add(16 * t)), acc[0]);
            acc[1] = _mm512_fmadd_ps(hi, _mm512_loadu_ps(xb.add(half + 16 * t)), acc[1]);
        }
    };
    let (mut a, mut c) = ([_mm512_setzero_ps(); 2], [_mm512_setzero_ps(); 2]);
    in_pairs(scale.len(), &mut a, &mut c, one);
    total(&a, &c)
}

/// A 4-bit row dequantized into `out` with AVX-512 (blocks a multiple of 32), by the
/// row kernel's table lookup: `fma(q, scale, shift)` per weight.
#[target_feature(enable = "avx512f,avx2,fma")]
pub(super) unsafe fn q4_dequantize_avx512(row: &[u8], scale: &[f32], shift: &[f32], block: usize, out: &mut [f32]) {
    let half = block / 2;
    assert!(
        row.len() >= scale.len() * half && out.len() >= scale.len() * block && shift.len() == scale.len()
    );
    let values = _mm512_setr_ps(0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15.);
    for b in 0..scale.len() {
        let table = _mm512_fmadd_ps(values, _mm512_set1_ps(scale[b]), _mm512_set1_ps(shift[b]));
        let (q, o) = (row.as_ptr().add(b * half), out.as_mut_ptr().add(b * block));
        for t in (0..half).step_by(16) {
            let bytes = _mm512_cvtepu8_epi32(_mm_loadu_si128(q.add(t).cast()));
            _mm512_storeu_ps(o.add(t), _mm512_permutexvar_ps(bytes, table));
            _mm512_storeu_ps(o.add(half + t), _mm512_permutexvar_ps(_mm512_srli_epi32(bytes, 4), table));
        }
    }
}

/// A 4-bit row dequantized into `out` with AVX2 (blocks a multiple of 32): eight nibbles
/// widened to int32 and converted, `fma(q, scale, shift)` per weight. The prompt's GEMM
/// dequantizes each weight once per 64-row chunk; scalar, that was a fifth of its time.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn q4_dequantize_avx2(row: &[u8], scale: &[f32], shift: &[f32], block: usize, out: &mut [f32]) {
    let half = block / 2;
    assert!(
        block.is_multiple_of(32)
            && row.len() >= scale.len() * half
            && out.len() >= scale.len() * block
            && shift.len() == scale.len()
    );
    let low = _mm256_set1_epi32(15);
    for b in 0..scale.len() {
        let (s, t) = (_mm256_set1_ps(scale[b]), _mm256_set1_ps(shift[b]));
        // SAFETY: the assert keeps the block's bytes and outputs inside the slices.
        unsafe {
            let (q, o) = (row.as_ptr().add(b * half), out.as_mut_ptr().add(b * block));
            for i in (0..half).step_by(8) {
                let bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(q.add(i).cast()));
                let lo = _mm256_cvtepi32_ps(_mm256_and_si256(bytes, low));
                let hi = _mm256_cvtepi32_ps(_mm256_srli_epi32::<4>(bytes));
                _mm256_storeu_ps(o.add(i), _mm256_fmadd_ps(lo, s, t));
                _mm256_storeu_ps(o.add(half + i), _mm256_fmadd_ps(hi, s, t));
            }
        }
    }
}

/// The 8-bit row with AVX-512, for blocks of 16, 32 and 64 (other sizes take the AVX2
/// kernel).
#[target_feature(enable = "avx512f,avx2,fma")]
pub(super) unsafe fn q8_row_avx512(
    row: &[u8],
    x: &[f32],
    scale: &[f32],
    shift: &[f32],
    block: usize,
) -> f32 {
    assert!(
        row.len() >= scale.len() * block
            && x.len() >= scale.len() * block
            && shift.len() == scale.len()
    );
    match block {
        16 => q8_blocks::<1>(row, x, scale, shift),
        32 => q8_blocks::<2>(row, x, scale, shift),
        64 => q8_blocks::<4>(row, x, scale, shift),
        _ => q8_row(row, x, scale, shift, block),
    }
}

/// `q8_row_avx512` for blocks of `V` vectors of 16, two blocks per pass into independent
/// sums; bounds checked by the caller.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn q8_blocks<const V: usize>(row: &[u8], x: &[f32], scale: &[f32], shift: &[f32]) -> f32 {
    let block = 16 * V;
    let one = |b: usize, acc: &mut [__m512; V]| {
        let (s, c) = (_mm512_set1_ps(scale[b]), _mm512_set1_ps(shift[b]));
        let (q, xb) = (row.as_ptr().add(b * block), x.as_ptr().add(b * block));
        for (t, a) in acc.iter_mut().enumerate() {
            let v = _mm512_cvtepu8_epi32(_mm_loadu_si128(q.add(16 * t).cast()));
            let w = _mm512_fmadd_ps(_mm512_cvtepi32_ps(v), s, c);
            *a = _mm512_fmadd_ps(w, _mm512_loadu_ps(xb.add(16 * t)), *a);
        }
    };
    let (mut a, mut c) = ([_mm512_setzero_ps(); V], [_mm512_setzero_ps(); V]);
    in_pairs(scale.len(), &mut a, &mut c, one);
    total(&a, &c)
}

/// The sum of every lane of two sets of running sums.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn total(a: &[__m512], c: &[__m512]) -> f32 {
    let mut sum = _mm512_setzero_ps();
    for (x, y) in a.iter().zip(c) {
        sum = _mm512_add_ps(sum, _mm512_add_ps(*x, *y));
    }
    _mm512_reduce_add_ps(sum)
}

/// The same over an 8-bit row (blocks a multiple of 8).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn q8_row(
    row: &[u8],
    x: &[f32],
    scale: &[f32],
    shift: &[f32],
    block: usize,
) -> f32 {
    assert!(
        row.len() >= scale.len() * block
            && x.len() >= scale.len() * block
            && shift.len() == scale.len()
    );
    if block == 32 {
        // Blocks of 32 (Q8_0's), two per pass, each into its own four running sums.
        let one = |b: usize, acc: &mut [__m256; 4]| {
            let (s, c) = (_mm256_set1_ps(scale[b]), _mm256_set1_ps(shift[b]));
            let (q, xb) = (row.as_ptr().add(32 * b), x.as_ptr().add(32 * b));
            for (t, a) in acc.iter_mut().enumerate() {
                let v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(q.add(8 * t).cast()));
                let w = _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), s, c);
                *a = _mm256_fmadd_ps(w, _mm256_loadu_ps(xb.add(8 * t)), *a);
            }
        };
        let (mut a, mut c) = ([_mm256_setzero_ps(); 4], [_mm256_setzero_ps(); 4]);
        let blocks = scale.len();
        in_pairs(blocks, &mut a, &mut c, one);
        let mut total = _mm256_setzero_ps();
        for (x, y) in a.iter().zip(&c) {
            total = _mm256_add_ps(total, _mm256_add_ps(*x, *y));
        }
        return sum(total);
    }
    let mut acc = [_mm256_setzero_ps(); 2];
    for b in 0..scale.len() {
        let (s, c) = (_mm256_set1_ps(scale[b]), _mm256_set1_ps(shift[b]));
        let (q, xb) = (row.as_ptr().add(b * block), x.as_ptr().add(b * block));
        for t in (0..block).step_by(8) {
            let v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(q.add(t).cast()));
            let w = _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), s, c);
            let a = &mut acc[(t / 8) % 2];
            *a = _mm256_fmadd_ps(w, _mm256_loadu_ps(xb.add(t)), *a);
        }
    }
    sum(_mm256_add_ps(acc[0], acc[1]))
}

/// Output columns `out` (consecutive weight rows from the first of `w`) over one row of x
/// rounded to 16 bits per four values (`Rows16`): `Σ_b scale·Σ_quads step·Σ q·xq + Σ_b
/// shift·Σ x`. Each 32 weight bytes are read once into 16-bit lanes of two bytes each, split
/// by masks and shifts (even and odd bytes; 4 bits: their low and high nibbles), multiplied
/// with x's matching lanes by `vpmaddwd`, the even and odd products added into one lane per
/// four values, and one conversion and FMA per eight such lanes scale them. That is a third
/// fewer multiplies, conversions and FMAs than widening the bytes first (`vpmovzxbw`, itself
/// slow on Zen 3), and 1.4 times as fast on SmolLM2's shapes. Rows run one after another, so
/// the weights are one sequential stream (four rows interleaved made four short streams,
/// which the prefetcher missed: SmolLM2's int8 head took 6.4-7.0 ms instead of 2.8-3.6);
/// their sums are reduced eight at a time. Blocks: 4-bit 32 or 64, 8-bit 16, 32 or 64, over
/// whole groups (`fits16`).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn columns16(w: Weights, x: X16, out: &mut [f32]) {
    let (block, blocks) = (w.block, x.sum.len());
    let k = blocks * block;
    assert!(
        fits16(w.bits, block, k)
            && x.q.len() == k
            && x.step.len() == k / 4
            && w.bytes.len() >= out.len() * w.row_bytes(blocks)
            && w.scale.len() >= out.len() * blocks
            && w.shift.is_none_or(|h| h.len() >= out.len() * blocks)
    );
    match (w.bits, block) {
        (4, 32) => columns::<4, 32>(&w, x, out),
        (4, _) => columns::<4, 64>(&w, x, out),
        (_, 16) => columns::<8, 16>(&w, x, out),
        (_, 32) => columns::<8, 32>(&w, x, out),
        (_, _) => columns::<8, 64>(&w, x, out),
    }
}

/// Whether `columns16` takes rows of `k` `bits`-bit weights in blocks of `block`.
pub(super) fn fits16(bits: u8, block: usize, k: usize) -> bool {
    matches!((bits, block), (4, 32 | 64) | (8, 16 | 32 | 64)) && k.is_multiple_of(super::rows16::group(bits))
}

/// A layer's packed weights as `columns16` reads them, from its first column on.
pub(super) struct Weights<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) scale: &'a [f32],
    /// Per block; none when all are zero. 8 bits: for the signed values `q − 128`.
    pub(super) shift: Option<&'a [f32]>,
    pub(super) bits: u8,
    pub(super) block: usize,
}

impl Weights<'_> {
    fn row_bytes(&self, blocks: usize) -> usize {
        blocks * if self.bits == 4 { self.block / 2 } else { self.block }
    }
}

/// `columns16` for one layout; bounds checked by the caller.
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn columns<const BITS: u8, const BLOCK: usize>(w: &Weights, x: X16, out: &mut [f32]) {
    let blocks = x.sum.len();
    let (rb, groups) = (w.row_bytes(blocks), x.q.len() * BITS as usize / 256);
    // A group of 32 bytes holds two blocks (their scales in lanes 0-3 and 4-7) or lies in one.
    let two = 128 == BLOCK * BITS as usize;
    let (nibble, flip, halves) = (_mm256_set1_epi16(15), _mm256_set1_epi16(0x8080u16 as i16), _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    let (xq, step) = (x.q.as_ptr(), x.step.as_ptr());
    // Shift terms' blocks past the last whole eight.
    let tail = _mm256_cmpgt_epi32(_mm256_set1_epi32((blocks % 8) as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    let mut eight = [_mm256_setzero_ps(); 8];
    for j in 0..out.len() {
        let (row, scale) = (w.bytes.as_ptr().add(j * rb), w.scale.as_ptr().add(j * blocks));
        let one = |g: usize, acc: &mut [__m256; 2]| {
            let v = _mm256_loadu_si256(row.add(32 * g).cast());
            let s = match two {
                true => _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_castsi128_ps(_mm_loadl_epi64(scale.add(2 * g).cast()))), halves),
                false => _mm256_broadcast_ss(&*scale.add(g * 256 / (BITS as usize * BLOCK))),
            };
            let lane = |t: usize, a: __m256i, b: __m256i, acc: __m256| {
                let xs = xq.add(16 * t);
                let sum = _mm256_add_epi32(
                    _mm256_madd_epi16(a, _mm256_loadu_si256(xs.cast())),
                    _mm256_madd_epi16(b, _mm256_loadu_si256(xs.add(16).cast())),
                );
                let scaled = _mm256_mul_ps(_mm256_loadu_ps(step.add(4 * t)), s);
                _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), scaled, acc)
            };
            if BITS == 4 {
                let (even, odd) = (_mm256_and_si256(v, nibble), _mm256_and_si256(_mm256_srli_epi16(v, 8), nibble));
                let (high_even, high_odd) = (_mm256_and_si256(_mm256_srli_epi16(v, 4), nibble), _mm256_srli_epi16(v, 12));
                acc[0] = lane(4 * g, even, odd, acc[0]);
                acc[1] = lane(4 * g + 2, high_even, high_odd, acc[1]);
            } else {
                // Even groups go to `a`, odd ones to `c`: two sums in each.
                let at = (g / 2) % 2;
                // The biased bytes less 128, signed (`shift` is for these): products of the
                // value's own size, not a large sum cancelled by the shift terms.
                let signed = _mm256_xor_si256(v, flip);
                let (even, odd) = (_mm256_srai_epi16(_mm256_slli_epi16(signed, 8), 8), _mm256_srai_epi16(signed, 8));
                acc[at] = lane(2 * g, even, odd, acc[at]);
            }
        };
        let (mut a, mut c) = ([_mm256_setzero_ps(); 2], [_mm256_setzero_ps(); 2]);
        in_pairs(groups, &mut a, &mut c, one);
        // The shift terms join the row's sums before their one reduction.
        let mut total = _mm256_add_ps(_mm256_add_ps(a[0], a[1]), _mm256_add_ps(c[0], c[1]));
        if let Some(shift) = w.shift {
            let (shift, sums) = (shift.as_ptr().add(j * blocks), x.sum.as_ptr());
            for b in (0..blocks - blocks % 8).step_by(8) {
                total = _mm256_fmadd_ps(_mm256_loadu_ps(shift.add(b)), _mm256_loadu_ps(sums.add(b)), total);
            }
            if !blocks.is_multiple_of(8) {
                let b = blocks - blocks % 8;
                total = _mm256_fmadd_ps(_mm256_maskload_ps(shift.add(b), tail), _mm256_maskload_ps(sums.add(b), tail), total);
            }
        }
        eight[j % 8] = total;
        if j % 8 == 7 || j + 1 == out.len() {
            let first = j - j % 8;
            eight[j % 8 + 1..].fill(_mm256_setzero_ps());
            let mut sums = [0.0f32; 8];
            _mm256_storeu_ps(sums.as_mut_ptr(), sum8(&eight));
            out[first..=j].copy_from_slice(&sums[..=j % 8]);
        }
    }
}

/// Blocks `0..blocks` through `one`, two per pass: even ones into `a`, odd ones into `c`,
/// so consecutive blocks' sums are independent chains (the last of an odd count into `a`).
#[inline(always)]
fn in_pairs<A>(blocks: usize, a: &mut A, c: &mut A, mut one: impl FnMut(usize, &mut A)) {
    for b in (0..blocks - blocks % 2).step_by(2) {
        one(b, a);
        one(b + 1, c);
    }
    if blocks % 2 == 1 {
        one(blocks - 1, a);
    }
}
