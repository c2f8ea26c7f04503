//! Fake quantization: `dequantizeLinear(quantizeLinear(x))` with one scale and zero point
//! each, the pair a QDQ model (ONNX Runtime's static quantizer) puts on every activation.
//! It runs as a link of an element-wise chain, or on a conv's or matmul's output while that
//! is still in cache (`exec::Post`), never as two tensors written and read back.
//!
//! The results equal the reference kernels' (webnn-cpu `quantization.rs`) bit for bit: the
//! quotient `x / scale` in f64, rounded half to even, NaN to the zero point, saturated; then
//! `(q - zero) * scale` in f64, rounded once to float32. That exact form costs an f64 divide
//! per element, so for 8-bit types (every QDQ activation) blocks are computed in float32,
//! sixteen lanes to a vector on AVX-512:
//! - the quotient as `x * (1/scale)`, saturated to the range, which rounds to the same
//!   integer as the f64 quotient unless it lies within a few float32 ulps of a
//!   half-integer (`near_tie`); a block with any such element is computed again the exact
//!   way;
//! - `(q - zero) * scale` with `q - zero` an integer below 2^9: the f64 product is exact,
//!   so its one rounding to float32 is the float32 product's.

use crate::plan::Planner;
use crate::simd::{dispatch, Simd};
use webnn_core::ops::Op;
use webnn_core::Operand;

/// One pair's constants, exact in f64 (and in float32 where `narrow`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FakeQuant {
    scale: f64,
    zero: f64,
    /// The quantized type's range, where quantizeLinear saturates.
    lo: f64,
    hi: f64,
    scale2: f64,
    zero2: f64,
    /// An 8-bit type: the float32 path applies.
    narrow: bool,
    inverse: f32,
}

/// [`FakeQuant::lanes`]: `q = x * inverse`, rounded; `(clamp(q + zero, lo, hi) - zero2) *
/// scale2` unless `q` is near a tie.
#[derive(Clone, Copy, Debug)]
// Read by the x86 integer kernel's epilogue only.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Lanes {
    pub inverse: f32,
    pub zero: f32,
    pub lo: f32,
    pub hi: f32,
    pub scale2: f32,
    pub zero2: f32,
}

/// Elements computed together; a near tie sends only its own block to the division.
const BLOCK: usize = 64;

impl FakeQuant {
    /// Node `n` as the quantizeLinear of a pair reading `value`, with scalar float32 scales
    /// and scalar integer zero points: the pair and the dequantizeLinear node it absorbs.
    pub(crate) fn pair(p: &Planner, n: usize, value: Operand) -> Option<(FakeQuant, usize)> {
        let Op::QuantizeLinear(q) = &p.orig.nodes[n].op else { return None };
        let d = p.sole_user(p.orig.nodes[n].outputs[0])?;
        let Op::DequantizeLinear(dq) = &p.orig.nodes[d].op else { return None };
        let y = p.orig.nodes[d].outputs[0];
        if q.input != value || !p.is_f32(y) || !p.same_shape(y, value) {
            return None;
        }
        let (zero, lo, hi) = scalar_int(p, q.zero_point)?;
        let (zero2, _, _) = scalar_int(p, dq.zero_point)?;
        let scale = scalar_f32(p, q.scale)?;
        Some((FakeQuant::new(scale, zero, lo, hi, scalar_f32(p, dq.scale)?, zero2), d))
    }

    pub(crate) fn new(scale: f64, zero: f64, lo: f64, hi: f64, scale2: f64, zero2: f64) -> FakeQuant {
        let inverse = (1.0 / scale) as f32;
        // The float32 path's error bound (`near_tie`) needs a reciprocal of full precision:
        // a scale below 2^-126 or above 2^126 takes the exact path.
        let narrow = [zero, lo, hi, zero2].iter().all(|v| v.abs() <= 256.0) && inverse.is_normal();
        FakeQuant { scale, zero, lo, hi, scale2, zero2, narrow, inverse }
    }

    /// Saturation and dequantization of a rounded quotient.
    #[inline(always)]
    fn finish(&self, q: f64) -> f64 {
        (self.integer(q) - self.zero2) * self.scale2
    }

