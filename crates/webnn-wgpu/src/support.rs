//! What this backend runs, per op: the source of `capabilities()` and of the check `compile()`
//! makes before it plans anything. An op or data type outside this table is a
//! NotSupportedError at compile, never a CPU fallback inside a GPU graph.

use crate::kernel::{BinaryOp, ReduceOp, UnaryOp};
use webnn_core::ops::InputLayout;
use webnn_core::{Capabilities, DataTypeSet, OpKind};

const NONE: DataTypeSet = DataTypeSet::NONE;
const F: DataTypeSet = DataTypeSet::FLOAT;

/// The data types the backend runs `kind` on: every slot of the op (inputs and outputs) is
/// limited to the op table's types intersected with this set.
pub fn supported(kind: OpKind) -> DataTypeSet {
    use OpKind::*;
    let unary = |op: UnaryOp| op.types();
    let reduce = |op: ReduceOp| op.types();
    // Predicates write uint8.
    let test = |op: UnaryOp| op.types() | DataTypeSet::U8;
    let binary = |op: BinaryOp| {
        op.types()
            | if op.is_predicate() {
                DataTypeSet::U8
            } else {
                NONE
            }
    };
    match kind {
        Add => binary(BinaryOp::Add),
        Sub => binary(BinaryOp::Sub),
        Mul => binary(BinaryOp::Mul),
        Div => binary(BinaryOp::Div),
        Max => binary(BinaryOp::Max),
        Min => binary(BinaryOp::Min),
        Pow => binary(BinaryOp::Pow),
        Equal => binary(BinaryOp::Equal),
        NotEqual => binary(BinaryOp::NotEqual),
        Greater => binary(BinaryOp::Greater),
        GreaterOrEqual => binary(BinaryOp::GreaterOrEqual),
        Lesser => binary(BinaryOp::Lesser),
        LesserOrEqual => binary(BinaryOp::LesserOrEqual),
        LogicalNot => test(UnaryOp::LogicalNot),
        LogicalAnd => binary(BinaryOp::LogicalAnd),
        LogicalOr => binary(BinaryOp::LogicalOr),
        LogicalXor => binary(BinaryOp::LogicalXor),
        IsNaN => test(UnaryOp::IsNaN),
        IsInfinite => test(UnaryOp::IsInfinite),
        Abs => unary(UnaryOp::Abs),
        Ceil => unary(UnaryOp::Ceil),
        Cos => unary(UnaryOp::Cos),
        Erf => unary(UnaryOp::Erf),
        Exp => unary(UnaryOp::Exp),
        Floor => unary(UnaryOp::Floor),
        // A buffer alias: any type.
        Identity => DataTypeSet::SPEC,
        Log => unary(UnaryOp::Log),
        Neg => unary(UnaryOp::Neg),
        Reciprocal => unary(UnaryOp::Reciprocal),
        RoundEven => unary(UnaryOp::RoundEven),
        Sin => unary(UnaryOp::Sin),
        Sign => unary(UnaryOp::Sign),
        Sqrt => unary(UnaryOp::Sqrt),
        Tan => unary(UnaryOp::Tan),
        Cast => DataTypeSet::SPEC,
        Clamp => unary(UnaryOp::Clamp),
        Elu => unary(UnaryOp::Elu),
        Gelu => unary(UnaryOp::Gelu),
        HardSigmoid => unary(UnaryOp::HardSigmoid),
        HardSwish => unary(UnaryOp::HardSwish),
        LeakyRelu => unary(UnaryOp::LeakyRelu),
        Linear => unary(UnaryOp::Linear),
        Relu => unary(UnaryOp::Relu),
        Sigmoid => unary(UnaryOp::Sigmoid),
        Softplus => unary(UnaryOp::Softplus),
        Softsign => unary(UnaryOp::Softsign),
        Tanh => unary(UnaryOp::Tanh),
        Prelu => binary(BinaryOp::Prelu),
        // Data movement and selection: index maps of any type.
        Reshape | Transpose | Concat | Expand | Pad | Reverse | Slice | Split | Tile
        | Triangular | Where => DataTypeSet::SPEC,
        // Any data; int32, uint32 or int64 indices.
        Gather | GatherElements | GatherNd | ScatterElements | ScatterNd => DataTypeSet::SPEC,
        ReduceL1 => reduce(ReduceOp::L1),
        ReduceL2 => reduce(ReduceOp::L2),
        ReduceLogSum => reduce(ReduceOp::LogSum),
        ReduceLogSumExp => reduce(ReduceOp::LogSumExp),
        ReduceMax => reduce(ReduceOp::Max),
        ReduceMean => reduce(ReduceOp::Mean),
        ReduceMin => reduce(ReduceOp::Min),
        ReduceProduct => reduce(ReduceOp::Product),
        ReduceSum => reduce(ReduceOp::Sum),
        ReduceSumSquare => reduce(ReduceOp::SumSquare),
        // Any input; int32 or int64 positions.
        ArgMin | ArgMax => DataTypeSet::SPEC,
        CumulativeSum => DataTypeSet::FLOAT_INT32_64,
        Softmax | LayerNormalization | InstanceNormalization | BatchNormalization => F,
        Conv2d | ConvTranspose2d | AveragePool2d | L2Pool2d | Matmul | Gemm => F,
        MaxPool2d => reduce(ReduceOp::Max),
        Resample2d => F | DataTypeSet::U8 | DataTypeSet::I8,
        // Expanded into matmul and element-wise ops before lowering.
        Gru | GruCell | Lstm | LstmCell => F,
        // Float values; int4, uint4, int8, uint8, int32, uint32 quantized values.
        QuantizeLinear | DequantizeLinear => DataTypeSet::ALL,
    }
}

/// The backend's capabilities for a device whose largest buffer is `max_buffer` bytes. (Kernels
/// that cannot split their work, such as transposes and broadcasts, are limited to the device's
/// largest binding: compile reports a NotSupportedError beyond it.)
pub fn capabilities(max_buffer: u64) -> Capabilities {
    let mut unsupported = Vec::new();
    let mut data_types = NONE;
    for &kind in OpKind::ALL {
        let have = supported(kind);
        data_types = data_types | have;
        for slot in kind.slots() {
            let lacks = DataTypeSet(slot.data_types.0 & !have.0);
            if !lacks.is_empty() {
                unsupported.push((kind, slot.name, lacks));
            }
        }
    }
    Capabilities {
        preferred_input_layout: InputLayout::Nchw,
        max_tensor_byte_length: max_buffer
            .min(webnn_core::Capabilities::default().max_tensor_byte_length),
        data_types,
        max_rank: crate::params::MAX_RANK as u32,
        unsupported,
    }
}
