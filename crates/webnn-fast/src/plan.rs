//! Compilation: the graph's nodes become a list of steps, each either a fast kernel (with
//! the nodes fused into it) or the reference interpreter's evaluation of one node.
//!
//! Layout: a conv2d on an NCHW tensor computes in NHWC, and its result stays NHWC ("stored
//! NHWC", `nhwc[slot]`) for whatever reads it next: another conv, a fused or element-wise
//! op. Only a reader that needs the logical NCHW tensor (a reference op, a graph output, an
//! op whose inputs disagree) gets a converted copy, made once by a `Permute` step into an
//! extra slot (the "twin"), with the reader's operand renumbered to it. So a convolutional
//! network converts its input once and its features once, not around every op.

use crate::arg;
use crate::attention;
use crate::cache;
use crate::cast;
use crate::chain;
use crate::compare;
use crate::conv;
use crate::lanes;
use crate::copy;
use crate::deconv;
use crate::exec::{Post, Step};
use crate::quant::FakeQuant;
use crate::matmul;
use crate::views;
use crate::norm;
use crate::resample;
use crate::reduce_lanes::{self, Fold};
use crate::quantized;
use crate::reduce;
use crate::rows;
use crate::window;
use crate::simd::BinaryKind;
use std::collections::HashMap;
use webnn_core::fusion::QuantizedLinear;
use webnn_core::graph::{OperandInfo, Source};
use webnn_core::ops::*;
use webnn_core::{DataType, Graph, Operand, Result};
use webnn_cpu::Tensor;
use webnn_gemm::Isa;

/// What compilation produces.
pub(crate) struct Plan {
    /// The graph with twins appended and reference nodes renumbered to read them.
    pub graph: Graph,
    pub steps: Vec<Step>,
    /// Constants the steps read as tensors (reference ops, residuals), decoded once.
    pub constants: HashMap<usize, Tensor>,
    /// The slot holding each graph output (a twin where the value is stored NHWC).
    pub outputs: Vec<(String, usize)>,
    /// The in-place pairs whose cache writes run where the tensor lies: (input name, output
    /// name, input slot).
    pub caches: Vec<(String, String, usize)>,
    /// Per output: one of those (its value is the cache's bytes, not a returned tensor).
    pub written_in_place: Vec<bool>,
}

/// A row-wise pattern the planner runs as one step (module `rows`).
enum RowMatch {
    RmsNorm(webnn_core::fusion::RmsNorm),
    Rope(webnn_core::fusion::Rope),
}

pub(crate) struct Planner<'g> {
    pub orig: &'g Graph,
    pub work: Graph,
    pub isa: Isa,
    /// Per slot: stored as NHWC while logically NCHW.
    pub nhwc: Vec<bool>,
    users: Vec<Vec<usize>>,
    producer: Vec<Option<usize>>,
    is_output: Vec<bool>,
    absorbed: Vec<bool>,
    twin: HashMap<usize, usize>,
    steps: Vec<Step>,
    /// Quantized linear layers to fuse, by their gemm node, with their packed weights.
    quantized: HashMap<usize, (QuantizedLinear, quantized::Packed)>,
    /// Attention matches by their final matmul node.
    attention: HashMap<usize, webnn_core::fusion::Attention>,
    /// RMSNorm and rotary-embedding matches by their last node.
    rows: HashMap<usize, RowMatch>,
    /// Cache writes (`cache::CacheWrite`) by their scatter node.
    caches: HashMap<usize, cache::CacheWrite>,
    /// The graph has dynamic dimensions: only the quantized products (whose rows may vary)
    /// and nodes whose shapes are all static get fast steps.
    dynamic: bool,
    /// The integers behind folded dequantizations of 8-bit constants (`fold`).
    pub quantized_constants: crate::fold::QuantizedConstants,
}

