//! Element-wise arithmetic, comparisons, activations, reductions and quantization.

use super::node::{Args, OnnxNode};
use super::tensor::{axes_of, axis};
use super::{one, Cx, Value};
use webnn_core::ops::*;
use webnn_core::{DataType, Dim, Operand, Result};

type Bin = fn(&mut webnn_core::GraphBuilder, Operand, Operand, OpOptions) -> Result<Operand>;
type Un = fn(&mut webnn_core::GraphBuilder, Operand, OpOptions) -> Result<Operand>;

fn binary(op: &str) -> Option<Bin> {
    use webnn_core::GraphBuilder as B;
    Some(match op {
        "Add" | "Sum" => B::add,
        "Sub" => B::sub,
        "Mul" => B::mul,
        "Div" => B::div,
        "Pow" => B::pow,
        "Max" => B::max,
        "Min" => B::min,
        "Equal" => B::equal,
        "Less" => B::lesser,
        "LessOrEqual" => B::lesser_or_equal,
        "Greater" => B::greater,
        "GreaterOrEqual" => B::greater_or_equal,
        "And" => B::logical_and,
        "Or" => B::logical_or,
        "Xor" => B::logical_xor,
        "PRelu" => B::prelu,
        _ => return None,
    })
}

fn unary(op: &str) -> Option<Un> {
    use webnn_core::GraphBuilder as B;
    Some(match op {
        "Abs" => B::abs,
        "Ceil" => B::ceil,
        "Cos" => B::cos,
        "Erf" => B::erf,
        "Exp" => B::exp,
        "Floor" => B::floor,
        "Log" => B::log,
        "Neg" => B::neg,
        "Reciprocal" => B::reciprocal,
        "Round" => B::round_even,
        "Sin" => B::sin,
        "Sign" => B::sign,
        "Sqrt" => B::sqrt,
        "Tan" => B::tan,
        "Relu" => B::relu,
        "Sigmoid" => B::sigmoid,
        "Tanh" => B::tanh,
        "Softplus" => B::softplus,
        "Softsign" => B::softsign,
        "HardSwish" => B::hard_swish,
        "Not" => B::logical_not,
        "IsNaN" => B::is_nan,
        _ => return None,
    })
}

