//! The decomposed patterns (`webnn_core::fusion`) this backend runs as one kernel each. They
//! are found once per compiled graph, at its bounds, and reused for every size a flexible
//! graph meets: the resolved copies keep the node indices and operands the matches name, and
//! every condition the kernels add holds at any size within the bounds.

use crate::kernel::Tail;
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
    /// that output is such a product. A product run as a gemv (decode steps, on GPUs)
    /// normalises x itself, and the norm's node runs no kernel (`norm_in_readers`).
    pub norm: Vec<Option<RmsNorm>>,
    /// Per RMSNorm node: its readers may normalise x themselves (`norm`).
    pub norm_in_readers: Vec<bool>,
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
        }
    }

    /// Per node: the operands its fused kernel reads (the match's inputs), which the buffer
    /// plan keeps alive until that node, not just until the absorbed nodes that named them.
    pub fn reads(&self) -> Vec<Vec<Operand>> {
        self.at
            .iter()
            .zip(self.tail.iter().zip(&self.norm))
            .map(|(f, (tail, norm))| match f {
                None => Vec::new(),
                Some(Fused::Quantized(q)) => {
                    let t = tail.map(|(_, r)| r);
                    let (x, w) = (norm.as_ref().map(|r| r.input), norm.as_ref().map(|r| r.weight));
                    [Some(q.input), Some(q.weight), Some(q.scale), Some(q.zero_point), q.offset, t, x, w].into_iter().flatten().collect()
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

    /// Every match the kernels take.
    pub fn find(graph: &Graph) -> Patterns {
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
        // float32 or float16.
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
        p.find_norms(graph);
        p
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
