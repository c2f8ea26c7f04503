//! A minimal f32 vector abstraction for the depthwise kernel and the Winograd transforms:
//! one type per register width (AVX-512, AVX2, wasm simd128, scalar), so a kernel is written
//! once and instantiated per ISA.
//!
//! Plain loops over `[f32; N]` blocks vectorise only as long as LLVM's SLP vectoriser agrees
//! (it gave up once four pixels' accumulators were live at a time, spilling them all to the
//! stack), so the depthwise kernel names its registers explicitly instead.
//!
//! Every method is `#[inline(always)]` and `unsafe`: callers run them only inside functions
//! compiled for the matching features, after `Isa::detect` checked the CPU has them, and only
//! on pointers with `LANES` readable (or writable) floats.

/// An f32 vector of `LANES` lanes.
pub(crate) trait F32s: Copy {
    const LANES: usize;
    unsafe fn splat(v: f32) -> Self;
    unsafe fn load(p: *const f32) -> Self;
    /// `LANES` bytes as floats.
    unsafe fn load_bytes(p: *const u8) -> Self;
    unsafe fn store(self, p: *mut f32);
    unsafe fn add(self, b: Self) -> Self;
    unsafe fn sub(self, b: Self) -> Self;
    unsafe fn mul(self, b: Self) -> Self;
    /// `self * b + c`.
    unsafe fn mul_add(self, b: Self, c: Self) -> Self;
    /// Clamped to `[lo, hi]`; NaN lanes stay NaN, as in the reference clamp.
    unsafe fn clamp(self, lo: Self, hi: Self) -> Self;
}

/// One lane: the portable fallback and the channel tail of the wide types.
#[derive(Clone, Copy)]
pub(crate) struct Scalar(f32);