pub(crate) fn lower(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let op = n.op_type.as_str();
    if let Some(f) = binary(op) {
        // Variadic Sum/Max/Min (and Mean below) fold left over their inputs.
        let mut acc = a.op(cx, 0)?;
        for i in 1..a.len() {
            let b = a.op(cx, i)?;
            let o = cx.o();
            acc = f(&mut cx.b, acc, b, o)?;
        }
        if a.len() == 1 {
            acc = cx.b.identity(acc, cx.o())?;
        }
        return one(acc);
    }
    if let Some(f) = unary(op) {
        let x = a.op(cx, 0)?;
        let o = cx.o();
        return one(f(&mut cx.b, x, o)?);
    }
    let label = cx.label.clone();
    match op {
        "Mean" => {
            let mut acc = a.op(cx, 0)?;
            for i in 1..a.len() {
                let b = a.op(cx, i)?;
                acc = cx.b.add(acc, b, cx.o())?;
            }
            let k = cx.scalar(cx.b.desc(acc)?.data_type, a.len() as f64)?;
            one(cx.b.div(acc, k, cx.o())?)
        }
        "IsInf" => {
            let x = a.op(cx, 0)?;
            let (pos, neg) = (n.i("detect_positive", 1) != 0, n.i("detect_negative", 1) != 0);
            let inf = cx.b.is_infinite(x, cx.o())?;
            if pos && neg {
                return one(inf);
            }
            let zero = cx.scalar(cx.b.desc(x)?.data_type, 0.0)?;
            let side = if pos { cx.b.greater(x, zero, cx.o())? } else { cx.b.lesser(x, zero, cx.o())? };
            one(cx.b.logical_and(inf, side, cx.o())?)
        }
        "Elu" => {
            let x = a.op(cx, 0)?;
            one(cx.b.elu(x, EluOptions { label, alpha: n.f("alpha", 1.0) as f64 })?)
        }
        "Selu" => {
            let x = a.op(cx, 0)?;
            let alpha = n.f("alpha", 1.673_263_2) as f64;
            let gamma = n.f("gamma", 1.050_701) as f64;
            let e = cx.b.elu(x, EluOptions { label: label.clone(), alpha })?;
            one(cx.b.linear(e, LinearOptions { label, alpha: gamma, beta: 0.0 })?)
        }
        "Mish" => {
            // x tanh(softplus(x))
            let x = a.op(cx, 0)?;
            let o = cx.o();
            let s = cx.b.softplus(x, o.clone())?;
            let t = cx.b.tanh(s, o.clone())?;
            one(cx.b.mul(x, t, o)?)
        }
        "Celu" => {
            // max(0, x) + min(0, alpha (exp(x / alpha) - 1)): elu of x / alpha, scaled.
            let x = a.op(cx, 0)?;
            let alpha = n.f("alpha", 1.0) as f64;
            let scaled = cx.b.linear(x, LinearOptions { label: label.clone(), alpha: 1.0 / alpha, beta: 0.0 })?;
            let e = cx.b.elu(scaled, EluOptions { label: label.clone(), alpha: 1.0 })?;
            one(cx.b.linear(e, LinearOptions { label, alpha, beta: 0.0 })?)
        }
        "ThresholdedRelu" => {
            let x = a.op(cx, 0)?;
            let dt = cx.b.desc(x)?.data_type;
            let t = cx.scalar(dt, n.f("alpha", 1.0) as f64)?;
            let zero = cx.scalar(dt, 0.0)?;
            let o = cx.o();
            let above = cx.b.greater(x, t, o.clone())?;
            one(cx.b.where_(above, x, zero, o)?)
        }
        "LeakyRelu" => {
            let x = a.op(cx, 0)?;
            one(cx.b.leaky_relu(x, LeakyReluOptions { label, alpha: n.f("alpha", 0.01) as f64 })?)
        }
        "HardSigmoid" => {
            let x = a.op(cx, 0)?;
            let options = HardSigmoidOptions { label, alpha: n.f("alpha", 0.2) as f64, beta: n.f("beta", 0.5) as f64 };
            one(cx.b.hard_sigmoid(x, options)?)
        }
        "Gelu" => {
            let x = a.op(cx, 0)?;
            match n.s("approximate", "none").as_str() {
                "none" => one(cx.b.gelu(x, cx.o())?),
                "tanh" => {
                    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
                    let dt = cx.b.desc(x)?.data_type;
                    let o = cx.o();
                    let x3 = cx.b.mul(x, x, o.clone())?;
                    let x3 = cx.b.mul(x3, x, o.clone())?;
                    let c = cx.scalar(dt, 0.044715)?;
                    let t = cx.b.mul(x3, c, o.clone())?;
                    let t = cx.b.add(x, t, o.clone())?;
                    let k = cx.scalar(dt, (2.0 / std::f64::consts::PI).sqrt())?;
                    let t = cx.b.mul(t, k, o.clone())?;
                    let t = cx.b.tanh(t, o.clone())?;
                    let t = cx.b.linear(t, LinearOptions { label: label.clone(), alpha: 0.5, beta: 0.5 })?;
                    one(cx.b.mul(x, t, o)?)
                }
                other => Err(n.unsupported(format!("approximate '{other}'"))),
            }
        }
        "Clip" => {
            let x = a.op(cx, 0)?;
            let (lo, hi) = if n.opset >= 11 {
                (a.host(1, "the minimum")?.map(|h| h.floats()[0]), a.host(2, "the maximum")?.map(|h| h.floats()[0]))
            } else {
                (n.has("min").then(|| n.f("min", 0.0) as f64), n.has("max").then(|| n.f("max", 0.0) as f64))
            };
            let options = ClampOptions {
                label,
                min_value: lo.map(MLNumber::Double),
                max_value: hi.map(MLNumber::Double),
            };
            one(cx.b.clamp(x, options)?)
        }
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1" | "ReduceL2" | "ReduceLogSum"
        | "ReduceLogSumExp" | "ReduceSumSquare" => reduce(cx, n, a),
        "ArgMax" | "ArgMin" => {
            if n.i("select_last_index", 0) != 0 {
                return Err(n.unsupported("select_last_index 1"));
            }
            let rank = cx.rank(a.req(0)?)?;
            let ax = axis(n.i("axis", 0), rank)? as u32;
            let x = a.op(cx, 0)?;
            let options = ArgMinMaxOptions { label, keep_dimensions: n.i("keepdims", 1) != 0, output_data_type: DataType::Int64 };
            one(if op == "ArgMax" { cx.b.arg_max(x, ax, options)? } else { cx.b.arg_min(x, ax, options)? })
        }
        // WebNN has no top-k; k = 1 (a classifier's best class) is the extreme and its index,
        // the lower index on ties as ONNX orders equal values.
        "TopK" => {
            let k = match n.opset {
                ..=9 => n.i("k", 0),
                _ => a.ints(1, "k")?.and_then(|v| v.first().copied()).ok_or_else(|| n.unsupported("k computed at run time"))?,
            };
            if k != 1 {
                return Err(n.unsupported(format!("k = {k} (WebNN has no top-k; k = 1 is imported as reduceMax/argMax)")));
            }
            let rank = cx.rank(a.req(0)?)?;
            let ax = axis(n.i("axis", -1), rank)? as u32;
            let x = a.op(cx, 0)?;
            let largest = n.i("largest", 1) != 0;
            let reduce = ReduceOptions { label: label.clone(), axes: Some(vec![ax]), keep_dimensions: true };
            let values = if largest { cx.b.reduce_max(x, reduce)? } else { cx.b.reduce_min(x, reduce)? };
            let options = ArgMinMaxOptions { label, keep_dimensions: true, output_data_type: DataType::Int64 };
            let indices = if largest { cx.b.arg_max(x, ax, options)? } else { cx.b.arg_min(x, ax, options)? };
            Ok(Some(vec![Value::Op(values), Value::Op(indices)]))
        }
        "QuantizeLinear" | "DequantizeLinear" => quantize(cx, n, a),
        _ => Ok(None),
    }
}

