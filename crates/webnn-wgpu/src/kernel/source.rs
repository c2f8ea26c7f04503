//! WGSL module assembly. A module is fixed files from `shaders/` plus generated, typed glue:
//! the `InT`/`OutT`/`IxT` preambles of its data types and one loader per input binding
//! (`storage.rs`). Op names are never spliced into source: ops are override constants.

use super::{ABinding, KernelId, ParamBinding, ProductIo};
use crate::storage::{Domain, Storage};
use webnn_core::DataType;

/// How invocations map to work (the frame file a module is built on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Frame {
    /// One output element per `compute(i)`, whole output words per invocation.
    Elementwise,
    /// One source element per `run_unit(u)`, stored where it goes.
    Scatter,
    /// LANES invocations per row, with workgroup reductions.
    Rows,
    /// Tiled matrix products.
    Gemm,
    /// The body is its own frame (the depthwise convolution's 2-D output tiles).
    Own,
}

/// The body file of a module, with the index type of the bodies that read indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Body {
    Unary,
    Predicate,
    Binary,
    Compare,
    Cast,
    Strided,
    Copy,
    Remap,
    Where,
    Triangular,
    Rope,
    SiluMul,
    Gather(DataType),
    GatherNd(DataType),
    Place,
    ScatterElements(DataType),
    ScatterNd(DataType),
    BatchNorm,
    Quantize,
    Dequantize,
    Resample,
    Reduce,
    ArgReduce,
    Softmax,
    Normalize,
    CumSum,
    Pool,
    Matmul,
    Conv,
    Depthwise,
    Gemv,
    /// With the caches' type and how q is bound.
    Attention(DataType, ABinding),
    AttentionTiled(DataType),
    AttentionMerge,
    /// With the weight's type, how its parameters and x are bound, and the inputs of the
    /// steps it takes over (`ProductIo`).
    QGemv(DataType, ParamBinding, ABinding, ProductIo),
    QGemm(DataType, ProductIo),
}

/// How float16 inputs are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum F16 {
    /// Two per u32 word, decoded from the bit pattern (any WGSL).
    Packed,
    /// As `array<f16>` with the shader-f16 feature, widened to f32 by one conversion. Outputs
    /// keep the exact bit encoder either way: WGSL leaves the rounding of f32 -> f16 and of
    /// out-of-range values to the implementation.
    Native,
}

/// What a shader module depends on: the key without its op and override values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleKey {
    pub body: Body,
    pub dtype: DataType,
    pub out: DataType,
    /// `Native` only for modules that read float16 inputs.
    pub f16: F16,
    /// The device's smallest subgroup for modules that reduce across lanes (a row's lanes,
    /// up to this many, fold with subgroup shuffles); 0: workgroup memory only.
    pub subgroup: u32,
}

