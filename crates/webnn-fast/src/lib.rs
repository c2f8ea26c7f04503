//! webnn-fast: the fast CPU backend.
//!
//! The reference interpreter (webnn-cpu) stays simple and exact; this backend is the one that
//! is meant to be quick, and it is tested against that one. At `compile` it turns the graph
//! into a plan (module `plan`): float32 conv2d, gemm and matmul become GEMMs on weights packed
//! once (webnn-gemm) or channel-vectorised depthwise loops, with the bias, a following residual
//! `add` and a following clamp/relu fused into them; convolutions work in NHWC and keep their
//! results NHWC between ops, so layouts change only at the graph's edges. Same-shape add, sub,
//! mul, div, max, min, clamp and relu and global average pooling have fast steps too; buffers
//! are recycled between steps and dispatches (module `buffers`). Every other op runs the
//! reference kernel for that node, so the backend supports exactly what the reference does
//! from the start. A graph computing in float16 is rewritten to compute in float32 inside
//! (`widen_float16`), so the float32 kernels serve it.
//!
//! Threads: one persistent pool per backend ([`Pool`]); each op splits its rows into
//! work units fixed by its shape alone, so the outputs are bit-identical for any thread count.
//!
//! Dynamic (flexible) dimensions: a graph with any is planned once, at compile. Its quantized
//! products (a decoder's linear layers, whose row count is the token count) take their rows
//! from the value they read, so one packed copy of the weights serves every size; nodes whose
//! shapes are all static get their fast steps; every other node runs its reference kernel
//! at the sizes the dispatch binds.
// The wasm threads build parks workers with `memory.atomic.wait32`, whose intrinsic is still
// unstable; that build already needs a rebuilt std (RUSTC_BOOTSTRAP, scripts/build-web.sh).
#![cfg_attr(
    all(target_family = "wasm", target_feature = "atomics"),
    feature(stdarch_wasm_atomic_wait)
)]

mod approx;
mod arg;
mod attention;
mod bnfold;
mod broadcast;
mod buffers;
mod cache;
mod cast;
mod chain;
mod compare;
mod conv;
mod copy;
mod deconv;
mod depthwise;
mod exec;
mod expand;
mod fold;
mod gathers;
mod lanes;
mod matmul;
mod narrow;
mod norm;
mod pixels;
mod plan;
mod planes;
mod pool;
mod qconv;
mod quant;
mod quantized;
mod reduce;
mod reduce_lanes;
mod resample;
mod rows;
mod scan;
mod simd;
mod stem;
mod stored;
mod vector;
mod views;
mod vmath;
mod window;
mod winograd;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use webnn_core::{
    Backend, Capabilities, DeviceInfo, DimBindings, Error, Executable, Graph, GraphStats, HostTensor, InPlace,
    Result,
};
use webnn_cpu::Tensor;
/// The instruction sets the backend's kernels are compiled for (`FastBackend::with_isa`).
pub use webnn_gemm::Isa;

pub use pool::Pool;

/// The fast CPU backend.
pub struct FastBackend {
    pool: Arc<Pool>,
    isa: Isa,
}

impl FastBackend {
    /// A backend running each op on `threads` threads (the caller and `threads - 1` workers,
    /// started now and kept for the backend's lifetime; 0 counts as 1).
    pub fn new(threads: usize) -> FastBackend {
        FastBackend::with_isa(threads, Isa::detect())
    }

    /// Like [`FastBackend::new`] with a given GEMM instruction set (for tests and
    /// comparisons); panics if this machine lacks it.
    pub fn with_isa(threads: usize, isa: Isa) -> FastBackend {
        assert!(isa.is_supported(), "{isa} is not supported here");
        FastBackend {
            pool: Arc::new(Pool::new(threads.max(1))),
            isa,
        }
    }

