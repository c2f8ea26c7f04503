//! Kernel identities. A `KernelKey` names one pipeline: the kernel (with its op and the
//! specialisations that are pipeline-override constants), the input and output data types
//! and whether operands are broadcast. Its WGSL module (`source::ModuleKey`) depends only on
//! the body and the types, so one module serves every op of a domain.

mod codes;
pub mod source;

pub use codes::{BinaryOp, ReduceOp, UnaryOp};
pub use source::{Body, Frame, ModuleKey, F16};

use webnn_core::{DataType, DataTypeSet};

/// Threads per workgroup of the element-wise and scatter frames (the `WG` override).
pub const WORKGROUP_SIZE: u32 = 64;
/// Invocations per workgroup of the row frame (`ROW_WG` in shaders/rows.wgsl).
pub const ROW_WORKGROUP: u32 = 64;
/// Output tile columns of the gemm frame (`TILE_N` in shaders/gemm.wgsl); its rows are
/// 8 * `ROWS`.
pub const TILE: u32 = 64;

/// The gemm frame's `ROWS` for a product of `m` rows: 16- and 32-row tiles for short
/// products, else 64.
pub fn gemm_rows(m: u32) -> u32 {
    match m {
        0..=16 => 2,
        17..=32 => 4,
        _ => 8,
    }
}
/// Output tile (rows, columns) of the depthwise kernel, and its input patch limit (`PATCH`).
pub const DEPTHWISE_TILE: [u32; 2] = [8, 32];
pub const DEPTHWISE_PATCH: u32 = 2048;

/// The source coordinate rule of `remap.wgsl` (its `MODE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RemapMode {
    Constant = 0,
    Edge = 1,
    Reflection = 2,
    Tile = 3,
}

/// resample2d's interpolation (`MODE` of resample.wgsl).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResampleMode {
    Nearest = 0,
    Linear = 1,
}

/// Invocations per row for rows of `len` elements: the next power of two, at most a
/// workgroup (the `LANES` override).
pub fn lanes_for(len: u32) -> u32 {
    len.max(1).next_power_of_two().min(ROW_WORKGROUP)
}

