//! Evaluates one node: an exhaustive match over the op table handing each op to its family's
//! kernels.

use crate::kernels::*;
use crate::tensor::Tensor;
use std::collections::HashMap;
use webnn_core::{DataType, DimBindings, Error, Graph, Node, Op, Operand, Result};

/// The values computed so far.
pub struct Env<'a> {
    pub graph: &'a Graph,
    pub values: &'a [Option<Tensor>],
    pub constants: &'a HashMap<usize, Tensor>,
    /// This run's sizes of the graph's dynamic dimensions.
    pub dims: &'a DimBindings,
}

/// What a kernel sees: its node's operand values and output descriptors.
pub struct Cx<'a> {
    pub env: &'a Env<'a>,
    pub node: &'a Node,
}

impl<'a> Cx<'a> {
    /// The value of an operand input.
    pub fn t(&self, o: Operand) -> Result<&'a Tensor> {
        self.env.values[o.index()]
            .as_ref()
            .or_else(|| self.env.constants.get(&o.index()))
            .ok_or_else(|| Error::operation_error(format!("operand {} has no value", o.index())))
    }
    /// The value of an optional operand input.
    pub fn opt(&self, o: Option<Operand>) -> Result<Option<&'a Tensor>> {
        o.map(|o| self.t(o)).transpose()
    }
    /// Output `i`'s data type.
    pub fn out_type(&self, i: usize) -> DataType {
        self.env.graph.desc(self.node.outputs[i]).data_type
    }
    /// Output `i`'s shape: inferred at build, its dynamic dimensions at this run's sizes.
    pub fn out_shape(&self, i: usize) -> Vec<usize> {
        let desc = self.env.graph.desc(self.node.outputs[i]);
        let shape = self.env.dims.shape(desc).unwrap_or_else(|_| desc.max_shape());
        shape.iter().map(|&d| d as usize).collect()
    }
}

pub fn eval(env: &Env, node: &Node) -> Result<Vec<Tensor>> {
    let cx = Cx { env, node };
    let kind = node.op.kind();
    let one = |t: Result<Tensor>| t.map(|t| vec![t]);
    match &node.op {
        Op::Add(a)
        | Op::Sub(a)
        | Op::Mul(a)
        | Op::Div(a)
        | Op::Max(a)
        | Op::Min(a)
        | Op::Pow(a)
        | Op::Equal(a)
        | Op::NotEqual(a)
        | Op::Greater(a)
        | Op::GreaterOrEqual(a)
        | Op::Lesser(a)
        | Op::LesserOrEqual(a)
        | Op::LogicalAnd(a)
        | Op::LogicalOr(a)
        | Op::LogicalXor(a) => one(elementwise::binary(&cx, kind, a)),
        Op::LogicalNot(a)
        | Op::IsNaN(a)
        | Op::IsInfinite(a)
        | Op::Abs(a)
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
        | Op::Tanh(a) => one(elementwise::unary(&cx, kind, a)),
        Op::Elu(a) => one(elementwise::elu(&cx, a)),
        Op::HardSigmoid(a) => one(elementwise::hard_sigmoid(&cx, a)),
        Op::LeakyRelu(a) => one(elementwise::leaky_relu(&cx, a)),
        Op::Linear(a) => one(elementwise::linear(&cx, a)),
        Op::Cast(a) => one(elementwise::cast(&cx, a)),
        Op::Clamp(a) => one(elementwise::clamp(&cx, a)),
        Op::Prelu(a) => one(elementwise::prelu(&cx, a)),
        Op::Softmax(a) => one(reduction::softmax(&cx, a)),
        Op::ArgMin(a) | Op::ArgMax(a) => one(reduction::arg_min_max(&cx, kind, a)),
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
        | Op::ReduceSumSquare(a) => one(reduction::reduce(&cx, kind, a)),
        Op::Conv2d(a) => one(conv::conv2d(&cx, a)),
        Op::ConvTranspose2d(a) => one(conv::conv_transpose2d(&cx, a)),
        Op::AveragePool2d(a) | Op::L2Pool2d(a) | Op::MaxPool2d(a) => one(pool::pool2d(&cx, kind, a)),
        Op::Resample2d(a) => one(pool::resample2d(&cx, a)),
        Op::BatchNormalization(a) => one(normalization::batch_normalization(&cx, a)),
        Op::InstanceNormalization(a) => one(normalization::instance_normalization(&cx, a)),
        Op::LayerNormalization(a) => one(normalization::layer_normalization(&cx, a)),
        Op::Matmul(a) => one(matmul::matmul(&cx, a)),
        Op::Gemm(a) => one(matmul::gemm(&cx, a)),
        Op::Gru(a) => recurrent::gru(&cx, a),
        Op::GruCell(a) => one(recurrent::gru_cell(&cx, a)),
        Op::Lstm(a) => recurrent::lstm(&cx, a),
        Op::LstmCell(a) => recurrent::lstm_cell(&cx, a),
        Op::Gather(a) => one(gather::gather(&cx, a)),
        Op::GatherElements(a) => one(gather::gather_elements(&cx, a)),
        Op::GatherNd(a) => one(gather::gather_nd(&cx, a)),
        Op::ScatterElements(a) => one(gather::scatter_elements(&cx, a)),
        Op::ScatterNd(a) => one(gather::scatter_nd(&cx, a)),
        Op::Concat(a) => one(shape::concat(&cx, a)),
        Op::Expand(a) => one(shape::expand(&cx, a)),
        Op::Pad(a) => one(shape::pad(&cx, a)),
        Op::Reshape(a) => one(shape::reshape(&cx, a)),
        Op::Reverse(a) => one(shape::reverse(&cx, a)),
        Op::Slice(a) => one(shape::slice(&cx, a)),
        Op::Split(a) => shape::split(&cx, a),
        Op::Tile(a) => one(shape::tile(&cx, a)),
        Op::Transpose(a) => one(shape::transpose(&cx, a)),
        Op::Triangular(a) => one(shape::triangular(&cx, a)),
        Op::Where(a) => one(shape::where_(&cx, a)),
        Op::QuantizeLinear(a) => one(quantization::quantize_linear(&cx, a)),
        Op::DequantizeLinear(a) => one(quantization::dequantize_linear(&cx, a)),
    }
}