    /// The quantized integer of a rounded quotient: saturated, the zero point for NaN.
    /// Selects only (`f64::clamp` asserts its bounds, and that branch kept the loops scalar).
    #[inline(always)]
    fn integer(&self, q: f64) -> f64 {
        let z = q + self.zero;
        let z = if z < self.lo { self.lo } else { z };
        let z = if z > self.hi { self.hi } else { z };
        if q.is_nan() { self.zero } else { z }
    }

    /// The byte `z - lo` of the pair's integer for one value, the reference's way.
    pub(crate) fn byte_exact(&self, x: f32) -> u8 {
        (self.integer(round_ties_even(x as f64 / self.scale)) - self.lo) as u8
    }

    /// An 8-bit pair (`lanes`) over float32 values, each result stored as the byte `z - lo`
    /// of its integer `z` (`stored::Bytes` decodes it to the pair's value): the same integers
    /// as `apply_f32`, by the same near-tie rule, without the dequantization.
    #[inline(always)]
    pub(crate) fn quantize_bytes(&self, src: &[f32], dst: &mut [u8]) {
        let lo = self.lo as f32;
        for (s, d) in src.chunks(BLOCK).zip(dst.chunks_mut(BLOCK)) {
            // A count, not a flag: the sum vectorizes as a reduction.
            let mut near = 0u32;
            for (&x, b) in s.iter().zip(d.iter_mut()) {
                let (z, n) = self.integer_f32(x);
                near += n as u32;
                // SAFETY: `z - lo` is an integer in [0, 255] (`integer_f32`; never NaN).
                *b = unsafe { (z - lo).to_int_unchecked::<i32>() } as u8;
            }
            if near > 0 {
                for (&x, b) in s.iter().zip(d.iter_mut()) {
                    *b = self.byte_exact(x);
                }
            }
        }
    }

    /// The reference's arithmetic for one value.
    #[inline(always)]
    fn exact(&self, x: f64) -> f64 {
        self.finish(round_ties_even(x / self.scale))
    }

    /// The reference's pair for one float32 value.
    pub(crate) fn exact_f32(&self, x: f32) -> f32 {
        self.exact(x as f64) as f32
    }

    /// An 8-bit pair's float32 constants, for a kernel that applies it in registers with
    /// the same near-tie rule (`near_tie`, `NEAR`).
    pub(crate) fn lanes(&self) -> Option<Lanes> {
        self.narrow.then_some(Lanes {
            inverse: self.inverse,
            zero: self.zero as f32,
            lo: self.lo as f32,
            hi: self.hi as f32,
            scale2: self.scale2 as f32,
            zero2: self.zero2 as f32,
        })
    }

    /// The pair over `v` in place, each result rounded to float32. The values are float32
    /// ones (a chain's running values are), so the float32 path may take them. Inlined into
    /// callers compiled per ISA (`simd::dispatch!`), so the loops vectorize there.
    #[inline(always)]
    pub(crate) fn apply(&self, v: &mut [f64]) {
        let mut x = [0.0f32; BLOCK];
        for block in v.chunks_mut(BLOCK) {
            if !self.narrow {
                block.iter_mut().for_each(|v| *v = self.exact(*v) as f32 as f64);
                continue;
            }
            let x = &mut x[..block.len()];
            for (x, &v) in x.iter_mut().zip(block.iter()) {
                *x = v as f32;
            }
            self.block_f32(x);
            for (v, &x) in block.iter_mut().zip(x.iter()) {
                *v = x as f64;
            }
        }
    }

    /// The pair over float32 values in place.
    #[inline(always)]
    pub(crate) fn apply_f32(&self, out: &mut [f32]) {
        for block in out.chunks_mut(BLOCK) {
            if self.narrow {
                self.block_f32(block);
            } else {
                block.iter_mut().for_each(|v| *v = self.exact(*v as f64) as f32);
            }
        }
    }

    /// An 8-bit pair's integer for one float32 value by the reciprocal, saturated, the zero
    /// point for NaN, and whether the value is near a tie (then the block is redone the
    /// exact way). Selects only: `f32::clamp` asserts its bounds, a branch that keeps loops
    /// scalar.
    #[inline(always)]
    fn integer_f32(&self, x: f32) -> (f32, bool) {
        let (zero, lo, hi) = (self.zero as f32, self.lo as f32, self.hi as f32);
        // Saturated before rounding (to integers, so the rounding keeps the range).
        let q = x * self.inverse;
        let q = if q < lo - zero { lo - zero } else { q };
        let q = if q > hi - zero { hi - zero } else { q };
        let r = round_ties_even_f32(q);
        (if q.is_nan() { zero } else { r + zero }, near_tie(q, r))
    }

