//! One `MLGraphBuilder` call from JSON: the JS method name and its arguments by parameter name
//! (as in the IDL), mapped to the `GraphBuilder` method with typed options.

use crate::args::{enforce_u32, enforce_u32_list, Args};
use crate::options as o;
use serde_json::Value;
use std::fmt;
use webnn_core::ops::{OpOptions, Splits};
use webnn_core::{Error, GraphBuilder, OpKind, Operand};

/// Why a call produced no operands.
#[derive(Debug)]
pub enum CallError {
    /// What the API (or the WebIDL conversion of an argument) threw.
    Api(Error),
    /// The JSON cannot be mapped to a call at all (unknown method...).
    Harness(String),
}

impl From<Error> for CallError {
    fn from(e: Error) -> CallError {
        CallError::Api(e)
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Api(e) => write!(f, "{e}"),
            CallError::Harness(m) => write!(f, "harness: {m}"),
        }
    }
}

/// Calls builder method `method` with `a`; returns its output operand(s).
pub fn call(b: &mut GraphBuilder, method: &str, a: &Args) -> Result<Vec<Operand>, CallError> {
    call_method(b, method, a).map_err(|e| match (e, OpKind::from_name(method)) {
        // Argument conversion errors come from the binding, before the builder names the op.
        (CallError::Api(e), Some(kind)) if e.op.is_none() => CallError::Api(e.at(kind.name(), "")),
        (e, _) => e,
    })
}