/// What a pipeline computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KernelId {
    Unary(UnaryOp),
    Binary(BinaryOp),
    /// Conversion between any two types.
    Cast,
    /// out[i] = a[base + coordinates . strides]: transpose, expand, slice, reverse, split,
    /// copies.
    Strided,
    /// Word u of the output is word base + u of the input: strided calls that read the whole
    /// input in order (the scatters' copy of their input), without the per-element coordinate
    /// arithmetic. Built on uint32 whatever the data type.
    Copy,
    /// pad and tile.
    Remap(RemapMode),
    Where,
    Triangular,
    /// Rotary embedding on adjacent pairs (`webnn_core::fusion::Rope`).
    Rope,
    /// g * sigmoid(g) * u (`webnn_core::fusion::SiluGate`).
    SiluMul,
    /// Attention of one query row over a key/value cache (`webnn_core::fusion::Attention`),
    /// on the row frame with 64 lanes; `cache` is the keys' and values' type (float32, or
    /// float16 read through the storage decoders).
    Attention {
        cache: DataType,
        /// How the query rows are bound.
        q: ABinding,
    },
    /// The same for prompts: tiles of 16 query rows (attention_tiled.wgsl).
    AttentionTiled {
        cache: DataType,
    },
    /// A decode step's attention split along the keys (attention.wgsl with SPLIT): partials
    /// per (query row, block of keys), which `AttentionMerge` combines.
    AttentionSplit {
        cache: DataType,
        q: ABinding,
    },
    AttentionMerge,
    /// gather and gatherElements, with indices of type `index`.
    Gather {
        index: DataType,
    },
    GatherNd {
        index: DataType,
    },
    /// One input of concat written into its region of the output.
    Place,
    ScatterElements {
        index: DataType,
    },
    ScatterNd {
        index: DataType,
    },
    BatchNorm {
        scale: bool,
        bias: bool,
    },
    Quantize,
    Dequantize,
    Resample(ResampleMode),
    Reduce {
        op: ReduceOp,
        lanes: u32,
    },
    ArgReduce {
        max: bool,
        lanes: u32,
    },
    Softmax {
        lanes: u32,
    },
    /// layerNormalization and instanceNormalization; `rms`: RMSNorm (no mean subtracted,
    /// `webnn_core::fusion::RmsNorm`).
    Normalize {
        scale: bool,
        bias: bool,
        rms: bool,
        lanes: u32,
    },
    CumSum,
    /// averagePool2d (mean), l2Pool2d (l2) and maxPool2d (max).
    Pool {
        op: ReduceOp,
        lanes: u32,
    },
    /// matmul, gemm (`c`: gemm's addend) and 1x1 convolutions (`c`: the bias), with a
    /// fused clamp or relu (`clamp`).
    /// `rows`: the gemm frame's ROWS (tiles of 8 * rows output rows).
    Matmul {
        c: bool,
        clamp: bool,
        rows: u32,
    },
    /// conv2d and convTranspose2d as implicit matrix products.
    Conv {
        transposed: bool,
        bias: bool,
        clamp: bool,
        rows: u32,
    },
    /// Depthwise conv2d (one channel per group), tiled through workgroup memory.
    Depthwise {
        bias: bool,
        clamp: bool,
    },
    /// matmul and gemm with few rows, one output per row of the row frame.
    Gemv {
        c: bool,
        clamp: bool,
        lanes: u32,
    },
    /// `x · Wᵀ` with W a blockwise-dequantized 4- or 8-bit constant (`webnn_core::fusion`),
    /// on the row frame; `weight`: the 4/8-bit weight's type; `offset`: a float per block
    /// added after scaling (Q4_1).
    QGemv {
        weight: DataType,
        offset: bool,
        clamp: bool,
        lanes: u32,
        params: ParamBinding,
        /// Output columns per invocation group with one row of x (qgemv.wgsl's COLS).
        cols: u32,
        /// How the row of x is bound.
        x: ABinding,
        /// Whether the zero points may be nonzero (false: a constant of zeros, never read).
        zero_point: bool,
        /// An element-wise op applied with one more input (f) before the store.
        tail: Tail,
        /// x is RMS-normalised here (`webnn_core::fusion::RmsNorm`, whose node then runs no
        /// kernel): x_i * w_i summed against the weights, scaled by 1 / sqrt(mean(x²) + eps)
        /// at the end (input g, the norm weight). GPUs only: on CPU adapters its per-lane
        /// loads cost more than the dispatch it saves.
        norm: bool,
        /// Rotary embedding of adjacent output pairs (`webnn_core::fusion::Rope`: cos and
        /// sin inputs) and rows stored where indices name them (a cache's `scatterND`: an
        /// int32 indices input): `ProductIo`.
        rope: bool,
        scatter: bool,
        /// A second weight set (its scale, and its zero points and offsets where the first
        /// set binds them) whose rows this kernel
        /// computes beside its own, storing `v * silu(pair)`: a gated MLP's gate and up
        /// projections as one kernel (`crate::patterns::Patterns::pair`). Never with `tail`,
        /// `rope` or `scatter`; one column per frame row with one row of x.
        pair: bool,
    },
    /// The same product for prompts (many rows of x) on the tiled gemm frame; `rows` as
    /// `Matmul`'s.
    QGemm {
        weight: DataType,
        offset: bool,
        clamp: bool,
        rows: u32,
        zero_point: bool,
        tail: Tail,
        rope: bool,
        scatter: bool,
    },
}

/// The inputs a quantized product's module binds beyond x, the weight and its scale: the
/// offsets (e) of a format that has them (Q4_1), zero points (d) that may be nonzero, and
/// one for each step it takes over from its neighbours: an epilogue op's operand (f,
/// `Tail`), the RMSNorm weight (g), rotary embedding's cos and sin, the indices of a row
/// scatter (int32), and a second weight set (`pair`: a gate's weight, scale, [zero points]
/// and [offsets]). Each costs a storage binding (cos and sin two), of which WebGPU's default
/// limit allows 8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProductIo {
    pub offset: bool,
    pub zero_point: bool,
    pub tail: bool,
    pub norm: bool,
    pub rope: bool,
    pub scatter: bool,
    pub pair: bool,
}