mod src {
    macro_rules! shaders {
        ($($name:ident = $file:literal;)*) => {
            $(pub const $name: &str = include_str!(concat!("../../shaders/", $file));)*
        };
    }
    shaders! {
        CODES = "codes.wgsl"; BITS = "bits.wgsl"; INT64 = "int64.wgsl";
        STORAGE = "storage.wgsl"; MATH = "math.wgsl";
        PARAMS = "params.wgsl"; GRID = "grid.wgsl"; ELEMENTWISE = "elementwise.wgsl";
        STORE = "store.wgsl"; STORE_PACKED = "store_packed.wgsl"; ROWS = "rows.wgsl"; ROWS_PARAMS = "rows_params.wgsl";
        LANES = "lanes.wgsl"; LANES_TREE = "lanes_tree.wgsl"; LANES_SUBGROUP = "lanes_subgroup.wgsl"; GEMM = "gemm.wgsl";
        UNARY_FLOAT = "unary_float.wgsl"; UNARY_SINT = "unary_sint.wgsl";
        UNARY_UINT = "unary_uint.wgsl"; UNARY_S64 = "unary_s64.wgsl"; UNARY_U64 = "unary_u64.wgsl";
        BINARY_FLOAT = "binary_float.wgsl"; BINARY_SINT = "binary_sint.wgsl";
        BINARY_UINT = "binary_uint.wgsl"; BINARY_S64 = "binary_s64.wgsl";
        BINARY_U64 = "binary_u64.wgsl";
        REDUCE_FLOAT = "reduce_float.wgsl"; REDUCE_SINT = "reduce_sint.wgsl";
        REDUCE_UINT = "reduce_uint.wgsl"; REDUCE_64 = "reduce_64.wgsl";
        UNARY = "unary.wgsl"; PREDICATE = "predicate.wgsl"; BINARY = "binary.wgsl";
        COMPARE = "compare.wgsl"; CAST = "cast.wgsl"; STRIDED = "strided.wgsl";
        REMAP = "remap.wgsl"; WHERE = "where.wgsl"; TRIANGULAR = "triangular.wgsl";
        GATHER = "gather.wgsl"; GATHER_ND = "gather_nd.wgsl"; PLACE = "place.wgsl";
        SCATTER_ELEMENTS = "scatter_elements.wgsl"; SCATTER_ND = "scatter_nd.wgsl";
        BATCH_NORM = "batch_norm.wgsl"; QUANTIZE = "quantize.wgsl";
        DEQUANTIZE = "dequantize.wgsl"; RESAMPLE = "resample.wgsl"; REDUCE = "reduce.wgsl";
        ARG_REDUCE = "arg_reduce.wgsl"; SOFTMAX = "softmax.wgsl"; NORMALIZE = "normalize.wgsl";
        CUMSUM = "cumsum.wgsl"; POOL = "pool.wgsl"; MATMUL = "matmul.wgsl"; CONV = "conv.wgsl";
        DEPTHWISE = "depthwise.wgsl"; GEMV = "gemv.wgsl"; MATMUL_PARAMS = "matmul_params.wgsl";
        QGEMV = "qgemv.wgsl"; QGEMM = "qgemm.wgsl"; ROPE = "rope.wgsl"; ATTENTION = "attention.wgsl";
        ATTENTION_TILED = "attention_tiled.wgsl"; ATTENTION_MERGE = "attention_merge.wgsl";
        SILU_MUL = "silu_mul.wgsl"; COPY = "copy.wgsl";
    }
}

/// Which op file of a domain a body needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ops {
    None,
    Unary,
    Binary,
    /// Accumulators of the row kernels (reduce_*.wgsl), with the lane reduction when `lanes`.
    Fold {
        lanes: bool,
    },
    /// The float accumulator whatever the input type.
    FloatFold,
}

impl Body {
    pub fn of(kernel: KernelId) -> Body {
        use KernelId as K;
        match kernel {
            K::Unary(op) if op.is_predicate() => Body::Predicate,
            K::Unary(_) => Body::Unary,
            K::Binary(op) if op.is_predicate() => Body::Compare,
            K::Binary(_) => Body::Binary,
            K::Cast => Body::Cast,
            K::Strided => Body::Strided,
            K::Copy => Body::Copy,
            K::Remap(_) => Body::Remap,
            K::Where => Body::Where,
            K::Triangular => Body::Triangular,
            K::Rope => Body::Rope,
            K::SiluMul => Body::SiluMul,
            K::Attention { cache, q } | K::AttentionSplit { cache, q } => Body::Attention(cache, q),
            K::AttentionMerge => Body::AttentionMerge,
            K::AttentionTiled { cache } => Body::AttentionTiled(cache),
            K::Gather { index } => Body::Gather(index),
            K::GatherNd { index } => Body::GatherNd(index),
            K::Place => Body::Place,
            K::ScatterElements { index } => Body::ScatterElements(index),
            K::ScatterNd { index } => Body::ScatterNd(index),
            K::BatchNorm { .. } => Body::BatchNorm,
            K::Quantize => Body::Quantize,
            K::Dequantize => Body::Dequantize,
            K::Resample(_) => Body::Resample,
            K::Reduce { .. } => Body::Reduce,
            K::ArgReduce { .. } => Body::ArgReduce,
            K::Softmax { .. } => Body::Softmax,
            K::Normalize { .. } => Body::Normalize,
            K::CumSum => Body::CumSum,
            K::Pool { .. } => Body::Pool,
            K::Matmul { .. } => Body::Matmul,
            K::Conv { .. } => Body::Conv,
            K::Depthwise { .. } => Body::Depthwise,
            K::Gemv { .. } => Body::Gemv,
            K::QGemv { weight, offset, params, x, zero_point, tail, norm, rope, scatter, pair, .. } => {
                let io = ProductIo { offset, zero_point, tail: tail != super::Tail::None, norm, rope, scatter, pair };
                Body::QGemv(weight, params, x, io)
            }
            K::QGemm { weight, offset, zero_point, tail, rope, scatter, .. } => {
                let io = ProductIo { offset, zero_point, tail: tail != super::Tail::None, norm: false, rope, scatter, pair: false };
                Body::QGemm(weight, io)
            }
        }
    }

