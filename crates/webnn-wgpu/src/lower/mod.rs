//! Lowers each node of a validated graph to what the GPU runs: a buffer alias, or kernel calls
//! (key, inputs, output, uniform block). The match over `Op` is exhaustive, so a new op fails
//! to compile here until it is lowered.

mod elementwise;
mod movement;
mod products;
mod rows;

use crate::kernel::{KernelId, KernelKey};
use crate::params::{strides, Params, Uniform, MAX_RANK};
use crate::storage::Storage;
use half::f16;
use webnn_core::ops::{MLNumber, NumberCast};
use webnn_core::{DataType, Error, Graph, Node, Op, Operand, Result};

/// One kernel invocation writing (part of) one output of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelCall {
    pub key: KernelKey,
    pub inputs: Vec<Operand>,
    pub output: Operand,
    pub uniform: Uniform,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Lowering {
    /// The output is the input's bytes unchanged (reshape, identity, same-type cast, identity
    /// transpose, slice or expand): it shares the input's buffer.
    Alias(Operand),
    /// Calls run in order; several may write one output (a copy, then a scatter; the parts
    /// of a concat) and a node with several outputs has a call per output.
    Kernels(Vec<KernelCall>),
}

/// The graph and node being lowered.
pub(crate) struct Cx<'a> {
    pub graph: &'a Graph,
    pub node: &'a Node,
    /// Clamp bounds fused into the node's epilogue (`fuse.rs`).
    pub clamp: Option<[f32; 2]>,
}

impl Cx<'_> {
    pub fn shape(&self, o: Operand) -> Result<Vec<u32>> {
        self.graph
            .desc(o)
            .require_static("the wgpu backend's operands")
    }
    pub fn dtype(&self, o: Operand) -> DataType {
        self.graph.desc(o).data_type
    }
    /// The node's (first) output.
    pub fn out(&self) -> Operand {
        self.node.outputs[0]
    }
    /// A call writing the node's first output.
    pub fn call(&self, key: KernelKey, inputs: Vec<Operand>, uniform: Uniform) -> KernelCall {
        KernelCall {
            key,
            inputs,
            output: self.out(),
            uniform,
        }
    }
    /// The element-wise block of output `o`: its shape and work units.
    pub fn output_params(&self, o: Operand) -> Result<Params> {
        let s = self.shape(o)?;
        Params::new(&s, Storage::of(self.dtype(o)).units(elements(&s)))
    }
    /// A one-call lowering of kernel `kernel` from `inputs` (the first giving the input type)
    /// to the node's output.
    pub fn one(
        &self,
        kernel: KernelId,
        inputs: Vec<Operand>,
        uniform: Uniform,
    ) -> Result<Lowering> {
        let key = KernelKey::new(kernel, self.dtype(inputs[0]), self.dtype(self.out()));
        Ok(Lowering::Kernels(vec![self.call(key, inputs, uniform)]))
    }
}

/// Elements of a shape.
pub(crate) fn elements(shape: &[u32]) -> u64 {
    shape.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64))
}

pub(crate) fn too_large() -> Error {
    Error::not_supported("a tensor has more elements than a GPU kernel can index (2^32)")
}

pub(crate) fn u32_of(v: u64) -> Result<u32> {
    u32::try_from(v).map_err(|_| too_large())
}

/// Row-major strides as u32 (every tensor here has fewer than 2^32 elements).
pub(crate) fn strides32(shape: &[u32]) -> Result<Vec<u32>> {
    strides(shape).into_iter().map(u32_of).collect()
}

/// Copies `v` into the first entries of a per-dimension array.
pub(crate) fn dims8(v: &[u32]) -> Result<[u32; MAX_RANK]> {
    let mut a = [0u32; MAX_RANK];
    a.get_mut(..v.len())
        .ok_or_else(|| Error::not_supported(format!("rank {} exceeds {MAX_RANK}", v.len())))?
        .copy_from_slice(v);
    Ok(a)
}

/// An option value cast to the input's float type first, as the spec's algorithms do.
pub fn float_option(t: DataType, v: f64) -> f32 {
    match t {
        DataType::Float16 => f16::from_f64(v).to_f32(),
        _ => v as f32,
    }
}