    /// One block of at most `BLOCK` values of an 8-bit pair, in float32 (module comment).
    #[inline(always)]
    fn block_f32(&self, block: &mut [f32]) {
        let mut saved = [0.0f32; BLOCK];
        let saved = &mut saved[..block.len()];
        saved.copy_from_slice(block);
        let (scale2, zero2) = (self.scale2 as f32, self.zero2 as f32);
        // A count, not a flag: the sum vectorizes as a reduction.
        let mut near = 0u32;
        for o in block.iter_mut() {
            let (z, n) = self.integer_f32(*o);
            near += n as u32;
            *o = (z - zero2) * scale2;
        }
        if near > 0 {
            for (o, &x) in block.iter_mut().zip(saved.iter()) {
                *o = self.exact(x as f64) as f32;
            }
        }
    }
}

/// An 8-bit pair (`Lanes`) into bytes (`FakeQuant::quantize_bytes`), compiled for the
/// machine's ISA; on AVX-512 sixteen values at a time with the rounding, saturation and
/// conversion in single instructions (module `x86`).
pub(crate) fn quantize_bytes(simd: Simd, pair: &FakeQuant, src: &[f32], dst: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if let (Simd::Avx512, Some(l), true) = (simd, pair.lanes(), std::arch::is_x86_feature_detected!("avx512bw")) {
        // SAFETY: `Simd::Avx512` comes from `Isa::detect`, which checked AVX-512F; BW
        // was checked here.
        return unsafe { x86::quantize_bytes(pair, &l, src, dst) };
    }
    dispatch!(simd, quantize_bytes_generic(pair, src, dst))
}

#[inline(always)]
fn quantize_bytes_generic<const FMA: bool>(pair: &FakeQuant, src: &[f32], dst: &mut [u8]) {
    pair.quantize_bytes(src, dst)
}