impl F32s for Scalar {
    const LANES: usize = 1;
    #[inline(always)]
    unsafe fn splat(v: f32) -> Self {
        Scalar(v)
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        Scalar(unsafe { *p })
    }
    #[inline(always)]
    unsafe fn load_bytes(p: *const u8) -> Self {
        Scalar(unsafe { *p } as f32)
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        Scalar(self.0 + b.0)
    }
    #[inline(always)]
    unsafe fn sub(self, b: Self) -> Self {
        Scalar(self.0 - b.0)
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        Scalar(self.0 * b.0)
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        unsafe { *p = self.0 }
    }
    #[inline(always)]
    unsafe fn mul_add(self, b: Self, c: Self) -> Self {
        // Separate multiply and add: without FMA hardware `mul_add` is a slow libm call.
        Scalar(self.0 * b.0 + c.0)
    }
    #[inline(always)]
    unsafe fn clamp(self, lo: Self, hi: Self) -> Self {
        Scalar(crate::simd::clamp(self.0, lo.0, hi.0))
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::F32s;
    use std::arch::x86_64::*;

    #[derive(Clone, Copy)]
    pub(crate) struct Avx2(__m256);

    impl F32s for Avx2 {
        const LANES: usize = 8;
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            Avx2(unsafe { _mm256_set1_ps(v) })
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Self {
            Avx2(unsafe { _mm256_loadu_ps(p) })
        }
        #[inline(always)]
        unsafe fn load_bytes(p: *const u8) -> Self {
            Avx2(unsafe { _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast()))) })
        }
        #[inline(always)]
        unsafe fn add(self, b: Self) -> Self {
            Avx2(unsafe { _mm256_add_ps(self.0, b.0) })
        }
        #[inline(always)]
        unsafe fn sub(self, b: Self) -> Self {
            Avx2(unsafe { _mm256_sub_ps(self.0, b.0) })
        }
        #[inline(always)]
        unsafe fn mul(self, b: Self) -> Self {
            Avx2(unsafe { _mm256_mul_ps(self.0, b.0) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            unsafe { _mm256_storeu_ps(p, self.0) }
        }
        #[inline(always)]
        unsafe fn mul_add(self, b: Self, c: Self) -> Self {
            Avx2(unsafe { _mm256_fmadd_ps(self.0, b.0, c.0) })
        }
        #[inline(always)]
        unsafe fn clamp(self, lo: Self, hi: Self) -> Self {
            // max/min return their second operand when either is NaN: x stays NaN.
            Avx2(unsafe { _mm256_min_ps(hi.0, _mm256_max_ps(lo.0, self.0)) })
        }
    }

    #[derive(Clone, Copy)]
    pub(crate) struct Avx512(__m512);

    impl F32s for Avx512 {
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            Avx512(unsafe { _mm512_set1_ps(v) })
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Self {
            Avx512(unsafe { _mm512_loadu_ps(p) })
        }
        #[inline(always)]
        unsafe fn load_bytes(p: *const u8) -> Self {
            Avx512(unsafe { _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(p.cast()))) })
        }
        #[inline(always)]
        unsafe fn add(self, b: Self) -> Self {
            Avx512(unsafe { _mm512_add_ps(self.0, b.0) })
        }
        #[inline(always)]
        unsafe fn sub(self, b: Self) -> Self {
            Avx512(unsafe { _mm512_sub_ps(self.0, b.0) })
        }
        #[inline(always)]
        unsafe fn mul(self, b: Self) -> Self {
            Avx512(unsafe { _mm512_mul_ps(self.0, b.0) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            unsafe { _mm512_storeu_ps(p, self.0) }
        }
        #[inline(always)]
        unsafe fn mul_add(self, b: Self, c: Self) -> Self {
            Avx512(unsafe { _mm512_fmadd_ps(self.0, b.0, c.0) })
        }
        #[inline(always)]
        unsafe fn clamp(self, lo: Self, hi: Self) -> Self {
            Avx512(unsafe { _mm512_min_ps(hi.0, _mm512_max_ps(lo.0, self.0)) })
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) use wasm::{madd, Simd128};

/// WebAssembly SIMD. Unlike the x86 types it needs no run-time check: the build enables
/// simd128 for the whole module (`.cargo/config.toml`), and a module with SIMD instructions
/// loads only where they run.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use super::F32s;
    use std::arch::wasm32::*;

    #[derive(Clone, Copy)]
    pub(crate) struct Simd128(v128);

    /// `a·b + c`. simd128 has no fused multiply-add; the threads build has relaxed-simd's
    /// (not in every browser, so the one-thread build goes without).
    #[inline(always)]
    pub(crate) fn madd(a: v128, b: v128, c: v128) -> v128 {
        #[cfg(target_feature = "relaxed-simd")]
        return f32x4_relaxed_madd(a, b, c);
        #[cfg(not(target_feature = "relaxed-simd"))]
        f32x4_add(f32x4_mul(a, b), c)
    }

    impl F32s for Simd128 {
        const LANES: usize = 4;
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            Simd128(f32x4_splat(v))
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Self {
            // v128.load takes any alignment.
            Simd128(unsafe { v128_load(p.cast()) })
        }
        #[inline(always)]
        unsafe fn load_bytes(p: *const u8) -> Self {
            // Four bytes, widened twice.
            let b = unsafe { v128_load32_zero(p.cast()) };
            Simd128(f32x4_convert_u32x4(u32x4_extend_low_u16x8(u16x8_extend_low_u8x16(b))))
        }
        #[inline(always)]
        unsafe fn add(self, b: Self) -> Self {
            Simd128(f32x4_add(self.0, b.0))
        }
        #[inline(always)]
        unsafe fn sub(self, b: Self) -> Self {
            Simd128(f32x4_sub(self.0, b.0))
        }
        #[inline(always)]
        unsafe fn mul(self, b: Self) -> Self {
            Simd128(f32x4_mul(self.0, b.0))
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            unsafe { v128_store(p.cast(), self.0) }
        }
        #[inline(always)]
        unsafe fn mul_add(self, b: Self, c: Self) -> Self {
            Simd128(madd(self.0, b.0, c.0))
        }
        #[inline(always)]
        unsafe fn clamp(self, lo: Self, hi: Self) -> Self {
            // `x < lo ? lo : x`, then `hi < y ? hi : y`: a NaN x fails both tests and stays
            // NaN. Not pmin/pmax, which LLVM lowers to relaxed min/max (NaN lost on x86) once
            // relaxed-simd is enabled, as in the threads build.
            let y = v128_bitselect(lo.0, self.0, f32x4_lt(self.0, lo.0));
            Simd128(v128_bitselect(hi.0, y, f32x4_lt(hi.0, y)))
        }
    }
}
