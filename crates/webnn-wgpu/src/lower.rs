//! Lowers each node of a validated graph to what the GPU runs: a buffer alias or one kernel
//! call (key, inputs, uniform block). The match over `Op` is exhaustive, so a new op fails to
//! compile here until it is either lowered or explicitly unsupported.

use crate::kernel::{BinaryOp, KernelId, KernelKey, UnaryOp};
use crate::params::Params;
use crate::storage::{Domain, Storage};
use half::f16;
use webnn_core::ops::*;
use webnn_core::{DataType, Error, Graph, Node, Op, Operand, Result};

/// One kernel invocation writing a node's output.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelCall {
    pub key: KernelKey,
    pub inputs: Vec<Operand>,
    pub params: Params,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Lowering {
    /// The output is the input's bytes unchanged (reshape, identity, same-type cast,
    /// identity transpose): it shares the input's buffer.
    Alias(Operand),
    Kernel(KernelCall),
}

fn shape(graph: &Graph, o: Operand) -> Result<Vec<u32>> {
    graph.desc(o).require_static("the wgpu backend's operands")
}

fn dtype(graph: &Graph, o: Operand) -> DataType {
    graph.desc(o).data_type
}

/// An option value cast to the input's float type first, as the spec's algorithms do.
fn float_option(t: DataType, v: f64) -> f32 {
    match t {
        DataType::Float16 => f16::from_f64(v).to_f32(),
        _ => v as f32,
    }
}

/// The block of an element-wise output: its shape and work units.
fn output_params(graph: &Graph, out: Operand) -> Result<Params> {
    let s = shape(graph, out)?;
    let n = s.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64));
    Params::new(&s, Storage::of(dtype(graph, out)).units(n))
}

fn unary(
    graph: &Graph,
    node: &Node,
    op: UnaryOp,
    input: Operand,
    f: [f32; 4],
    i: [u32; 4],
) -> Result<Lowering> {
    let out = node.outputs[0];
    let mut params = output_params(graph, out)?;
    params.f = f;
    params.i = i;
    let key = KernelKey {
        kernel: KernelId::Unary(op),
        dtype: dtype(graph, input),
        out: dtype(graph, out),
        broadcast: false,
    };
    Ok(Lowering::Kernel(KernelCall {
        key,
        inputs: vec![input],
        params,
    }))
}

fn binary(graph: &Graph, node: &Node, op: BinaryOp, args: &Binary) -> Result<Lowering> {
    let out = node.outputs[0];
    let mut params = output_params(graph, out)?;
    let (sa, sb, so) = (
        shape(graph, args.a)?,
        shape(graph, args.b)?,
        shape(graph, out)?,
    );
    params.a_strides = Params::broadcast_strides(&sa, &so)?;
    params.b_strides = Params::broadcast_strides(&sb, &so)?;
    let key = KernelKey {
        kernel: KernelId::Binary(op),
        dtype: dtype(graph, args.a),
        out: dtype(graph, out),
        broadcast: sa != so || sb != so,
    };
    Ok(Lowering::Kernel(KernelCall {
        key,
        inputs: vec![args.a, args.b],
        params,
    }))
}

/// A clamp bound cast to the element type: floats round to the type (float16 included),
/// integers saturate to the type's range (doubles rounding to nearest even, NaN giving 0).
fn int_bound(v: MLNumber, lo: i128, hi: i128) -> i128 {
    match v {
        MLNumber::BigInt(x) => x.clamp(lo, hi),
        MLNumber::Double(x) if x.is_nan() => 0,
        MLNumber::Double(x) => {
            (x.clamp(lo as f64, hi as f64).round_ties_even() as i128).clamp(lo, hi)
        }
    }
}

fn int_range(t: DataType) -> (i128, i128) {
    match t {
        DataType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        DataType::Uint32 => (0, u32::MAX as i128),
        DataType::Int64 => (i64::MIN as i128, i64::MAX as i128),
        DataType::Uint64 => (0, u64::MAX as i128),
        DataType::Int8 => (i8::MIN as i128, i8::MAX as i128),
        DataType::Uint8 => (0, u8::MAX as i128),
        DataType::Int4 => (-8, 7),
        DataType::Uint4 => (0, 15),
        DataType::Float32 | DataType::Float16 => (0, 0),
    }
}