/// The pair's integers and values sixteen lanes at a time, for kernels that apply it in
/// their registers (`qconv`) and for `quantize_bytes`: the near-tie rule of `near_tie`,
/// with a vector holding a near tie or NaN redone the reference's way lane by lane.
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::{FakeQuant, Lanes, NEAR};
    use std::arch::x86_64::*;

    /// The rounded quotients of `v` (saturated, without the zero point: callers add it
    /// with their own constant) and the lanes (of `mask`) that must take the exact path.
    #[inline(always)]
    unsafe fn round(v: __m512, mask: __mmask16, l: &Lanes) -> (__m512, __mmask16) {
        // Saturated first (`near_tie`); the bounds as the first operands, so NaN stays.
        let q = _mm512_mul_ps(v, _mm512_set1_ps(l.inverse));
        let q = _mm512_min_ps(_mm512_set1_ps(l.hi - l.zero), _mm512_max_ps(_mm512_set1_ps(l.lo - l.zero), q));
        let r = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(q);
        // Not less than the bound, or NaN: one unordered comparison covers both.
        let near = _mm512_cmp_ps_mask::<_CMP_NLT_UQ>(_mm512_abs_ps(_mm512_sub_ps(q, r)), _mm512_set1_ps(NEAR));
        (r, near & mask)
    }

    /// The pair over one vector, its values stored under `mask`.
    #[inline(always)]
    pub(crate) unsafe fn store_values(v: __m512, mask: __mmask16, dst: *mut f32, f: &FakeQuant, l: &Lanes) {
        let (r, near) = round(v, mask, l);
        if near != 0 {
            return values_exact(v, mask, dst, f);
        }
        // The integer is `r + zero`; `zero - zero2` is exact (both 8-bit).
        let y = _mm512_mul_ps(_mm512_add_ps(r, _mm512_set1_ps(l.zero - l.zero2)), _mm512_set1_ps(l.scale2));
        _mm512_mask_storeu_ps(dst, mask, y);
    }

    /// The pair over one vector, its integers stored as bytes `z - lo` under `mask`.
    #[inline(always)]
    pub(crate) unsafe fn store_bytes(v: __m512, mask: __mmask16, dst: *mut u8, f: &FakeQuant, l: &Lanes) {
        let (r, near) = round(v, mask, l);
        if near != 0 {
            return bytes_exact(v, mask, dst, f);
        }
        let b = _mm512_cvtps_epi32(_mm512_add_ps(r, _mm512_set1_ps(l.zero - l.lo)));
        _mm512_mask_cvtusepi32_storeu_epi8(dst as *mut i8, mask, b);
    }

    /// Two vectors' integers as 32 bytes, as `store_bytes` twice: packed into one store.
    #[inline(always)]
    pub(crate) unsafe fn store_bytes2(v0: __m512, v1: __m512, dst: *mut u8, f: &FakeQuant, l: &Lanes) {
        let (r0, n0) = round(v0, 0xffff, l);
        let (r1, n1) = round(v1, 0xffff, l);
        if n0 | n1 != 0 {
            store_bytes(v0, 0xffff, dst, f, l);
            return store_bytes(v1, 0xffff, dst.add(16), f, l);
        }
        let offset = _mm512_set1_ps(l.zero - l.lo);
        let b0 = _mm512_cvtps_epi32(_mm512_add_ps(r0, offset));
        let b1 = _mm512_cvtps_epi32(_mm512_add_ps(r1, offset));
        // Per 128-bit lane j: dword 4j holds v0's integers 4j..4j + 3, dword 4j + 1 v1's.
        let words = _mm512_packus_epi32(b0, b1);
        let packed = _mm512_packus_epi16(words, words);
        let order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
        _mm256_storeu_si256(dst as *mut __m256i, _mm512_castsi512_si256(_mm512_permutexvar_epi32(order, packed)));
    }

    /// The exact path of `store_values` for a vector with a near tie (or NaN): out of line
    /// and cold, so that the kernels it is inlined into keep their registers for the rest
    /// (inline, it cost the QDQ model's expand convolutions a third of their time).
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    unsafe fn values_exact(v: __m512, mask: __mmask16, dst: *mut f32, f: &FakeQuant) {
        _mm512_mask_storeu_ps(dst, mask, v);
        for i in (0..16).filter(|i| mask & (1 << i) != 0) {
            *dst.add(i) = f.exact_f32(*dst.add(i));
        }
    }

    /// The exact path of `store_bytes`, as `values_exact`.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    unsafe fn bytes_exact(v: __m512, mask: __mmask16, dst: *mut u8, f: &FakeQuant) {
        let mut lanes = [0f32; 16];
        _mm512_storeu_ps(lanes.as_mut_ptr(), v);
        for i in (0..16).filter(|i| mask & (1 << i) != 0) {
            *dst.add(i) = f.byte_exact(lanes[i]);
        }
    }

    /// `each(vector, mask, i)` over the `n` values at `src` sixteen at a time from element
    /// `i`, the last vector masked.
    #[inline(always)]
    unsafe fn vectors(src: *const f32, n: usize, mut each: impl FnMut(__m512, __mmask16, usize)) {
        for i in (0..n).step_by(16) {
            let mask: __mmask16 = if n - i >= 16 { 0xffff } else { (1u16 << (n - i)) - 1 };
            each(_mm512_maskz_loadu_ps(mask, src.add(i)), mask, i);
        }
    }

    /// [`super::apply_f32`] on AVX-512.
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn apply(f: &FakeQuant, l: &Lanes, out: &mut [f32]) {
        let dst = out.as_mut_ptr();
        vectors(dst, out.len(), |v, mask, i| store_values(v, mask, dst.add(i), f, l));
    }

    /// [`super::quantize_bytes`] on AVX-512: 64 values at a time, their four vectors of
    /// integers packed into one store (a narrowing store per vector cost two shuffles and
    /// a masked store each, the most expensive part of the loop; `store_bytes2`'s two per
    /// store made the QDQ model's depthwise steps 2% slower); a block holding a near tie
    /// goes vector by vector, and so does the tail.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn quantize_bytes(f: &FakeQuant, l: &Lanes, src: &[f32], dst: &mut [u8]) {
        let n = src.len().min(dst.len());
        let (x, out) = (src.as_ptr(), dst.as_mut_ptr());
        let offset = _mm512_set1_ps(l.zero - l.lo);
        // packus works within 128-bit lanes: dword k of the packed vector holds bytes 4k..4k+3
        // of vector (k % 4), so the dwords are gathered back in order.
        let order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
        let mut i = 0;
        while i + 64 <= n {
            let v: [__m512; 4] = [
                _mm512_loadu_ps(x.add(i)),
                _mm512_loadu_ps(x.add(i + 16)),
                _mm512_loadu_ps(x.add(i + 32)),
                _mm512_loadu_ps(x.add(i + 48)),
            ];
            let (r0, n0) = round(v[0], 0xffff, l);
            let (r1, n1) = round(v[1], 0xffff, l);
            let (r2, n2) = round(v[2], 0xffff, l);
            let (r3, n3) = round(v[3], 0xffff, l);
            if n0 | n1 | n2 | n3 != 0 {
                for (k, &v) in v.iter().enumerate() {
                    store_bytes(v, 0xffff, out.add(i + 16 * k), f, l);
                }
            } else {
                // Integers in [0, 255]: the saturating packs keep them.
                let b0 = _mm512_cvtps_epi32(_mm512_add_ps(r0, offset));
                let b1 = _mm512_cvtps_epi32(_mm512_add_ps(r1, offset));
                let b2 = _mm512_cvtps_epi32(_mm512_add_ps(r2, offset));
                let b3 = _mm512_cvtps_epi32(_mm512_add_ps(r3, offset));
                let packed = _mm512_packus_epi16(_mm512_packus_epi32(b0, b1), _mm512_packus_epi32(b2, b3));
                _mm512_storeu_si512(out.add(i) as *mut _, _mm512_permutexvar_epi32(order, packed));
            }
            i += 64;
        }
        vectors(x.add(i), n - i, |v, mask, k| store_bytes(v, mask, out.add(i + k), f, l));
    }
}