    /// How the module binds input a: storage but for the kernels that may take it as a
    /// uniform (`ABinding`).
    pub fn a_binding(self) -> ABinding {
        match self {
            Body::QGemv(_, _, a, ..) | Body::Attention(_, a) => a,
            _ => ABinding::Storage,
        }
    }

    /// Whether the module binds input a as a uniform.
    pub fn uniform_input(self) -> bool {
        self.a_binding() != ABinding::Storage
    }

    /// How the module binds its parameter block.
    pub fn params(self) -> ParamBinding {
        match self {
            Body::QGemv(_, params, ..) => params,
            _ => ParamBinding::Uniform,
        }
    }

    pub fn frame(self) -> Frame {
        use Body::*;
        match self {
            Unary | Predicate | Binary | Compare | Cast | Strided | Remap | Where | Triangular | Rope
            | SiluMul | Gather(_) | GatherNd(_) | BatchNorm | Quantize | Dequantize | Resample => {
                Frame::Elementwise
            }
            Copy | Place | ScatterElements(_) | ScatterNd(_) => Frame::Scatter,
            Reduce | ArgReduce | Softmax | Normalize | CumSum | Pool | Gemv | QGemv(..)
            | Attention(..) | AttentionTiled(_) | AttentionMerge => Frame::Rows,
            Matmul | Conv | QGemm(..) => Frame::Gemm,
            Depthwise => Frame::Own,
        }
    }