/// A number cast to an integer type as the spec's cast does (0 for float types, which never
/// ask).
pub(crate) fn int_value(v: MLNumber, t: DataType) -> i128 {
    match v.cast(t) {
        NumberCast::Int(x) => x,
        NumberCast::Float(_) => 0,
    }
}

/// 64-bit two's complement words (low, high) of an integer.
pub(crate) fn words64(x: i128) -> [u32; 2] {
    [x as u64 as u32, (x as u64 >> 32) as u32]
}

/// One element of type `t` holding `v`, as its bits are stored (the low bits of the first word
/// for sub-word types; two words for 64-bit types): what the shaders' `*_decode(lo, hi, 0)`
/// reads back.
pub(crate) fn element_bits(t: DataType, v: MLNumber) -> [u32; 2] {
    match (t, v.cast(t)) {
        (DataType::Float16, NumberCast::Float(x)) => [f16::from_f64(x).to_bits() as u32, 0],
        (_, NumberCast::Float(x)) => [(x as f32).to_bits(), 0],
        (_, NumberCast::Int(x)) => {
            let w = words64(x);
            let bits = t.bits();
            if bits >= 32 {
                w
            } else {
                [w[0] & ((1u32 << bits) - 1), 0]
            }
        }
    }
}

/// What node `node` of `graph` runs.
pub fn lower(graph: &Graph, node: &Node) -> Result<Lowering> {
    lower_fused(graph, node, None)
}

/// What node `node` runs with clamp bounds `clamp` fused into its epilogue (only products and
/// convolutions take one).
/// The gemm `node` of a `QuantizedLinear` match, as the quantized kernel.
pub fn lower_quantized(
    graph: &Graph,
    node: &Node,
    clamp: Option<[f32; 2]>,
    q: &webnn_core::fusion::QuantizedLinear,
    takeover: crate::patterns::Takeover,
    cpu_adapter: bool,
) -> Result<Lowering> {
    products::quantized_linear(&Cx { graph, node, clamp }, q, takeover, cpu_adapter)
}

/// The final matmul `node` of an `Attention` match (or the transpose of its output that
/// `layout` names), as the attention kernel.
pub fn lower_attention(
    graph: &Graph,
    node: &Node,
    a: &webnn_core::fusion::Attention,
    layout: &webnn_core::fusion::TokenLayout,
    cpu_adapter: bool,
) -> Result<Lowering> {
    rows::attention(&Cx { graph, node, clamp: None }, a, layout, cpu_adapter)
}

/// The outer mul `node` of a `SiluGate` match.
pub fn lower_silu_gate(graph: &Graph, node: &Node, s: &webnn_core::fusion::SiluGate) -> Result<Lowering> {
    elementwise::silu_gate(&Cx { graph, node, clamp: None }, s)
}

/// The concat `node` of a `Rope` match, as the rotary-embedding kernel.
pub fn lower_rope(graph: &Graph, node: &Node, r: &webnn_core::fusion::Rope) -> Result<Lowering> {
    elementwise::rope(&Cx { graph, node, clamp: None }, r)
}

/// The final mul `node` of an `RmsNorm` match, as the normalize kernel without the mean.
pub fn lower_rms_norm(graph: &Graph, node: &Node, r: &webnn_core::fusion::RmsNorm) -> Result<Lowering> {
    rows::rms_norm(&Cx { graph, node, clamp: None }, r)
}