/// What a product's epilogue does with one more operand `r` of the output's shape (input f)
/// after any clamp: the node that read the product is absorbed (`patterns.rs`). Saves a
/// dispatch and a round trip of the output through memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tail {
    None,
    /// `v + r`: a residual connection (`add(r, product)`).
    Add,
    /// `v * r * sigmoid(r)`: the up projection of a SiLU-gated MLP, `r` the gate.
    SiluGate,
}

impl ProductIo {
    /// Every combination the lowering makes: a pair takes the place of the epilogue
    /// operand, and its product stores neither rotated nor scattered rows.
    pub fn all() -> Vec<ProductIo> {
        (0..128u32)
            .map(|b| ProductIo {
                zero_point: b & 1 != 0,
                tail: b & 2 != 0,
                norm: b & 4 != 0,
                rope: b & 8 != 0,
                scatter: b & 16 != 0,
                pair: b & 32 != 0,
                offset: b & 64 != 0,
            })
            .filter(|io| !io.pair || !(io.tail || io.rope || io.scatter))
            .collect()
    }

    /// The storage buffers a product's module with these inputs binds on a GPU: its output
    /// and every input (`source::product_roles`). (On a CPU adapter x is a uniform binding
    /// for one row and the parameter block a storage one: the same count.)
    pub fn storage_bindings(self) -> u32 {
        1 + source::product_roles(DataType::Float32, DataType::Float32, self).len() as u32
    }
}

impl Tail {
    pub fn all() -> [Tail; 3] {
        [Tail::None, Tail::Add, Tail::SiluGate]
    }

    /// The `TAIL` override of a module that binds `r` (0 where there is none).
    pub fn code(self) -> u32 {
        match self {
            Tail::None => 0,
            Tail::Add => 1,
            Tail::SiluGate => 2,
        }
    }
}

/// How a kernel binds input a (binding 2), a small float32 operand that every invocation
/// reads whole: the quantized gemv's row of x, decode attention's query rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ABinding {
    Storage,
    /// A uniform array of `vec4s` float32 quads (`vec4s * 16` bytes, at most
    /// `MAX_UNIFORM_A`), on CPU adapters. Mesa's lavapipe (22.x) loads from storage and
    /// workgroup memory lane by lane, each lane behind a branch, but gathers from a uniform
    /// buffer without branches: x's loads were half a decode step's gemv time there.
    Uniform { vec4s: u32 },
}

/// The most bytes of input a bound as a uniform: wgpu's smallest uniform binding limit (its
/// downlevel defaults), so any adapter binds it.
pub const MAX_UNIFORM_A: u32 = 16 << 10;

/// How input a of `elements` float32 values is bound on this adapter.
pub fn a_binding(cpu_adapter: bool, dtype: DataType, elements: u64) -> ABinding {
    let fits = elements.is_multiple_of(4) && elements * 4 <= u64::from(MAX_UNIFORM_A);
    match cpu_adapter && dtype == DataType::Float32 && fits {
        true => ABinding::Uniform { vec4s: (elements / 4) as u32 },
        false => ABinding::Storage,
    }
}

impl ABinding {
    /// Bytes of the uniform binding; None for storage.
    pub fn uniform_bytes(self) -> Option<u64> {
        match self {
            ABinding::Storage => None,
            ABinding::Uniform { vec4s } => Some(u64::from(vec4s) * 16),
        }
    }
}

impl KernelKey {
    /// Bytes of the uniform binding of input a, for kernels that bind it so.
    pub fn uniform_input(self) -> Option<u64> {
        Body::of(self.kernel).a_binding().uniform_bytes()
    }
}

