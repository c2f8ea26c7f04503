//! One `GraphBuilder` method per `MLGraphBuilder` operation, mirroring the IDL signatures.
//! Each only packs its arguments into the op's payload; validation happens in `add_op`.

use crate::builder::GraphBuilder;
use crate::dtype::DataType;
use crate::error::Result;
use crate::graph::Operand;
use crate::ops::*;
use crate::shape::Dim;

macro_rules! unary_methods {
    ($($method:ident => $variant:ident),* $(,)?) => {
        $(pub fn $method(&mut self, input: Operand, options: OpOptions) -> Result<Operand> {
            self.add1(Op::$variant(Unary { input, options }))
        })*
    };
}

macro_rules! binary_methods {
    ($($method:ident => $variant:ident),* $(,)?) => {
        $(pub fn $method(&mut self, a: Operand, b: Operand, options: OpOptions) -> Result<Operand> {
            self.add1(Op::$variant(Binary { a, b, options }))
        })*
    };
}

macro_rules! input_options_methods {
    ($($method:ident => $variant:ident($payload:ident, $opts:ty)),* $(,)?) => {
        $(pub fn $method(&mut self, input: Operand, options: $opts) -> Result<Operand> {
            self.add1(Op::$variant($payload { input, options }))
        })*
    };
}

impl GraphBuilder {
    binary_methods! {
        add => Add, sub => Sub, mul => Mul, div => Div, max => Max, min => Min, pow => Pow,
        equal => Equal, not_equal => NotEqual, greater => Greater, greater_or_equal => GreaterOrEqual,
        lesser => Lesser, lesser_or_equal => LesserOrEqual,
        logical_and => LogicalAnd, logical_or => LogicalOr, logical_xor => LogicalXor,
        matmul => Matmul,
    }

    unary_methods! {
        logical_not => LogicalNot, is_nan => IsNaN, is_infinite => IsInfinite,
        abs => Abs, ceil => Ceil, cos => Cos, erf => Erf, exp => Exp, floor => Floor,
        identity => Identity, log => Log, neg => Neg, reciprocal => Reciprocal,
        round_even => RoundEven, sin => Sin, sign => Sign, sqrt => Sqrt, tan => Tan,
        gelu => Gelu, hard_swish => HardSwish, relu => Relu, sigmoid => Sigmoid,
        softplus => Softplus, softsign => Softsign, tanh => Tanh,
    }

    input_options_methods! {
        clamp => Clamp(Clamp, ClampOptions),
        elu => Elu(Elu, EluOptions),
        hard_sigmoid => HardSigmoid(HardSigmoid, HardSigmoidOptions),
        leaky_relu => LeakyRelu(LeakyRelu, LeakyReluOptions),
        linear => Linear(Linear, LinearOptions),
        instance_normalization => InstanceNormalization(InstanceNormalization, InstanceNormalizationOptions),
        layer_normalization => LayerNormalization(LayerNormalization, LayerNormalizationOptions),
        average_pool2d => AveragePool2d(Pool2d, Pool2dOptions),
        l2_pool2d => L2Pool2d(Pool2d, Pool2dOptions),
        max_pool2d => MaxPool2d(Pool2d, Pool2dOptions),
        reduce_l1 => ReduceL1(Reduce, ReduceOptions),
        reduce_l2 => ReduceL2(Reduce, ReduceOptions),
        reduce_log_sum => ReduceLogSum(Reduce, ReduceOptions),
        reduce_log_sum_exp => ReduceLogSumExp(Reduce, ReduceOptions),
        reduce_max => ReduceMax(Reduce, ReduceOptions),
        reduce_mean => ReduceMean(Reduce, ReduceOptions),
        reduce_min => ReduceMin(Reduce, ReduceOptions),
        reduce_product => ReduceProduct(Reduce, ReduceOptions),
        reduce_sum => ReduceSum(Reduce, ReduceOptions),
        reduce_sum_square => ReduceSumSquare(Reduce, ReduceOptions),
        resample2d => Resample2d(Resample2d, Resample2dOptions),
        reverse => Reverse(Reverse, ReverseOptions),
        transpose => Transpose(Transpose, TransposeOptions),
        triangular => Triangular(Triangular, TriangularOptions),
    }