    /// A backend running on a given pool (one whose workers the page starts, in the browser).
    pub fn with_pool(pool: Pool) -> FastBackend {
        FastBackend {
            pool: Arc::new(pool),
            isa: Isa::detect(),
        }
    }

    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Compiles a graph to the concrete type, which tells how much of it runs on fast
    /// kernels ([`FastGraph::step_counts`]).
    pub fn compile_graph(&self, graph: &Graph) -> Result<FastGraph> {
        FastGraph::new(graph, self.pool.clone(), self.isa)
    }
}

impl Default for FastBackend {
    /// One thread per available core.
    fn default() -> FastBackend {
        FastBackend::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

impl Backend for FastBackend {
    fn name(&self) -> &'static str {
        "fast"
    }
    fn dynamic_dimensions(&self) -> bool {
        true
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        // A graph too large for this machine fails here, not as an allocation abort (natively)
        // or a trap (wasm) mid-run; the estimate counts the reference kernels' working copies,
        // which some of this backend's ops use.
        webnn_core::memory::check_host_memory(graph, webnn_core::memory::host_budget())?;
        Ok(Box::new(self.compile_graph(graph)?))
    }
    fn device(&self) -> DeviceInfo {
        let threads = self.threads();
        DeviceInfo {
            name: format!("fast cpu ({}, {threads} thread{})", self.isa().name(), if threads == 1 { "" } else { "s" }),
            accelerated: false,
        }
    }
}

/// A graph holding float16 values, rewritten to compute in float32 with float16 only at its
/// edges (`None` when it has none): every fast kernel is a float32 kernel, and this machine's
/// float16 arithmetic is a software conversion per element, 10-20x slower than the float32
/// kernels (CPU WebNN implementations compute float16 graphs in float32 the same way). A
/// graph whose float16 tensor is updated in place (a float16 cache) keeps its types, as the
/// in-place write must land in the tensor's own bytes.
fn widen_float16(graph: &Graph) -> Result<Option<Graph>> {
    use webnn_core::{passes, DataType};
    let half = |o: webnn_core::Operand| graph.desc(o).data_type == DataType::Float16;
    // Casts alone need no rewrite: a graph that only widens float16 inputs (caches read by a
    // fused attention) or narrows its outputs computes in float32 already.
    let computes = graph.nodes.iter().any(|n| {
        !matches!(n.op, webnn_core::Op::Cast(_)) && n.op.operands().iter().chain(&n.outputs).any(|&o| half(o))
    });
    if !computes {
        return Ok(None);
    }
    if graph.in_place_pairs().iter().any(|&(i, _)| half(graph.inputs[i].1)) {
        return Ok(None);
    }
    passes::retype_float(graph, DataType::Float16, DataType::Float32, passes::Edges::Keep).map(Some)
}

/// A compiled graph.
pub struct FastGraph {
    plan: plan::Plan,
    /// For each step, the slots whose last reader it is.
    frees: Vec<Vec<usize>>,
    /// (name, slot) of each graph input.
    inputs: Vec<(String, usize)>,
    pool: Arc<Pool>,
    simd: simd::Simd,
    /// Buffers of freed values, reused by the next dispatch.
    spare: Mutex<buffers::Spare>,
}

impl FastGraph {
    fn new(graph: &Graph, pool: Arc<Pool>, isa: Isa) -> Result<FastGraph> {
        let widened = widen_float16(graph)?;
        let graph = widened.as_ref().unwrap_or(graph);
        // After widening, whose casts keep the graph's roundings as round trips.
        let trimmed = webnn_core::passes::drop_round_trips(graph)?;
        let graph = trimmed.as_ref().unwrap_or(graph);
        let (folded, mut quantized) = fold::fold_constants(graph)?;
        let graph = folded.as_ref().unwrap_or(graph);
        let normalized = bnfold::fold_batch_norms(graph)?;
        if normalized.is_some() {
            // Folding batch norms renumbers the operands (and changes the weights it
            // scales): the integer kernels are for QDQ models, whose batch norms are folded.
            quantized.clear();
        }
        let mut planner = plan::Planner::new(normalized.as_ref().unwrap_or(graph), isa);
        planner.quantized_constants = quantized;
        let plan = planner.build()?;
        let mut last = vec![usize::MAX; plan.graph.operands.len()];
        for (i, step) in plan.steps.iter().enumerate() {
            for slot in step.reads(&plan.graph) {
                last[slot] = i;
            }
        }
        for (_, slot) in &plan.outputs {
            last[*slot] = usize::MAX;
        }
        let mut frees = vec![Vec::new(); plan.steps.len()];
        for (slot, &i) in last.iter().enumerate() {
            if i != usize::MAX && !plan.constants.contains_key(&slot) {
                frees[i].push(slot);
            }
        }
        let inputs = plan
            .graph
            .inputs
            .iter()
            .map(|(n, o)| (n.clone(), o.index()))
            .collect();
        Ok(FastGraph {
            plan,
            frees,
            inputs,
            pool,
            simd: simd::Simd::for_isa(isa),
            spare: Mutex::new(buffers::Spare::default()),
        })
    }