/// How a kernel binds its parameter block (binding 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ParamBinding {
    Uniform,
    /// A read-only storage buffer. Mesa's lavapipe (22.x) inlines uniform values that decide
    /// branches and loop bounds, and compiles the inlined shader again at every dispatch when
    /// that halves it: about 1 ms per dispatch, more than a decode step's quantized gemv
    /// computes. The gemv on CPU adapters binds its block so; its loops read their bounds
    /// once, so storage costs it nothing.
    Storage,
}

/// One pipeline of the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelKey {
    pub kernel: KernelId,
    /// The input data type (of the data inputs; indices and conditions have their own).
    pub dtype: DataType,
    /// The output data type.
    pub out: DataType,
    /// Binary ops and where: index the inputs through broadcast strides (false when every
    /// shape agrees).
    pub broadcast: bool,
}

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

impl KernelKey {
    /// `bound` in place of this key where the two differ only in tuning (lanes, gemm rows,
    /// broadcasting where `bound` broadcasts): their kernels read the same uniform block, so a
    /// graph with dynamic dimensions keeps the kernels it chose at its bounds for every such
    /// size (no new pipeline, no new bind group). None otherwise: row-frame and tiled products
    /// stay apart, since a decode step's row in a tile of 16 to 64 wastes the tile; such a
    /// graph keeps a set of steps for each (`WgpuGraph::select`).
    pub fn tuned_like(self, bound: KernelKey) -> Option<KernelKey> {
        use KernelId::*;
        if (self.dtype, self.out) != (bound.dtype, bound.out) || (self.broadcast && !bound.broadcast) {
            return None;
        }
        let same = match (self.kernel, bound.kernel) {
            (Reduce { op: a, .. }, Reduce { op: b, .. }) | (Pool { op: a, .. }, Pool { op: b, .. }) => a == b,
            (ArgReduce { max: a, .. }, ArgReduce { max: b, .. }) => a == b,
            (Softmax { .. }, Softmax { .. }) => true,
            (Normalize { scale, bias, rms, .. }, Normalize { scale: s, bias: b, rms: r, .. }) => {
                (scale, bias, rms) == (s, b, r)
            }
            (Matmul { c, clamp, .. }, Matmul { c: c2, clamp: k2, .. })
            | (Gemv { c, clamp, .. }, Gemv { c: c2, clamp: k2, .. }) => (c, clamp) == (c2, k2),
            // A uniform x is bound at its one size.
            (QGemv { weight, offset, clamp, x, zero_point, tail, norm, rope, scatter, pair, .. }, b @ QGemv { .. }) => {
                let QGemv { weight: w, offset: o, clamp: k, x: x2, zero_point: z, tail: t, norm: n, rope: r, scatter: sc, pair: p, .. } = b else { return None };
                (weight, offset, clamp, x, zero_point, tail, norm, rope, scatter, pair) == (w, o, k, x2, z, t, n, r, sc, p)
            }
            (QGemm { weight, offset, clamp, zero_point, tail, rope, scatter, .. }, b @ QGemm { .. }) => {
                let QGemm { weight: w, offset: o, clamp: k, zero_point: z, tail: t, rope: r, scatter: sc, .. } = b else { return None };
                (weight, offset, clamp, zero_point, tail, rope, scatter) == (w, o, k, z, t, r, sc)
            }
            (Conv { transposed, bias, clamp, .. }, Conv { transposed: t, bias: b, clamp: k, .. }) => {
                (transposed, bias, clamp) == (t, b, k)
            }
            (a, b) => a == b,
        };
        same.then_some(bound)
    }

    /// A key without broadcasting.
    pub fn new(kernel: KernelId, dtype: DataType, out: DataType) -> KernelKey {
        KernelKey {
            kernel,
            dtype,
            out,
            broadcast: false,
        }
    }

    /// The module without native float16.
    pub fn module(self) -> ModuleKey {
        self.module_for(false, 0)
    }

    /// The module on a device with (`native_f16`) or without the shader-f16 feature.
    pub fn module_for(self, native_f16: bool, subgroup: u32) -> ModuleKey {
        ModuleKey::new(Body::of(self.kernel), self.dtype, self.out, native_f16, subgroup)
    }

