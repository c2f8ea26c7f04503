//! Running a plan: slots of values, the steps in order, buffers recycled between steps.

use crate::buffers::{Buf, Spare};
use crate::attention::AttentionStep;
use crate::cache::CacheWrite;
use crate::rows::{RmsNormStep, RopeStep};
use crate::chain::ChainStep;
use crate::conv::Conv;
use crate::matmul::{GemmStep, MatmulStep};
use crate::plan::Plan;
use crate::pool::{Pool, SharedMut};
use crate::quant::FakeQuant;
use crate::quantized::QGemmStep;
use crate::reduce::GlobalPool;
use crate::simd::{self, BinaryKind, Simd};
use std::collections::HashMap;
use webnn_core::{DimBindings, Error, Result};
use webnn_cpu::{eval, Data, Tensor};
use webnn_gemm::Epilogue;

/// One step of a plan.
pub(crate) enum Step {
    /// The reference interpreter evaluates node `node` of the plan's graph.
    Reference {
        node: usize,
    },
    Conv(Box<Conv>),
    Gemm(Box<GemmStep>),
    Matmul(Box<MatmulStep>),
    QGemm(Box<QGemmStep>),
    CacheWrite(Box<CacheWrite>),
    Attention(Box<AttentionStep>),
    RmsNorm(Box<RmsNormStep>),
    Rope(Box<RopeStep>),
    Chain(Box<ChainStep>),
    GlobalPool(Box<GlobalPool>),
    WindowPool(Box<crate::window::WindowPool>),
    BatchNorm(Box<crate::norm::BatchNorm>),
    InstanceNorm(Box<crate::norm::InstanceNorm>),
    Concat(Box<crate::copy::ConcatStep>),
    Deconv(Box<crate::deconv::Deconv>),
    Pad(Box<crate::copy::PadStep>),
    Resample(Box<crate::resample::ResampleStep>),
    Permute(Box<crate::copy::Permute>),
    Broadcast(Box<crate::broadcast::BroadcastStep>),
    Cast(Box<crate::cast::CastStep>),
    Split(Box<crate::views::SplitStep>),
    Gather(Box<crate::views::GatherStep>),
    Triangular(Box<crate::views::TriangularStep>),
    Scan(Box<crate::scan::ScanStep>),
    Reverse(Box<crate::views::ReverseStep>),
    Gathers(Box<crate::gathers::GathersStep>),
    Compare(Box<crate::compare::CompareStep>),
    Where(Box<crate::compare::WhereStep>),
    Arg(Box<crate::arg::ArgStep>),
    Softmax(Box<crate::lanes::SoftmaxStep>),
    Reduce(Box<crate::reduce_lanes::ReduceStep>),
    LayerNorm(Box<crate::lanes::LayerNormStep>),
    /// `out = clamp(a op b)` element-wise over equal shapes; `kind: None` is a lone clamp of `a`.
    Binary {
        kind: Option<BinaryKind>,
        a: usize,
        b: usize,
        out: usize,
        post: Post,
    },
}

/// What a fused step applies to its result: an optional rounding to float16's grid, an
/// optional residual addend (a slot with the output's shape and storage) and a rounding of
/// the sum, then a clamp, then a fake quantization (a QDQ model's activation pair).
///
/// The roundings are the `cast(cast(x, 'float16'), 'float32')` round trips a float16 export
/// writes after each op. Rounding to the grid is monotone and keeps the grid's values, so it
/// commutes with a clamp whose bounds are on the grid: the planner fuses roundings only
/// beside such clamps, and kernels may clamp before `finish` rounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Post {
    pub round_value: bool,
    pub residual: Option<usize>,
    pub round_sum: bool,
    pub lo: f32,
    pub hi: f32,
    pub quant: Option<FakeQuant>,
}

impl Post {
    /// A clamp alone.
    pub(crate) fn clamp(lo: f32, hi: f32) -> Post {
        Post {
            round_value: false,
            residual: None,
            round_sum: false,
            lo,
            hi,
            quant: None,
        }
    }

    /// Whether it rounds to float16's grid anywhere.
    pub(crate) fn rounds(&self) -> bool {
        self.round_value || self.round_sum
    }

