//! The decomposed patterns (`webnn_core::fusion`) this backend runs as one kernel each. They
//! are found once per compiled graph, at its bounds, and reused for every size a flexible
//! graph meets: the resolved copies keep the node indices and operands the matches name, and
//! every condition the kernels add holds at any size within the bounds.

use webnn_core::fusion::{self, Attention, QuantizedLinear, RmsNorm, Rope, SiluGate};
use webnn_core::{DataType, Graph, Operand};

/// What a node runs instead of its own lowering.
pub enum Fused {
    Quantized(QuantizedLinear),
    RmsNorm(RmsNorm),
    Rope(Rope),
    SiluGate(SiluGate),
    Attention(Attention),
}

/// Per node: the fused kernel it runs, and whether a fused kernel replaces it.
pub struct Patterns {
    pub at: Vec<Option<Fused>>,
    pub absorbed: Vec<bool>,
    /// Absorbed nodes whose output keeps a buffer of its own, which the fused kernel uses
    /// as scratch: an attention's scores `[kv_heads, group, seq, total]` hold the partial
    /// results of a decode step split along the keys.
    pub scratch: Vec<bool>,
}

impl Patterns {
    /// No fused kernels: every op as its own kernels.
    pub fn none(graph: &Graph) -> Patterns {
        let n = graph.nodes.len();
        Patterns { at: (0..n).map(|_| None).collect(), absorbed: vec![false; n], scratch: vec![false; n] }
    }

    /// Per node: the operands its fused kernel reads (the match's inputs), which the buffer
    /// plan keeps alive until that node, not just until the absorbed nodes that named them.
    pub fn reads(&self) -> Vec<Vec<Operand>> {
        self.at
            .iter()
            .map(|f| match f {
                None => Vec::new(),
                Some(Fused::Quantized(q)) => [Some(q.input), Some(q.weight), Some(q.scale), Some(q.zero_point), q.offset].into_iter().flatten().collect(),
                Some(Fused::RmsNorm(r)) => vec![r.input, r.weight],
                Some(Fused::Rope(r)) => vec![r.input, r.cos, r.sin],
                Some(Fused::SiluGate(s)) => vec![s.gate, s.up],
                Some(Fused::Attention(a)) => vec![a.query, a.keys, a.values, a.mask, a.scores],
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
            add(a.node, &a.absorbed.clone(), Fused::Attention(a));
        }
        for n in scratch {
            p.scratch[n] = true;
        }
        p
    }
}
