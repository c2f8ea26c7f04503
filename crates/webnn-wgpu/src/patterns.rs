//! The decomposed patterns (`webnn_core::fusion`) this backend runs as one kernel each. They
//! are found once per compiled graph, at its bounds, and reused for every size a flexible
//! graph meets: the resolved copies keep the node indices and operands the matches name, and
//! every condition the kernels add holds at any size within the bounds.

use crate::kernel::{ProductIo, Tail};
use webnn_core::fusion::{self, Attention, QuantizedLinear, RmsNorm, Rope, SiluGate, TokenLayout};
use webnn_core::{DataType, Graph, Op, Operand, Source};

/// What a node runs instead of its own lowering.
pub enum Fused {
    Quantized(QuantizedLinear),
    RmsNorm(RmsNorm),
    Rope(Rope),
    SiluGate(SiluGate),
    /// With the transposes around it that the kernel skips by reading q and writing its
    /// output token-major: the kernel then runs at the output transpose's node.
    Attention(Attention, TokenLayout),
}

/// Where a quantized product moved to a later node stores its output: through the rotary
/// embedding of its pairs, and into the rows of a cache that its indices name (the
/// `scatterND` writing the new keys or values). The product then runs at the rope's or the
/// scatter's node, its own and the ones between absorbed.
#[derive(Clone, Debug, PartialEq)]
pub struct Store {
    pub rope: Option<Rope>,
    /// The scatter's input (the cache, copied to its output first unless bound in place)
    /// and its indices.
    pub scatter: Option<(Operand, Operand)>,
}

/// Per node: the fused kernel it runs, and whether a fused kernel replaces it.
pub struct Patterns {
    pub at: Vec<Option<Fused>>,
    pub absorbed: Vec<bool>,
    /// Absorbed nodes whose output keeps a buffer of its own, which the fused kernel uses
    /// as scratch: an attention's scores `[kv_heads, group, seq, total]` hold the partial
    /// results of a decode step split along the keys.
    pub scratch: Vec<bool>,
    /// Per quantized product: the op its epilogue applies with one more operand (`Tail`),
    /// taken over from the one node that read the product, which is absorbed.
    pub tail: Vec<Option<(Tail, Operand)>>,
    /// Per absorbed node: the operand its output is, where that is not its first operand
    /// (a residual add absorbed into the product it adds).
    pub alias: Vec<Option<Operand>>,
    /// Per quantized product: the RMSNorm whose output is its input, when every reader of
    /// that output is such a product (GPUs: `find_for`). The product normalises x itself
    /// (its gemv frame rows load each row of x whole across their lanes, so the sum of
    /// squares comes with the loads), and the norm's node runs no kernel (`norm_in_readers`).
    /// Not on CPU adapters: every storage load there is a lane-by-lane branch, so the norm
    /// weight's loads would cost more than the norm's dispatch; and their prompts run the
    /// tiled kernel, which does not normalise.
    pub norm: Vec<Option<RmsNorm>>,
    /// Per RMSNorm node: its readers normalise x themselves (`norm`).
    pub norm_in_readers: Vec<bool>,
    /// Per node running a quantized product moved there: how it stores (`Store`).
    pub store: Vec<Option<Store>>,
    /// Per quantized product whose SiLU gate (`Tail::SiluGate`) is another quantized
    /// product of the same x, weight formats and sizes: that gate product, whose rows this
    /// kernel computes beside its own from the same loads of x (GPUs: `find_for`). The
    /// gate's node then runs nothing, and this product no epilogue operand.
    pub pair: Vec<Option<QuantizedLinear>>,
}

/// What a quantized product's kernel takes over from its neighbours (`Patterns`' per-node
/// fields).
#[derive(Clone, Copy)]
pub struct Takeover<'p> {
    pub tail: Option<(Tail, Operand)>,
    pub norm: Option<&'p RmsNorm>,
    pub store: Option<&'p Store>,
    pub pair: Option<&'p QuantizedLinear>,
}