    /// The clamp a GEMM can apply in registers: all of it, unless a residual must be added
    /// first.
    pub(crate) fn epilogue(&self) -> Epilogue {
        match self.residual {
            Some(_) => Epilogue::NONE,
            None => Epilogue::clamp(self.lo, self.hi),
        }
    }

    /// Rounds `out`, elements `offset..` of the output, adds the residual and clamps when
    /// the epilogue could not do it, rounds the sum; then the fake quantization, while `out`
    /// is in cache.
    pub(crate) fn finish(
        &self,
        simd: Simd,
        out: &mut [f32],
        residual: Option<&[f32]>,
        offset: usize,
    ) {
        if self.round_value {
            simd::round_f16(simd, out);
        }
        if let Some(r) = residual {
            simd::add_clamp(simd, out, &r[offset..offset + out.len()], self.lo, self.hi);
        }
        if self.round_sum {
            simd::round_f16(simd, out);
        }
        if let Some(q) = &self.quant {
            crate::quant::apply_f32(simd, q, out);
        }
    }

    /// The clamp a kernel that is not a GEMM applies as it stores: all of it, unless a
    /// residual must be added first (then `finish` clamps).
    pub(crate) fn kernel_bounds(&self) -> (f32, f32) {
        match self.residual {
            Some(_) => (f32::NEG_INFINITY, f32::INFINITY),
            None => (self.lo, self.hi),
        }
    }

    /// The fake quantization a kernel may apply itself (none when a residual must be added
    /// before it), and the rest of the epilogue for `finish`.
    pub(crate) fn split_quant(&self) -> (Option<FakeQuant>, Post) {
        match (self.residual, self.quant) {
            (None, Some(q)) => (Some(q), Post { quant: None, ..*self }),
            _ => (None, *self),
        }
    }

    /// The clamp's bounds and what follows it, for profiles.
    pub(crate) fn describe(&self) -> String {
        let flag = |on: bool, text: &'static str| if on { text } else { "" };
        let value = flag(self.round_value, " f16");
        let residual = flag(self.residual.is_some(), " +residual");
        let sum = flag(self.round_sum, " f16");
        let quant = flag(self.quant.is_some(), " +fake-quant");
        format!("{value}{residual}{sum} clamp[{}, {}]{quant}", self.lo, self.hi)
    }
}

/// Each slot's reading steps, by index in `steps`, in order.
pub(crate) fn readers(steps: &[Step], graph: &webnn_core::Graph) -> HashMap<usize, Vec<usize>> {
    let mut readers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        for slot in s.reads(graph) {
            readers.entry(slot).or_default().push(i);
        }
    }
    readers
}

impl Step {
    /// A short description for profiles.
    pub(crate) fn describe(&self, graph: &webnn_core::Graph) -> String {
        match self {
            Step::Reference { node } => format!("reference {}", graph.nodes[*node].op.name()),
            Step::Conv(c) => c.describe(),
            Step::Gemm(g) => g.describe(),
            Step::Matmul(m) => m.describe(),
            Step::QGemm(q) => q.describe(),
            Step::CacheWrite(c) => c.describe(),
            Step::Attention(a) => a.describe(),
            Step::RmsNorm(r) => r.describe(),
            Step::Rope(r) => r.describe(),
            Step::Chain(c) => c.describe(),
            Step::GlobalPool(p) => p.describe(),
            Step::WindowPool(p) => p.describe(),
            Step::BatchNorm(b) => b.describe(),
            Step::InstanceNorm(i) => i.describe(),
            Step::Concat(c) => c.describe(),
            Step::Deconv(d) => d.describe(),
            Step::Pad(p) => p.describe(),
            Step::Resample(r) => r.describe(),
            Step::Permute(t) => t.describe(),
            Step::Broadcast(t) => t.describe(),
            Step::Cast(t) => t.describe(),
            Step::Split(t) => t.describe(),
            Step::Gather(t) => t.describe(),
            Step::Triangular(t) => t.describe(),
            Step::Scan(t) => t.describe(),
            Step::Reverse(t) => t.describe(),
            Step::Gathers(t) => t.describe(),
            Step::Compare(t) => t.describe(),
            Step::Where(t) => t.describe(),
            Step::Arg(t) => t.describe(),
            Step::Softmax(s) => s.describe(),
            Step::Reduce(r) => r.describe(),
            Step::LayerNorm(l) => l.describe(),
            Step::Binary { kind, post, .. } => format!("{kind:?}{}", post.describe()),
        }
    }