    /// What each step of the plan runs, in order (a reference node's op name, or the fast
    /// step's description).
    pub fn step_descriptions(&self) -> Vec<String> {
        self.plan.steps.iter().map(|s| s.describe(&self.plan.graph)).collect()
    }

    /// How many steps run on fast kernels, and how many on the reference interpreter (for
    /// tests and reports).
    pub fn step_counts(&self) -> (usize, usize) {
        let reference = self
            .plan
            .steps
            .iter()
            .filter(|s| matches!(s, exec::Step::Reference { .. }))
            .count();
        (self.plan.steps.len() - reference, reference)
    }

    /// Runs the graph on named input tensors; returns the outputs in graph order.
    pub fn run(&self, inputs: &HashMap<String, Tensor>) -> Result<Vec<(String, Tensor)>> {
        self.run_timed(inputs, None)
    }

    /// Each step's description and its median seconds over `runs` runs (after one warm-up),
    /// to see where the time goes. Natively only: wasm has no `Instant` (see
    /// `profile_with_clock`).
    pub fn profile(
        &self,
        inputs: &HashMap<String, Tensor>,
        runs: usize,
    ) -> Result<Vec<(String, f64)>> {
        let origin = std::time::Instant::now();
        self.profile_with_clock(inputs, runs, &|| origin.elapsed().as_secs_f64())
    }

    /// `profile` with the time in seconds from `clock` (in a page: `performance.now()`).
    pub fn profile_with_clock(
        &self,
        inputs: &HashMap<String, Tensor>,
        runs: usize,
        clock: &dyn Fn() -> f64,
    ) -> Result<Vec<(String, f64)>> {
        self.run(inputs)?;
        let mut all = vec![Vec::new(); self.plan.steps.len()];
        for _ in 0..runs.max(1) {
            let mut t = exec::Timings { clock, times: Vec::new() };
            self.run_timed(inputs, Some(&mut t))?;
            all.iter_mut().zip(t.times).for_each(|(a, t)| a.push(t));
        }
        Ok(self
            .plan
            .steps
            .iter()
            .zip(all)
            .map(|(s, mut t)| {
                t.sort_by(f64::total_cmp);
                (s.describe(&self.plan.graph), t[t.len() / 2])
            })
            .collect())
    }

    fn run_timed(
        &self,
        inputs: &HashMap<String, Tensor>,
        times: Option<&mut exec::Timings>,
    ) -> Result<Vec<(String, Tensor)>> {
        // Caches written in place take their tensor's bytes, and give them back as the output.
        let mut held: Vec<(String, usize, Vec<u8>)> = Vec::new();
        for (input, output, slot) in &self.plan.caches {
            if let Some(t) = inputs.get(input) {
                held.push((output.clone(), *slot, t.to_host().bytes));
            }
        }
        let bound = self.bind(|name| {
            let t = inputs.get(name)?;
            let input = match held.iter().any(|(_, slot, _)| self.input_slot(name) == Some(*slot)) {
                true => exec::Input::Cache,
                false => exec::Input::Tensor(t.clone()),
            };
            Some((t.data_type(), t.shape.clone(), input))
        })?;
        let mut caches: Vec<(usize, &mut [u8])> =
            held.iter_mut().map(|(_, slot, b)| (*slot, b.as_mut_slice())).collect();
        let mut out = self.execute(bound, &mut caches, times)?;
        for (output, slot, bytes) in held {
            let desc = &self.plan.graph.operands[slot].desc;
            out.push((output, Tensor::from_bytes(desc, &bytes)?));
        }
        Ok(self.in_output_order(out))
    }

