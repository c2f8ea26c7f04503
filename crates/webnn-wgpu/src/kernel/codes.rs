//! Op codes: the value of a pipeline's `OP` override picks one op of a domain file. Each enum
//! mirrors constants of `shaders/codes.wgsl`; tests/naga.rs checks that the two agree.

use webnn_core::DataTypeSet;

macro_rules! op_codes {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $code:literal, $wgsl:literal;)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($variant,)*
        }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];
            /// The `OP` override value (shaders/codes.wgsl).
            pub fn code(self) -> u32 {
                match self { $($name::$variant => $code,)* }
            }
            /// The constant's name in shaders/codes.wgsl.
            pub fn wgsl_name(self) -> &'static str {
                match self { $($name::$variant => $wgsl,)* }
            }
        }
    };
}

op_codes! {
    /// Element-wise unary ops: maps (same type out) and predicates (uint8 out).
    UnaryOp {
        Abs = 0, "OP_ABS"; Ceil = 1, "OP_CEIL"; Cos = 2, "OP_COS"; Erf = 3, "OP_ERF";
        Exp = 4, "OP_EXP"; Floor = 5, "OP_FLOOR"; Log = 6, "OP_LOG"; Neg = 7, "OP_NEG";
        Reciprocal = 8, "OP_RECIPROCAL"; RoundEven = 9, "OP_ROUND_EVEN"; Sin = 10, "OP_SIN";
        Sign = 11, "OP_SIGN"; Sqrt = 12, "OP_SQRT"; Tan = 13, "OP_TAN"; Relu = 14, "OP_RELU";
        Sigmoid = 15, "OP_SIGMOID"; Tanh = 16, "OP_TANH"; Gelu = 17, "OP_GELU";
        HardSwish = 18, "OP_HARD_SWISH"; Softplus = 19, "OP_SOFTPLUS"; Softsign = 20, "OP_SOFTSIGN";
        Elu = 21, "OP_ELU"; HardSigmoid = 22, "OP_HARD_SIGMOID"; LeakyRelu = 23, "OP_LEAKY_RELU";
        Linear = 24, "OP_LINEAR"; Clamp = 25, "OP_CLAMP";
        IsNaN = 26, "OP_IS_NAN"; IsInfinite = 27, "OP_IS_INFINITE"; LogicalNot = 28, "OP_LOGICAL_NOT";
    }
}

op_codes! {
    /// Element-wise binary ops: arithmetic (same type out) and predicates (uint8 out).
    BinaryOp {
        Add = 0, "OP_ADD"; Sub = 1, "OP_SUB"; Mul = 2, "OP_MUL"; Div = 3, "OP_DIV";
        Max = 4, "OP_MAX"; Min = 5, "OP_MIN"; Pow = 6, "OP_POW";
        Equal = 7, "OP_EQUAL"; NotEqual = 8, "OP_NOT_EQUAL"; Greater = 9, "OP_GREATER";
        GreaterOrEqual = 10, "OP_GREATER_OR_EQUAL"; Lesser = 11, "OP_LESSER";
        LesserOrEqual = 12, "OP_LESSER_OR_EQUAL"; LogicalAnd = 13, "OP_LOGICAL_AND";
        LogicalOr = 14, "OP_LOGICAL_OR"; LogicalXor = 15, "OP_LOGICAL_XOR";
        Prelu = 16, "OP_PRELU";
    }
}

op_codes! {
    /// Folds of the row kernels: the ten reductions; pooling uses max, mean and l2.
    ReduceOp {
        Sum = 0, "OP_REDUCE_SUM"; Mean = 1, "OP_REDUCE_MEAN"; L1 = 2, "OP_REDUCE_L1";
        L2 = 3, "OP_REDUCE_L2"; LogSum = 4, "OP_REDUCE_LOG_SUM";
        LogSumExp = 5, "OP_REDUCE_LOG_SUM_EXP"; Max = 6, "OP_REDUCE_MAX"; Min = 7, "OP_REDUCE_MIN";
        Product = 8, "OP_REDUCE_PRODUCT"; SumSquare = 9, "OP_REDUCE_SUM_SQUARE";
    }
}

const F: DataTypeSet = DataTypeSet::FLOAT;
/// The eight spec types: every element-wise kernel here handles each of them.
const SPEC: DataTypeSet = DataTypeSet::SPEC;
const SIGNED: DataTypeSet = DataTypeSet::FLOAT_SIGNED_INT;
const U8: DataTypeSet = DataTypeSet::U8;
const SUMS: DataTypeSet = DataTypeSet::FLOAT_INT32_64;

impl UnaryOp {
    /// Input data types this backend computes the op for.
    pub fn types(self) -> DataTypeSet {
        use UnaryOp::*;
        match self {
            Abs | Neg | Sign | Relu => SIGNED,
            Clamp => SPEC,
            LogicalNot => U8,
            Ceil | Cos | Erf | Exp | Floor | Log | Reciprocal | RoundEven | Sin | Sqrt | Tan
            | Sigmoid | Tanh | Gelu | HardSwish | Softplus | Softsign | Elu | HardSigmoid
            | LeakyRelu | Linear | IsNaN | IsInfinite => F,
        }
    }
    /// A predicate writes uint8 0/1.
    pub fn is_predicate(self) -> bool {
        matches!(
            self,
            UnaryOp::IsNaN | UnaryOp::IsInfinite | UnaryOp::LogicalNot
        )
    }
}

impl BinaryOp {
    pub fn types(self) -> DataTypeSet {
        use BinaryOp::*;
        match self {
            LogicalAnd | LogicalOr | LogicalXor => U8,
            Prelu => SIGNED,
            Add | Sub | Mul | Div | Max | Min | Pow | Equal | NotEqual | Greater
            | GreaterOrEqual | Lesser | LesserOrEqual => SPEC,
        }
    }
    pub fn is_predicate(self) -> bool {
        use BinaryOp::*;
        match self {
            Equal | NotEqual | Greater | GreaterOrEqual | Lesser | LesserOrEqual | LogicalAnd
            | LogicalOr | LogicalXor => true,
            Add | Sub | Mul | Div | Max | Min | Pow | Prelu => false,
        }
    }
}

impl ReduceOp {
    /// Input (= output) data types of the reduction.
    pub fn types(self) -> DataTypeSet {
        use ReduceOp::*;
        match self {
            Mean | L2 | LogSum | LogSumExp => F,
            Sum | L1 | Product | SumSquare => SUMS,
            Max | Min => SPEC,
        }
    }
}
