//! Kernel identities and WGSL assembly. A `KernelKey` names one pipeline: the kernel (with its
//! op), the input and output data types, and specialisation fields. Its module is assembled
//! from fixed files in `shaders/` plus the typed preamble of its types (`storage.rs`); the op
//! and specialisations are pipeline-override constants, so one module serves every op of a
//! domain.

use crate::storage::{Domain, Storage};
use webnn_core::{DataType, DataTypeSet};

/// Threads per workgroup of the element-wise kernels (the `WG` override).
pub const WORKGROUP_SIZE: u32 = 64;

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
    }
}

const F: DataTypeSet = DataTypeSet::FLOAT;
/// The eight spec types: every element-wise kernel here handles each of them.
const SPEC: DataTypeSet = DataTypeSet::SPEC;
const SIGNED: DataTypeSet = DataTypeSet::FLOAT_SIGNED_INT;
const U8: DataTypeSet = DataTypeSet::U8;

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
        match self {
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::LogicalXor => U8,
            _ => SPEC,
        }
    }
    pub fn is_predicate(self) -> bool {
        self.code() >= BinaryOp::Equal.code()
    }
}

/// What a pipeline computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KernelId {
    Unary(UnaryOp),
    Binary(BinaryOp),
    /// Conversion between any two types.
    Cast,
    /// out[i] = a[strided offset of i] with one type in and out: transpose (and later the other
    /// data-movement ops that are index maps).
    Gather,
}

/// One pipeline of the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelKey {
    pub kernel: KernelId,
    /// The input data type (both inputs of a binary op).
    pub dtype: DataType,
    /// The output data type.
    pub out: DataType,
    /// Binary ops: index the inputs through broadcast strides (false when every shape agrees).
    pub broadcast: bool,
}

/// The body file of a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Body {
    Unary,
    Predicate,
    Binary,
    Compare,
    Cast,
    Gather,
}

/// What a shader module depends on: the key without its op and override values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleKey {
    pub body: Body,
    pub dtype: DataType,
    pub out: DataType,
}

mod src {
    pub const CODES: &str = include_str!("../shaders/codes.wgsl");
    pub const COMMON: &str = include_str!("../shaders/common.wgsl");
    pub const BITS: &str = include_str!("../shaders/bits.wgsl");
    pub const INT64: &str = include_str!("../shaders/int64.wgsl");
    pub const STORAGE: &str = include_str!("../shaders/storage.wgsl");
    pub const MATH: &str = include_str!("../shaders/math.wgsl");
    pub const INPUT_A: &str = include_str!("../shaders/input_a.wgsl");
    pub const INPUT_B: &str = include_str!("../shaders/input_b.wgsl");
    pub const UNARY: &str = include_str!("../shaders/unary.wgsl");
    pub const PREDICATE: &str = include_str!("../shaders/predicate.wgsl");
    pub const BINARY: &str = include_str!("../shaders/binary.wgsl");
    pub const COMPARE: &str = include_str!("../shaders/compare.wgsl");
    pub const CAST: &str = include_str!("../shaders/cast.wgsl");
    pub const GATHER: &str = include_str!("../shaders/gather.wgsl");
    pub const UNARY_FLOAT: &str = include_str!("../shaders/unary_float.wgsl");
    pub const UNARY_SINT: &str = include_str!("../shaders/unary_sint.wgsl");
    pub const UNARY_UINT: &str = include_str!("../shaders/unary_uint.wgsl");
    pub const UNARY_S64: &str = include_str!("../shaders/unary_s64.wgsl");
    pub const UNARY_U64: &str = include_str!("../shaders/unary_u64.wgsl");
    pub const BINARY_FLOAT: &str = include_str!("../shaders/binary_float.wgsl");
    pub const BINARY_SINT: &str = include_str!("../shaders/binary_sint.wgsl");
    pub const BINARY_UINT: &str = include_str!("../shaders/binary_uint.wgsl");
    pub const BINARY_S64: &str = include_str!("../shaders/binary_s64.wgsl");
    pub const BINARY_U64: &str = include_str!("../shaders/binary_u64.wgsl");
}

