//! The caches' rows as the attention step reads them: float32 views, or float16 bits widened
//! a row at a time (F16C's conversion on x86, an exact bit-level widening elsewhere).

use super::prefetch_row;
use half::slice::HalfFloatSliceExt;
use webnn_core::{Error, Result};
use webnn_cpu::Data;

/// Cache rows as stored: float32, or float16 bits (widened a row at a time as they are read).
#[derive(Clone, Copy)]
pub(super) enum Rows<'a> {
    F32(&'a [f32]),
    F16(&'a [u16]),
}

impl<'a> Rows<'a> {
    pub(super) fn of(data: &'a Data) -> Result<Rows<'a>> {
        match data {
            Data::F32(v) => Ok(Rows::F32(v)),
            Data::F16(v) => Ok(Rows::F16(v.reinterpret_cast())),
            other => Err(Error::operation_error(format!("attention: a cache holds {}", other.data_type()))),
        }
    }

    pub(super) fn len(self) -> usize {
        match self {
            Rows::F32(v) => v.len(),
            Rows::F16(v) => v.len(),
        }
    }

    /// Elements `at..at + len` as float32: a view, or widened into `buf`.
    #[inline(always)]
    pub(super) fn get<'b>(self, at: usize, len: usize, buf: &'b mut [f32]) -> &'b [f32]
    where
        'a: 'b,
    {
        match self {
            Rows::F32(v) => &v[at..at + len],
            Rows::F16(v) => {
                let out = &mut buf[..len];
                widen_row(&v[at..at + len], out);
                out
            }
        }
    }

    /// Asks for the cache lines of elements `at..at + len`, if they exist.
    #[inline(always)]
    pub(super) fn prefetch(self, at: usize, len: usize) {
        match self {
            Rows::F32(v) => prefetch_row(v, at, len),
            Rows::F16(v) => prefetch_row(v, at, len),
        }
    }
}

/// `dst[i] = widen(src[i])`: with F16C's conversion instruction where the CPU has it.
#[inline(always)]
fn widen_row(src: &[u16], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("f16c") {
        // SAFETY: the CPU has F16C (and AVX, which F16C implies).
        unsafe { widen_row_f16c(src, dst) };
        return;
    }
    dst.iter_mut().zip(src).for_each(|(o, &h)| *o = widen(h));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn widen_row_f16c(src: &[u16], dst: &mut [f32]) {
    use std::arch::x86_64::*;
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n, inside both slices.
        unsafe {
            let h = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
        }
        i += 8;
    }
    for k in i..n {
        dst[k] = widen(src[k]);
    }
}

/// A float16's value as float32 (exact) in straight-line integer and float arithmetic that
/// vectorises, where a call or a table per element would not: the exponent and mantissa
/// moved into float32's places and scaled by 2^112 (which also turns subnormals into their
/// normal float32 values); infinities and NaNs take float32's all-ones exponent.
#[inline(always)]
pub(super) fn widen(h: u16) -> f32 {
    let h = h as u32;
    let magnitude = h & 0x7fff;
    let finite = f32::from_bits(magnitude << 13) * f32::from_bits(0x7780_0000);
    let special = f32::from_bits((magnitude << 13) | 0x7f80_0000);
    let v = if magnitude >= 0x7c00 { special } else { finite };
    f32::from_bits(v.to_bits() | ((h & 0x8000) << 16))
}

/// Decoded copies of cache bytes that are not aligned to their element.
#[derive(Default)]
pub(super) struct Scratch {
    f32: Vec<f32>,
    f16: Vec<u16>,
}

/// The first `len` elements of little-endian cache bytes (float16 when `half`): a view where
/// they are aligned (as an allocator places a tensor's bytes), else decoded into `scratch`.
pub(super) fn rows<'a>(bytes: &'a [u8], half: bool, len: usize, scratch: &'a mut Scratch) -> Result<Rows<'a>> {
    let size = if half { 2 } else { 4 };
    let bytes = bytes
        .get(..len * size)
        .ok_or_else(|| Error::operation_error("attention: the cache holds fewer rows than the mask"))?;
    let little = cfg!(target_endian = "little");
    if half {
        // SAFETY: every bit pattern is a u16; `align_to` only returns an aligned middle part.
        let (head, mid, _) = unsafe { bytes.align_to::<u16>() };
        if little && head.is_empty() && mid.len() == len {
            return Ok(Rows::F16(mid));
        }
        scratch.f16.extend(bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])));
        return Ok(Rows::F16(&scratch.f16));
    }
    // SAFETY: as above, for f32.
    let (head, mid, _) = unsafe { bytes.align_to::<f32>() };
    if little && head.is_empty() && mid.len() == len {
        return Ok(Rows::F32(mid));
    }
    scratch.f32.extend(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    Ok(Rows::F32(&scratch.f32))
}

#[cfg(test)]
mod tests {
    #[test]
    fn widen_is_exact() {
        for h in 0..=u16::MAX {
            let (got, want) = (super::widen(h), half::f16::from_bits(h).to_f32());
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{h:#06x}: {got} vs {want}");
        }
    }
}
