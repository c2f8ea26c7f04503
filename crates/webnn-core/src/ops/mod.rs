//! The op table: every `MLGraphBuilder` operation declared once. The `Op` enum (typed payloads),
//! `OpKind`, names, families and the spec's data type / rank constraints per operand slot all
//! derive from the rows of `op_table!` below; `opSupportLimits()` is built from them.

pub mod args;

pub use args::*;

use crate::dtype::DataTypeSet;

/// The folder an op lives in, in validation and in every backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Elementwise,
    Activation,
    Reduction,
    Conv,
    Pool,
    Normalization,
    Recurrent,
    Gather,
    Shape,
    Quantization,
    Matmul,
}

/// The largest rank an operand may have in this implementation.
pub const MAX_RANK: u32 = 8;

/// One operand slot of an op as `opSupportLimits()` describes it (`input`, `filter`, `output`...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub name: &'static str,
    pub data_types: DataTypeSet,
    pub min_rank: u32,
    pub max_rank: u32,
}

const F: DataTypeSet = DataTypeSet::FLOAT;
const A: DataTypeSet = DataTypeSet::SPEC;
const FSI: DataTypeSet = DataTypeSet::FLOAT_SIGNED_INT;
const N: DataTypeSet = DataTypeSet::FLOAT_INT32_64;
const U8: DataTypeSet = DataTypeSet::U8;
const IDX: DataTypeSet = DataTypeSet(DataTypeSet::I32.0 | DataTypeSet::U32.0 | DataTypeSet::I64.0);
/// quantizeLinear's zeroPoint/output and dequantizeLinear's input/zeroPoint: the spec's
/// uint8, int8, uint32, int32, plus the int4/uint4 extension.
const Q: DataTypeSet = DataTypeSet::QUANTIZED;
const ARG: DataTypeSet = DataTypeSet(DataTypeSet::I32.0 | DataTypeSet::I64.0);
/// resample2d: float32, float16, uint8, int8.
const RESAMPLE: DataTypeSet = DataTypeSet(F.0 | DataTypeSet::U8.0 | DataTypeSet::I8.0);

macro_rules! op_table {
    ($( $variant:ident($payload:ident) = $name:literal, $family:ident,
        [$($slot:ident : $types:ident @ $lo:literal ..= $hi:expr),* $(,)?]; )*) => {
        /// A validated operation with its typed operands and options.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Op {
            $($variant($payload),)*
        }

        /// The op without its payload.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum OpKind {
            $($variant,)*
        }

        impl OpKind {
            /// Every op of the table, in table order.
            pub const ALL: &'static [OpKind] = &[$(OpKind::$variant,)*];

            /// The `MLGraphBuilder` method name.
            pub fn name(self) -> &'static str {
                match self { $(OpKind::$variant => $name,)* }
            }

            pub fn from_name(name: &str) -> Option<OpKind> {
                match name { $($name => Some(OpKind::$variant),)* _ => None }
            }

            pub fn family(self) -> Family {
                match self { $(OpKind::$variant => Family::$family,)* }
            }

            /// The spec's constraints per operand slot, outputs last.
            pub fn slots(self) -> &'static [Slot] {
                match self {
                    $(OpKind::$variant => &[$(Slot {
                        name: stringify!($slot), data_types: $types, min_rank: $lo, max_rank: $hi,
                    },)*],)*
                }
            }
        }

        impl Op {
            pub fn kind(&self) -> OpKind {
                match self { $(Op::$variant(_) => OpKind::$variant,)* }
            }
            pub fn name(&self) -> &'static str {
                self.kind().name()
            }
            pub fn args(&self) -> &dyn OpArgs {
                match self { $(Op::$variant(a) => a,)* }
            }
            /// Every operand input, required first.
            pub fn operands(&self) -> Vec<crate::graph::Operand> {
                self.args().operands()
            }
            pub fn label(&self) -> &str {
                self.args().label()
            }
            pub fn remap_operands(&mut self, f: &dyn Fn(crate::graph::Operand) -> crate::graph::Operand) {
                match self { $(Op::$variant(a) => a.remap(f),)* }
            }
        }
    };
}

const M: u32 = MAX_RANK;