pub fn lower_fused(graph: &Graph, node: &Node, clamp: Option<[f32; 2]>) -> Result<Lowering> {
    use crate::kernel::{BinaryOp as B, UnaryOp as U};
    let cx = Cx { graph, node, clamp };
    let cx = &cx;
    match &node.op {
        Op::Add(a) => elementwise::binary(cx, B::Add, a.a, a.b),
        Op::Sub(a) => elementwise::binary(cx, B::Sub, a.a, a.b),
        Op::Mul(a) => elementwise::binary(cx, B::Mul, a.a, a.b),
        Op::Div(a) => elementwise::binary(cx, B::Div, a.a, a.b),
        Op::Max(a) => elementwise::binary(cx, B::Max, a.a, a.b),
        Op::Min(a) => elementwise::binary(cx, B::Min, a.a, a.b),
        Op::Pow(a) => elementwise::binary(cx, B::Pow, a.a, a.b),
        Op::Equal(a) => elementwise::binary(cx, B::Equal, a.a, a.b),
        Op::NotEqual(a) => elementwise::binary(cx, B::NotEqual, a.a, a.b),
        Op::Greater(a) => elementwise::binary(cx, B::Greater, a.a, a.b),
        Op::GreaterOrEqual(a) => elementwise::binary(cx, B::GreaterOrEqual, a.a, a.b),
        Op::Lesser(a) => elementwise::binary(cx, B::Lesser, a.a, a.b),
        Op::LesserOrEqual(a) => elementwise::binary(cx, B::LesserOrEqual, a.a, a.b),
        Op::LogicalAnd(a) => elementwise::binary(cx, B::LogicalAnd, a.a, a.b),
        Op::LogicalOr(a) => elementwise::binary(cx, B::LogicalOr, a.a, a.b),
        Op::LogicalXor(a) => elementwise::binary(cx, B::LogicalXor, a.a, a.b),
        Op::Prelu(a) => elementwise::binary(cx, B::Prelu, a.input, a.slope),
        Op::LogicalNot(a) => elementwise::plain(cx, U::LogicalNot, a.input),
        Op::IsNaN(a) => elementwise::plain(cx, U::IsNaN, a.input),
        Op::IsInfinite(a) => elementwise::plain(cx, U::IsInfinite, a.input),
        Op::Abs(a) => elementwise::plain(cx, U::Abs, a.input),
        Op::Ceil(a) => elementwise::plain(cx, U::Ceil, a.input),
        Op::Cos(a) => elementwise::plain(cx, U::Cos, a.input),
        Op::Erf(a) => elementwise::plain(cx, U::Erf, a.input),
        Op::Exp(a) => elementwise::plain(cx, U::Exp, a.input),
        Op::Floor(a) => elementwise::plain(cx, U::Floor, a.input),
        Op::Identity(a) => Ok(Lowering::Alias(a.input)),
        Op::Log(a) => elementwise::plain(cx, U::Log, a.input),
        Op::Neg(a) => elementwise::plain(cx, U::Neg, a.input),
        Op::Reciprocal(a) => elementwise::plain(cx, U::Reciprocal, a.input),
        Op::RoundEven(a) => elementwise::plain(cx, U::RoundEven, a.input),
        Op::Sin(a) => elementwise::plain(cx, U::Sin, a.input),
        Op::Sign(a) => elementwise::plain(cx, U::Sign, a.input),
        Op::Sqrt(a) => elementwise::plain(cx, U::Sqrt, a.input),
        Op::Tan(a) => elementwise::plain(cx, U::Tan, a.input),
        Op::Gelu(a) => elementwise::plain(cx, U::Gelu, a.input),
        Op::HardSwish(a) => elementwise::plain(cx, U::HardSwish, a.input),
        Op::Relu(a) => elementwise::plain(cx, U::Relu, a.input),
        Op::Sigmoid(a) => elementwise::plain(cx, U::Sigmoid, a.input),
        Op::Softplus(a) => elementwise::plain(cx, U::Softplus, a.input),
        Op::Softsign(a) => elementwise::plain(cx, U::Softsign, a.input),
        Op::Tanh(a) => elementwise::plain(cx, U::Tanh, a.input),
        Op::Elu(a) => elementwise::with_floats(cx, U::Elu, a.input, &[a.options.alpha]),
        Op::HardSigmoid(a) => elementwise::with_floats(
            cx,
            U::HardSigmoid,
            a.input,
            &[a.options.alpha, a.options.beta],
        ),
        Op::LeakyRelu(a) => elementwise::with_floats(cx, U::LeakyRelu, a.input, &[a.options.alpha]),
        Op::Linear(a) => {
            elementwise::with_floats(cx, U::Linear, a.input, &[a.options.alpha, a.options.beta])
        }
        Op::Cast(a) => elementwise::cast(cx, a),
        Op::Clamp(a) => elementwise::clamp(cx, a),
        Op::QuantizeLinear(a) => elementwise::quantize(cx, a),
        Op::DequantizeLinear(a) => elementwise::dequantize(cx, a),
        Op::Where(a) => elementwise::where_(cx, a),
        Op::Reshape(a) => Ok(Lowering::Alias(a.input)),
        Op::Transpose(a) => movement::transpose(cx, a),
        Op::Expand(a) => movement::expand(cx, a),
        Op::Slice(a) => movement::slice(cx, a),
        Op::Reverse(a) => movement::reverse(cx, a),
        Op::Split(a) => movement::split(cx, a),
        Op::Tile(a) => movement::tile(cx, a),
        Op::Pad(a) => movement::pad(cx, a),
        Op::Concat(a) => movement::concat(cx, a),
        Op::Triangular(a) => movement::triangular(cx, a),
        Op::Gather(a) => movement::gather(cx, a),
        Op::GatherElements(a) => movement::gather_elements(cx, a),
        Op::GatherNd(a) => movement::gather_nd(cx, a),
        Op::ScatterElements(a) => movement::scatter_elements(cx, a),
        Op::ScatterNd(a) => movement::scatter_nd(cx, a),
        Op::Resample2d(a) => movement::resample2d(cx, a),
        Op::ReduceL1(a) => rows::reduce(cx, crate::kernel::ReduceOp::L1, a),
        Op::ReduceL2(a) => rows::reduce(cx, crate::kernel::ReduceOp::L2, a),
        Op::ReduceLogSum(a) => rows::reduce(cx, crate::kernel::ReduceOp::LogSum, a),
        Op::ReduceLogSumExp(a) => rows::reduce(cx, crate::kernel::ReduceOp::LogSumExp, a),
        Op::ReduceMax(a) => rows::reduce(cx, crate::kernel::ReduceOp::Max, a),
        Op::ReduceMean(a) => rows::reduce(cx, crate::kernel::ReduceOp::Mean, a),
        Op::ReduceMin(a) => rows::reduce(cx, crate::kernel::ReduceOp::Min, a),
        Op::ReduceProduct(a) => rows::reduce(cx, crate::kernel::ReduceOp::Product, a),
        Op::ReduceSum(a) => rows::reduce(cx, crate::kernel::ReduceOp::Sum, a),
        Op::ReduceSumSquare(a) => rows::reduce(cx, crate::kernel::ReduceOp::SumSquare, a),
        Op::ArgMin(a) => rows::arg_reduce(cx, false, a),
        Op::ArgMax(a) => rows::arg_reduce(cx, true, a),
        Op::Softmax(a) => rows::softmax(cx, a),
        Op::CumulativeSum(a) => rows::cumulative_sum(cx, a),
        Op::LayerNormalization(a) => rows::layer_normalization(cx, a),
        Op::InstanceNormalization(a) => rows::instance_normalization(cx, a),
        Op::BatchNormalization(a) => rows::batch_normalization(cx, a),
        Op::AveragePool2d(a) => rows::pool(cx, crate::kernel::ReduceOp::Mean, a),
        Op::L2Pool2d(a) => rows::pool(cx, crate::kernel::ReduceOp::L2, a),
        Op::MaxPool2d(a) => rows::pool(cx, crate::kernel::ReduceOp::Max, a),
        Op::Matmul(a) => products::matmul(cx, a),
        Op::Gemm(a) => products::gemm(cx, a),
        Op::Conv2d(a) => products::conv2d(cx, a),
        Op::ConvTranspose2d(a) => products::conv_transpose2d(cx, a),
        // Recurrent ops reach backends expanded into primitive ops (webnn_core::passes).
        Op::Gru(_) | Op::GruCell(_) | Op::Lstm(_) | Op::LstmCell(_) => Err(Error::not_supported(
            format!("{} must be expanded before lowering", node.op.name()),
        )),
    }
}