fn clamp(graph: &Graph, node: &Node, args: &Clamp) -> Result<Lowering> {
    let t = dtype(graph, args.input);
    let (mut f, mut i) = ([0f32; 4], [0u32; 4]);
    let (min, max) = (args.options.min_value, args.options.max_value);
    match Domain::of(t) {
        Domain::Float => {
            f[0] = min.map_or(f32::NEG_INFINITY, |v| float_option(t, v.as_f64()));
            f[1] = max.map_or(f32::INFINITY, |v| float_option(t, v.as_f64()));
        }
        Domain::Sint | Domain::Uint | Domain::S64 | Domain::U64 => {
            let (lo, hi) = int_range(t);
            let a = min.map_or(lo, |v| int_bound(v, lo, hi));
            let b = max.map_or(hi, |v| int_bound(v, lo, hi));
            // Two's complement words: the low word alone for 32-bit domains.
            let words = |x: i128| [x as u64 as u32, (x as u64 >> 32) as u32];
            let (wa, wb) = (words(a), words(b));
            i = if matches!(Domain::of(t), Domain::S64 | Domain::U64) {
                [wa[0], wa[1], wb[0], wb[1]]
            } else {
                [wa[0], wb[0], 0, 0]
            };
        }
    }
    unary(graph, node, UnaryOp::Clamp, args.input, f, i)
}