    fn input_slot(&self, name: &str) -> Option<usize> {
        self.inputs.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    /// `outputs` sorted into the graph's output order.
    fn in_output_order<T>(&self, mut outputs: Vec<(String, T)>) -> Vec<(String, T)> {
        let rank = |name: &str| self.plan.outputs.iter().position(|(n, _)| n == name);
        outputs.sort_by_key(|(n, _)| rank(n));
        outputs
    }

    /// Checks each graph input against what `get` gives for its name (data type and shape)
    /// and pairs it with its slot; returns them with the dimension sizes they bind.
    fn bind<'a>(
        &self,
        mut get: impl FnMut(&str) -> Option<(webnn_core::DataType, Vec<usize>, exec::Input<'a>)>,
    ) -> Result<(Vec<(usize, exec::Input<'a>)>, DimBindings)> {
        let g = &self.plan.graph;
        let mut bound = Vec::with_capacity(self.inputs.len());
        let mut dims = DimBindings::default();
        for (name, slot) in &self.inputs {
            let (data_type, shape, input) = get(name)
                .ok_or_else(|| Error::type_error(format!("no tensor given for input '{name}'")))?;
            let want = &g.operands[*slot].desc;
            if data_type != want.data_type {
                return Err(Error::type_error(format!(
                    "input '{name}' expects {want}, got {data_type}"
                )));
            }
            let actual: Vec<u32> = shape
                .iter()
                .map(|&d| u32::try_from(d).unwrap_or(u32::MAX))
                .collect();
            dims.bind(name, want, &actual)?;
            bound.push((*slot, input));
        }
        Ok((bound, dims))
    }

    fn execute(
        &self,
        (bound, dims): (Vec<(usize, exec::Input)>, DimBindings),
        caches: &mut [(usize, &mut [u8])],
        times: Option<&mut exec::Timings>,
    ) -> Result<Vec<(String, Tensor)>> {
        let ctx = exec::Ctx {
            pool: &self.pool,
            simd: self.simd,
        };
        let mut spare = std::mem::take(&mut *self.spare.lock().unwrap_or_else(|e| e.into_inner()));
        let out = exec::run(&self.plan, &self.frees, &ctx, &mut spare, bound, caches, &dims, times);
        *self.spare.lock().unwrap_or_else(|e| e.into_inner()) = spare;
        out
    }

    /// Runs on host tensors; `inout` are in-place pairs, updated where their caches are
    /// written in place and replaced by the output otherwise. A cache written in place but
    /// given as a plain input (its output bound to another tensor) is written in a copy,
    /// returned as its output.
    fn run_host(
        &self,
        inputs: &[(&str, &HostTensor)],
        inout: &mut [InPlace],
    ) -> Result<Vec<(String, HostTensor)>> {
        let mut held: Vec<(&str, &str, HostTensor)> = Vec::new();
        for (input, output, _) in &self.plan.caches {
            if let Some((name, t)) = inputs.iter().find(|(n, _)| n == input) {
                held.push((name, output.as_str(), (*t).clone()));
            }
        }
        if held.is_empty() {
            return self.run_lent(inputs, inout);
        }
        let rest: Vec<(&str, &HostTensor)> = inputs
            .iter()
            .filter(|(n, _)| !held.iter().any(|(i, _, _)| i == n))
            .copied()
            .collect();
        let mut all: Vec<InPlace> = held
            .iter_mut()
            .map(|(input, output, tensor)| InPlace { input, output, tensor })
            .collect();
        all.extend(inout.iter_mut().map(|p| InPlace { input: p.input, output: p.output, tensor: &mut *p.tensor }));
        let mut out = self.run_lent(&rest, &mut all)?;
        drop(all);
        out.extend(held.into_iter().map(|(_, o, t)| (o.to_owned(), t)));
        Ok(self.in_output_order(out))
    }

    fn run_lent(
        &self,
        inputs: &[(&str, &HostTensor)],
        inout: &mut [InPlace],
    ) -> Result<Vec<(String, HostTensor)>> {
        let written = |name: &str| self.plan.caches.iter().find(|(i, _, _)| i == name);
        let lent: Vec<&str> = inout
            .iter()
            .filter(|p| written(p.input).is_some_and(|(_, o, _)| o == p.output))
            .map(|p| p.input)
            .collect();
        // Well-formed float32 inputs are decoded into a reused buffer when the run binds
        // them; the rest here (with from_bytes's checks and errors), and the in-place pairs
        // not written in place (their tensors are replaced by the output after the run).
        let mut decoded = HashMap::new();
        for (name, t) in inputs {
            let elements = t
                .desc
                .static_shape()
                .map(|s| s.iter().map(|&d| d as usize).product::<usize>());
            let direct = t.desc.data_type == webnn_core::DataType::Float32
                && elements.map(|e| 4 * e) == Some(t.bytes.len());
            if !direct {
                decoded.insert(*name, Tensor::from_bytes(&t.desc, &t.bytes)?);
            }
        }
        let mut caches_meta = Vec::new();
        for p in inout.iter() {
            match lent.contains(&p.input) {
                true => caches_meta.push((p.input, p.tensor.desc.clone())),
                false => {
                    decoded.insert(p.input, Tensor::from_bytes(&p.tensor.desc, &p.tensor.bytes)?);
                }
            }
        }
        let bound = self.bind(|name| {
            if let Some(t) = decoded.remove(name) {
                return Some((t.data_type(), t.shape.clone(), exec::Input::Tensor(t)));
            }
            let shape_of = |d: &webnn_core::OperandDescriptor| -> Option<Vec<usize>> {
                Some(d.static_shape()?.iter().map(|&d| d as usize).collect())
            };
            if let Some((_, desc)) = caches_meta.iter().find(|(n, _)| *n == name) {
                return Some((desc.data_type, shape_of(desc)?, exec::Input::Cache));
            }
            let (_, host) = inputs.iter().find(|(n, _)| *n == name)?;
            let shape = shape_of(&host.desc)?;
            Some((host.desc.data_type, shape.clone(), exec::Input::F32(&host.bytes, shape)))
        })?;
        let mut caches: Vec<(usize, &mut [u8])> = Vec::new();
        let mut replaced = Vec::new();
        for p in inout.iter_mut() {
            match lent.contains(&p.input) {
                true => caches.push((written(p.input).map_or(usize::MAX, |c| c.2), p.tensor.bytes.as_mut_slice())),
                false => replaced.push((p.output, &mut *p.tensor)),
            }
        }
        let mut rest = Vec::new();
        for (name, t) in self.execute(bound, &mut caches, None)? {
            match replaced.iter_mut().find(|(o, _)| *o == name) {
                Some((_, h)) => **h = t.to_host(),
                None => rest.push((name, t.to_host())),
            }
        }
        Ok(rest)
    }
}

impl Executable for FastGraph {
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
        self.run_host(inputs, &mut [])
    }

    fn dispatch_in_place(
        &mut self,
        inputs: &[(&str, &HostTensor)],
        inout: &mut [InPlace],
    ) -> Result<Vec<(String, HostTensor)>> {
        self.run_host(inputs, inout)
    }

    fn stats(&self) -> GraphStats {
        GraphStats { kernel_steps: Some(self.step_counts()), ..GraphStats::default() }
    }
}
