//! The host memory a CPU backend's run of a graph needs at its peak, checked against a budget
//! when the graph compiles: a valid graph (2 GiB per tensor is valid) too large for the
//! machine is a `NotSupportedError` naming the op, not an allocation failure that aborts the
//! process (natively) or traps the wasm instance (in a page).

use crate::error::{Error, Result};
use crate::graph::{Graph, Source};

/// Bytes of working copies a host kernel may make per element it reads or writes: the
/// reference kernels widen floats to float64 and index broadcasts, pads and gathers with
/// 8-byte maps (the fast backend runs those kernels for some ops).
const SCRATCH_PER_ELEMENT: u64 = 8;

/// The memory a host backend may use for one graph: on Linux three quarters of the machine's
/// memory (`MemTotal`), elsewhere natively 16 GiB; in wasm32 3 GiB of the 4 GiB address space
/// (the module and the page's other graphs need the rest).
pub fn host_budget() -> u64 {
    const GIB: u64 = 1 << 30;
    if cfg!(target_arch = "wasm32") {
        return 3 * GIB;
    }
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
    });
    total.map_or(16 * GIB, |t| t / 4 * 3)
}

fn bytes(g: &Graph, i: usize) -> u64 {
    g.operands[i].desc.max_byte_length().unwrap_or(u64::MAX)
}

fn elements(g: &Graph, i: usize) -> u64 {
    g.operands[i].desc.max_elements()
}

/// The peak, in bytes, of a host run of `graph` at its largest sizes: the values alive at each
/// node (inputs and constants throughout, each result until its last reader) plus that node's
/// scratch. Returns the peak and the node at which it occurs.
pub fn host_peak(g: &Graph) -> (u64, Option<usize>) {
    let n = g.operands.len();
    let mut last_use = vec![None; n];
    for (k, node) in g.nodes.iter().enumerate() {
        for o in node.op.operands() {
            last_use[o.index()] = Some(k);
        }
    }
    for (_, o) in &g.outputs {
        last_use[o.index()] = Some(usize::MAX);
    }
    let mut live: u64 = 0;
    for (i, info) in g.operands.iter().enumerate() {
        if matches!(info.source, Source::Constant(_)) || g.inputs.iter().any(|(_, o)| o.index() == i) {
            live = live.saturating_add(bytes(g, i));
        }
    }
    let (mut peak, mut at) = (live, None);
    for (k, node) in g.nodes.iter().enumerate() {
        let mut touched: u64 = 0;
        for o in &node.outputs {
            live = live.saturating_add(bytes(g, o.index()));
            touched = touched.saturating_add(elements(g, o.index()));
        }
        let widest = node.op.operands().into_iter().map(|o| elements(g, o.index())).max().unwrap_or(0);
        touched = touched.saturating_add(widest);
        let here = live.saturating_add(touched.saturating_mul(SCRATCH_PER_ELEMENT));
        if here > peak {
            (peak, at) = (here, Some(k));
        }
        for o in node.op.operands().into_iter().chain(node.outputs.iter().copied()) {
            let i = o.index();
            if last_use[i] == Some(k) && matches!(g.operands[i].source, Source::Node { .. }) {
                live = live.saturating_sub(bytes(g, i));
                last_use[i] = None;
            }
        }
    }
    (peak, at)
}

/// `host_peak` against `budget`: a `NotSupportedError` naming the op where the peak falls.
pub fn check_host_memory(g: &Graph, budget: u64) -> Result<()> {
    let (peak, at) = host_peak(g);
    if peak <= budget {
        return Ok(());
    }
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let rule = format!(
        "running the graph needs about {:.1} GiB of memory at this op, more than this context's {:.1} GiB",
        gib(peak),
        gib(budget)
    );
    let e = Error::not_supported(rule);
    Err(match at.map(|k| &g.nodes[k].op) {
        Some(op) => e.at(op.name(), op.label()),
        None => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataType, GraphBuilder, OperandDescriptor};

    #[test]
    fn a_large_graph_is_refused_and_names_the_op_at_its_peak() {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[1])).unwrap();
        // Just under 2^29 float32 elements: a valid tensor of almost 2 GiB.
        let big = b.expand(x, vec![crate::Dim::Static(1 << 14), crate::Dim::Static((1 << 15) - 1)], Default::default()).unwrap();
        let y = b.relu(big, Default::default()).unwrap();
        let g = b.build(&[("y", y)]).unwrap();
        let (peak, _) = host_peak(&g);
        assert!(peak > 3 << 30, "{peak}");
        let e = check_host_memory(&g, 3 << 30).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::NotSupportedError);
        // The peak: the expanded tensor, relu's result and relu's working copies.
        assert_eq!(e.op, Some("relu"));
        check_host_memory(&g, u64::MAX).unwrap();
    }
}