impl Patterns {
    /// No fused kernels: every op as its own kernels.
    pub fn none(graph: &Graph) -> Patterns {
        let n = graph.nodes.len();
        Patterns {
            at: (0..n).map(|_| None).collect(),
            absorbed: vec![false; n],
            scratch: vec![false; n],
            tail: vec![None; n],
            alias: vec![None; n],
            norm: vec![None; n],
            norm_in_readers: vec![false; n],
            store: vec![None; n],
            pair: vec![None; n],
        }
    }

    /// What node `k`'s quantized product takes over.
    pub fn takeover(&self, k: usize) -> Takeover<'_> {
        Takeover { tail: self.tail[k], norm: self.norm[k].as_ref(), store: self.store[k].as_ref(), pair: self.pair[k].as_ref() }
    }

    /// Per node: the operands its fused kernel reads (the match's inputs), which the buffer
    /// plan keeps alive until that node, not just until the absorbed nodes that named them.
    pub fn reads(&self) -> Vec<Vec<Operand>> {
        self.at
            .iter()
            .zip(self.tail.iter().zip(self.norm.iter().zip(self.store.iter().zip(&self.pair))))
            .map(|(f, (tail, (norm, (store, pair))))| match f {
                None => Vec::new(),
                Some(Fused::Quantized(q)) => {
                    let t = tail.map(|(_, r)| r);
                    let (x, w) = (norm.as_ref().map(|r| r.input), norm.as_ref().map(|r| r.weight));
                    let rope = store.as_ref().and_then(|s| s.rope.as_ref());
                    let (cos, sin) = (rope.map(|r| r.cos), rope.map(|r| r.sin));
                    let scatter = store.as_ref().and_then(|s| s.scatter);
                    let (cache, indices) = (scatter.map(|s| s.0), scatter.map(|s| s.1));
                    let pair = pair.iter().flat_map(|g| [Some(g.weight), Some(g.scale), Some(g.zero_point), g.offset]);
                    [Some(q.input), Some(q.weight), Some(q.scale), Some(q.zero_point), q.offset, t, x, w, cos, sin, cache, indices]
                        .into_iter()
                        .chain(pair)
                        .flatten()
                        .collect()
                }
                Some(Fused::RmsNorm(r)) => vec![r.input, r.weight],
                Some(Fused::Rope(r)) => vec![r.input, r.cos, r.sin],
                Some(Fused::SiluGate(s)) => vec![s.gate, s.up],
                Some(Fused::Attention(a, layout)) => {
                    let q = layout.query.map_or(a.query, |(t, _)| t);
                    vec![q, a.keys, a.values, a.mask, a.scores]
                }
            })
            .collect()
    }

    /// Every match the kernels take, on a GPU binding up to 8 storage buffers per kernel
    /// (WebGPU's default limit).
    pub fn find(graph: &Graph) -> Patterns {
        Patterns::find_for(graph, 8, false)
    }

    /// Every match the kernels take, on a device binding up to `max_storage` storage buffers
    /// per kernel: a product takes over its neighbours' steps only as far as its inputs fit.
    /// Norms in the products (`norm`) and pairs (`pair`) only where `cpu_adapter` is false:
    /// they run on the gemv's row frame, which a CPU adapter's prompts leave for the tiled
    /// kernel.
    pub fn find_for(graph: &Graph, max_storage: u32, cpu_adapter: bool) -> Patterns {
        let mut p = Patterns::none(graph);
        let mut add = |node: usize, absorbed: &[usize], f: Fused| {
            for &k in absorbed {
                p.absorbed[k] = true;
            }
            p.at[node] = Some(f);
        };
        // qgemv reads whole weight words: blocks of a multiple of 8 values.
        for q in fusion::quantized_linears(graph).into_iter().filter(|q| q.block % 8 == 0) {
            add(q.node, &q.absorbed.clone(), Fused::Quantized(q));
        }
        for r in fusion::rms_norms(graph) {
            add(r.node, &r.absorbed.clone(), Fused::RmsNorm(r));
        }
        for r in fusion::ropes(graph) {
            add(r.node, &r.absorbed.clone(), Fused::Rope(r));
        }
        for s in fusion::silu_gates(graph) {
            add(s.node, &s.absorbed.clone(), Fused::SiluGate(s));
        }
        // attention.wgsl stages a query row in workgroup memory and gives lanes four output
        // dimensions each: head dims up to 256, multiples of 4. Float32 queries; the caches
        // float32 or float16, token-major or head-major (strides in the uniform block).
        let fits = |a: &Attention| {
            let hd = graph.desc(a.query).shape.last().is_some_and(|d| d.max_size() <= 256 && d.max_size() % 4 == 0);
            let caches = matches!(graph.desc(a.keys).data_type, DataType::Float32 | DataType::Float16);
            hd && caches && graph.desc(a.query).data_type == DataType::Float32
        };
        let mut scratch = Vec::new();
        for a in fusion::attentions(graph).into_iter().filter(fits) {
            scratch.push(a.scores_node);
            let layout = fusion::token_layout(graph, &a);
            let mut absorbed = a.absorbed.clone();
            absorbed.extend(layout.query.map(|(_, n)| n));
            let node = match layout.output {
                Some(t) => {
                    absorbed.push(a.node);
                    t
                }
                None => a.node,
            };
            add(node, &absorbed, Fused::Attention(a, layout));
        }
        for n in scratch {
            p.scratch[n] = true;
        }
        p.find_tails(graph);
        if !cpu_adapter {
            p.find_norms(graph);
            p.find_pairs(graph, max_storage);
        }
        p.find_stores(graph, max_storage);
        p
    }

    /// Gated MLPs whose gate and up projections can run as one kernel (`pair`): the up
    /// product's epilogue multiplies by the SiLU of a gate that is itself a quantized
    /// product of the same x (normalised alike), with the same sizes, weight type and
    /// parameter formats, read by nothing but the absorbed gate, and the kernel's inputs fit
    /// in `max_storage` bindings.
    fn find_pairs(&mut self, graph: &Graph, max_storage: u32) {
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); graph.operands.len()];
        for (k, node) in graph.nodes.iter().enumerate() {
            for o in node.op.operands() {
                readers[o.index()].push(k);
            }
        }
        let zeros = |q: &QuantizedLinear| graph.constant_data(q.zero_point).is_some_and(|d| d.iter().all(|&b| b == 0));
        // What each fused kernel reads: an absorbed reader of the gate may belong to a match
        // whose kernel reads it (an RMSNorm's pow and div, say).
        let fused_reads = self.reads();
        for p in 0..graph.nodes.len() {
            let (Some((Tail::SiluGate, gate)), Some(Fused::Quantized(up))) = (self.tail[p], &self.at[p]) else { continue };
            let Source::Node { node: g, .. } = graph.info(gate).source else { continue };
            let Some(Fused::Quantized(gq)) = &self.at[g] else { continue };
            let formats = |q: &QuantizedLinear| {
                let d = |o: Operand| graph.desc(o).data_type;
                (q.input, q.n, q.k, q.block, d(q.weight), d(q.scale), q.offset.map(d), zeros(q))
            };
            let only_gate = readers[gate.index()].iter().all(|&r| self.absorbed[r])
                && !fused_reads.iter().enumerate().any(|(k, r)| k != p && r.contains(&gate))
                && !graph.outputs.iter().any(|(_, o)| *o == gate);
            let io = ProductIo { offset: up.offset.is_some(), zero_point: !zeros(up), norm: self.norm[p].is_some(), pair: true, ..Default::default() };
            let bindings = io.storage_bindings();
            let fits = formats(up) == formats(gq)
                && self.norm[g] == self.norm[p]
                && self.tail[g].is_none()
                && only_gate
                && bindings <= max_storage;
            if !fits {
                continue;
            }
            self.pair[p] = Some(gq.clone());
            self.tail[p] = None;
            self.at[g] = None;
            self.absorbed[g] = true;
            self.norm[g] = None;
        }
    }

    /// Products whose output goes, alone, through a rotary embedding (`reshape` to
    /// `[seq, heads, half, 2]`, the `Rope`, `reshape` back) and/or into a cache's rows (a
    /// `cast` to its type, then `scatterND` with `[seq, 1]` int32 indices): the product moves
    /// to the last of those nodes and stores there (`Store`).
    fn find_stores(&mut self, graph: &Graph, max_storage: u32) {
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); graph.operands.len()];
        for (k, node) in graph.nodes.iter().enumerate() {
            for o in node.op.operands() {
                readers[o.index()].push(k);
            }
        }
        let outputs: Vec<Operand> = graph.outputs.iter().map(|(_, o)| *o).collect();
        // The one node reading `o`, if `o` is no graph output.
        let only = |o: Operand| match readers[o.index()][..] {
            [r] if !outputs.contains(&o) => Some(r),
            _ => None,
        };
        let ropes: Vec<(usize, Rope)> = self
            .at
            .iter()
            .enumerate()
            .filter_map(|(k, f)| match f {
                Some(Fused::Rope(r)) => Some((k, r.clone())),
                _ => None,
            })
            .collect();
        for p in 0..graph.nodes.len() {
            // A product moved here already took what it could.
            let Some(Fused::Quantized(q)) = &self.at[p].as_ref().filter(|_| self.store[p].is_none()) else { continue };
            let q = q.clone();
            let mut out = graph.nodes[p].outputs[0];
            let mut node = p;
            let mut absorbed = Vec::new();
            let n = q.n;
            // The module's inputs before it takes over these steps.
            let zeros = graph.constant_data(q.zero_point).is_some_and(|d| d.iter().all(|&b| b == 0));
            let mut io = ProductIo {
                offset: q.offset.is_some(),
                zero_point: !zeros,
                tail: self.tail[p].is_some(),
                norm: self.norm[p].is_some(),
                ..Default::default()
            };
            let mut store = Store { rope: None, scatter: None };
            // reshape -> rope -> reshape.
            let rope = only(out).and_then(|r1| {
                let Op::Reshape(_) = &graph.nodes[r1].op else { return None };
                let x = graph.nodes[r1].outputs[0];
                let (k, rope) = ropes.iter().find(|(_, r)| r.input == x)?;
                let xs = graph.desc(x).static_shape()?;
                let cs = graph.desc(rope.cos).static_shape()?;
                let rows = graph.desc(out).static_shape()?;
                let fits = xs.len() == 4
                    && xs[3] == 2
                    && cs.len() == 4
                    && (cs[0] == 1 || cs[0] == xs[0])
                    && cs[1] == 1
                    && cs[2] == xs[2]
                    && cs[3] == 1
                    && graph.desc(rope.sin) == graph.desc(rope.cos)
                    && graph.desc(rope.cos).data_type == DataType::Float32
                    && rows.len() == 2
                    && rows[0] == xs[0]
                    && n % 4 == 0
                    && readers[x.index()].iter().all(|r| rope.absorbed.contains(r));
                let y = graph.nodes[*k].outputs[0];
                let r2 = only(y).filter(|&r2| matches!(graph.nodes[r2].op, Op::Reshape(_)))?;
                fits.then_some((r1, *k, r2, rope.clone()))
            });
            if let Some((r1, k, r2, rope)) = rope.filter(|_| ProductIo { rope: true, ..io }.storage_bindings() <= max_storage) {
                io.rope = true;
                absorbed.extend([p, r1, k, r2]);
                absorbed.extend(rope.absorbed.iter().copied());
                out = graph.nodes[r2].outputs[0];
                node = r2;
                store.rope = Some(rope);
            }
            // [cast] -> scatterND into a cache.
            let mut value = out;
            let mut cast = None;
            if let Some(c) = only(value).filter(|&c| matches!(graph.nodes[c].op, Op::Cast(_))) {
                cast = Some(c);
                value = graph.nodes[c].outputs[0];
            }
            let scatter = only(value).and_then(|s| {
                let Op::ScatterNd(a) = &graph.nodes[s].op else { return None };
                let cache = graph.desc(a.input).static_shape()?;
                let indices = graph.desc(a.indices);
                let rows = graph.desc(value).static_shape()?;
                let fits = a.updates == value
                    && cache.len() == 2
                    && cache[1] == n
                    && rows.len() == 2
                    && rows[1] == n
                    && indices.data_type == DataType::Int32
                    && indices.static_shape()? == vec![rows[0], 1]
                    && matches!(graph.desc(a.input).data_type, DataType::Float32 | DataType::Float16);
                fits.then_some((s, a.input, a.indices))
            });
            if let Some((s, cache, indices)) = scatter.filter(|_| ProductIo { scatter: true, ..io }.storage_bindings() <= max_storage) {
                absorbed.push(node);
                absorbed.extend(cast);
                node = s;
                store.scatter = Some((cache, indices));
            } else if store.rope.is_none() {
                continue;
            }
            // The product runs at `node`; the nodes from it to there run nothing.
            absorbed.retain(|&k| k != node);
            for &k in &absorbed {
                self.absorbed[k] = true;
                self.at[k] = None;
            }
            self.at[node] = Some(Fused::Quantized(q));
            self.tail[node] = self.tail[p].take();
            self.norm[node] = self.norm[p].take();
            self.store[node] = Some(store);
        }
    }

    /// RMSNorms read only by quantized products (`norm`).
    fn find_norms(&mut self, graph: &Graph) {
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); graph.operands.len()];
        for (k, node) in graph.nodes.iter().enumerate() {
            for o in node.op.operands() {
                readers[o.index()].push(k);
            }
        }
        for k in 0..graph.nodes.len() {
            let Some(Fused::RmsNorm(r)) = &self.at[k] else { continue };
            let h = graph.nodes[k].outputs[0];
            let read = &readers[h.index()];
            let by_products = !read.is_empty()
                && read.iter().all(|&p| matches!(&self.at[p], Some(Fused::Quantized(q)) if q.input == h));
            if !by_products || graph.outputs.iter().any(|(_, o)| *o == h) {
                continue;
            }
            let r = r.clone();
            for &p in read {
                self.norm[p] = Some(r.clone());
            }
            self.norm_in_readers[k] = true;
        }
    }

    /// Epilogues of the quantized products: a residual `add` or the SiLU gate that is the
    /// only reader of a product runs in its epilogue when its other operand is computed
    /// before the product (an input, a constant or an earlier node's output).
    fn find_tails(&mut self, graph: &Graph) {
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); graph.operands.len()];
        for (k, node) in graph.nodes.iter().enumerate() {
            for o in node.op.operands() {
                readers[o.index()].push(k);
            }
        }
        let outputs: Vec<Operand> = graph.outputs.iter().map(|(_, o)| *o).collect();
        let before = |o: Operand, p: usize| match graph.info(o).source {
            Source::Node { node, .. } => node < p,
            Source::Input(_) | Source::Constant(_) => true,
        };
        for p in 0..graph.nodes.len() {
            if !matches!(self.at[p], Some(Fused::Quantized(_))) {
                continue;
            }
            let product = graph.nodes[p].outputs[0];
            let [r] = readers[product.index()][..] else { continue };
            if outputs.contains(&product) || self.absorbed[r] {
                continue;
            }
            let desc = graph.desc(product);
            let same = |o: Operand| graph.desc(o) == desc && o != product && before(o, p);
            match (&graph.nodes[r].op, &self.at[r]) {
                (Op::Add(a), None) => {
                    let other = if a.a == product { a.b } else { a.a };
                    if same(other) {
                        self.tail[p] = Some((Tail::Add, other));
                        self.absorbed[r] = true;
                        self.alias[r] = Some(product);
                    }
                }
                (_, Some(Fused::SiluGate(s))) if s.up == product && same(s.gate) => {
                    self.tail[p] = Some((Tail::SiluGate, s.gate));
                    for &k in &s.absorbed {
                        self.absorbed[k] = true;
                    }
                    self.absorbed[r] = true;
                    self.alias[r] = Some(product);
                    self.at[r] = None;
                }
                _ => {}
            }
        }
    }
}