/// The pair over a fused step's output (`exec::Post`), compiled for the machine's ISA; on
/// AVX-512 by module `x86`'s vector code, as `quantize_bytes`.
pub(crate) fn apply_f32(simd: Simd, pair: &FakeQuant, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if let (Simd::Avx512, Some(l)) = (simd, pair.lanes()) {
        // SAFETY: `Simd::Avx512` comes from `Isa::detect`, which checked AVX-512F.
        return unsafe { x86::apply(pair, &l, out) };
    }
    dispatch!(simd, apply_f32_generic(pair, out))
}

#[inline(always)]
fn apply_f32_generic<const FMA: bool>(pair: &FakeQuant, out: &mut [f32]) {
    pair.apply_f32(out)
}

/// Whether the float32 `q = x * (1/scale)`, saturated to the pair's range less its zero
/// point, may round to another integer than the f64 quotient `x / scale` does. The
/// reciprocal's rounding and the product's put `q` within `2^-23 * |x / scale|` of the
/// exact quotient, and the f64 quotient is far closer: only where `q` lies that close to a
/// half-integer can the two round apart. Saturating first bounds what matters: an 8-bit
/// range keeps `|q| <= 255`, and a quotient beyond the range saturates either way; so
/// within 2^-15 of a half-integer covers every value, and the margin taken, 2^-13, is four
/// times that, in one comparison. NaN counts as near and gives the zero point.
#[inline(always)]
fn near_tie(q: f32, r: f32) -> bool {
    let d = (q - r).abs();
    d >= NEAR || d.is_nan()
}

/// `near_tie`'s bound on the distance from an integer.
pub(crate) const NEAR: f32 = 0.5 - 1.0 / 8192.0;

/// `round_ties_even` for |q| < 2^22 in float32 by the same trick as below (1.5 * 2^23);
/// the saturation before it keeps `|q| <= 255`.
#[inline(always)]
fn round_ties_even_f32(q: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (q + MAGIC) - MAGIC
}

/// `f64::round_ties_even` without its library call (x86-64 without SSE4.1 has no rounding
/// instruction): adding and subtracting 1.5 * 2^52 rounds to an integer half to even, exact
/// for |q| < 2^51; larger values (and infinities, NaN) are returned as they are, which only
/// the saturation (at most 2^32) sees. A negative result of zero comes out as +0, which
/// adding the zero point makes of any zero anyway.
#[inline(always)]
fn round_ties_even(q: f64) -> f64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    if q.abs() < 2_251_799_813_685_248.0 {
        (q + MAGIC) - MAGIC
    } else {
        q
    }
}

/// A one-element float32 constant's value.
pub(crate) fn scalar_f32(p: &Planner, o: Operand) -> Option<f64> {
    let bytes = p.orig.constant_data(o).filter(|_| p.is_f32(o) && p.orig.desc(o).max_elements() == 1)?;
    Some(f32::from_le_bytes(bytes[..4].try_into().ok()?) as f64)
}