    pub fn arg_min(&mut self, input: Operand, axis: u32, options: ArgMinMaxOptions) -> Result<Operand> {
        self.add1(Op::ArgMin(ArgMinMax { input, axis, options }))
    }
    pub fn arg_max(&mut self, input: Operand, axis: u32, options: ArgMinMaxOptions) -> Result<Operand> {
        self.add1(Op::ArgMax(ArgMinMax { input, axis, options }))
    }
    pub fn batch_normalization(
        &mut self,
        input: Operand,
        mean: Operand,
        variance: Operand,
        options: BatchNormalizationOptions,
    ) -> Result<Operand> {
        self.add1(Op::BatchNormalization(BatchNormalization { input, mean, variance, options }))
    }
    pub fn cast(&mut self, input: Operand, data_type: DataType, options: OpOptions) -> Result<Operand> {
        self.add1(Op::Cast(Cast { input, data_type, options }))
    }
    pub fn concat(&mut self, inputs: &[Operand], axis: u32, options: OpOptions) -> Result<Operand> {
        self.add1(Op::Concat(Concat { inputs: inputs.to_vec(), axis, options }))
    }
    pub fn conv2d(&mut self, input: Operand, filter: Operand, options: Conv2dOptions) -> Result<Operand> {
        self.add1(Op::Conv2d(Conv2d { input, filter, options }))
    }
    pub fn conv_transpose2d(
        &mut self,
        input: Operand,
        filter: Operand,
        options: ConvTranspose2dOptions,
    ) -> Result<Operand> {
        self.add1(Op::ConvTranspose2d(ConvTranspose2d { input, filter, options }))
    }
    pub fn cumulative_sum(&mut self, input: Operand, axis: u32, options: CumulativeSumOptions) -> Result<Operand> {
        self.add1(Op::CumulativeSum(CumulativeSum { input, axis, options }))
    }
    pub fn quantize_linear(
        &mut self,
        input: Operand,
        scale: Operand,
        zero_point: Operand,
        options: OpOptions,
    ) -> Result<Operand> {
        let zero_point = self.zero_point_like_scale(scale, zero_point, &options)?;
        self.add1(Op::QuantizeLinear(QuantizeLinear { input, scale, zero_point, options }))
    }
    pub fn dequantize_linear(
        &mut self,
        input: Operand,
        scale: Operand,
        zero_point: Operand,
        options: OpOptions,
    ) -> Result<Operand> {
        let zero_point = self.zero_point_like_scale(scale, zero_point, &options)?;
        self.add1(Op::DequantizeLinear(QuantizeLinear { input, scale, zero_point, options }))
    }