    /// The slots a step reads (`graph`: the plan's, for reference nodes).
    pub(crate) fn reads(&self, graph: &webnn_core::Graph) -> Vec<usize> {
        match self {
            Step::Reference { node } => graph.nodes[*node]
                .op
                .operands()
                .iter()
                .map(|o| o.index())
                .collect(),
            Step::Conv(c) => c.reads(),
            Step::Gemm(g) => g.reads(),
            Step::Matmul(m) => m.reads(),
            Step::QGemm(q) => q.reads(),
            Step::CacheWrite(c) => c.reads(),
            Step::Attention(a) => a.reads(),
            Step::RmsNorm(r) => r.reads(),
            Step::Rope(r) => r.reads(),
            Step::Chain(c) => c.reads(),
            Step::GlobalPool(p) => p.reads(),
            Step::WindowPool(p) => p.reads(),
            Step::BatchNorm(b) => b.reads(),
            Step::InstanceNorm(i) => i.reads(),
            Step::Concat(c) => c.reads(),
            Step::Deconv(d) => d.reads(),
            Step::Pad(p) => p.reads(),
            Step::Resample(r) => r.reads(),
            Step::Permute(t) => t.reads(),
            Step::Broadcast(t) => t.reads(),
            Step::Cast(t) => t.reads(),
            Step::Split(t) => t.reads(),
            Step::Gather(t) => t.reads(),
            Step::Triangular(t) => t.reads(),
            Step::Scan(t) => t.reads(),
            Step::Reverse(t) => t.reads(),
            Step::Gathers(t) => t.reads(),
            Step::Compare(t) => t.reads(),
            Step::Where(t) => t.reads(),
            Step::Arg(t) => t.reads(),
            Step::Softmax(s) => s.reads(),
            Step::Reduce(r) => r.reads(),
            Step::LayerNorm(l) => l.reads(),
            Step::Binary { a, b, post, .. } => [*a, *b].into_iter().chain(post.residual).collect(),
        }
    }
}

/// Each step's seconds, as `clock` tells them.
pub(crate) struct Timings<'a> {
    pub clock: &'a dyn Fn() -> f64,
    pub times: Vec<f64>,
}

/// How the steps of one dispatch share the machine.
pub(crate) struct Ctx<'a> {
    pub pool: &'a Pool,
    pub simd: Simd,
}

/// Elements per task of a step that splits a flat pass across the pool (element-wise ops
/// and chains, comparisons, casts, normalizations, reductions by lanes, resampling rows):
/// enough that a task's work outweighs claiming it, fixed by nothing but the size.
pub(crate) const TASK: usize = 16_384;

/// `f(r, row)` for each row `r` of `y` (`len` elements each), in tasks of whole rows of
/// about `TASK` elements across the pool: fixed by the shape alone.
pub(crate) fn each_row<T: Send>(ctx: &Ctx, y: &mut [T], len: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let len = len.max(1);
    let (rows, per) = (y.len() / len, (TASK / len).max(1));
    let dst = SharedMut::new(y);
    ctx.pool.run(rows.div_ceil(per), &|t| {
        let range = t * per..((t + 1) * per).min(rows);
        // SAFETY: each task writes its own rows.
        let out = unsafe { dst.range(range.start * len, range.len() * len) };
        for (r, row) in range.zip(out.chunks_exact_mut(len)) {
            f(r, row);
        }
    });
}

/// Rows per work unit when splitting `rows` (in tiles of `align`) whose rows cost `row_cost`
/// multiply-adds each: at most about 48 units, none under ~16k multiply-adds. The split
/// depends only on the shape, never on the thread count, so every thread count computes
/// exactly the same unit calls and the results are bit-identical.
pub(crate) fn unit_rows(rows: usize, align: usize, row_cost: usize) -> usize {
    let align = align.max(1);
    let tiles = rows.div_ceil(align).max(1);
    let min_tiles = (16_384 / (row_cost.max(1) * align)).max(1);
    tiles.div_ceil(48).max(min_tiles) * align
}