    fn file(self) -> &'static str {
        use Body::*;
        match self {
            Unary => src::UNARY,
            Predicate => src::PREDICATE,
            Binary => src::BINARY,
            Compare => src::COMPARE,
            Cast => src::CAST,
            Strided => src::STRIDED,
            Copy => src::COPY,
            Remap => src::REMAP,
            Where => src::WHERE,
            Triangular => src::TRIANGULAR,
            Rope => src::ROPE,
            SiluMul => src::SILU_MUL,
            Attention(..) => src::ATTENTION,
            AttentionTiled(_) => src::ATTENTION_TILED,
            AttentionMerge => src::ATTENTION_MERGE,
            Gather(_) => src::GATHER,
            GatherNd(_) => src::GATHER_ND,
            Place => src::PLACE,
            ScatterElements(_) => src::SCATTER_ELEMENTS,
            ScatterNd(_) => src::SCATTER_ND,
            BatchNorm => src::BATCH_NORM,
            Quantize => src::QUANTIZE,
            Dequantize => src::DEQUANTIZE,
            Resample => src::RESAMPLE,
            Reduce => src::REDUCE,
            ArgReduce => src::ARG_REDUCE,
            Softmax => src::SOFTMAX,
            Normalize => src::NORMALIZE,
            CumSum => src::CUMSUM,
            Pool => src::POOL,
            Matmul => src::MATMUL,
            Conv => src::CONV,
            Depthwise => src::DEPTHWISE,
            Gemv => src::GEMV,
            QGemv(..) => src::QGEMV,
            QGemm(..) => src::QGEMM,
        }
    }

    fn ops(self) -> Ops {
        use Body::*;
        match self {
            Unary | Predicate => Ops::Unary,
            Binary | Compare => Ops::Binary,
            Reduce | Pool => Ops::Fold { lanes: true },
            ArgReduce | CumSum => Ops::Fold { lanes: false },
            Softmax | Normalize | Gemv | QGemv(..) | Attention(..) | AttentionTiled(_) | AttentionMerge => Ops::FloatFold,
            Cast | Strided | Copy | Remap | Where | Triangular | Rope | SiluMul | Gather(_) | GatherNd(_) | Place
            | ScatterElements(_) | ScatterNd(_) | BatchNorm | Quantize | Dequantize | Resample
            | Matmul | Conv | Depthwise | QGemm(..) => Ops::None,
        }
    }

    /// The index type of bodies that read indices.
    fn index(self) -> Option<DataType> {
        match self {
            Body::Gather(t) | Body::GatherNd(t) | Body::ScatterElements(t) | Body::ScatterNd(t) => {
                Some(t)
            }
            _ => None,
        }
    }

    /// The data type of each input binding (a, b, c...), given the key's types.
    pub fn inputs(self, dtype: DataType, out: DataType) -> Vec<DataType> {
        use Body::*;
        match self {
            Unary | Predicate | Cast | Strided | Copy | Remap | Triangular | Place | Resample | Reduce
            | ArgReduce | Softmax | CumSum | Pool | AttentionMerge => vec![dtype],
            Binary | Compare | SiluMul => vec![dtype, dtype],
            Rope => vec![dtype; 3],
            // q, keys, values, the uint8 mask.
            Attention(cache, _) | AttentionTiled(cache) => vec![dtype, cache, cache, DataType::Uint8],
            Where => vec![DataType::Uint8, dtype, dtype],
            Gather(ix) | GatherNd(ix) => vec![dtype, ix],
            ScatterElements(ix) | ScatterNd(ix) => vec![ix, dtype],
            BatchNorm => vec![dtype; 5],
            Normalize | Matmul | Conv | Depthwise | Gemv => vec![dtype; 3],
            QGemv(w, _, _, io) | QGemm(w, io) => product_roles(w, dtype, io).into_iter().map(|(_, t)| t).collect(),
            Quantize => vec![dtype, dtype, out],
            Dequantize => vec![dtype, out, dtype],
        }
    }
}

/// The op file of `ops` for an input domain.
fn domain_file(ops: Ops, domain: Domain) -> Option<&'static str> {
    Some(match (ops, domain) {
        (Ops::None, _) => return None,
        (Ops::Unary, Domain::Float) => src::UNARY_FLOAT,
        (Ops::Unary, Domain::Sint) => src::UNARY_SINT,
        (Ops::Unary, Domain::Uint) => src::UNARY_UINT,
        (Ops::Unary, Domain::S64) => src::UNARY_S64,
        (Ops::Unary, Domain::U64) => src::UNARY_U64,
        (Ops::Binary, Domain::Float) => src::BINARY_FLOAT,
        (Ops::Binary, Domain::Sint) => src::BINARY_SINT,
        (Ops::Binary, Domain::Uint) => src::BINARY_UINT,
        (Ops::Binary, Domain::S64) => src::BINARY_S64,
        (Ops::Binary, Domain::U64) => src::BINARY_U64,
        (Ops::Fold { .. }, Domain::Float) | (Ops::FloatFold, _) => src::REDUCE_FLOAT,
        (Ops::Fold { .. }, Domain::Sint) => src::REDUCE_SINT,
        (Ops::Fold { .. }, Domain::Uint) => src::REDUCE_UINT,
        (Ops::Fold { .. }, Domain::S64 | Domain::U64) => src::REDUCE_64,
    })
}