    /// An extension to the spec's "zeroPoint has the same shape as the scale": a zeroPoint
    /// whose shape differs from the scale's only by leading 1s is reshaped to the scale's
    /// first. ONNX Runtime's quantizer writes a bias's scale as [1] and its zero point as [],
    /// and its WebNN execution provider passes both through; the two shapes broadcast alike,
    /// so such a graph has one meaning. Any other mismatch is left for validation to reject.
    fn zero_point_like_scale(&mut self, scale: Operand, zero_point: Operand, options: &OpOptions) -> Result<Operand> {
        let (Ok(s), Ok(z)) = (self.desc(scale), self.desc(zero_point)) else { return Ok(zero_point) };
        let trailing = |shape: &[Dim]| shape.iter().skip_while(|d| **d == Dim::Static(1)).cloned().collect::<Vec<_>>();
        if s.shape == z.shape || trailing(&s.shape) != trailing(&z.shape) {
            return Ok(zero_point);
        }
        let shape = s.shape.to_vec();
        self.reshape(zero_point, shape, options.clone())
    }
    pub fn expand(&mut self, input: Operand, new_shape: Vec<Dim>, options: OpOptions) -> Result<Operand> {
        self.add1(Op::Expand(Expand { input, new_shape, options }))
    }
    pub fn gather(&mut self, input: Operand, indices: Operand, options: GatherOptions) -> Result<Operand> {
        self.add1(Op::Gather(Gather { input, indices, options }))
    }
    pub fn gather_elements(&mut self, input: Operand, indices: Operand, options: GatherOptions) -> Result<Operand> {
        self.add1(Op::GatherElements(Gather { input, indices, options }))
    }
    pub fn gather_nd(&mut self, input: Operand, indices: Operand, options: OpOptions) -> Result<Operand> {
        self.add1(Op::GatherNd(GatherNd { input, indices, options }))
    }
    pub fn gemm(&mut self, a: Operand, b: Operand, options: GemmOptions) -> Result<Operand> {
        self.add1(Op::Gemm(Gemm { a, b, options }))
    }
    pub fn gru(
        &mut self,
        input: Operand,
        weight: Operand,
        recurrent_weight: Operand,
        steps: u32,
        hidden_size: u32,
        options: GruOptions,
    ) -> Result<Vec<Operand>> {
        self.add_op(Op::Gru(Gru { input, weight, recurrent_weight, steps, hidden_size, options }))
    }
    pub fn gru_cell(
        &mut self,
        input: Operand,
        weight: Operand,
        recurrent_weight: Operand,
        hidden_state: Operand,
        hidden_size: u32,
        options: GruCellOptions,
    ) -> Result<Operand> {
        self.add1(Op::GruCell(GruCell { input, weight, recurrent_weight, hidden_state, hidden_size, options }))
    }
    #[allow(clippy::too_many_arguments)]
    pub fn lstm(
        &mut self,
        input: Operand,
        weight: Operand,
        recurrent_weight: Operand,
        steps: u32,
        hidden_size: u32,
        options: LstmOptions,
    ) -> Result<Vec<Operand>> {
        self.add_op(Op::Lstm(Lstm { input, weight, recurrent_weight, steps, hidden_size, options }))
    }
    #[allow(clippy::too_many_arguments)]
    pub fn lstm_cell(
        &mut self,
        input: Operand,
        weight: Operand,
        recurrent_weight: Operand,
        hidden_state: Operand,
        cell_state: Operand,
        hidden_size: u32,
        options: LstmCellOptions,
    ) -> Result<Vec<Operand>> {
        self.add_op(Op::LstmCell(LstmCell {
            input,
            weight,
            recurrent_weight,
            hidden_state,
            cell_state,
            hidden_size,
            options,
        }))
    }
    pub fn pad(
        &mut self,
        input: Operand,
        beginning_padding: Vec<u32>,
        ending_padding: Vec<u32>,
        options: PadOptions,
    ) -> Result<Operand> {
        self.add1(Op::Pad(Pad { input, beginning_padding, ending_padding, options }))
    }
    pub fn prelu(&mut self, input: Operand, slope: Operand, options: OpOptions) -> Result<Operand> {
        self.add1(Op::Prelu(Prelu { input, slope, options }))
    }
    pub fn reshape(&mut self, input: Operand, new_shape: Vec<Dim>, options: OpOptions) -> Result<Operand> {
        self.add1(Op::Reshape(Reshape { input, new_shape, options }))
    }
    pub fn scatter_elements(
        &mut self,
        input: Operand,
        indices: Operand,
        updates: Operand,
        options: ScatterOptions,
    ) -> Result<Operand> {
        self.add1(Op::ScatterElements(ScatterElements { input, indices, updates, options }))
    }
    pub fn scatter_nd(&mut self, input: Operand, indices: Operand, updates: Operand, options: OpOptions) -> Result<Operand> {
        self.add1(Op::ScatterNd(ScatterNd { input, indices, updates, options }))
    }
    pub fn slice(&mut self, input: Operand, starts: Vec<u32>, sizes: Vec<u32>, options: SliceOptions) -> Result<Operand> {
        self.slice_dims(input, starts, sizes.into_iter().map(Dim::Static).collect(), options)
    }
    /// `slice` whose sizes may name dynamic dimensions (flexible inputs).
    pub fn slice_dims(&mut self, input: Operand, starts: Vec<u32>, sizes: Vec<Dim>, options: SliceOptions) -> Result<Operand> {
        self.add1(Op::Slice(Slice { input, starts, sizes, options }))
    }
    pub fn softmax(&mut self, input: Operand, axis: u32, options: OpOptions) -> Result<Operand> {
        self.add1(Op::Softmax(Softmax { input, axis, options }))
    }
    /// The one-argument `softmax(input)` of earlier spec drafts, still called by published
    /// samples and by the WPT vectors this project runs: a 2-D input normalized along axis 1.
    /// A compatibility extension; any other rank is a TypeError, as in those drafts.
    pub fn softmax_2d(&mut self, input: Operand, options: OpOptions) -> Result<Operand> {
        let rank = self.desc(input).map_err(|e| e.at("softmax", &options.label))?.rank();
        if rank != 2 {
            let rule = format!("softmax without an axis needs a 2-D input, got rank {rank}");
            return Err(crate::error::Error::type_error(rule).at("softmax", &options.label));
        }
        self.softmax(input, 1, options)
    }
    pub fn split(&mut self, input: Operand, splits: Splits, options: SplitOptions) -> Result<Vec<Operand>> {
        self.add_op(Op::Split(Split { input, splits, options }))
    }
    pub fn tile(&mut self, input: Operand, repetitions: Vec<u32>, options: OpOptions) -> Result<Operand> {
        self.add1(Op::Tile(Tile { input, repetitions, options }))
    }
    pub fn where_(
        &mut self,
        condition: Operand,
        true_value: Operand,
        false_value: Operand,
        options: OpOptions,
    ) -> Result<Operand> {
        self.add1(Op::Where(Where { condition, true_value, false_value, options }))
    }
}
