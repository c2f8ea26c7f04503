//! The float math of the element-wise ops, one element at a time in f64: what the kernels
//! here map over float tensors (rounding once to the output type after each op), public so
//! that a backend fusing chains of these ops computes exactly what the ops one by one do.

use super::math;
use webnn_core::ops::*;
use webnn_core::DataType;

/// A unary float op with its options, cast as the spec casts them to the input's type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FloatUnary {
    Abs,
    Neg,
    Sign,
    Relu,
    Ceil,
    Cos,
    Erf,
    Exp,
    Floor,
    Identity,
    Log,
    Reciprocal,
    RoundEven,
    Sin,
    Sqrt,
    Tan,
    Gelu,
    HardSwish,
    Sigmoid,
    Softplus,
    Softsign,
    Tanh,
    Elu { alpha: f64 },
    HardSigmoid { alpha: f64, beta: f64 },
    LeakyRelu { alpha: f64 },
    Linear { alpha: f64, beta: f64 },
    Clamp { lo: f64, hi: f64 },
}

/// A binary float op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatBinary {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
}

/// An option value after the spec's cast to the input's float type.
pub(crate) fn cast_option(dt: DataType, v: f64) -> f64 {
    match dt {
        DataType::Float16 => half::f16::from_f64(v).to_f64(),
        _ => v as f32 as f64,
    }
}

impl FloatUnary {
    /// The op as a unary float op on data of type `dt`, if it is one.
    pub fn of(op: &Op, dt: DataType) -> Option<FloatUnary> {
        let c = |v: f64| cast_option(dt, v);
        Some(match op {
            Op::Abs(_) => FloatUnary::Abs,
            Op::Neg(_) => FloatUnary::Neg,
            Op::Sign(_) => FloatUnary::Sign,
            Op::Relu(_) => FloatUnary::Relu,
            Op::Ceil(_) => FloatUnary::Ceil,
            Op::Cos(_) => FloatUnary::Cos,
            Op::Erf(_) => FloatUnary::Erf,
            Op::Exp(_) => FloatUnary::Exp,
            Op::Floor(_) => FloatUnary::Floor,
            Op::Identity(_) => FloatUnary::Identity,
            Op::Log(_) => FloatUnary::Log,
            Op::Reciprocal(_) => FloatUnary::Reciprocal,
            Op::RoundEven(_) => FloatUnary::RoundEven,
            Op::Sin(_) => FloatUnary::Sin,
            Op::Sqrt(_) => FloatUnary::Sqrt,
            Op::Tan(_) => FloatUnary::Tan,
            Op::Gelu(_) => FloatUnary::Gelu,
            Op::HardSwish(_) => FloatUnary::HardSwish,
            Op::Sigmoid(_) => FloatUnary::Sigmoid,
            Op::Softplus(_) => FloatUnary::Softplus,
            Op::Softsign(_) => FloatUnary::Softsign,
            Op::Tanh(_) => FloatUnary::Tanh,
            Op::Elu(a) => FloatUnary::Elu {
                alpha: c(a.options.alpha),
            },
            Op::HardSigmoid(a) => FloatUnary::HardSigmoid {
                alpha: c(a.options.alpha),
                beta: c(a.options.beta),
            },
            Op::LeakyRelu(a) => FloatUnary::LeakyRelu {
                alpha: c(a.options.alpha),
            },
            Op::Linear(a) => FloatUnary::Linear {
                alpha: c(a.options.alpha),
                beta: c(a.options.beta),
            },
            Op::Clamp(a) => FloatUnary::Clamp {
                lo: a
                    .options
                    .min_value
                    .map_or(f64::NEG_INFINITY, |v| c(v.as_f64())),
                hi: a.options.max_value.map_or(f64::INFINITY, |v| c(v.as_f64())),
            },
            _ => return None,
        })
    }

    #[inline]
    pub fn apply(self, x: f64) -> f64 {
        match self {
            FloatUnary::Abs => x.abs(),
            FloatUnary::Neg => -x,
            FloatUnary::Sign => {
                // 1 if > 0, -1 if < 0, and 0 otherwise (so NaN and -0 give +0).
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            FloatUnary::Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            FloatUnary::Ceil => x.ceil(),
            FloatUnary::Cos => x.cos(),
            FloatUnary::Erf => math::erf(x),
            FloatUnary::Exp => x.exp(),
            FloatUnary::Floor => x.floor(),
            FloatUnary::Identity => x,
            FloatUnary::Log => x.ln(),
            FloatUnary::Reciprocal => 1.0 / x,
            FloatUnary::RoundEven => x.round_ties_even(),
            FloatUnary::Sin => x.sin(),
            FloatUnary::Sqrt => x.sqrt(),
            FloatUnary::Tan => x.tan(),
            FloatUnary::Gelu => math::gelu(x),
            FloatUnary::HardSwish => math::hard_swish(x),
            FloatUnary::Sigmoid => math::sigmoid(x),
            FloatUnary::Softplus => math::softplus(x),
            FloatUnary::Softsign => math::softsign(x),
            FloatUnary::Tanh => x.tanh(),
            FloatUnary::Elu { alpha } => {
                if x > 0.0 {
                    x
                } else {
                    alpha * x.exp_m1()
                }
            }
            FloatUnary::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(0.0, 1.0),
            FloatUnary::LeakyRelu { alpha } => {
                if x < 0.0 {
                    alpha * x
                } else {
                    x
                }
            }
            FloatUnary::Linear { alpha, beta } => alpha * x + beta,
            FloatUnary::Clamp { lo, hi } => {
                if x < lo {
                    lo
                } else if x > hi {
                    hi
                } else {
                    x
                }
            }
        }
    }
}

impl FloatBinary {
    pub fn of(op: &Op) -> Option<FloatBinary> {
        Some(match op {
            Op::Add(_) => FloatBinary::Add,
            Op::Sub(_) => FloatBinary::Sub,
            Op::Mul(_) => FloatBinary::Mul,
            Op::Div(_) => FloatBinary::Div,
            Op::Max(_) => FloatBinary::Max,
            Op::Min(_) => FloatBinary::Min,
            Op::Pow(_) => FloatBinary::Pow,
            _ => return None,
        })
    }

    #[inline]
    pub fn apply(self, x: f64, y: f64) -> f64 {
        match self {
            FloatBinary::Add => x + y,
            FloatBinary::Sub => x - y,
            FloatBinary::Mul => x * y,
            FloatBinary::Div => x / y,
            // max/min propagate NaN.
            FloatBinary::Max | FloatBinary::Min if x.is_nan() || y.is_nan() => f64::NAN,
            FloatBinary::Max => x.max(y),
            FloatBinary::Min => x.min(y),
            FloatBinary::Pow => x.powf(y),
        }
    }
}
