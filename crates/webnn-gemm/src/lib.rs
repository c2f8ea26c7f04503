//! webnn-gemm: single-precision matrix multiplication for the fast CPU backend.
//!
//! Convolutions with 1x1 kernels in NHWC, fully connected layers and matmuls with constant
//! weights all reduce to `C = clamp(A·B + bias)` with a B that never changes between runs. So
//! B is rearranged once ([`PackedB`]) into the order the chosen microkernel reads it, the bias
//! travels with it, and the activation clamp is applied while the tile is still in registers
//! ([`Epilogue`]), which saves two extra passes over C.
//!
//! The microkernels broadcast one element of A at a time and multiply it by a row of packed B
//! ("loadsplat"); A itself is read in place, so callers need no scratch buffer for it and can
//! hand over strided views (row stride `lda`).
//!
//! Everything public is safe: the instruction set is checked when B is packed, and every
//! slice is checked before a kernel runs.

mod driver;
mod isa;
mod kernel;
mod pack;

pub use driver::{gemm, gemm_block, gemm_rows, gemv};
pub use isa::Isa;
pub use pack::PackedB;

/// The activation fused into the store of C: every output is clamped to `[min, max]` after
/// the bias is added. Clamping covers relu, relu6 and plain clamp, which are the activations
/// that follow almost every convolution in mobile networks; a NaN result stays NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epilogue {
    pub min: f32,
    pub max: f32,
}

impl Epilogue {
    /// No activation.
    pub const NONE: Epilogue = Epilogue {
        min: f32::NEG_INFINITY,
        max: f32::INFINITY,
    };
    /// `max(x, 0)`.
    pub const RELU: Epilogue = Epilogue {
        min: 0.0,
        max: f32::INFINITY,
    };
    /// `min(max(x, 0), 6)`, MobileNet's activation.
    pub const RELU6: Epilogue = Epilogue { min: 0.0, max: 6.0 };

    /// Clamp to `[min, max]`; panics unless `min <= max` (so neither is NaN).
    pub fn clamp(min: f32, max: f32) -> Epilogue {
        assert!(min <= max, "clamp bounds out of order: [{min}, {max}]");
        Epilogue { min, max }
    }

    /// Applies the clamp to one value the way every kernel does, NaN passing through.
    pub fn apply(self, x: f32) -> f32 {
        if x < self.min {
            self.min
        } else if x > self.max {
            self.max
        } else {
            x
        }
    }
}

impl Default for Epilogue {
    fn default() -> Epilogue {
        Epilogue::NONE
    }
}
