//! Instruction-set selection. On x86 the choice is made at run time, because one native binary
//! must run on machines with and without AVX-512; on wasm there is no run-time detection, so the
//! choice follows the features the module was compiled with.

use crate::kernel::{self, Kernels};
use std::fmt;

/// An instruction set with a microkernel in this crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Portable Rust, 4x4 tiles: the fallback everywhere and a readable reference.
    Scalar,
    /// x86-64 AVX2 with FMA3, 6x16 tiles (12 ymm accumulators).
    Avx2Fma,
    /// x86-64 AVX-512F, 8x32 tiles (16 zmm accumulators).
    Avx512,
    /// WebAssembly SIMD, 4x8 tiles with separate multiply and add.
    Simd128,
    /// WebAssembly relaxed SIMD, 4x8 tiles with `f32x4.relaxed_madd`.
    RelaxedSimd,
    /// AArch64 Advanced SIMD, 8x8 tiles.
    Neon,
}

impl Isa {
    /// Every variant, fastest first within each architecture.
    pub const ALL: [Isa; 6] = [
        Isa::Avx512,
        Isa::Avx2Fma,
        Isa::RelaxedSimd,
        Isa::Simd128,
        Isa::Neon,
        Isa::Scalar,
    ];

    /// The fastest instruction set this machine (or this wasm build) supports.
    pub fn detect() -> Isa {
        Isa::ALL
            .into_iter()
            .find(|isa| isa.is_supported())
            .unwrap_or(Isa::Scalar)
    }

    /// Every instruction set usable here, fastest first; for tests and benchmarks that want to
    /// compare them all.
    pub fn available() -> Vec<Isa> {
        Isa::ALL
            .into_iter()
            .filter(|isa| isa.is_supported())
            .collect()
    }

    /// Whether this build has the kernel and this machine can run it.
    pub fn is_supported(self) -> bool {
        self.kernels().is_some()
    }

    /// Short lowercase name, for tables and logs.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2Fma => "avx2-fma",
            Isa::Avx512 => "avx512",
            Isa::Simd128 => "simd128",
            Isa::RelaxedSimd => "relaxed-simd",
            Isa::Neon => "neon",
        }
    }

    /// f32 lanes in one vector register, for peak-throughput estimates.
    pub fn lanes(self) -> usize {
        match self {
            Isa::Scalar => 1,
            Isa::Simd128 | Isa::RelaxedSimd | Isa::Neon => 4,
            Isa::Avx2Fma => 8,
            Isa::Avx512 => 16,
        }
    }

    /// The kernel table, or `None` when the ISA is absent from this build or this CPU. This is
    /// the only way to reach a kernel, which is what makes the ISA kernels sound to call.
    pub(crate) fn kernels(self) -> Option<Kernels> {
        match self {
            Isa::Scalar => Some(kernel::scalar::kernels()),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2Fma => kernel::avx2::kernels(),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => kernel::avx512::kernels(),
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Isa::Simd128 => Some(kernel::wasm::kernels_simd128()),
            #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
            Isa::RelaxedSimd => Some(kernel::wasm::kernels_relaxed()),
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => Some(kernel::neon::kernels()),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