/// The values of one dispatch.
pub(crate) struct Values<'p> {
    pub slots: Vec<Option<Tensor>>,
    /// Which slots hold a [`Buf`] from `spare` (the rest come from reference kernels).
    ours: Vec<bool>,
    constants: &'p HashMap<usize, Tensor>,
    spare: &'p mut Spare,
}

impl<'p> Values<'p> {
    pub(crate) fn get(&self, slot: usize) -> Result<&Tensor> {
        self.slots[slot]
            .as_ref()
            .or_else(|| self.constants.get(&slot))
            .ok_or_else(|| Error::operation_error(format!("slot {slot} has no value")))
    }

    pub(crate) fn f32(&self, slot: usize) -> Result<&[f32]> {
        match &self.get(slot)?.data {
            Data::F32(v) => Ok(v),
            other => Err(Error::operation_error(format!(
                "slot {slot} holds {}, not float32",
                other.data_type()
            ))),
        }
    }

    /// A buffer of `len` floats from the spare ones; its contents are stale.
    pub(crate) fn alloc(&mut self, len: usize) -> Buf {
        self.spare.take(len)
    }

    pub(crate) fn put(&mut self, slot: usize, shape: Vec<usize>, b: Buf) {
        self.slots[slot] = Some(Tensor::new(shape, Data::F32(b.into_vec())));
        self.ours[slot] = true;
    }

    /// The bytes of an 8-bit activation stored as such (`quant::Bytes`).
    pub(crate) fn bytes(&self, slot: usize) -> Result<&[u8]> {
        match &self.get(slot)?.data {
            Data::U8(v) => Ok(v),
            other => Err(Error::operation_error(format!("slot {slot} holds {}, not stored bytes", other.data_type()))),
        }
    }

    /// A buffer of `len` bytes from the spare ones; its contents are stale.
    pub(crate) fn alloc_bytes(&mut self, len: usize) -> Buf<u8> {
        self.spare.take_bytes(len)
    }

    pub(crate) fn put_bytes(&mut self, slot: usize, shape: Vec<usize>, b: Buf<u8>) {
        self.slots[slot] = Some(Tensor::new(shape, Data::U8(b.into_vec())));
        self.ours[slot] = true;
    }

    /// Stores a reference kernel's result (or any value not in a spare buffer).
    pub(crate) fn put_tensor(&mut self, slot: usize, t: Tensor) {
        self.slots[slot] = Some(t);
        self.ours[slot] = false;
    }

    /// Takes a value out (an output). A spare buffer's contents are copied out and the
    /// buffer kept: handed to the caller, it would leave the spare set, and the next
    /// dispatch would allocate (and zero) a new one where it was taken. As buffers are
    /// taken best-fit, that was rarely the output's size: MobileNetV2's 1000 probabilities
    /// cost a fresh megabyte-sized buffer per dispatch (4% of its time in `memset`).
    fn take(&mut self, slot: usize) -> Option<Tensor> {
        let t = self.slots[slot].take()?;
        if !std::mem::take(&mut self.ours[slot]) {
            return Some(t);
        }
        let data = match t.data {
            Data::F32(v) => {
                let out = v.clone();
                self.spare.give(Buf::from_vec(v));
                Data::F32(out)
            }
            Data::U8(v) => {
                let out = v.clone();
                self.spare.give_bytes(Buf::from_vec(v));
                Data::U8(out)
            }
            other => other,
        };
        Some(Tensor::new(t.shape, data))
    }

    fn free(&mut self, slot: usize) {
        let t = self.slots[slot].take();
        if std::mem::take(&mut self.ours[slot]) {
            // The vector is the one `put` (or `put_bytes`) stored, never reallocated (values
            // are only read).
            match t.map(|t| t.data) {
                Some(Data::F32(v)) => self.spare.give(Buf::from_vec(v)),
                Some(Data::U8(v)) => self.spare.give_bytes(Buf::from_vec(v)),
                _ => {}
            }
        }
    }