impl ModuleKey {
    /// The module of `body` on these types; native float16 loads only where an input is
    /// float16 (`native` says whether the device offers them).
    pub fn new(body: Body, dtype: DataType, out: DataType, native: bool, subgroup: u32) -> ModuleKey {
        let reads_f16 = body.inputs(dtype, out).contains(&DataType::Float16);
        let f16 = if native && reads_f16 {
            F16::Native
        } else {
            F16::Packed
        };
        let lanes = matches!(body.ops(), Ops::Fold { lanes: true } | Ops::FloatFold);
        ModuleKey {
            body,
            dtype,
            out,
            f16,
            subgroup: if lanes { subgroup } else { 0 },
        }
    }

    /// Inputs bound after the uniform and the output (bindings 2, 3...).
    pub fn inputs(self) -> u32 {
        self.body.inputs(self.dtype, self.out).len() as u32
    }

    /// The module's WGSL: shared files, typed preambles and loaders, the frame, op files and
    /// the body.
    pub fn source(self) -> String {
        let body = self.body;
        let frame = body.frame();
        let ops = body.ops();
        let op_file = domain_file(ops, Domain::of(self.dtype));
        let io = match body {
            Body::QGemv(.., io) | Body::QGemm(_, io) => Some(io),
            _ => None,
        };
        // The epilogue op and the pair's SiLU call math.wgsl's sigmoid.
        let tail = io.is_some_and(|io| io.tail || io.pair);
        let float_ops = matches!(op_file, Some(f) if f == src::UNARY_FLOAT || f == src::BINARY_FLOAT || f == src::REDUCE_FLOAT)
            || body == Body::SiluMul
            || tail;
        let mut parts: Vec<String> = Vec::new();
        if self.f16 == F16::Native {
            parts.push("enable f16;".into());
        }
        // Naga takes the subgroup built-ins without `enable subgroups;` (which it rejects);
        // only wgpu's native backends offer the feature.
        if self.subgroup > 0 {
            parts.push(format!("const SUBGROUP_MIN: u32 = {}u;", self.subgroup));
        }
        parts.extend([
            src::CODES.into(),
            src::BITS.into(),
            src::INT64.into(),
            src::STORAGE.into(),
            Storage::of(self.dtype).preamble("in", "InT"),
            Storage::of(self.out).preamble("out", "OutT"),
        ]);
        if let Some(ix) = body.index() {
            parts.push(Storage::of(ix).preamble("ix", "IxT"));
        }
        let native = self.f16 == F16::Native;
        let roles: Vec<(&str, DataType)> = match body {
            Body::QGemv(w, .., io) | Body::QGemm(w, io) => product_roles(w, self.dtype, io),
            _ => body.inputs(self.dtype, self.out).into_iter().enumerate().map(|(k, t)| (input_name(k), t)).collect(),
        };
        for (k, (name, t)) in roles.into_iter().enumerate() {
            match body {
                Body::QGemv(_, _, a, ..) | Body::Attention(_, a) if k == 0 => {
                    parts.push(a_loader(a, Storage::of(t).loader(2, "a", native)))
                }
                _ => parts.push(Storage::of(t).loader(2 + k as u32, name, native)),
            }
        }
        // Element stores: plain for whole-word types, atomic bit updates for packed ones.
        let store = if Storage::of(self.out).per_word > 1 {
            src::STORE_PACKED
        } else {
            src::STORE
        };
        match frame {
            Frame::Elementwise => parts.extend([
                src::PARAMS.into(),
                src::GRID.into(),
                src::ELEMENTWISE.into(),
            ]),
            Frame::Scatter => parts.extend([src::PARAMS.into(), src::GRID.into(), store.into()]),
            Frame::Rows => {
                match body {
                    Body::Pool => {}
                    Body::Gemv => parts.extend([src::MATMUL_PARAMS.into(), product_fns(ProductIo::default())]),
                    Body::QGemv(.., io) => parts.extend([src::MATMUL_PARAMS.into(), product_fns(io)]),
                    _ => parts.push(src::ROWS_PARAMS.into()),
                }
                parts.extend([src::ROWS.into(), store.into()]);
            }
            Frame::Gemm => {
                if matches!(body, Body::Matmul | Body::QGemm(..)) {
                    parts.extend([src::MATMUL_PARAMS.into(), product_fns(io.unwrap_or_default())]);
                }
                parts.extend([src::GEMM.into(), store.into()]);
            }
            Frame::Own => parts.push(store.into()),
        }
        if float_ops {
            parts.push(src::MATH.into());
        }
        if let Some(f) = op_file {
            parts.push(f.into());
        }
        if matches!(ops, Ops::Fold { lanes: true } | Ops::FloatFold) {
            parts.push(src::LANES.into());
            parts.push(if self.subgroup > 0 { src::LANES_SUBGROUP } else { src::LANES_TREE }.into());
        }
        parts.push(body.file().into());
        let source = parts.join("\n");
        match body.params() {
            ParamBinding::Uniform => source,
            // The parameter files declare the block as a uniform; the struct is laid out the
            // same way in either address space.
            ParamBinding::Storage => source.replace(PARAMS_UNIFORM, "@group(0) @binding(0) var<storage, read>"),
        }
    }
}

