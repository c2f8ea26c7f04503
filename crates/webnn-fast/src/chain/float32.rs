//! Chains whose every link is one correctly rounded operation, computed in float32. A link
//! computes in float64 and rounds its result to float32; for one addition, subtraction,
//! multiplication, division or square root of float32 values that is the float32
//! operation's result (float64 carries more than twice float32's precision, so rounding
//! twice cannot differ from rounding once), and the compare-and-select ops only pick
//! values; the activation pair and the float16 rounding have float32 forms of the same
//! results. So such chains (a hard-swish written as add, clip, mul and div; a residual add
//! and relu) give the same bits in float32 lanes: twice as many per vector, and no
//! conversions. That matters most in wasm, whose vectors hold two float64 values.
//!
//! tanh joins them although it is not exact: its float32 form (`vmath::tanh_f32`) is within
//! one ULP of the correctly rounded value, as the float64 form rounded to float32 is, so a
//! chain keeps the accuracy the float64 path promises (a GELU written with tanh, as BERT-style
//! exports write it, computes in float32 at about five times the speed).
//!
//! gelu and erf join them with a looser bound, well inside WPT's: their float32 forms
//! (`approx::gelu_f32`, `approx::erf_f32`) are within 8 ULP and 3e-7 absolute, where the
//! float64 forms are within 4 ULP and 2e-7 (WPT allows 18 ULP and 1/1024). gelu's float32
//! form covers |x| <= 13; a block holding any other value (or NaN) computes those in
//! float64.

use super::{binary, operand2, select, unary, ChainStep, Link, Operand2};
use crate::simd::Simd;
use webnn_cpu::kernels::elementwise::scalar::{FloatBinary, FloatUnary};

/// Whether `v` is a float32 value (or infinite), so a float32 comparison or product with it
/// is the float64 one's.
fn exact(v: f64) -> bool {
    v as f32 as f64 == v || v.is_infinite()
}

impl ChainStep {
    /// Whether every link computes in float32: to the same bits, or tanh's one ULP (module
    /// comment).
    pub(super) fn in_float32(&self) -> bool {
        self.links.iter().all(|l| match *l {
            Link::Unary(u) => match u {
                FloatUnary::Neg | FloatUnary::Abs | FloatUnary::Identity | FloatUnary::Relu | FloatUnary::Tanh => true,
                FloatUnary::Gelu | FloatUnary::Erf => true,
                FloatUnary::Clamp { lo, hi } => (exact(lo) || lo.is_nan()) && (exact(hi) || hi.is_nan()),
                FloatUnary::LeakyRelu { alpha } => exact(alpha),
                _ => false,
            },
            Link::FakeQuant(_) | Link::Prelu(_) | Link::RoundF16 => true,
            Link::Binary { op, other, swapped } => {
                let scalar = match other {
                    super::Other::Scalar(s) => Some(s),
                    _ => None,
                };
                match op {
                    FloatBinary::Add | FloatBinary::Sub | FloatBinary::Mul | FloatBinary::Div | FloatBinary::Max | FloatBinary::Min => {
                        scalar.is_none_or(|s| exact(s) || s.is_nan())
                    }
                    // A square or a square root of the value (pow's other exponents round
                    // twice or call the library; a constant raised to the value is a power
                    // the library computes too).
                    FloatBinary::Pow => !swapped && matches!(scalar, Some(e) if e == 2.0 || e == 0.5),
                }
            }
        })
    }

    /// One link over a block of float32 running values (as `apply` over float64 ones).
    #[inline(always)]
    fn apply32(&self, l: &Link, simd: Simd, v: &mut [f32], inputs: &[&[f32]], at: usize) {
        match *l {
            Link::Unary(f) => match f {
                FloatUnary::Neg => unary(v, |x| -x),
                FloatUnary::Abs => unary(v, f32::abs),
                FloatUnary::Identity => {}
                FloatUnary::Tanh => unary(v, crate::vmath::tanh_f32),
                FloatUnary::Erf => unary(v, crate::approx::erf_f32),
                FloatUnary::Gelu => {
                    let range = crate::approx::GELU_F32_RANGE;
                    // A count, not `all`: the sum vectorizes as a reduction.
                    let outside: u32 = v.iter().map(|x| u32::from(x.is_nan() || x.abs() > range)).sum();
                    match outside {
                        0 => unary(v, crate::approx::gelu_f32),
                        _ => unary(v, |x| match x.abs() <= range {
                            true => crate::approx::gelu_f32(x),
                            false => crate::approx::gelu(x as f64) as f32,
                        }),
                    }
                }
                FloatUnary::Relu => unary(v, select::relu),
                FloatUnary::Clamp { lo, hi } => {
                    // As `apply`: a NaN bound is no bound (as ∓∞, out of relaxed min/max).
                    let lo = if lo.is_nan() { f32::NEG_INFINITY } else { lo as f32 };
                    let hi = if hi.is_nan() { f32::INFINITY } else { hi as f32 };
                    unary(v, |x| select::clamp(x, lo, hi))
                }
                FloatUnary::LeakyRelu { alpha } => unary(v, |x| select::leaky_relu(x, alpha as f32)),
                _ => unreachable!("`in_float32` admits no other unary link"),
            },
            // The pair's float32 loops (AVX-512's vector code where the machine has it).
            Link::FakeQuant(q) => crate::quant::apply_f32(simd, &q, v),
            Link::RoundF16 => unary(v, crate::vmath::round_f16_f32),
            Link::Prelu(other) => binary(v, operand2(other, inputs, at, v.len()), select::prelu),
            Link::Binary { op, other, swapped } => {
                let other = operand2(other, inputs, at, v.len());
                use FloatBinary as B;
                match (op, swapped) {
                    (B::Add, _) => binary(v, other, |x, o| x + o),
                    (B::Mul, _) => binary(v, other, |x, o| x * o),
                    (B::Sub, false) => binary(v, other, |x, o| x - o),
                    (B::Sub, true) => binary(v, other, |x, o| o - x),
                    (B::Div, false) => binary(v, other, |x, o| x / o),
                    (B::Div, true) => binary(v, other, |x, o| o / x),
                    (B::Max, false) => binary(v, other, select::max),
                    (B::Max, true) => binary(v, other, |x, o| select::max(o, x)),
                    (B::Min, false) => binary(v, other, select::min),
                    (B::Min, true) => binary(v, other, |x, o| select::min(o, x)),
                    (B::Pow, false) if matches!(other, Operand2::Scalar(e) if e == 2.0) => unary(v, |x| x * x),
                    // pow(±0, 0.5) is +0 and pow(-∞, 0.5) is +∞, where sqrt differs.
                    (B::Pow, false) => unary(v, |x| if x == f32::NEG_INFINITY { f32::INFINITY } else { x.sqrt() + 0.0 }),
                    _ => unreachable!("`in_float32` admits no other binary link"),
                }
            }
        }
    }
}

/// The chain over `out` (elements `start..` of the result) in float32 blocks, as
/// `super::run_blocks` in float64 ones.
#[inline(always)]
pub(super) fn run_blocks<const FMA: bool>(step: &ChainStep, simd: Simd, out: &mut [f32], start: usize, inputs: &[&[f32]]) {
    for (b, chunk) in out.chunks_mut(super::BLOCK).enumerate() {
        let at = start + b * super::BLOCK;
        chunk.copy_from_slice(&inputs[0][at..at + chunk.len()]);
        for l in &step.links {
            step.apply32(l, simd, chunk, inputs, at);
        }
    }
}