    pub(crate) fn recycle(&mut self, b: Buf) {
        self.spare.give(b);
    }
}

impl Drop for Values<'_> {
    /// Whatever is still held (after an error too) goes back to the spare buffers.
    fn drop(&mut self) {
        for slot in 0..self.slots.len() {
            self.free(slot);
        }
    }
}

/// A graph input: a decoded tensor, float32 bytes decoded straight into a reused buffer, or
/// a cache whose bytes its cache write reads and writes where they lie.
pub(crate) enum Input<'a> {
    Tensor(Tensor),
    F32(&'a [u8], Vec<usize>),
    Cache,
}

/// Little-endian float32 bytes into `out` (as many as both hold): one copy where the
/// machine is little-endian (x86, wasm, ARM), which the per-element loop was not.
fn decode_f32(bytes: &[u8], out: &mut [f32]) {
    let n = out.len().min(bytes.len() / 4);
    if cfg!(target_endian = "little") {
        // SAFETY: `n` floats fit both (from their lengths); every bit pattern is a float;
        // the byte copy does not care about the bytes' alignment.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast::<u8>(), 4 * n) };
        return;
    }
    for (x, b) in out[..n].iter_mut().zip(bytes.chunks_exact(4)) {
        *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
}

/// Runs `plan` on `inputs` (already in their slots' order) and returns the output tensors.
/// `caches` holds the bytes of the caches written in place, by input slot: their outputs are
/// those bytes, not returned.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    plan: &Plan,
    frees: &[Vec<usize>],
    ctx: &Ctx,
    spare: &mut Spare,
    inputs: Vec<(usize, Input)>,
    caches: &mut [(usize, &mut [u8])],
    dims: &DimBindings,
    mut times: Option<&mut Timings>,
) -> Result<Vec<(String, Tensor)>> {
    let mut values = Values {
        slots: vec![None; plan.graph.operands.len()],
        ours: vec![false; plan.graph.operands.len()],
        constants: &plan.constants,
        spare,
    };
    for (slot, input) in inputs {
        match input {
            Input::Tensor(t) => values.put_tensor(slot, t),
            Input::F32(bytes, shape) => {
                let mut v = values.alloc(bytes.len() / 4);
                decode_f32(bytes, &mut v);
                values.put(slot, shape, v);
            }
            Input::Cache => {}
        }
    }
    for (i, step) in plan.steps.iter().enumerate() {
        let start = times.as_ref().map(|t| (t.clock)());
        match step {
            Step::Reference { node } => {
                let node = &plan.graph.nodes[*node];
                let env = eval::Env {
                    graph: &plan.graph,
                    values: &values.slots,
                    constants: &plan.constants,
                    dims,
                };
                let outs =
                    eval::eval(&env, node).map_err(|e| e.at(node.op.name(), node.op.label()))?;
                for (o, t) in node.outputs.iter().zip(outs) {
                    values.put_tensor(o.index(), t);
                }
            }
            Step::Conv(c) => c.run(ctx, &mut values)?,
            Step::Gemm(g) => g.run(ctx, &mut values)?,
            Step::Matmul(m) => m.run(ctx, &mut values)?,
            Step::QGemm(q) => q.run(ctx, &mut values)?,
            Step::Attention(a) => {
                let lent = |slot: usize| {
                    caches
                        .iter()
                        .find(|(s, _)| *s == slot)
                        .map(|(_, b)| &**b)
                        .ok_or_else(|| Error::operation_error("a cache written in place is not bound"))
                };
                let kv = match a.cached {
                    Some((k, v)) => Some((lent(k)?, lent(v)?)),
                    None => None,
                };
                a.run(ctx, &mut values, kv)?
            }
            Step::RmsNorm(r) => r.run(ctx, &mut values)?,
            Step::Rope(r) => r.run(ctx, &mut values)?,
            Step::CacheWrite(c) => {
                let (_, bytes) = caches
                    .iter_mut()
                    .find(|(slot, _)| *slot == c.input)
                    .ok_or_else(|| Error::operation_error("a cache written in place is not bound"))?;
                c.run(&mut values, bytes, dims, &plan.graph)?
            }
            Step::Chain(c) => c.run(ctx, &mut values)?,
            Step::GlobalPool(p) => p.run(&mut values)?,
            Step::WindowPool(p) => p.run(ctx, &mut values)?,
            Step::BatchNorm(b) => b.run(ctx, &mut values)?,
            Step::InstanceNorm(i) => i.run(ctx, &mut values)?,
            Step::Concat(c) => c.run(ctx, &mut values)?,
            Step::Deconv(d) => d.run(ctx, &mut values)?,
            Step::Pad(p) => p.run(ctx, &mut values)?,
            Step::Resample(r) => r.run(ctx, &mut values)?,
            Step::Permute(t) => t.run(ctx, &mut values)?,
            Step::Broadcast(t) => t.run(ctx, &mut values)?,
            Step::Cast(t) => t.run(ctx, &mut values)?,
            Step::Split(t) => t.run(ctx, &mut values)?,
            Step::Gather(t) => t.run(&mut values)?,
            Step::Triangular(t) => t.run(ctx, &mut values)?,
            Step::Scan(t) => t.run(ctx, &mut values)?,
            Step::Reverse(t) => t.run(ctx, &mut values)?,
            Step::Gathers(t) => t.run(ctx, &mut values)?,
            Step::Compare(t) => t.run(ctx, &mut values)?,
            Step::Where(t) => t.run(&mut values)?,
            Step::Arg(t) => t.run(&mut values)?,
            Step::Softmax(s) => s.run(ctx, &mut values)?,
            Step::Reduce(r) => r.run(ctx, &mut values)?,
            Step::LayerNorm(l) => l.run(ctx, &mut values)?,
            Step::Binary {
                kind,
                a,
                b,
                out,
                post,
            } => binary(ctx, &mut values, *kind, *a, *b, *out, post)?,
        }
        for &slot in &frees[i] {
            values.free(slot);
        }
        if let (Some(t), Some(start)) = (times.as_deref_mut(), start) {
            let now = (t.clock)();
            t.times.push(now - start);
        }
    }
    let mut outputs = Vec::with_capacity(plan.outputs.len());
    for (k, (name, slot)) in plan.outputs.iter().enumerate() {
        if plan.written_in_place[k] {
            continue;
        }
        // The last output naming a value takes it; earlier ones copy it.
        let again = plan.outputs[k + 1..].iter().any(|(_, s)| s == slot);
        let t = match again {
            true => values.slots[*slot].clone(),
            false => values.take(*slot),
        };
        let t = t.or_else(|| plan.constants.get(slot).cloned());
        let t =
            t.ok_or_else(|| Error::operation_error(format!("output '{name}' was not computed")))?;
        outputs.push((name.clone(), t));
    }
    Ok(outputs)
}