/// A one-element integer constant's value and its type's range.
pub(crate) fn scalar_int(p: &Planner, o: Operand) -> Option<(f64, f64, f64)> {
    use webnn_core::DataType as D;
    let bytes = p.orig.constant_data(o).filter(|_| p.orig.desc(o).max_elements() == 1)?;
    let four = || bytes.get(..4).and_then(|b| b.try_into().ok());
    Some(match p.orig.desc(o).data_type {
        D::Int8 => (bytes[0] as i8 as f64, i8::MIN as f64, i8::MAX as f64),
        D::Uint8 => (bytes[0] as f64, 0.0, u8::MAX as f64),
        D::Int32 => (i32::from_le_bytes(four()?) as f64, i32::MIN as f64, i32::MAX as f64),
        D::Uint32 => (u32::from_le_bytes(four()?) as f64, 0.0, u32::MAX as f64),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(scale: f32, zero: f64, lo: f64, hi: f64) -> FakeQuant {
        FakeQuant::new(scale as f64, zero, lo, hi, scale as f64, zero)
    }

    /// Blocks through the reciprocal equal the division element by element, over values
    /// dense around every tie of the range and the specials.
    #[test]
    fn the_reciprocal_path_equals_the_division() {
        let mut rng = webnn_models::Rng::new(1);
        let mut next = || rng.next_u64();
        for _ in 0..200 {
            let scale = f32::from_bits(0x3a00_0000 + (next() % 0x0400_0000) as u32); // ~5e-4 .. 0.2
            let q = pair(scale, (next() % 256) as f64, 0.0, 255.0);
            let mut xs: Vec<f64> = Vec::new();
            for k in -300..300 {
                let tie = (k as f32 + 0.5) * scale;
                for d in -3i32..=3 {
                    xs.push(f32::from_bits(tie.to_bits().wrapping_add_signed(d)) as f64);
                }
                xs.push(k as f32 as f64 * scale as f64);
            }
            xs.extend([0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e30, -1e30, f32::MIN_POSITIVE as f64]);
            let want: Vec<f64> = xs.iter().map(|&x| q.exact(x) as f32 as f64).collect();
            let mut got = xs.clone();
            q.apply(&mut got);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.to_bits(), w.to_bits(), "scale {scale:e}, x {:e}", xs[i]);
            }
            // The float32 form on every ISA (AVX-512's intrinsics among them).
            for isa in webnn_gemm::Isa::available() {
                let mut got: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
                apply_f32(Simd::for_isa(isa), &q, &mut got);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!((*g as f64).to_bits(), w.to_bits(), "{isa}: scale {scale:e}, x {:e}", xs[i]);
                }
            }
        }
    }

    #[test]
    fn round_ties_even_matches_the_library() {
        for q in [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.4999999, 1e9 + 0.5, -1e15 - 0.5, 4e15 + 1.0, 1e300, -0.0] {
            // Numeric equality: -0.5 gives +0 here and -0 from the library.
            assert_eq!(round_ties_even(q), q.round_ties_even(), "{q}");
        }
        assert!(round_ties_even(f64::NAN).is_nan());
        assert_eq!(round_ties_even(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn exact_ties_round_to_even() {
        let q = pair(1.0, 0.0, -128.0, 127.0);
        let mut v = vec![0.5, 1.5, 2.5, -0.5, -1.5, 126.5, 200.0, -200.0];
        q.apply(&mut v);
        assert_eq!(v, [0.0, 2.0, 2.0, 0.0, -2.0, 126.0, 127.0, -128.0]);
        // A 32-bit zero point takes the exact path throughout.
        let q = pair(0.5, 7.0, i32::MIN as f64, i32::MAX as f64);
        let mut v = vec![0.25, 0.75, -3e9, 3e9, f64::NAN];
        q.apply(&mut v);
        let f = |v: f64| v as f32 as f64;
        assert_eq!(v, [0.0, 1.0, f((i32::MIN as f64 - 7.0) * 0.5), f((i32::MAX as f64 - 7.0) * 0.5), 0.0]);
        // Ties whose reciprocal product is not one (1/3 is inexact): the division decides.
        let q = pair(3.0, 0.0, -128.0, 127.0);
        let mut v = vec![4.5, 7.5, -4.5, 1.5];
        q.apply(&mut v);
        assert_eq!(v, [6.0, 6.0, -6.0, 0.0]);
    }
}
