//! Cases of the element-wise, activation and quantization ops.

use super::{num, o, only, B, SHAPE};
use webnn_core::ops::*;
use webnn_core::{DataType, OpKind, Operand};

/// The outputs of variant `v` of (kind, t), for the ops of this file.
pub(super) fn outs(b: &mut B, kind: OpKind, t: DataType, v: u32) -> Option<Vec<Operand>> {
    use OpKind::*;
    let only = |n: u32| only(v, n);
    Some(match kind {
        Add => {
            only(2)?;
            vec![b.binary(t, v, &|g, x, y| g.add(x, y, o()))?]
        }
        Sub => {
            only(2)?;
            vec![b.binary(t, v, &|g, x, y| g.sub(x, y, o()))?]
        }
        Mul => {
            only(2)?;
            vec![b.binary(t, v, &|g, x, y| g.mul(x, y, o()))?]
        }
        Div => {
            only(2)?;
            vec![b.binary(t, v, &|g, x, y| g.div(x, y, o()))?]
        }
        Max => {
            only(2)?;
            vec![b.binary(t, v, &|g, x, y| g.max(x, y, o()))?]
        }
        Min => {
            only(2)?;
            vec![b.binary(t, v, &|g, x, y| g.min(x, y, o()))?]
        }
        Pow => {
            only(1)?;
            let x = b.x(t, &SHAPE)?;
            let y = if t.is_float() {
                b.x(t, &[5, 1])?
            } else {
                b.ints(t, &[5, 1], 0, 4)?
            };
            vec![b.b.pow(x, y, o()).ok()?]
        }
        Equal => {
            only(2)?;
            vec![b.binary(t, v, &|g, x, y| g.equal(x, y, o()))?]
        }
        NotEqual => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.not_equal(x, y, o()))?]
        }
        Greater => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.greater(x, y, o()))?]
        }
        GreaterOrEqual => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.greater_or_equal(x, y, o()))?]
        }
        Lesser => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.lesser(x, y, o()))?]
        }
        LesserOrEqual => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.lesser_or_equal(x, y, o()))?]
        }
        LogicalAnd => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.logical_and(x, y, o()))?]
        }
        LogicalOr => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.logical_or(x, y, o()))?]
        }
        LogicalXor => {
            only(1)?;
            vec![b.binary(t, v, &|g, x, y| g.logical_xor(x, y, o()))?]
        }
        LogicalNot => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.logical_not(x, o()))?]
        }
        IsNaN => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.is_nan(x, o()))?]
        }
        IsInfinite => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.is_infinite(x, o()))?]
        }
        Abs => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.abs(x, o()))?]
        }
        Ceil => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.ceil(x, o()))?]
        }
        Cos => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.cos(x, o()))?]
        }
        Erf => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.erf(x, o()))?]
        }
        Exp => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.exp(x, o()))?]
        }
        Floor => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.floor(x, o()))?]
        }
        Identity => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.identity(x, o()))?]
        }
        Log => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.log(x, o()))?]
        }
        Neg => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.neg(x, o()))?]
        }
        Reciprocal => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.reciprocal(x, o()))?]
        }
        RoundEven => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.round_even(x, o()))?]
        }
        Sin => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.sin(x, o()))?]
        }
        Sign => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.sign(x, o()))?]
        }
        Sqrt => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.sqrt(x, o()))?]
        }
        Tan => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.tan(x, o()))?]
        }
        Cast => {
            let to = *DataType::ALL.get(v as usize * 2)?;
            let to2 = DataType::ALL[v as usize * 2 + 1];
            let x = b.x(t, &SHAPE)?;
            vec![b.b.cast(x, to, o()).ok()?, b.b.cast(x, to2, o()).ok()?]
        }
        Clamp => {
            only(2)?;
            let options = if v == 0 {
                ClampOptions {
                    min_value: num(-2.5),
                    max_value: num(100.0),
                    ..Default::default()
                }
            } else {
                ClampOptions {
                    min_value: num(3.0),
                    ..Default::default()
                }
            };
            vec![b.unary(t, &|g, x| g.clamp(x, options.clone()))?]
        }
        Elu => {
            only(1)?;
            vec![b.unary(t, &|g, x| {
                g.elu(
                    x,
                    EluOptions {
                        alpha: 0.7,
                        ..Default::default()
                    },
                )
            })?]
        }
        Gelu => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.gelu(x, o()))?]
        }
        HardSigmoid => {
            only(1)?;
            vec![b.unary(t, &|g, x| {
                g.hard_sigmoid(
                    x,
                    HardSigmoidOptions {
                        alpha: 0.3,
                        beta: 0.4,
                        ..Default::default()
                    },
                )
            })?]
        }
        HardSwish => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.hard_swish(x, o()))?]
        }
        LeakyRelu => {
            only(1)?;
            vec![b.unary(t, &|g, x| {
                g.leaky_relu(
                    x,
                    LeakyReluOptions {
                        alpha: 0.2,
                        ..Default::default()
                    },
                )
            })?]
        }
        Linear => {
            only(1)?;
            vec![b.unary(t, &|g, x| {
                g.linear(
                    x,
                    LinearOptions {
                        alpha: 1.5,
                        beta: -0.5,
                        ..Default::default()
                    },
                )
            })?]
        }
        Prelu => {
            only(1)?;
            let x = b.x(t, &SHAPE)?;
            let s = b.x(t, &[5, 7])?;
            vec![b.b.prelu(x, s, o()).ok()?]
        }
        Relu => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.relu(x, o()))?]
        }
        Sigmoid => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.sigmoid(x, o()))?]
        }
        Softmax => {
            only(2)?;
            vec![b.unary(t, &|g, x| g.softmax(x, v * 2, o()))?]
        }
        Softplus => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.softplus(x, o()))?]
        }
        Softsign => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.softsign(x, o()))?]
        }
        Tanh => {
            only(1)?;
            vec![b.unary(t, &|g, x| g.tanh(x, o()))?]
        }
        QuantizeLinear => {
            let q = [
                DataType::Int4,
                DataType::Uint4,
                DataType::Int8,
                DataType::Uint8,
                DataType::Int32,
                DataType::Uint32,
            ]
            .get(v as usize)
            .copied()?;
            let x = b.floats(t, &[4, 6], -300.0, 300.0)?;
            let s = b.floats(t, &[4, 2], 0.5, 3.0)?;
            let z = b.x(q, &[4, 2])?;
            vec![b.b.quantize_linear(x, s, z, o()).ok()?]
        }
        DequantizeLinear => {
            only(2)?;
            let f = if v == 0 {
                DataType::Float32
            } else {
                DataType::Float16
            };
            let x = b.x(t, &[4, 6])?;
            let s = b.floats(f, &[4, 2], 0.5, 3.0)?;
            let z = b.x(t, &[4, 2])?;
            vec![b.b.dequantize_linear(x, s, z, o()).ok()?]
        }
        // The other files' ops.
        _ => return None,
    })
}