/// The element-wise step, split into fixed chunks across the pool.
#[allow(clippy::too_many_arguments)]
fn binary(
    ctx: &Ctx,
    values: &mut Values,
    kind: Option<BinaryKind>,
    a: usize,
    b: usize,
    out: usize,
    post: &Post,
) -> Result<()> {
    let shape = values.get(a)?.shape.clone();
    let len = values.f32(a)?.len();
    let mut y = values.alloc(len);
    {
        let (va, vb) = (values.f32(a)?, values.f32(b)?);
        let residual = post.residual.map(|r| values.f32(r)).transpose()?;
        const CHUNK: usize = 1 << 14;
        let dst = SharedMut::new(&mut y);
        let simd = ctx.simd;
        ctx.pool.run(len.div_ceil(CHUNK), &|u| {
            let r = u * CHUNK..(u * CHUNK + CHUNK).min(len);
            // SAFETY: each unit writes its own chunk.
            let o = unsafe { dst.range(r.start, r.len()) };
            match kind {
                Some(k) => {
                    simd::binary(simd, k, &va[r.clone()], &vb[r.clone()], o, post.lo, post.hi)
                }
                None => va[r.clone()]
                    .iter()
                    .zip(o.iter_mut())
                    .for_each(|(x, o)| *o = simd::clamp(*x, post.lo, post.hi)),
            }
            post.finish(simd, o, residual, r.start);
        });
    }
    values.put(out, shape, y);
    Ok(())
}