fn call_method(b: &mut GraphBuilder, method: &str, a: &Args) -> Result<Vec<Operand>, CallError> {
    let opts = a.opts()?;
    let one = |r: webnn_core::Result<Operand>| r.map(|x| vec![x]).map_err(CallError::Api);

    macro_rules! simple {
        (unary: [$($un:literal => $um:ident),*], binary: [$($bn:literal => $bm:ident),*]) => {
            match method {
                $($un => {
                    // The IDL names the operand `a` for logicalNot, isNaN and isInfinite.
                    let input = a.operand_of(&["input", "a"])?;
                    return one(b.$um(input, o::label_only(&opts)?));
                })*
                $($bn => {
                    let (x, y) = (a.operand("a")?, a.operand("b")?);
                    return one(b.$bm(x, y, o::label_only(&opts)?));
                })*
                _ => {}
            }
        };
    }
    simple! {
        unary: [
            "logicalNot" => logical_not, "isNaN" => is_nan, "isInfinite" => is_infinite,
            "abs" => abs, "ceil" => ceil, "cos" => cos, "erf" => erf, "exp" => exp,
            "floor" => floor, "identity" => identity, "log" => log, "neg" => neg,
            "reciprocal" => reciprocal, "roundEven" => round_even, "sin" => sin, "sign" => sign,
            "sqrt" => sqrt, "tan" => tan, "gelu" => gelu, "hardSwish" => hard_swish,
            "relu" => relu, "sigmoid" => sigmoid, "softplus" => softplus, "softsign" => softsign,
            "tanh" => tanh
        ],
        binary: [
            "add" => add, "sub" => sub, "mul" => mul, "div" => div, "max" => max, "min" => min,
            "pow" => pow, "equal" => equal, "notEqual" => not_equal, "greater" => greater,
            "greaterOrEqual" => greater_or_equal, "lesser" => lesser,
            "lesserOrEqual" => lesser_or_equal, "logicalAnd" => logical_and,
            "logicalOr" => logical_or, "logicalXor" => logical_xor, "matmul" => matmul
        ]
    }

    macro_rules! input_options {
        ($($name:literal => $m:ident($parse:path)),* $(,)?) => {
            match method {
                $($name => {
                    let input = a.operand("input")?;
                    return one(b.$m(input, $parse(&opts)?));
                })*
                _ => {}
            }
        };
    }
    input_options! {
        "clamp" => clamp(o::clamp),
        "elu" => elu(o::elu),
        "hardSigmoid" => hard_sigmoid(o::hard_sigmoid),
        "leakyRelu" => leaky_relu(o::leaky_relu),
        "linear" => linear(o::linear),
        "instanceNormalization" => instance_normalization(o::instance_normalization),
        "layerNormalization" => layer_normalization(o::layer_normalization),
        "reduceL1" => reduce_l1(o::reduce),
        "reduceL2" => reduce_l2(o::reduce),
        "reduceLogSum" => reduce_log_sum(o::reduce),
        "reduceLogSumExp" => reduce_log_sum_exp(o::reduce),
        "reduceMax" => reduce_max(o::reduce),
        "reduceMean" => reduce_mean(o::reduce),
        "reduceMin" => reduce_min(o::reduce),
        "reduceProduct" => reduce_product(o::reduce),
        "reduceSum" => reduce_sum(o::reduce),
        "reduceSumSquare" => reduce_sum_square(o::reduce),
        "resample2d" => resample2d(o::resample2d),
        "reverse" => reverse(o::reverse),
        "transpose" => transpose(o::transpose),
        "triangular" => triangular(o::triangular),
    }

    let label = || -> webnn_core::Result<OpOptions> { o::label_only(&opts) };
    match method {
        "argMin" | "argMax" => {
            let (input, axis) = (a.operand("input")?, a.u32("axis")?);
            let options = o::arg_min_max(&opts)?;
            if method == "argMin" {
                one(b.arg_min(input, axis, options))
            } else {
                one(b.arg_max(input, axis, options))
            }
        }
        "batchNormalization" => {
            let (input, mean, variance) = (a.operand("input")?, a.operand("mean")?, a.operand("variance")?);
            one(b.batch_normalization(input, mean, variance, o::batch_normalization(&opts)?))
        }
        "cast" => {
            // The IDL names the parameter `dataType`; the WPT data calls it `type`.
            let (input, data_type) = (a.operand("input")?, a.data_type(&["type", "dataType"])?);
            one(b.cast(input, data_type, label()?))
        }
        "concat" => {
            let (inputs, axis) = (a.operands("inputs")?, a.u32("axis")?);
            one(b.concat(&inputs, axis, label()?))
        }
        "conv2d" => {
            let (input, filter) = (a.operand("input")?, a.operand("filter")?);
            let mut options = o::conv2d(&opts)?;
            crate::legacy::conv2d(b, &opts, input, filter, &mut options)?;
            one(b.conv2d(input, filter, options))
        }
        "averagePool2d" | "l2Pool2d" | "maxPool2d" => {
            let input = a.operand("input")?;
            let mut options = o::pool2d(&opts)?;
            crate::legacy::pool2d(b, &opts, input, &mut options)?;
            match method {
                "averagePool2d" => one(b.average_pool2d(input, options)),
                "l2Pool2d" => one(b.l2_pool2d(input, options)),
                _ => one(b.max_pool2d(input, options)),
            }
        }
        "convTranspose2d" => {
            let (input, filter) = (a.operand("input")?, a.operand("filter")?);
            one(b.conv_transpose2d(input, filter, o::conv_transpose2d(&opts)?))
        }
        "cumulativeSum" => {
            // `unsigned long axis` has no [EnforceRange] in the IDL.
            let (input, axis) = (a.operand("input")?, a.wrapping_u32("axis")?);
            one(b.cumulative_sum(input, axis, o::cumulative_sum(&opts)?))
        }
        "quantizeLinear" | "dequantizeLinear" => {
            let (input, scale, zero_point) = (a.operand("input")?, a.operand("scale")?, a.operand("zeroPoint")?);
            if method == "quantizeLinear" {
                one(b.quantize_linear(input, scale, zero_point, label()?))
            } else {
                one(b.dequantize_linear(input, scale, zero_point, label()?))
            }
        }
        "expand" | "reshape" => {
            let (input, new_shape) = (a.operand("input")?, a.dims("newShape")?);
            if method == "expand" {
                one(b.expand(input, new_shape, label()?))
            } else {
                one(b.reshape(input, new_shape, label()?))
            }
        }
        "gather" | "gatherElements" => {
            let (input, indices) = (a.operand("input")?, a.operand("indices")?);
            let options = o::gather(&opts)?;
            if method == "gather" {
                one(b.gather(input, indices, options))
            } else {
                one(b.gather_elements(input, indices, options))
            }
        }
        "gatherND" => {
            let (input, indices) = (a.operand("input")?, a.operand("indices")?);
            one(b.gather_nd(input, indices, label()?))
        }
        "gemm" => {
            let (x, y) = (a.operand("a")?, a.operand("b")?);
            one(b.gemm(x, y, o::gemm(&opts)?))
        }
        "gru" => {
            let (input, w, r) = (a.operand("input")?, a.operand("weight")?, a.operand("recurrentWeight")?);
            let (steps, hidden) = (a.u32("steps")?, a.u32("hiddenSize")?);
            Ok(b.gru(input, w, r, steps, hidden, o::gru(&opts)?)?)
        }
        "gruCell" => {
            let (input, w, r) = (a.operand("input")?, a.operand("weight")?, a.operand("recurrentWeight")?);
            let (h, hidden) = (a.operand("hiddenState")?, a.u32("hiddenSize")?);
            one(b.gru_cell(input, w, r, h, hidden, o::gru_cell(&opts)?))
        }
        "lstm" => {
            let (input, w, r) = (a.operand("input")?, a.operand("weight")?, a.operand("recurrentWeight")?);
            let (steps, hidden) = (a.u32("steps")?, a.u32("hiddenSize")?);
            Ok(b.lstm(input, w, r, steps, hidden, o::lstm(&opts)?)?)
        }
        "lstmCell" => {
            let (input, w, r) = (a.operand("input")?, a.operand("weight")?, a.operand("recurrentWeight")?);
            let (h, c, hidden) = (a.operand("hiddenState")?, a.operand("cellState")?, a.u32("hiddenSize")?);
            Ok(b.lstm_cell(input, w, r, h, c, hidden, o::lstm_cell(&opts)?)?)
        }
        "pad" => {
            let input = a.operand("input")?;
            let (begin, end) = (a.u32_list("beginningPadding")?, a.u32_list("endingPadding")?);
            one(b.pad(input, begin, end, o::pad(&opts)?))
        }
        "prelu" => {
            let (input, slope) = (a.operand("input")?, a.operand("slope")?);
            one(b.prelu(input, slope, label()?))
        }
        "scatterElements" => {
            let (input, indices, updates) = (a.operand("input")?, a.operand("indices")?, a.operand("updates")?);
            one(b.scatter_elements(input, indices, updates, o::scatter(&opts)?))
        }
        "scatterND" => {
            let (input, indices, updates) = (a.operand("input")?, a.operand("indices")?, a.operand("updates")?);
            one(b.scatter_nd(input, indices, updates, label()?))
        }
        "slice" => {
            // Sizes may name dynamic dimensions (flexible inputs), as `newShape` may.
            let (input, starts, sizes) = (a.operand("input")?, a.u32_list("starts")?, a.dims("sizes")?);
            one(b.slice_dims(input, starts, sizes, o::slice(&opts)?))
        }
        "softmax" => {
            let input = a.operand("input")?;
            // Without `axis` it is the legacy 2-D overload (see `GraphBuilder::softmax_2d`).
            match a.param("axis") {
                Some(_) => one(b.softmax(input, a.u32("axis")?, label()?)),
                None => one(b.softmax_2d(input, label()?)),
            }
        }
        "split" => {
            let input = a.operand("input")?;
            let splits = match a.param("splits") {
                // `(unsigned long or sequence<unsigned long>)`: arrays are the sequence branch.
                Some(v @ Value::Array(_)) => Splits::Sizes(enforce_u32_list(v, "splits")?),
                Some(v) => Splits::Count(enforce_u32(v, "splits")?),
                None => return Err(Error::type_error("the required argument 'splits' is missing").into()),
            };
            Ok(b.split(input, splits, o::split(&opts)?)?)
        }
        "tile" => {
            // `sequence<unsigned long> repetitions` has no [EnforceRange] in the IDL.
            let (input, repetitions) = (a.operand("input")?, a.wrapping_u32_list("repetitions")?);
            one(b.tile(input, repetitions, label()?))
        }
        "where" => {
            let (c, t, f) = (a.operand("condition")?, a.operand("trueValue")?, a.operand("falseValue")?);
            one(b.where_(c, t, f, label()?))
        }
        _ => Err(CallError::Harness(format!("unknown MLGraphBuilder method '{method}'"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;
    use webnn_core::{DataType, OperandDescriptor};

    fn run(method: &str, params: &[(&str, Value)], options: Option<Value>) -> Result<Vec<Operand>, CallError> {
        let mut b = GraphBuilder::new();
        let mut ops = HashMap::new();
        let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[2, 6])).map_err(CallError::Api)?;
        ops.insert("x".to_owned(), x);
        let params: Vec<(&str, &Value)> = params.iter().map(|(n, v)| (*n, v)).collect();
        let a = Args::new(params, options.as_ref(), &ops, false);
        call(&mut b, method, &a)
    }

    #[test]
    fn unknown_method_is_a_harness_error() {
        assert!(matches!(run("frobnicate", &[], None), Err(CallError::Harness(_))));
    }

    #[test]
    fn missing_or_mistyped_arguments_are_type_errors() {
        let te = |r: Result<Vec<Operand>, CallError>| matches!(r, Err(CallError::Api(e)) if e.kind == webnn_core::ErrorKind::TypeError);
        assert!(te(run("relu", &[("input", json!("nope"))], None)));
        assert!(te(run("relu", &[("input", json!(3))], None)));
        assert!(te(run("relu", &[("input", json!("x"))], Some(json!(5)))));
        assert!(te(run(
            "pad",
            &[("input", json!("x")), ("beginningPadding", json!([0, 0])), ("endingPadding", json!([0, 0]))],
            Some(json!({"mode": "symmetric"}))
        )));
        assert!(te(run("split", &[("input", json!("x")), ("splits", json!(-1))], None)));
    }
}
