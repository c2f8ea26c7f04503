//! One lowering per op, grouped by family; the match below has an arm for every op of the
//! table, so a new op fails to compile here until it is lowered.

mod activation;
mod conv;
mod elementwise;
mod gather;
mod normalization;
mod pool;
mod quantization;
mod reduction;
mod shape;

use crate::emit::Em;
use webnn_core::{Error, Node, Op, OpKind, Result};

/// Appends the MIL operations computing `node` and binds its outputs.
pub fn lower(em: &mut Em, node: &Node) -> Result<()> {
    let out = node.outputs[0];
    let kind = node.op.kind();
    match &node.op {
        Op::Add(a) | Op::Sub(a) | Op::Mul(a) | Op::Div(a) | Op::Max(a) | Op::Min(a) | Op::Pow(a) => {
            elementwise::binary(em, kind, a, out)
        }
        Op::Equal(a)
        | Op::NotEqual(a)
        | Op::Greater(a)
        | Op::GreaterOrEqual(a)
        | Op::Lesser(a)
        | Op::LesserOrEqual(a)
        | Op::LogicalAnd(a)
        | Op::LogicalOr(a)
        | Op::LogicalXor(a) => elementwise::predicate(em, kind, a, out),
        Op::LogicalNot(a) | Op::IsNaN(a) | Op::IsInfinite(a) => elementwise::unary_predicate(em, kind, a, out),
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
        | Op::Tanh(a) => elementwise::unary(em, kind, a, out),
        Op::Cast(a) => elementwise::cast(em, a, out),
        Op::Clamp(a) => elementwise::clamp(em, a, out),
        Op::Elu(a) => activation::elu(em, a, out),
        Op::HardSigmoid(a) => activation::hard_sigmoid(em, a, out),
        Op::LeakyRelu(a) => activation::leaky_relu(em, a, out),
        Op::Linear(a) => activation::linear(em, a, out),
        Op::Prelu(a) => activation::prelu(em, a, out),
        Op::Softmax(a) => activation::softmax(em, a, out),
        Op::ArgMin(a) | Op::ArgMax(a) => reduction::arg(em, kind, a, out),
        Op::CumulativeSum(a) => reduction::cumulative_sum(em, a, out),
        Op::ReduceL1(a)
        | Op::ReduceL2(a)
        | Op::ReduceLogSum(a)
        | Op::ReduceLogSumExp(a)
        | Op::ReduceMax(a)
        | Op::ReduceMean(a)
        | Op::ReduceMin(a)
        | Op::ReduceProduct(a)
        | Op::ReduceSum(a)
        | Op::ReduceSumSquare(a) => reduction::reduce(em, kind, a, out),
        Op::Conv2d(a) => conv::conv2d(em, a, out),
        Op::ConvTranspose2d(a) => conv::conv_transpose2d(em, a, out),
        Op::AveragePool2d(a) | Op::L2Pool2d(a) | Op::MaxPool2d(a) => pool::pool2d(em, kind, a, out),
        Op::Resample2d(a) => pool::resample2d(em, a, out),
        Op::BatchNormalization(a) => normalization::batch(em, a, out),
        Op::InstanceNormalization(a) => normalization::instance(em, a, out),
        Op::LayerNormalization(a) => normalization::layer(em, a, out),
        Op::Matmul(a) => conv::matmul(em, a, out),
        Op::Gemm(a) => conv::gemm(em, a, out),
        // `convert` expands the recurrent ops into primitives (webnn_core::passes) first.
        Op::Gru(_) | Op::GruCell(_) | Op::Lstm(_) | Op::LstmCell(_) => {
            Err(Error::operation_error("recurrent ops are expanded before conversion"))
        }
        Op::Gather(a) => gather::gather(em, a, out),
        Op::GatherElements(a) => gather::gather_elements(em, a, out),
        Op::GatherNd(a) => gather::gather_nd(em, a, out),
        Op::ScatterElements(a) => gather::scatter_elements(em, a, out),
        Op::ScatterNd(a) => gather::scatter_nd(em, a, out),
        Op::Concat(a) => shape::concat(em, a, out),
        Op::Expand(a) => shape::expand(em, a, out),
        Op::Pad(a) => shape::pad(em, a, out),
        Op::Reshape(a) => shape::reshape(em, a, out),
        Op::Reverse(a) => shape::reverse(em, a, out),
        Op::Slice(a) => shape::slice(em, a, out),
        Op::Split(a) => shape::split(em, a, &node.outputs),
        Op::Tile(a) => shape::tile(em, a, out),
        Op::Transpose(a) => shape::transpose(em, a, out),
        Op::Triangular(a) => shape::triangular(em, a, out),
        Op::Where(a) => shape::where_(em, a, out),
        Op::QuantizeLinear(a) => quantization::quantize(em, a, out),
        Op::DequantizeLinear(a) => quantization::dequantize(em, a, out),
    }
}

/// The MIL op of an op kind that maps one to one, for the families that share a lowering;
/// a kind routed to a lowering that does not take it is an error, never a default.
fn mil_name(kind: OpKind) -> Result<&'static str> {
    use OpKind as K;
    Ok(match kind {
        K::Add => "add",
        K::Sub => "sub",
        K::Mul => "mul",
        K::Div => "real_div",
        K::Max => "maximum",
        K::Min => "minimum",
        K::Pow => "pow",
        K::Equal => "equal",
        K::NotEqual => "not_equal",
        K::Greater => "greater",
        K::GreaterOrEqual => "greater_equal",
        K::Lesser => "less",
        K::LesserOrEqual => "less_equal",
        K::LogicalAnd => "logical_and",
        K::LogicalOr => "logical_or",
        K::LogicalXor => "logical_xor",
        K::Abs => "abs",
        K::Ceil => "ceil",
        K::Cos => "cos",
        K::Erf => "erf",
        K::Exp => "exp",
        K::Floor => "floor",
        K::Identity => "identity",
        K::Log => "log",
        K::RoundEven => "round",
        K::Sin => "sin",
        K::Sign => "sign",
        K::Sqrt => "sqrt",
        K::Tan => "tan",
        K::Relu => "relu",
        K::Sigmoid => "sigmoid",
        K::Softplus => "softplus",
        K::Softsign => "softsign",
        K::Tanh => "tanh",
        K::ArgMin => "reduce_argmin",
        K::ArgMax => "reduce_argmax",
        K::ReduceL1 => "reduce_l1_norm",
        K::ReduceL2 => "reduce_l2_norm",
        K::ReduceLogSum => "reduce_log_sum",
        K::ReduceLogSumExp => "reduce_log_sum_exp",
        K::ReduceMax => "reduce_max",
        K::ReduceMean => "reduce_mean",
        K::ReduceMin => "reduce_min",
        K::ReduceProduct => "reduce_prod",
        K::ReduceSum => "reduce_sum",
        K::ReduceSumSquare => "reduce_sum_square",
        K::AveragePool2d => "avg_pool",
        K::L2Pool2d => "l2_pool",
        K::MaxPool2d => "max_pool",
        other => return Err(Error::operation_error(format!("{} has no one-to-one MIL op", other.name()))),
    })
}