    /// Override constants of the pipeline: exactly the overrides its module declares.
    pub fn constants(self) -> Vec<(&'static str, f64)> {
        use KernelId::*;
        let mut c = Vec::new();
        if matches!(
            self.module().body.frame(),
            Frame::Elementwise | Frame::Scatter
        ) {
            c.push(("WG", WORKGROUP_SIZE as f64));
        }
        match self.kernel {
            Unary(op) => c.push(("OP", op.code() as f64)),
            Binary(op) => {
                c.push(("OP", op.code() as f64));
                c.push(("BROADCAST", flag(self.broadcast)));
            }
            Where | Rope => c.push(("BROADCAST", flag(self.broadcast))),
            Remap(mode) => c.push(("MODE", mode as u32 as f64)),
            Resample(mode) => c.push(("MODE", mode as u32 as f64)),
            BatchNorm { scale, bias } => {
                c.push(("HAS_SCALE", flag(scale)));
                c.push(("HAS_BIAS", flag(bias)));
            }
            Reduce { op, lanes } | Pool { op, lanes } => {
                c.push(("LANES", lanes as f64));
                c.push(("OP", op.code() as f64));
            }
            ArgReduce { max, lanes } => {
                c.push(("LANES", lanes as f64));
                c.push(("MAX_WANTED", flag(max)));
            }
            Softmax { lanes } => c.push(("LANES", lanes as f64)),
            Attention { .. } | AttentionSplit { .. } => {
                c.push(("LANES", ROW_WORKGROUP as f64));
                c.push(("SPLIT", flag(matches!(self.kernel, AttentionSplit { .. }))));
                c.push(("Q_DIRECT", flag(self.uniform_input().is_some())));
            }
            AttentionTiled { .. } | AttentionMerge => c.push(("LANES", ROW_WORKGROUP as f64)),
            Normalize { scale, bias, rms, lanes } => {
                c.push(("LANES", lanes as f64));
                c.push(("HAS_SCALE", flag(scale)));
                c.push(("HAS_BIAS", flag(bias)));
                c.push(("RMS", flag(rms)));
            }
            CumSum => c.push(("LANES", ROW_WORKGROUP as f64)),
            Matmul {
                c: has_c,
                clamp,
                rows,
            } => {
                c.push(("HAS_C", flag(has_c)));
                c.push(("HAS_CLAMP", flag(clamp)));
                c.push(("ROWS", rows as f64));
            }
            Gemv {
                c: has_c,
                clamp,
                lanes,
            } => {
                c.push(("LANES", lanes as f64));
                c.push(("HAS_C", flag(has_c)));
                c.push(("HAS_CLAMP", flag(clamp)));
            }
            QGemv { weight, offset, clamp, lanes, cols, zero_point, tail, norm, .. } => {
                if tail != Tail::None {
                    c.push(("TAIL", tail.code() as f64));
                }
                c.push(("NORM", flag(norm)));
                c.push(("HAS_ZERO", flag(zero_point)));
                c.push(("LANES", lanes as f64));
                c.push(("COLS", cols as f64));
                c.push(("HAS_C", 0.0));
                c.push(("HAS_CLAMP", flag(clamp)));
                c.push(("HAS_OFFSET", flag(offset)));
                c.push(("W_BITS", weight.bits() as f64));
                c.push(("W_SIGNED", flag(matches!(weight, DataType::Int4 | DataType::Int8))));
            }
            QGemm { weight, offset, clamp, rows, tail, .. } => {
                if tail != Tail::None {
                    c.push(("TAIL", tail.code() as f64));
                }
                c.push(("HAS_C", 0.0));
                c.push(("HAS_CLAMP", flag(clamp)));
                c.push(("ROWS", rows as f64));
                c.push(("HAS_OFFSET", flag(offset)));
                c.push(("W_BITS", weight.bits() as f64));
                c.push(("W_SIGNED", flag(matches!(weight, DataType::Int4 | DataType::Int8))));
            }
            Depthwise { bias, clamp } => {
                c.push(("HAS_BIAS", flag(bias)));
                c.push(("HAS_CLAMP", flag(clamp)));
            }
            Conv {
                transposed,
                bias,
                clamp,
                rows,
            } => {
                c.push(("TRANSPOSED", flag(transposed)));
                c.push(("HAS_BIAS", flag(bias)));
                c.push(("HAS_CLAMP", flag(clamp)));
                c.push(("ROWS", rows as f64));
            }
            Cast
            | Strided
            | Copy
            | Triangular
            | SiluMul
            | Gather { .. }
            | GatherNd { .. }
            | Place
            | ScatterElements { .. }
            | ScatterNd { .. }
            | Quantize
            | Dequantize => {}
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
        use KernelId::*;
        let mut keys = Vec::new();
        let key = KernelKey::new;
        let lanes = || (0..=6).map(|p| 1u32 << p);
        let index_types = [DataType::Int32, DataType::Uint32, DataType::Int64];
        let any = DataTypeSet::ALL;
        let float = DataTypeSet::FLOAT;
        for &op in UnaryOp::ALL {
            for t in op.types().iter() {
                let out = if op.is_predicate() {
                    DataType::Uint8
                } else {
                    t
                };
                keys.push(key(Unary(op), t, out));
            }
        }
        for &op in BinaryOp::ALL {
            for t in op.types().iter() {
                let out = if op.is_predicate() {
                    DataType::Uint8
                } else {
                    t
                };
                for broadcast in [false, true] {
                    keys.push(KernelKey {
                        broadcast,
                        ..key(Binary(op), t, out)
                    });
                }
            }
        }
        for from in DataTypeSet::SPEC.iter() {
            for to in DataTypeSet::SPEC.iter() {
                keys.push(key(Cast, from, to));
            }
        }
        // Data movement on every storage type, int4/uint4 included, so each preamble and
        // loader is validated.
        keys.push(key(Copy, DataType::Uint32, DataType::Uint32));
        for t in any.iter() {
            keys.push(key(Strided, t, t));
            keys.push(key(Triangular, t, t));
            keys.push(key(Place, t, t));
            for mode in [
                RemapMode::Constant,
                RemapMode::Edge,
                RemapMode::Reflection,
                RemapMode::Tile,
            ] {
                keys.push(key(Remap(mode), t, t));
            }
            for broadcast in [false, true] {
                keys.push(KernelKey {
                    broadcast,
                    ..key(Where, t, t)
                });
            }
            for index in index_types {
                keys.push(key(Gather { index }, t, t));
                keys.push(key(GatherNd { index }, t, t));
                keys.push(key(ScatterElements { index }, t, t));
                keys.push(key(ScatterNd { index }, t, t));
            }
        }
        for t in float.iter() {
            for scale in [false, true] {
                for bias in [false, true] {
                    keys.push(key(BatchNorm { scale, bias }, t, t));
                    for l in lanes() {
                        for rms in [false, true] {
                            keys.push(key(Normalize { scale, bias, rms, lanes: l }, t, t));
                        }
                    }
                }
            }
            for l in lanes() {
                keys.push(key(Softmax { lanes: l }, t, t));
            }
            for c in [false, true] {
                for clamp in [false, true] {
                    for rows in [2, 4, 8] {
                        keys.push(key(Matmul { c, clamp, rows }, t, t));
                    }
                    for l in lanes() {
                        keys.push(key(Gemv { c, clamp, lanes: l }, t, t));
                    }
                    if t == DataType::Float32 && !c && !clamp {
                        keys.push(KernelKey { broadcast: true, ..key(Rope, t, t) });
                        for cache in [DataType::Float32, DataType::Float16] {
                            for q in [ABinding::Storage, ABinding::Uniform { vec4s: 144 }] {
                                keys.push(key(Attention { cache, q }, t, t));
                                keys.push(key(AttentionSplit { cache, q }, t, t));
                            }
                            keys.push(key(AttentionTiled { cache }, t, t));
                        }
                        keys.push(key(AttentionMerge, t, t));
                        keys.push(key(SiluMul, t, t));
                    }
                    let weights = [DataType::Int4, DataType::Uint4, DataType::Int8, DataType::Uint8];
                    // Every module of the quantized products (weight type, bindings, inputs)
                    // with override values at both ends of their ranges (offset and clamp
                    // both off or both on; one or 64 lanes; one column or four); a row
                    // scatter's output in float16 too (a cache kept so). The bindings as
                    // the lowering makes them: a GPU's (uniform block, x in storage), a CPU
                    // adapter's for one row (block in storage, x uniform) and for several.
                    let bindings = [
                        (ParamBinding::Uniform, ABinding::Storage),
                        (ParamBinding::Storage, ABinding::Uniform { vec4s: 144 }),
                        (ParamBinding::Storage, ABinding::Storage),
                    ];
                    for q in weights.into_iter().filter(|_| t == DataType::Float32 && c == clamp) {
                        for io in ProductIo::all().into_iter().filter(|io| io.offset == c) {
                            let offset = io.offset;
                            for tail in Tail::all().into_iter().filter(|t| (*t != Tail::None) == io.tail) {
                                let (zero_point, norm, rope, scatter, pair) = (io.zero_point, io.norm, io.rope, io.scatter, io.pair);
                                let outs: &[DataType] = if scatter { &[DataType::Float32, DataType::Float16] } else { &[DataType::Float32] };
                                for &out in outs {
                                    // Rotary pairs need four columns per invocation group.
                                    for (lanes, cols) in [(1, 4), (64, if rope { 4 } else { 1 })] {
                                        for (params, x) in bindings {
                                            let k = QGemv { weight: q, offset, clamp, lanes, params, cols, x, zero_point, tail, norm, rope, scatter, pair };
                                            keys.push(key(k, t, out));
                                        }
                                    }
                                    // Pairs run on the row frame only.
                                    for rows in [2, 8].into_iter().filter(|_| !norm && !pair) {
                                        keys.push(key(QGemm { weight: q, offset, clamp, rows, zero_point, tail, rope, scatter }, t, out));
                                    }
                                }
                            }
                        }
                    }
                    keys.push(key(Depthwise { bias: c, clamp }, t, t));
                }
            }
            for transposed in [false, true] {
                for bias in [false, true] {
                    for clamp in [false, true] {
                        for rows in [2, 4, 8] {
                            let conv = Conv {
                                transposed,
                                bias,
                                clamp,
                                rows,
                            };
                            keys.push(key(conv, t, t));
                        }
                    }
                }
            }
            for op in [ReduceOp::Mean, ReduceOp::L2, ReduceOp::Max] {
                for l in lanes() {
                    keys.push(key(Pool { op, lanes: l }, t, t));
                }
            }
        }
        let quantized = DataTypeSet::QUANTIZED;
        for f in float.iter() {
            for q in quantized.iter() {
                keys.push(key(Quantize, f, q));
                keys.push(key(Dequantize, q, f));
            }
        }
        for t in (float | DataTypeSet::U8 | DataTypeSet::I8).iter() {
            keys.push(key(Resample(ResampleMode::Nearest), t, t));
            keys.push(key(Resample(ResampleMode::Linear), t, t));
        }
        for &op in ReduceOp::ALL {
            for t in op.types().iter() {
                for l in lanes() {
                    keys.push(key(Reduce { op, lanes: l }, t, t));
                }
            }
        }
        for t in DataTypeSet::SPEC.iter() {
            for l in lanes() {
                keys.push(key(
                    Pool {
                        op: ReduceOp::Max,
                        lanes: l,
                    },
                    t,
                    t,
                ));
            }
            for out in [DataType::Int32, DataType::Int64] {
                for max in [false, true] {
                    for l in lanes() {
                        keys.push(key(ArgReduce { max, lanes: l }, t, out));
                    }
                }
            }
        }
        for t in DataTypeSet::FLOAT_INT32_64.iter() {
            keys.push(key(CumSum, t, t));
        }
        keys.sort();
        keys.dedup();
        keys
    }
}