impl<'g> Planner<'g> {
    pub(crate) fn new(graph: &'g Graph, isa: Isa) -> Planner<'g> {
        let count = graph.operands.len();
        let mut users = vec![Vec::new(); count];
        let mut producer = vec![None; count];
        for (n, node) in graph.nodes.iter().enumerate() {
            for o in node.op.operands() {
                users[o.index()].push(n);
            }
            for o in &node.outputs {
                producer[o.index()] = Some(n);
            }
        }
        let mut is_output = vec![false; count];
        for (_, o) in &graph.outputs {
            is_output[o.index()] = true;
        }
        Planner {
            orig: graph,
            work: graph.clone(),
            isa,
            nhwc: vec![false; count],
            users,
            producer,
            is_output,
            absorbed: vec![false; graph.nodes.len()],
            twin: HashMap::new(),
            steps: Vec::new(),
            quantized: HashMap::new(),
            caches: HashMap::new(),
            attention: HashMap::new(),
            rows: HashMap::new(),
            dynamic: graph.is_dynamic(),
            quantized_constants: HashMap::new(),
        }
    }

    pub(crate) fn build(mut self) -> Result<Plan> {
        for q in webnn_core::fusion::quantized_linears(self.orig) {
            if !quantized::fusable(&self, q.node, &q) {
                continue;
            }
            if let Some(packed) = quantized::pack(&self, &q) {
                for &a in &q.absorbed {
                    self.absorbed[a] = true;
                }
                self.quantized.insert(q.node, (q, packed));
            }
        }
        let g = self.orig;
        // Attentions before the caches they read: a head-major cache written in place is read
        // only by its attention step, through the bound bytes.
        let mut attended = std::collections::HashSet::new();
        for a in webnn_core::fusion::attentions(g) {
            if attention::fits(g, &a) && a.absorbed.iter().all(|&n| !self.absorbed[n]) {
                for &n in &a.absorbed {
                    self.absorbed[n] = true;
                }
                if a.layout == webnn_core::fusion::CacheLayout::HeadMajor {
                    attended.extend([a.keys, a.values]);
                }
                self.attention.insert(a.node, a);
            }
        }
        let mut caches = Vec::new();
        for (i, o) in g.in_place_pairs() {
            let ((input, _), (output, out)) = (&g.inputs[i], &g.outputs[o]);
            let Some(n) = self.producer[out.index()] else { continue };
            if let Some(c) = cache::plan(&mut self, n, *out, &attended) {
                caches.push((input.clone(), output.clone(), c.input));
                self.caches.insert(n, c);
            }
        }
        let norms = webnn_core::fusion::rms_norms(g).into_iter().filter(|r| rows::rms_norm_fits(&self, r));
        let norms = norms.map(|r| (r.node, r.absorbed.clone(), RowMatch::RmsNorm(r)));
        let ropes = webnn_core::fusion::ropes(g).into_iter().filter(|r| rows::rope_fits(&self, r).is_some());
        let ropes = ropes.map(|r| (r.node, r.absorbed.clone(), RowMatch::Rope(r)));
        for (node, absorbed, m) in norms.chain(ropes).collect::<Vec<_>>() {
            if !self.absorbed[node] && absorbed.iter().all(|&n| !self.absorbed[n]) {
                absorbed.iter().for_each(|&n| self.absorbed[n] = true);
                self.rows.insert(node, m);
            }
        }
        for n in 0..self.orig.nodes.len() {
            if self.absorbed[n] {
                continue;
            }
            match self.fast(n) {
                Some(step) => self.steps.push(step),
                None => self.reference(n),
            }
        }
        let outputs: Vec<(String, usize)> = self
            .orig
            .outputs
            .iter()
            .map(|(name, o)| (name.clone(), self.logical(*o)))
            .collect();
        link_caches(&mut self.steps, &self.work, &outputs);
        let output_slots: Vec<usize> = outputs.iter().map(|(_, s)| *s).collect();
        if crate::stored::pays(self.isa) {
            crate::stored::store(&mut self.steps, &self.work, &output_slots);
        }
        crate::expand::fuse(&mut self.steps, &self.work, &output_slots);
        let mut constants = HashMap::new();
        let mut read: Vec<usize> = self
            .steps
            .iter()
            .flat_map(|s| s.reads(&self.work))
            .collect();
        read.extend(outputs.iter().map(|(_, s)| *s));
        for slot in read {
            if let (Source::Constant(bytes), false) = (
                &self.work.operands[slot].source,
                constants.contains_key(&slot),
            ) {
                constants.insert(
                    slot,
                    Tensor::from_bytes(&self.work.operands[slot].desc, bytes)?,
                );
            }
        }
        Ok(Plan {
            graph: self.work,
            steps: self.steps,
            written_in_place: outputs.iter().map(|(n, _)| caches.iter().any(|(_, o, _)| o == n)).collect(),
            constants,
            outputs,
            caches,
        })
    }

    /// The fast step for node `n`, or `None` to run the reference kernel. Exhaustive on
    /// purpose: a new op must be placed on one side or the other.
    fn fast(&mut self, n: usize) -> Option<Step> {
        let orig = self.orig;
        if let Some(c) = self.caches.remove(&n) {
            return Some(Step::CacheWrite(Box::new(c)));
        }
        match self.rows.remove(&n) {
            Some(RowMatch::RmsNorm(r)) => return rows::plan_rms_norm(self, &r).map(|s| Step::RmsNorm(Box::new(s))),
            Some(RowMatch::Rope(r)) => return rows::plan_rope(self, &r).map(|s| Step::Rope(Box::new(s))),
            None => {}
        }
        if let Some(a) = self.attention.remove(&n) {
            // `fits` checked what `plan` needs when the match's nodes were absorbed.
            return attention::plan(self, &a).map(|s| Step::Attention(Box::new(s)));
        }
        // Chains compare shapes by dimension name, so they take dynamic values too.
        if let Some(step) = chain::plan(self, n) {
            return Some(step);
        }
        if self.dynamic && !self.quantized.contains_key(&n) && !self.all_static(n) {
            return None;
        }
        match &orig.nodes[n].op {
            Op::Conv2d(a) => conv::plan(self, n, a),
            Op::Gemm(a) => match self.quantized.remove(&n) {
                Some((q, packed)) => Some(quantized::plan(self, n, &q, packed)),
                None => matmul::plan_gemm(self, n, a),
            },
            Op::Matmul(a) => matmul::plan_matmul(self, n, a),
            Op::AveragePool2d(a) => reduce::plan(self, n, a).or_else(|| window::plan(self, n, a, false)),
            Op::MaxPool2d(a) => window::plan(self, n, a, true),
            Op::L2Pool2d(a) => window::plan_l2(self, n, a),
            Op::BatchNormalization(a) => norm::plan_batch(self, n, a),
            Op::Concat(a) => copy::plan(self, n, a),
            Op::ConvTranspose2d(a) => deconv::plan(self, n, a),
            Op::Pad(a) => copy::plan_pad(self, n, a),
            Op::Resample2d(a) => resample::plan(self, n, a),
            Op::Transpose(a) => copy::plan_transpose(self, n, a),
            Op::Tile(a) => copy::plan_tile(self, n, a),
            Op::Cast(a) => cast::plan(self, n, a),
            Op::Slice(a) => views::plan_slice(self, n, a),
            Op::Expand(a) => views::plan_expand(self, n, a),
            Op::Split(a) => views::plan_split(self, n, a),
            Op::Gather(a) => views::plan_gather(self, n, a),
            Op::Triangular(a) => views::plan_triangular(self, n, a),
            Op::CumulativeSum(a) => crate::scan::plan(self, n, a),
            Op::Reverse(a) => views::plan_reverse(self, n, a),
            Op::GatherNd(a) => crate::gathers::plan_nd(self, n, a),
            Op::GatherElements(a) => crate::gathers::plan_elements(self, n, a),
            Op::Equal(_)
            | Op::NotEqual(_)
            | Op::Greater(_)
            | Op::GreaterOrEqual(_)
            | Op::Lesser(_)
            | Op::LesserOrEqual(_)
            | Op::LogicalNot(_)
            | Op::LogicalAnd(_)
            | Op::LogicalOr(_)
            | Op::LogicalXor(_) => compare::plan(self, n),
            Op::Where(a) => compare::plan_where(self, n, a),
            Op::ArgMin(a) => arg::plan(self, n, a, false),
            Op::ArgMax(a) => arg::plan(self, n, a, true),
            Op::Reshape(a) => copy::plan_reshape(self, n, a),
            Op::Softmax(a) => lanes::plan_softmax(self, n, a),
            Op::ReduceMean(a) => reduce_lanes::plan(self, n, Fold::Mean, a),
            Op::ReduceSum(a) => reduce_lanes::plan(self, n, Fold::Sum, a),
            Op::ReduceMax(a) => reduce_lanes::plan(self, n, Fold::Max, a),
            Op::ReduceMin(a) => reduce_lanes::plan(self, n, Fold::Min, a),
            Op::ReduceL1(a) => reduce_lanes::plan(self, n, Fold::L1, a),
            Op::ReduceL2(a) => reduce_lanes::plan(self, n, Fold::L2, a),
            Op::ReduceSumSquare(a) => reduce_lanes::plan(self, n, Fold::SumSquare, a),
            Op::ReduceLogSum(a) => reduce_lanes::plan(self, n, Fold::LogSum, a),
            Op::ReduceLogSumExp(a) => reduce_lanes::plan(self, n, Fold::LogSumExp, a),
            Op::ReduceProduct(a) => reduce_lanes::plan(self, n, Fold::Product, a),
            Op::LayerNormalization(a) => lanes::plan_layer_norm(self, n, a),
            Op::InstanceNormalization(a) => norm::plan_instance(self, n, a),
            Op::Clamp(a) => {
                let bound = |v: Option<MLNumber>, d: f32| v.map_or(d, |v| v.as_f64() as f32);
                let (lo, hi) = (
                    bound(a.options.min_value, f32::NEG_INFINITY),
                    bound(a.options.max_value, f32::INFINITY),
                );
                self.plan_clamp(n, a.input, lo, hi)
            }
            Op::Relu(a) => self.plan_clamp(n, a.input, 0.0, f32::INFINITY),
            Op::Add(b) => self.plan_binary(n, BinaryKind::Add, b.a, b.b),
            Op::Sub(b) => self.plan_binary(n, BinaryKind::Sub, b.a, b.b),
            Op::Mul(b) => self.plan_binary(n, BinaryKind::Mul, b.a, b.b),
            Op::Div(b) => self.plan_binary(n, BinaryKind::Div, b.a, b.b),
            Op::Max(b) => self.plan_binary(n, BinaryKind::Max, b.a, b.b),
            Op::Min(b) => self.plan_binary(n, BinaryKind::Min, b.a, b.b),
            Op::Pow(_)
            | Op::IsNaN(_)
            | Op::IsInfinite(_)
            | Op::Abs(_)
            | Op::Ceil(_)
            | Op::Cos(_)
            | Op::Erf(_)
            | Op::Exp(_)
            | Op::Floor(_)
            | Op::Identity(_)
            | Op::Log(_)
            | Op::Neg(_)
            | Op::Reciprocal(_)
            | Op::RoundEven(_)
            | Op::Sin(_)
            | Op::Sign(_)
            | Op::Sqrt(_)
            | Op::Tan(_)
            | Op::Elu(_)
            | Op::Gelu(_)
            | Op::HardSigmoid(_)
            | Op::HardSwish(_)
            | Op::LeakyRelu(_)
            | Op::Linear(_)
            | Op::Prelu(_)
            | Op::Sigmoid(_)
            | Op::Softplus(_)
            | Op::Softsign(_)
            | Op::Tanh(_)
            | Op::Gru(_)
            | Op::GruCell(_)
            | Op::Lstm(_)
            | Op::LstmCell(_)
            | Op::ScatterElements(_)
            | Op::ScatterNd(_)
            | Op::QuantizeLinear(_)
            | Op::DequantizeLinear(_) => None,
        }
    }

    /// Node `n` on the reference interpreter, its NHWC-stored operands read through twins.
    fn reference(&mut self, n: usize) {
        let mut op = self.orig.nodes[n].op.clone();
        let mut map: HashMap<usize, usize> = HashMap::new();
        for o in op.operands() {
            if self.nhwc[o.index()] {
                map.insert(o.index(), self.logical(o));
            }
        }
        if !map.is_empty() {
            op.remap_operands(&|o| match map.get(&o.index()) {
                Some(&t) => slot_operand(o, t),
                None => o,
            });
        }
        self.work.nodes[n].op = op;
        self.steps.push(Step::Reference { node: n });
    }

    /// The slot holding `o` in its logical layout, converting once if it is stored NHWC.
    pub(crate) fn logical(&mut self, o: Operand) -> usize {
        let i = o.index();
        if !self.nhwc[i] {
            return i;
        }
        if let Some(&t) = self.twin.get(&i) {
            return t;
        }
        let t = self.new_slot(self.work.operands[i].desc.clone());
        self.twin.insert(i, t);
        // The logical NCHW copy: a transpose of each image's [h * w, c] matrix (in tiles, in
        // parallel: `copy::Permute`).
        let shape = self.shape(o);
        let [_, c, h, w] = [shape[0], shape[1], shape[2], shape[3]];
        let strides = vec![h * w * c, 1, w * c, c];
        self.steps.push(Step::Permute(Box::new(copy::Permute::strided("NHWC", i, t, shape, strides, 0))));
        t
    }

    /// Adds a step that the step being planned reads (it runs before it).
    pub(crate) fn push_step(&mut self, step: Step) {
        self.steps.push(step);
    }

    /// A slot for a value the plan adds (a layout change, a step's rearranged input), in
    /// logical layout.
    pub(crate) fn new_slot(&mut self, desc: webnn_core::OperandDescriptor) -> usize {
        let t = self.work.operands.len();
        let source = Source::Node {
            node: usize::MAX,
            index: 0,
        };
        self.work.operands.push(OperandInfo { desc, source });
        self.nhwc.push(false);
        t
    }

    pub(crate) fn is_f32(&self, o: Operand) -> bool {
        self.orig.desc(o).data_type == DataType::Float32
    }

    /// Whether node `n` and every node that follows it through sole readers (which a fused
    /// step may absorb) read and write only static shapes.
    fn all_static(&self, n: usize) -> bool {
        let node_static = |n: usize| {
            let node = &self.orig.nodes[n];
            node.op.operands().iter().chain(&node.outputs).all(|&o| self.orig.desc(o).is_static())
        };
        let mut n = n;
        loop {
            if !node_static(n) {
                return false;
            }
            match self.orig.nodes[n].outputs[..] {
                [y] => match self.sole_user(y) {
                    Some(u) => n = u,
                    None => return true,
                },
                _ => return true,
            }
        }
    }

    /// Whether two operands have the same shape at every dispatch: equal static shapes, or
    /// the same dimensions by name.
    pub(crate) fn same_shape(&self, a: Operand, b: Operand) -> bool {
        self.orig.desc(a).shape == self.orig.desc(b).shape
    }

    /// The operand's shape, at its bounds where a dimension is dynamic (steps of dynamic
    /// graphs take their sizes from the values they read).
    pub(crate) fn shape(&self, o: Operand) -> Vec<usize> {
        self.orig
            .desc(o)
            .max_shape()
            .iter()
            .map(|&d| d as usize)
            .collect()
    }

    /// A float32 constant's values.
    pub(crate) fn const_f32(&self, o: Operand) -> Option<Vec<f32>> {
        let bytes = self.orig.constant_data(o)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }

    /// The node computing `o`, if a node does.
    pub(crate) fn producer_of(&self, o: Operand) -> Option<usize> {
        self.producer[o.index()]
    }

    /// Node `n` is computed inside another node's step.
    pub(crate) fn absorb(&mut self, n: usize) {
        self.absorbed[n] = true;
    }

    /// Whether `o` is stored NHWC (while logically NCHW).
    pub(crate) fn is_nhwc(&self, o: Operand) -> bool {
        self.nhwc[o.index()]
    }

    pub(crate) fn set_nhwc(&mut self, o: Operand, flag: bool) {
        self.nhwc[o.index()] = flag;
    }

    /// The nodes reading `o`.
    pub(crate) fn users(&self, o: Operand) -> &[usize] {
        &self.users[o.index()]
    }

    /// The one reader of `o` when fusing into it is safe: exactly one use, not an output.
    pub(crate) fn sole_user(&self, o: Operand) -> Option<usize> {
        match self.users[o.index()].as_slice() {
            [u] if !self.is_output[o.index()] => Some(*u),
            _ => None,
        }
    }

    /// Node `n` as the first cast of a float32 → float16 → float32 round trip of `value`:
    /// the second cast, which a fusion absorbs with it.
    pub(crate) fn round_trip(&self, n: usize, value: Operand) -> Option<usize> {
        let Op::Cast(a) = &self.orig.nodes[n].op else { return None };
        if a.input != value || a.data_type != DataType::Float16 || !self.is_f32(value) {
            return None;
        }
        let d = self.sole_user(self.orig.nodes[n].outputs[0])?;
        let Op::Cast(b) = &self.orig.nodes[d].op else { return None };
        (b.data_type == DataType::Float32).then_some(d)
    }

    /// The output of the round trips of `out` that follow it, each the only reader of the
    /// last (their casts absorbed; rounding twice is rounding once), if one does.
    fn absorb_round_trip(&mut self, out: Operand) -> Option<Operand> {
        let mut rounded = None;
        let mut value = out;
        while let Some(u) = self.sole_user(value) {
            let Some(d) = self.round_trip(u, value) else { break };
            self.absorbed[u] = true;
            self.absorbed[d] = true;
            value = self.orig.nodes[d].outputs[0];
            rounded = Some(value);
        }
        rounded
    }

    /// Fuses what follows node `n`'s output `y`: a float16 round trip, a residual `add`
    /// (when `residual` allows it and the other addend is computed before `n`, stored like
    /// `y`, of `y`'s shape) and a round trip of the sum, then a clamp or relu and a round
    /// trip after it, or a fake-quantization pair. Returns the epilogue and the operand the
    /// fused step produces.
    pub(crate) fn tail(
        &mut self,
        n: usize,
        y: Operand,
        residual: bool,
        y_nhwc: bool,
    ) -> (Post, Operand) {
        let mut post = Post::clamp(f32::NEG_INFINITY, f32::INFINITY);
        let mut out = y;
        if let Some(rounded) = self.absorb_round_trip(out) {
            post.round_value = true;
            out = rounded;
        }
        if let (true, Some(u)) = (residual, self.sole_user(out)) {
            if let Op::Add(b) = &self.orig.nodes[u].op {
                let other = if b.a == out { b.b } else { b.a };
                let ready = self.producer[other.index()].is_none_or(|p| p < n);
                let out2 = self.orig.nodes[u].outputs[0];
                if other != out
                    && ready
                    && self.is_f32(other)
                    && self.nhwc[other.index()] == y_nhwc
                    && self.same_shape(other, out)
                    && self.same_shape(out2, out)
                {
                    post.residual = Some(other.index());
                    self.absorbed[u] = true;
                    out = out2;
                    if let Some(rounded) = self.absorb_round_trip(out) {
                        post.round_sum = true;
                        out = rounded;
                    }
                }
            }
        }
        if let Some(u) = self.sole_user(out) {
            let bounds = match &self.orig.nodes[u].op {
                Op::Relu(_) => Some((0.0, f32::INFINITY)),
                Op::Clamp(c) => {
                    let b = |v: Option<MLNumber>, d: f32| v.map_or(d, |v| v.as_f64() as f32);
                    Some((
                        b(c.options.min_value, f32::NEG_INFINITY),
                        b(c.options.max_value, f32::INFINITY),
                    ))
                }
                _ => None,
            };
            // Roundings commute with a clamp only when its bounds are on float16's grid.
            let on_grid = |(lo, hi): (f32, f32)| {
                let grid = |v: f32| crate::vmath::round_f16_f32(v) == v;
                grid(lo) && grid(hi)
            };
            let fits = |b: &(f32, f32)| b.0 <= b.1 && (!post.rounds() || on_grid(*b));
            if let Some((lo, hi)) = bounds.filter(fits) {
                post.lo = lo;
                post.hi = hi;
                self.absorbed[u] = true;
                out = self.orig.nodes[u].outputs[0];
                if on_grid((lo, hi)) {
                    if let Some(rounded) = self.absorb_round_trip(out) {
                        match post.residual {
                            Some(_) => post.round_sum = true,
                            None => post.round_value = true,
                        }
                        out = rounded;
                    }
                }
            }
        }
        if let (false, Some(u)) = (post.rounds(), self.sole_user(out)) {
            if let Some((pair, d)) = FakeQuant::pair(self, u, out) {
                post.quant = Some(pair);
                self.absorbed[u] = true;
                self.absorbed[d] = true;
                out = self.orig.nodes[d].outputs[0];
            }
        }
        self.nhwc[out.index()] = y_nhwc;
        (post, out)
    }

    fn plan_clamp(&mut self, n: usize, x: Operand, lo: f32, hi: f32) -> Option<Step> {
        let y = self.orig.nodes[n].outputs[0];
        if !self.is_f32(x) || lo.is_nan() || hi.is_nan() || lo > hi {
            return None;
        }
        let flag = self.nhwc[x.index()];
        self.nhwc[y.index()] = flag;
        let post = Post::clamp(lo, hi);
        Some(Step::Binary {
            kind: None,
            a: x.index(),
            b: x.index(),
            out: y.index(),
            post,
        })
    }

    fn plan_binary(&mut self, n: usize, kind: BinaryKind, a: Operand, b: Operand) -> Option<Step> {
        let y = self.orig.nodes[n].outputs[0];
        let shape = self.shape(y);
        if !self.is_f32(a) || !self.is_f32(b) {
            return None;
        }
        if self.shape(a) != shape || self.shape(b) != shape {
            return crate::broadcast::plan(self, n, kind, a, b);
        }
        let (sa, sb, flag) = if self.nhwc[a.index()] == self.nhwc[b.index()] {
            (a.index(), b.index(), self.nhwc[a.index()])
        } else {
            (self.logical(a), self.logical(b), false)
        };
        let (post, out) = self.tail(n, y, false, flag);
        Some(Step::Binary {
            kind: Some(kind),
            a: sa,
            b: sb,
            out: out.index(),
            post,
        })
    }
}

/// An operand handle naming slot `slot` of the same builder.
fn slot_operand(o: Operand, slot: usize) -> Operand {
    Operand::from_raw(o.to_raw().0, slot as u32)
}

/// An attention step whose keys and values are the leading rows that two cache writes slice
/// (nothing else reading them) reads the caches' bytes where they lie, and the writes decode
/// nothing: at context 1,024 a SmolLM2 step would otherwise copy 47 MB of cache rows.
fn link_caches(steps: &mut [Step], graph: &webnn_core::Graph, outputs: &[(String, usize)]) {
    let prefixes: HashMap<usize, usize> = steps
        .iter()
        .filter_map(|s| match s {
            Step::CacheWrite(c) => Some((c.prefix_slot()?, c.input)),
            _ => None,
        })
        .collect();
    // Head-major caches written for an attention: the attention reads the bound bytes (their
    // other reader is the graph output, the bound tensor itself).
    let attended: HashMap<usize, usize> = steps
        .iter()
        .filter_map(|s| match s {
            Step::CacheWrite(c) => Some((c.attended.as_ref()?.0, c.input)),
            _ => None,
        })
        .collect();
    let mut readers: HashMap<usize, usize> = HashMap::new();
    for slot in steps.iter().flat_map(|s| s.reads(graph)).chain(outputs.iter().map(|(_, s)| *s)) {
        *readers.entry(slot).or_default() += 1;
    }
    let mut linked = Vec::new();
    for step in steps.iter_mut() {
        let Step::Attention(a) = step else { continue };
        let sole = |slot: usize| {
            let prefix = prefixes.get(&slot).filter(|_| readers.get(&slot) == Some(&1));
            prefix.or(attended.get(&slot)).copied()
        };
        if let (Some(k), Some(v), true) = (sole(a.keys), sole(a.values), a.keys != a.values) {
            a.cached = Some((k, v));
            linked.extend([a.keys, a.values]);
        }
    }
    for step in steps.iter_mut() {
        if let Step::CacheWrite(c) = step {
            let read = c.prefix_slot().or(c.attended.as_ref().map(|a| a.0));
            if read.is_some_and(|s| linked.contains(&s)) {
                c.decode_prefix = false;
            }
        }
    }
}