fn reduce(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let rank = cx.rank(a.req(0)?)?;
    // ReduceSum took its axes as an input from opset 13, the others from 18.
    let from = if n.op_type == "ReduceSum" { 13 } else { 18 };
    let axes = axes_of(n, a, 1, from)?;
    let x = a.op(cx, 0)?;
    let axes = match axes {
        Some(ax) if !ax.is_empty() => Some(ax.iter().map(|&v| axis(v, rank).map(|x| x as u32)).collect::<Result<Vec<_>>>()?),
        _ if n.i("noop_with_empty_axes", 0) != 0 => return one(cx.b.identity(x, cx.o())?),
        _ => None,
    };
    let options = ReduceOptions { label: cx.label.clone(), axes, keep_dimensions: n.i("keepdims", 1) != 0 };
    let b = &mut cx.b;
    one(match n.op_type.as_str() {
        "ReduceMean" => b.reduce_mean(x, options)?,
        "ReduceSum" => b.reduce_sum(x, options)?,
        "ReduceMax" => b.reduce_max(x, options)?,
        "ReduceMin" => b.reduce_min(x, options)?,
        "ReduceProd" => b.reduce_product(x, options)?,
        "ReduceL1" => b.reduce_l1(x, options)?,
        "ReduceL2" => b.reduce_l2(x, options)?,
        "ReduceLogSum" => b.reduce_log_sum(x, options)?,
        "ReduceLogSumExp" => b.reduce_log_sum_exp(x, options)?,
        _ => b.reduce_sum_square(x, options)?,
    })
}

/// Per-tensor or per-axis (de)quantization: a 1-D scale along `axis` is reshaped so it
/// broadcasts from that axis, and a missing zero point is a zero of the quantized type.
fn quantize(cx: &mut Cx, n: &OnnxNode, a: &Args) -> Result<Option<Vec<Value>>> {
    let xs = cx.desc(a.req(0)?)?;
    let rank = xs.rank();
    let ss = cx.desc(a.req(1)?)?;
    let quantize = n.op_type == "QuantizeLinear";
    if n.i("block_size", 0) != 0 {
        return Err(n.unsupported("block_size (blocked quantization)"));
    }
    let zp_type = match a.get(2) {
        Some(v) => cx.dt(v)?,
        None if quantize => match n.i("output_dtype", 0) {
            0 => DataType::Uint8,
            t => super::host::webnn_type(t)?,
        },
        None => xs.data_type,
    };
    let x = a.op(cx, 0)?;
    let mut scale = a.op(cx, 1)?;
    let mut zero = match a.opt_op(cx, 2)? {
        Some(z) => z,
        None => {
            let shape: Vec<usize> = ss.shape.iter().map(|d| d.max_size() as usize).collect();
            let count = shape.iter().product::<usize>();
            cx.operand(&Value::Host(super::Host::from_ints(zp_type, shape, &vec![0; count])))?
        }
    };
    if ss.rank() == 1 && rank > 1 && ss.shape[0] != Dim::Static(1) {
        let ax = axis(n.i("axis", 1), rank)?;
        let mut dims = vec![Dim::Static(1); rank - ax];
        dims[0] = ss.shape[0].clone();
        scale = cx.b.reshape(scale, dims.clone(), cx.o())?;
        zero = cx.b.reshape(zero, dims, cx.o())?;
    }
    let o = cx.o();
    one(if quantize { cx.b.quantize_linear(x, scale, zero, o)? } else { cx.b.dequantize_linear(x, scale, zero, o)? })
}