/// The op file of `body` for an input domain, if the body uses one.
fn domain_file(body: Body, domain: Domain) -> Option<&'static str> {
    let unary = matches!(body, Body::Unary | Body::Predicate);
    let binary = matches!(body, Body::Binary | Body::Compare);
    Some(match domain {
        Domain::Float if unary => src::UNARY_FLOAT,
        Domain::Sint if unary => src::UNARY_SINT,
        Domain::Uint if unary => src::UNARY_UINT,
        Domain::S64 if unary => src::UNARY_S64,
        Domain::U64 if unary => src::UNARY_U64,
        Domain::Float if binary => src::BINARY_FLOAT,
        Domain::Sint if binary => src::BINARY_SINT,
        Domain::Uint if binary => src::BINARY_UINT,
        Domain::S64 if binary => src::BINARY_S64,
        Domain::U64 if binary => src::BINARY_U64,
        _ => return None,
    })
}

impl ModuleKey {
    /// Inputs bound after the uniform and the output (bindings 2, 3...).
    pub fn inputs(self) -> u32 {
        match self.body {
            Body::Binary | Body::Compare => 2,
            Body::Unary | Body::Predicate | Body::Cast | Body::Gather => 1,
        }
    }

    /// The module's WGSL: shared files, typed preambles, inputs, op file, body.
    pub fn source(self) -> String {
        let domain = Domain::of(self.dtype);
        let op_file = domain_file(self.body, domain);
        let mut parts: Vec<std::borrow::Cow<'static, str>> = vec![
            src::CODES.into(),
            src::COMMON.into(),
            src::BITS.into(),
            src::INT64.into(),
            src::STORAGE.into(),
            Storage::of(self.dtype).input_preamble().into(),
            Storage::of(self.out).output_preamble().into(),
            src::INPUT_A.into(),
        ];
        if self.inputs() == 2 {
            parts.push(src::INPUT_B.into());
        }
        if domain == Domain::Float && op_file.is_some() {
            parts.push(src::MATH.into());
        }
        if let Some(f) = op_file {
            parts.push(f.into());
        }
        parts.push(
            match self.body {
                Body::Unary => src::UNARY,
                Body::Predicate => src::PREDICATE,
                Body::Binary => src::BINARY,
                Body::Compare => src::COMPARE,
                Body::Cast => src::CAST,
                Body::Gather => src::GATHER,
            }
            .into(),
        );
        parts.join("\n")
    }
}

impl KernelKey {
    pub fn module(self) -> ModuleKey {
        let body = match self.kernel {
            KernelId::Unary(op) if op.is_predicate() => Body::Predicate,
            KernelId::Unary(_) => Body::Unary,
            KernelId::Binary(op) if op.is_predicate() => Body::Compare,
            KernelId::Binary(_) => Body::Binary,
            KernelId::Cast => Body::Cast,
            KernelId::Gather => Body::Gather,
        };
        ModuleKey {
            body,
            dtype: self.dtype,
            out: self.out,
        }
    }

    /// Override constants of the pipeline.
    pub fn constants(self) -> Vec<(&'static str, f64)> {
        let mut c = vec![("WG", WORKGROUP_SIZE as f64)];
        match self.kernel {
            KernelId::Unary(op) => c.push(("OP", op.code() as f64)),
            KernelId::Binary(op) => {
                c.push(("OP", op.code() as f64));
                c.push(("BROADCAST", if self.broadcast { 1.0 } else { 0.0 }));
            }
            KernelId::Cast | KernelId::Gather => {}
        }
        c
    }

    pub fn label(self) -> String {
        format!(
            "{:?} {}->{}{}",
            self.kernel,
            self.dtype,
            self.out,
            if self.broadcast { " broadcast" } else { "" }
        )
    }

    /// Every key this crate can create: what the naga test validates.
    pub fn all() -> Vec<KernelKey> {
        let mut keys = Vec::new();
        let key = |kernel, dtype, out, broadcast| KernelKey {
            kernel,
            dtype,
            out,
            broadcast,
        };
        for &op in UnaryOp::ALL {
            for t in op.types().iter() {
                let out = if op.is_predicate() {
                    DataType::Uint8
                } else {
                    t
                };
                keys.push(key(KernelId::Unary(op), t, out, false));
            }
        }
        for &op in BinaryOp::ALL {
            for t in op.types().iter() {
                let out = if op.is_predicate() {
                    DataType::Uint8
                } else {
                    t
                };
                keys.push(key(KernelId::Binary(op), t, out, false));
                keys.push(key(KernelId::Binary(op), t, out, true));
            }
        }
        for from in SPEC.iter() {
            for to in SPEC.iter() {
                keys.push(key(KernelId::Cast, from, to, false));
            }
        }
        // Every storage type, int4/uint4 included, so each preamble is validated.
        for t in DataTypeSet::ALL.iter() {
            keys.push(key(KernelId::Gather, t, t, false));
        }
        keys
    }
}