/// Input a of the kernels that may bind it as a uniform, with `load_a4(j)` for its elements
/// 4j..4j + 3: `storage` (the storage loader) or a uniform array of float32 quads.
fn a_loader(a: ABinding, storage: String) -> String {
    match a {
        ABinding::Storage => storage
            + "fn load_a4(j: u32) -> vec4<f32> {\n    let i = 4u * j;\n    return vec4<f32>(f32(load_a(i)), f32(load_a(i + 1u)), f32(load_a(i + 2u)), f32(load_a(i + 3u)));\n}\n",
        ABinding::Uniform { vec4s } => format!(
            "@group(0) @binding(2) var<uniform> a: array<vec4<f32>, {vec4s}>;\n\
             fn load_a(i: u32) -> f32 {{ return a[i / 4u][i % 4u]; }}\n\
             fn load_a4(j: u32) -> vec4<f32> {{ return a[j]; }}\n"
        ),
    }
}

/// The inputs of a quantized product's module, named by role (`ProductIo`): x (a), the
/// weight (b), its scale (c), [zero points (d)], [offsets (e)], [the pair's weight, scale,
/// zero points and offsets], [epilogue operand (f)], [norm weight (g)], [cos, sin], [row
/// indices]; bound in this order.
pub(super) fn product_roles(weight: DataType, x: DataType, io: ProductIo) -> Vec<(&'static str, DataType)> {
    let mut v = vec![("a", x), ("b", weight), ("c", x)];
    if io.zero_point {
        v.push(("d", weight));
    }
    if io.offset {
        v.push(("e", x));
    }
    if io.pair {
        v.extend([("pair_q", weight), ("pair_c", x)]);
        if io.zero_point {
            v.push(("pair_d", weight));
        }
        if io.offset {
            v.push(("pair_e", x));
        }
    }
    // Names no kernel uses for a local (a binding named like a loader's parameter `i`
    // would be shadowed inside its own loader).
    let optional = [(io.tail, "f"), (io.norm, "g"), (io.rope, "rope_cos"), (io.rope, "rope_sin")];
    v.extend(optional.into_iter().filter(|(on, _)| *on).map(|(_, name)| (name, x)));
    if io.scatter {
        v.push(("row_indices", DataType::Int32));
    }
    v
}

