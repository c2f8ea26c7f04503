//! Validation and output inference for every op: the only place that knows the spec's rules.
//! `infer` matches every op exhaustively and hands it to its family's module; each validator
//! links its spec anchor. Backends receive graphs that passed here.

mod common;
mod conv;
mod elementwise;
mod gather;
mod normalization;
mod pool;
mod quantization;
mod recurrent;
mod reduction;
mod shape_ops;

pub(crate) use common::Ctx;

use crate::error::Result;
use crate::graph::Graph;
use crate::ops::Op;
use crate::shape::OperandDescriptor;

/// The output descriptors of `op`, or the error the spec's steps throw.
pub(crate) fn infer(graph: &Graph, op: &Op) -> Result<Vec<OperandDescriptor>> {
    let cx = Ctx { graph, kind: op.kind() };
    let one = |d: Result<OperandDescriptor>| d.map(|d| vec![d]);
    match op {
        Op::Add(a) | Op::Sub(a) | Op::Mul(a) | Op::Div(a) | Op::Max(a) | Op::Min(a) | Op::Pow(a) => {
            one(elementwise::binary(&cx, a))
        }
        Op::Equal(a)
        | Op::NotEqual(a)
        | Op::Greater(a)
        | Op::GreaterOrEqual(a)
        | Op::Lesser(a)
        | Op::LesserOrEqual(a)
        | Op::LogicalAnd(a)
        | Op::LogicalOr(a)
        | Op::LogicalXor(a) => one(elementwise::logical_binary(&cx, a)),
        Op::LogicalNot(a) | Op::IsNaN(a) | Op::IsInfinite(a) => one(elementwise::logical_unary(&cx, a)),
        Op::Abs(a)
        | Op::Ceil(a)
        | Op::Cos(a)
        | Op::Erf(a)
        | Op::Exp(a)
        | Op::Floor(a)
        | Op::Identity(a)
        | Op::Log(a)
        | Op::Neg(a)
        | Op::Reciprocal(a)
        | Op::RoundEven(a)
        | Op::Sin(a)
        | Op::Sign(a)
        | Op::Sqrt(a)
        | Op::Tan(a)
        | Op::Gelu(a)
        | Op::HardSwish(a)
        | Op::Relu(a)
        | Op::Sigmoid(a)
        | Op::Softplus(a)
        | Op::Softsign(a)
        | Op::Tanh(a) => one(elementwise::unary(&cx, a.input)),
        Op::Elu(a) => one(elementwise::elu(&cx, a)),
        Op::HardSigmoid(a) => one(elementwise::hard_sigmoid(&cx, a)),
        Op::LeakyRelu(a) => one(elementwise::leaky_relu(&cx, a)),
        Op::Linear(a) => one(elementwise::linear(&cx, a)),
        Op::Cast(a) => one(elementwise::cast(&cx, a)),
        Op::Clamp(a) => one(elementwise::clamp(&cx, a)),
        Op::Prelu(a) => one(elementwise::prelu(&cx, a)),
        Op::Softmax(a) => one(reduction::softmax(&cx, a)),
        Op::ArgMin(a) | Op::ArgMax(a) => one(reduction::arg_min_max(&cx, a)),
        Op::CumulativeSum(a) => one(reduction::cumulative_sum(&cx, a)),
        Op::ReduceL1(a)
        | Op::ReduceL2(a)
        | Op::ReduceLogSum(a)
        | Op::ReduceLogSumExp(a)
        | Op::ReduceMax(a)
        | Op::ReduceMean(a)
        | Op::ReduceMin(a)
        | Op::ReduceProduct(a)
        | Op::ReduceSum(a)
        | Op::ReduceSumSquare(a) => one(reduction::reduce(&cx, a)),
        Op::Conv2d(a) => one(conv::conv2d(&cx, a)),
        Op::ConvTranspose2d(a) => one(conv::conv_transpose2d(&cx, a)),
        Op::AveragePool2d(a) | Op::L2Pool2d(a) | Op::MaxPool2d(a) => one(pool::pool2d(&cx, a)),
        Op::Resample2d(a) => one(pool::resample2d(&cx, a)),
        Op::BatchNormalization(a) => one(normalization::batch_normalization(&cx, a)),
        Op::InstanceNormalization(a) => one(normalization::instance_normalization(&cx, a)),
        Op::LayerNormalization(a) => one(normalization::layer_normalization(&cx, a)),
        Op::Matmul(a) => one(conv::matmul(&cx, a)),
        Op::Gemm(a) => one(conv::gemm(&cx, a)),
        Op::Gru(a) => recurrent::gru(&cx, a),
        Op::GruCell(a) => one(recurrent::gru_cell(&cx, a)),
        Op::Lstm(a) => recurrent::lstm(&cx, a),
        Op::LstmCell(a) => recurrent::lstm_cell(&cx, a),
        Op::Gather(a) => one(gather::gather(&cx, a)),
        Op::GatherElements(a) => one(gather::gather_elements(&cx, a)),
        Op::GatherNd(a) => one(gather::gather_nd(&cx, a)),
        Op::ScatterElements(a) => one(gather::scatter_elements(&cx, a)),
        Op::ScatterNd(a) => one(gather::scatter_nd(&cx, a)),
        Op::Concat(a) => one(shape_ops::concat(&cx, a)),
        Op::Expand(a) => one(shape_ops::expand(&cx, a)),
        Op::Pad(a) => one(shape_ops::pad(&cx, a)),
        Op::Reshape(a) => one(shape_ops::reshape(&cx, a)),
        Op::Reverse(a) => one(shape_ops::reverse(&cx, a)),
        Op::Slice(a) => one(shape_ops::slice(&cx, a)),
        Op::Split(a) => shape_ops::split(&cx, a),
        Op::Tile(a) => one(shape_ops::tile(&cx, a)),
        Op::Transpose(a) => one(shape_ops::transpose(&cx, a)),
        Op::Triangular(a) => one(shape_ops::triangular(&cx, a)),
        Op::Where(a) => one(shape_ops::where_(&cx, a)),
        Op::QuantizeLinear(a) => one(quantization::quantize_linear(&cx, a)),
        Op::DequantizeLinear(a) => one(quantization::dequantize_linear(&cx, a)),
    }
}