fn cast(graph: &Graph, node: &Node, args: &Cast) -> Result<Lowering> {
    let out = node.outputs[0];
    let from = dtype(graph, args.input);
    if from == args.data_type {
        return Ok(Lowering::Alias(args.input));
    }
    let key = KernelKey {
        kernel: KernelId::Cast,
        dtype: from,
        out: args.data_type,
        broadcast: false,
    };
    Ok(Lowering::Kernel(KernelCall {
        key,
        inputs: vec![args.input],
        params: output_params(graph, out)?,
    }))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose>: the permutation defaults to
/// reversing the dimensions.
fn transpose(graph: &Graph, node: &Node, args: &Transpose) -> Result<Lowering> {
    let out = node.outputs[0];
    let s = shape(graph, args.input)?;
    let rank = s.len() as u32;
    let perm: Vec<u32> = args
        .options
        .permutation
        .clone()
        .unwrap_or_else(|| (0..rank).rev().collect());
    if perm.iter().enumerate().all(|(k, &p)| p == k as u32) {
        return Ok(Lowering::Alias(args.input));
    }
    let mut params = output_params(graph, out)?;
    params.a_strides = Params::permuted_strides(&s, &perm)?;
    let t = dtype(graph, args.input);
    let key = KernelKey {
        kernel: KernelId::Gather,
        dtype: t,
        out: t,
        broadcast: false,
    };
    Ok(Lowering::Kernel(KernelCall {
        key,
        inputs: vec![args.input],
        params,
    }))
}

fn not_yet(op: &Op) -> Result<Lowering> {
    Err(Error::not_supported(format!(
        "{} is not implemented on the wgpu backend",
        op.name()
    )))
}

/// What node `node` of `graph` runs.
pub fn lower(graph: &Graph, node: &Node) -> Result<Lowering> {
    let t = |o: Operand| dtype(graph, o);
    let plain = |op: UnaryOp, a: &Unary| unary(graph, node, op, a.input, [0.0; 4], [0; 4]);
    let with = |op: UnaryOp, input: Operand, f: [f32; 4]| unary(graph, node, op, input, f, [0; 4]);
    match &node.op {
        Op::Add(a) => binary(graph, node, BinaryOp::Add, a),
        Op::Sub(a) => binary(graph, node, BinaryOp::Sub, a),
        Op::Mul(a) => binary(graph, node, BinaryOp::Mul, a),
        Op::Div(a) => binary(graph, node, BinaryOp::Div, a),
        Op::Max(a) => binary(graph, node, BinaryOp::Max, a),
        Op::Min(a) => binary(graph, node, BinaryOp::Min, a),
        Op::Pow(a) => binary(graph, node, BinaryOp::Pow, a),
        Op::Equal(a) => binary(graph, node, BinaryOp::Equal, a),
        Op::NotEqual(a) => binary(graph, node, BinaryOp::NotEqual, a),
        Op::Greater(a) => binary(graph, node, BinaryOp::Greater, a),
        Op::GreaterOrEqual(a) => binary(graph, node, BinaryOp::GreaterOrEqual, a),
        Op::Lesser(a) => binary(graph, node, BinaryOp::Lesser, a),
        Op::LesserOrEqual(a) => binary(graph, node, BinaryOp::LesserOrEqual, a),
        Op::LogicalAnd(a) => binary(graph, node, BinaryOp::LogicalAnd, a),
        Op::LogicalOr(a) => binary(graph, node, BinaryOp::LogicalOr, a),
        Op::LogicalXor(a) => binary(graph, node, BinaryOp::LogicalXor, a),
        Op::LogicalNot(a) => plain(UnaryOp::LogicalNot, a),
        Op::IsNaN(a) => plain(UnaryOp::IsNaN, a),
        Op::IsInfinite(a) => plain(UnaryOp::IsInfinite, a),
        Op::Abs(a) => plain(UnaryOp::Abs, a),
        Op::Ceil(a) => plain(UnaryOp::Ceil, a),
        Op::Cos(a) => plain(UnaryOp::Cos, a),
        Op::Erf(a) => plain(UnaryOp::Erf, a),
        Op::Exp(a) => plain(UnaryOp::Exp, a),
        Op::Floor(a) => plain(UnaryOp::Floor, a),
        Op::Identity(a) => Ok(Lowering::Alias(a.input)),
        Op::Log(a) => plain(UnaryOp::Log, a),
        Op::Neg(a) => plain(UnaryOp::Neg, a),
        Op::Reciprocal(a) => plain(UnaryOp::Reciprocal, a),
        Op::RoundEven(a) => plain(UnaryOp::RoundEven, a),
        Op::Sin(a) => plain(UnaryOp::Sin, a),
        Op::Sign(a) => plain(UnaryOp::Sign, a),
        Op::Sqrt(a) => plain(UnaryOp::Sqrt, a),
        Op::Tan(a) => plain(UnaryOp::Tan, a),
        Op::Cast(a) => cast(graph, node, a),
        Op::Clamp(a) => clamp(graph, node, a),
        Op::Elu(a) => with(
            UnaryOp::Elu,
            a.input,
            [float_option(t(a.input), a.options.alpha), 0.0, 0.0, 0.0],
        ),
        Op::Gelu(a) => plain(UnaryOp::Gelu, a),
        Op::HardSigmoid(a) => {
            let ty = t(a.input);
            with(
                UnaryOp::HardSigmoid,
                a.input,
                [
                    float_option(ty, a.options.alpha),
                    float_option(ty, a.options.beta),
                    0.0,
                    0.0,
                ],
            )
        }
        Op::HardSwish(a) => plain(UnaryOp::HardSwish, a),
        Op::LeakyRelu(a) => with(
            UnaryOp::LeakyRelu,
            a.input,
            [float_option(t(a.input), a.options.alpha), 0.0, 0.0, 0.0],
        ),
        Op::Linear(a) => {
            let ty = t(a.input);
            with(
                UnaryOp::Linear,
                a.input,
                [
                    float_option(ty, a.options.alpha),
                    float_option(ty, a.options.beta),
                    0.0,
                    0.0,
                ],
            )
        }
        Op::Relu(a) => plain(UnaryOp::Relu, a),
        Op::Sigmoid(a) => plain(UnaryOp::Sigmoid, a),
        Op::Softplus(a) => plain(UnaryOp::Softplus, a),
        Op::Softsign(a) => plain(UnaryOp::Softsign, a),
        Op::Tanh(a) => plain(UnaryOp::Tanh, a),
        Op::Reshape(a) => Ok(Lowering::Alias(a.input)),
        Op::Transpose(a) => transpose(graph, node, a),
        Op::Prelu(_) | Op::Softmax(_) => not_yet(&node.op),
        Op::ArgMin(_) | Op::ArgMax(_) | Op::CumulativeSum(_) => not_yet(&node.op),
        Op::ReduceL1(_)
        | Op::ReduceL2(_)
        | Op::ReduceLogSum(_)
        | Op::ReduceLogSumExp(_)
        | Op::ReduceMax(_)
        | Op::ReduceMean(_)
        | Op::ReduceMin(_)
        | Op::ReduceProduct(_)
        | Op::ReduceSum(_)
        | Op::ReduceSumSquare(_) => not_yet(&node.op),
        Op::Conv2d(_) | Op::ConvTranspose2d(_) => not_yet(&node.op),
        Op::AveragePool2d(_) | Op::L2Pool2d(_) | Op::MaxPool2d(_) | Op::Resample2d(_) => {
            not_yet(&node.op)
        }
        Op::BatchNormalization(_) | Op::InstanceNormalization(_) | Op::LayerNormalization(_) => {
            not_yet(&node.op)
        }
        Op::Matmul(_) | Op::Gemm(_) => not_yet(&node.op),
        Op::Gru(_) | Op::GruCell(_) | Op::Lstm(_) | Op::LstmCell(_) => not_yet(&node.op),
        Op::Gather(_)
        | Op::GatherElements(_)
        | Op::GatherNd(_)
        | Op::ScatterElements(_)
        | Op::ScatterNd(_) => not_yet(&node.op),
        Op::Concat(_)
        | Op::Expand(_)
        | Op::Pad(_)
        | Op::Reverse(_)
        | Op::Slice(_)
        | Op::Split(_)
        | Op::Tile(_)
        | Op::Triangular(_)
        | Op::Where(_) => not_yet(&node.op),
        Op::QuantizeLinear(_) | Op::DequantizeLinear(_) => not_yet(&node.op),
    }
}