/// The glue `finish_product` and the quantized kernels call, for the inputs a module binds
/// (stubs for the steps it does not take over):
/// - `load_d(i)`: a zero point (0 where they are all zero and not bound);
/// - `load_e(i)`: an offset (0 where the format has none, not bound: HAS_OFFSET is false);
/// - `tail(i, v)`: the epilogue op (`Tail`, the `TAIL` override) with input f;
/// - `load_nw(i)`: the norm weight (input g);
/// - `rope_pair(m, n, v)`: rotary embedding of the pair of output columns n, n + 1 of row m
///   (inputs rope_cos and rope_sin; the block's `batch_shape[0]` holds the head dim and cos/sin's strides
///   per row and per pair);
/// - `out_row(z, m)`: the output row of product row m, or the row that input row_indices
///   names in an
///   output of `batch_shape[0].w` rows (a cache's scatterND: negative indices count from
///   the end, the rest clamp, as the scatter kernel resolves them);
/// - `PAIR`, `pair_word(i)`, `load_pair_c(s)`, `load_pair_d(s)`, `load_pair_e(s)`: the
///   second weight set (word i of its weight, block s's scale, zero point and offset), or
///   zeros where the module has none.
fn product_fns(io: ProductIo) -> String {
    let mut f = String::new();
    if !io.zero_point {
        f += "fn load_d(i: u32) -> f32 {\n    return 0.0;\n}\n";
    }
    f += match io.pair {
        false => "const PAIR: bool = false;\n\
                  fn pair_word(i: u32) -> u32 {\n    return 0u;\n}\n\
                  fn load_pair_c(i: u32) -> f32 {\n    return 0.0;\n}\n",
        true => "const PAIR: bool = true;\nfn pair_word(i: u32) -> u32 {\n    return pair_q[i];\n}\n",
    };
    if !(io.pair && io.zero_point) {
        f += "fn load_pair_d(i: u32) -> f32 {\n    return 0.0;\n}\n";
    }
    if !io.offset {
        f += "fn load_e(i: u32) -> f32 {\n    return 0.0;\n}\n";
    }
    if !(io.pair && io.offset) {
        f += "fn load_pair_e(i: u32) -> f32 {\n    return 0.0;\n}\n";
    }
    f += match io.tail {
        false => "fn tail(i: u32, v: f32) -> f32 {\n    return v;\n}\n",
        true => "override TAIL: u32 = 1u;\n\
                 fn tail(i: u32, v: f32) -> f32 {\n\
                 \x20   let r = load_f(i);\n\
                 \x20   if (TAIL == 1u) {\n        return v + r;\n    }\n\
                 \x20   return v * (r * sigmoid_f(r));\n}\n",
    };
    f += match io.norm {
        false => "fn load_nw(i: u32) -> f32 {\n    return 1.0;\n}\n",
        true => "fn load_nw(i: u32) -> f32 {\n    return load_g(i);\n}\n",
    };
    f += match io.rope {
        false => "fn rope_pair(m: u32, n: u32, v: vec2<f32>) -> vec2<f32> {\n    return v;\n}\n",
        true => "fn rope_pair(m: u32, n: u32, v: vec2<f32>) -> vec2<f32> {\n\
                 \x20   let at = m * M.batch_shape[0].y + ((n % M.batch_shape[0].x) / 2u) * M.batch_shape[0].z;\n\
                 \x20   let c = load_rope_cos(at);\n\
                 \x20   let s = load_rope_sin(at);\n\
                 \x20   return vec2<f32>(v.x * c - v.y * s, v.x * s + v.y * c);\n}\n",
    };
    f += match io.scatter {
        false => "fn out_row(z: u32, m: u32) -> u32 {\n    return z * M.m + m;\n}\n",
        true => "fn out_row(z: u32, m: u32) -> u32 {\n\
                 \x20   let r = load_row_indices(m);\n\
                 \x20   return resolve_index(vec2<u32>(bitcast<u32>(r), select(0u, 0xffffffffu, r < 0)), true, M.batch_shape[0].w);\n}\n",
    };
    f
}

/// How every parameter file declares its block.
const PARAMS_UNIFORM: &str = "@group(0) @binding(0) var<uniform>";

/// The name of input binding k in WGSL (`a`, `b`...; loaded by `load_a`...).
pub fn input_name(k: usize) -> &'static str {
    ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"][k]
}