op_table! {
    // Element-wise binary arithmetic.
    Add(Binary) = "add", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: A @ 0..=M];
    Sub(Binary) = "sub", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: A @ 0..=M];
    Mul(Binary) = "mul", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: A @ 0..=M];
    Div(Binary) = "div", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: A @ 0..=M];
    Max(Binary) = "max", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: A @ 0..=M];
    Min(Binary) = "min", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: A @ 0..=M];
    Pow(Binary) = "pow", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: A @ 0..=M];
    // Element-wise comparisons and logic.
    Equal(Binary) = "equal", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: U8 @ 0..=M];
    NotEqual(Binary) = "notEqual", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: U8 @ 0..=M];
    Greater(Binary) = "greater", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: U8 @ 0..=M];
    GreaterOrEqual(Binary) = "greaterOrEqual", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: U8 @ 0..=M];
    Lesser(Binary) = "lesser", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: U8 @ 0..=M];
    LesserOrEqual(Binary) = "lesserOrEqual", Elementwise, [a: A @ 0..=M, b: A @ 0..=M, output: U8 @ 0..=M];
    LogicalNot(Unary) = "logicalNot", Elementwise, [a: U8 @ 0..=M, output: U8 @ 0..=M];
    LogicalAnd(Binary) = "logicalAnd", Elementwise, [a: U8 @ 0..=M, b: U8 @ 0..=M, output: U8 @ 0..=M];
    LogicalOr(Binary) = "logicalOr", Elementwise, [a: U8 @ 0..=M, b: U8 @ 0..=M, output: U8 @ 0..=M];
    LogicalXor(Binary) = "logicalXor", Elementwise, [a: U8 @ 0..=M, b: U8 @ 0..=M, output: U8 @ 0..=M];
    IsNaN(Unary) = "isNaN", Elementwise, [a: F @ 0..=M, output: U8 @ 0..=M];
    IsInfinite(Unary) = "isInfinite", Elementwise, [a: F @ 0..=M, output: U8 @ 0..=M];
    // Element-wise unary.
    Abs(Unary) = "abs", Elementwise, [input: FSI @ 0..=M, output: FSI @ 0..=M];
    Ceil(Unary) = "ceil", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Cos(Unary) = "cos", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Erf(Unary) = "erf", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Exp(Unary) = "exp", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Floor(Unary) = "floor", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Identity(Unary) = "identity", Elementwise, [input: A @ 0..=M, output: A @ 0..=M];
    Log(Unary) = "log", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Neg(Unary) = "neg", Elementwise, [input: FSI @ 0..=M, output: FSI @ 0..=M];
    Reciprocal(Unary) = "reciprocal", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    RoundEven(Unary) = "roundEven", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Sin(Unary) = "sin", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Sign(Unary) = "sign", Elementwise, [input: FSI @ 0..=M, output: FSI @ 0..=M];
    Sqrt(Unary) = "sqrt", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Tan(Unary) = "tan", Elementwise, [input: F @ 0..=M, output: F @ 0..=M];
    Cast(Cast) = "cast", Elementwise, [input: A @ 0..=M, output: A @ 0..=M];
    Clamp(Clamp) = "clamp", Elementwise, [input: A @ 0..=M, output: A @ 0..=M];
    // Activations.
    Elu(Elu) = "elu", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    Gelu(Unary) = "gelu", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    HardSigmoid(HardSigmoid) = "hardSigmoid", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    HardSwish(Unary) = "hardSwish", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    LeakyRelu(LeakyRelu) = "leakyRelu", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    Linear(Linear) = "linear", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    Prelu(Prelu) = "prelu", Activation, [input: FSI @ 0..=M, slope: FSI @ 0..=M, output: FSI @ 0..=M];
    Relu(Unary) = "relu", Activation, [input: FSI @ 0..=M, output: FSI @ 0..=M];
    Sigmoid(Unary) = "sigmoid", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    Softmax(Softmax) = "softmax", Activation, [input: F @ 1..=M, output: F @ 1..=M];
    Softplus(Unary) = "softplus", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    Softsign(Unary) = "softsign", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    Tanh(Unary) = "tanh", Activation, [input: F @ 0..=M, output: F @ 0..=M];
    // Reductions and scans.
    ArgMin(ArgMinMax) = "argMin", Reduction, [input: A @ 1..=M, output: ARG @ 0..=M];
    ArgMax(ArgMinMax) = "argMax", Reduction, [input: A @ 1..=M, output: ARG @ 0..=M];
    CumulativeSum(CumulativeSum) = "cumulativeSum", Reduction, [input: N @ 1..=M, output: N @ 1..=M];
    ReduceL1(Reduce) = "reduceL1", Reduction, [input: N @ 0..=M, output: N @ 0..=M];
    ReduceL2(Reduce) = "reduceL2", Reduction, [input: F @ 0..=M, output: F @ 0..=M];
    ReduceLogSum(Reduce) = "reduceLogSum", Reduction, [input: F @ 0..=M, output: F @ 0..=M];
    ReduceLogSumExp(Reduce) = "reduceLogSumExp", Reduction, [input: F @ 0..=M, output: F @ 0..=M];
    ReduceMax(Reduce) = "reduceMax", Reduction, [input: A @ 0..=M, output: A @ 0..=M];
    ReduceMean(Reduce) = "reduceMean", Reduction, [input: F @ 0..=M, output: F @ 0..=M];
    ReduceMin(Reduce) = "reduceMin", Reduction, [input: A @ 0..=M, output: A @ 0..=M];
    ReduceProduct(Reduce) = "reduceProduct", Reduction, [input: N @ 0..=M, output: N @ 0..=M];
    ReduceSum(Reduce) = "reduceSum", Reduction, [input: N @ 0..=M, output: N @ 0..=M];
    ReduceSumSquare(Reduce) = "reduceSumSquare", Reduction, [input: N @ 0..=M, output: N @ 0..=M];
    // Convolution, pooling, resampling.
    Conv2d(Conv2d) = "conv2d", Conv, [input: F @ 4..=4, filter: F @ 4..=4, bias: F @ 1..=1, output: F @ 4..=4];
    ConvTranspose2d(ConvTranspose2d) = "convTranspose2d", Conv, [input: F @ 4..=4, filter: F @ 4..=4, bias: F @ 1..=1, output: F @ 4..=4];
    AveragePool2d(Pool2d) = "averagePool2d", Pool, [input: F @ 4..=4, output: F @ 4..=4];
    L2Pool2d(Pool2d) = "l2Pool2d", Pool, [input: F @ 4..=4, output: F @ 4..=4];
    MaxPool2d(Pool2d) = "maxPool2d", Pool, [input: A @ 4..=4, output: A @ 4..=4];
    Resample2d(Resample2d) = "resample2d", Pool, [input: RESAMPLE @ 4..=4, output: RESAMPLE @ 4..=4];
    // Normalization.
    BatchNormalization(BatchNormalization) = "batchNormalization", Normalization,
        [input: F @ 1..=M, mean: F @ 1..=1, variance: F @ 1..=1, scale: F @ 1..=1, bias: F @ 1..=1, output: F @ 1..=M];
    InstanceNormalization(InstanceNormalization) = "instanceNormalization", Normalization,
        [input: F @ 4..=4, scale: F @ 1..=1, bias: F @ 1..=1, output: F @ 4..=4];
    LayerNormalization(LayerNormalization) = "layerNormalization", Normalization,
        [input: F @ 0..=M, scale: F @ 0..=M, bias: F @ 0..=M, output: F @ 0..=M];
    // Matrix products.
    Matmul(Binary) = "matmul", Matmul, [a: F @ 2..=M, b: F @ 2..=M, output: F @ 2..=M];
    Gemm(Gemm) = "gemm", Matmul, [a: F @ 2..=2, b: F @ 2..=2, c: F @ 0..=2, output: F @ 2..=2];
    // Recurrent networks.
    Gru(Gru) = "gru", Recurrent, [input: F @ 3..=3, weight: F @ 3..=3, recurrentWeight: F @ 3..=3,
        bias: F @ 2..=2, recurrentBias: F @ 2..=2, initialHiddenState: F @ 3..=3, output0: F @ 3..=3, output1: F @ 4..=4];
    GruCell(GruCell) = "gruCell", Recurrent, [input: F @ 2..=2, weight: F @ 2..=2, recurrentWeight: F @ 2..=2,
        hiddenState: F @ 2..=2, bias: F @ 1..=1, recurrentBias: F @ 1..=1, output: F @ 2..=2];
    Lstm(Lstm) = "lstm", Recurrent, [input: F @ 3..=3, weight: F @ 3..=3, recurrentWeight: F @ 3..=3,
        bias: F @ 2..=2, recurrentBias: F @ 2..=2, peepholeWeight: F @ 2..=2, initialHiddenState: F @ 3..=3,
        initialCellState: F @ 3..=3, output0: F @ 3..=3, output1: F @ 3..=3, output2: F @ 4..=4];
    LstmCell(LstmCell) = "lstmCell", Recurrent, [input: F @ 2..=2, weight: F @ 2..=2, recurrentWeight: F @ 2..=2,
        hiddenState: F @ 2..=2, cellState: F @ 2..=2, bias: F @ 1..=1, recurrentBias: F @ 1..=1,
        peepholeWeight: F @ 1..=1, output0: F @ 2..=2, output1: F @ 2..=2];
    // Gather and scatter.
    Gather(Gather) = "gather", Gather, [input: A @ 1..=M, indices: IDX @ 0..=M, output: A @ 0..=M];
    GatherElements(Gather) = "gatherElements", Gather, [input: A @ 1..=M, indices: IDX @ 1..=M, output: A @ 1..=M];
    GatherNd(GatherNd) = "gatherND", Gather, [input: A @ 1..=M, indices: IDX @ 1..=M, output: A @ 0..=M];
    ScatterElements(ScatterElements) = "scatterElements", Gather, [input: A @ 1..=M, indices: IDX @ 1..=M, updates: A @ 1..=M, output: A @ 1..=M];
    ScatterNd(ScatterNd) = "scatterND", Gather, [input: A @ 1..=M, indices: IDX @ 1..=M, updates: A @ 0..=M, output: A @ 1..=M];
    // Shape and data movement.
    Concat(Concat) = "concat", Shape, [inputs: A @ 1..=M, output: A @ 1..=M];
    Expand(Expand) = "expand", Shape, [input: A @ 0..=M, output: A @ 0..=M];
    Pad(Pad) = "pad", Shape, [input: A @ 0..=M, output: A @ 0..=M];
    Reshape(Reshape) = "reshape", Shape, [input: A @ 0..=M, output: A @ 0..=M];
    Reverse(Reverse) = "reverse", Shape, [input: A @ 0..=M, output: A @ 0..=M];
    Slice(Slice) = "slice", Shape, [input: A @ 0..=M, output: A @ 0..=M];
    Split(Split) = "split", Shape, [input: A @ 1..=M, outputs: A @ 1..=M];
    Tile(Tile) = "tile", Shape, [input: A @ 0..=M, output: A @ 0..=M];
    Transpose(Transpose) = "transpose", Shape, [input: A @ 0..=M, output: A @ 0..=M];
    Triangular(Triangular) = "triangular", Shape, [input: A @ 2..=M, output: A @ 2..=M];
    Where(Where) = "where", Shape, [condition: U8 @ 0..=M, trueValue: A @ 0..=M, falseValue: A @ 0..=M, output: A @ 0..=M];
    // Quantization.
    QuantizeLinear(QuantizeLinear) = "quantizeLinear", Quantization, [input: F @ 0..=M, scale: F @ 0..=M, zeroPoint: Q @ 0..=M, output: Q @ 0..=M];
    DequantizeLinear(QuantizeLinear) = "dequantizeLinear", Quantization, [input: Q @ 0..=M, scale: F @ 0..=M, zeroPoint: Q @ 0..=M, output: F @ 0..=M];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_all_95_builder_ops_once() {
        assert_eq!(OpKind::ALL.len(), 95);
        let mut names: Vec<&str> = OpKind::ALL.iter().map(|k| k.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 95);
    }

    #[test]
    fn table_matches_the_idl() {
        let idl = include_str!("../../../../webidl/webnn.idl");
        let mut idl_ops: Vec<String> = Vec::new();
        for line in idl.lines() {
            let line = line.trim();
            for prefix in ["MLOperand ", "sequence<MLOperand> "] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    if let Some(name) = rest.split('(').next() {
                        if rest.contains('(') && name != "input" && name != "constant" {
                            idl_ops.push(name.to_owned());
                        }
                    }
                }
            }
        }
        idl_ops.sort();
        idl_ops.dedup();
        let mut ours: Vec<String> = OpKind::ALL.iter().map(|k| k.name().to_owned()).collect();
        ours.sort();
        assert_eq!(ours, idl_ops);
        for k in OpKind::ALL {
            assert_eq!(OpKind::from_name(k.name()), Some(*k));
            assert!(!k.slots().is_empty());
        }
    }
}
