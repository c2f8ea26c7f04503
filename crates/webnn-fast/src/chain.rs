//! Chains of element-wise float32 ops (`sigmoid → mul`, `mul → add → tanh`, ...) as one
//! pass over memory: each element goes through the whole chain while in registers, instead
//! of every op writing a tensor the next one reads back.
//!
//! A chain grows from an element-wise node along sole readers: each next op is unary, or
//! binary with the running value on one side and, on the other, a value of the same shape
//! computed before the chain starts, a one-element constant, or one broadcast along a block
//! of dimensions. Each op computes in f64 and rounds to float32, with the reference kernels'
//! per-element math (`webnn_cpu::kernels::elementwise::scalar`, the selects written out in
//! module `select` below so they inline), so a chain's results equal the ops one by one
//! exactly; but exp, sigmoid, tanh and elu take the branch-free polynomials of module
//! `vmath` (within one ULP, nearly always exact), and gelu and erf, whose reference series
//! cost 70 ns an element, the approximations of module `approx` (within 4 ULP, WPT allows
//! 18). The ops without a vectorizable form (log, sin, pow by a variable...) stay one
//! library call per element.

mod float32;
use float32::run_blocks as run_blocks32;

use crate::exec::{Ctx, Step, Values, TASK};
use crate::plan::Planner;
use crate::pool::SharedMut;
use crate::simd::dispatch;
// `dispatch!` names the variants on x86-64 only.
#[cfg(target_arch = "x86_64")]
use crate::simd::Simd;
use crate::quant::FakeQuant;
use crate::vmath;
use webnn_core::graph::Source;
use webnn_core::ops::Op;
use webnn_core::{Operand, Result};
use webnn_cpu::kernels::elementwise::scalar::{FloatBinary, FloatUnary};

/// The other operand of a binary link.
#[derive(Clone, Copy, Debug)]
enum Other {
    /// Element-wise from a slot (index into the step's `inputs`).
    Input(usize),
    /// A one-element constant.
    Scalar(f64),
    /// Broadcast along the leading dimensions: a slot holding the running value's last
    /// dimensions (a bias row, a mask), element `k` of the value reading `k % period`.
    Row(usize, usize),
    /// Broadcast along leading and trailing dimensions (a per-channel scale [C, 1, 1] of an
    /// NCHW value): element `k` reads `(k / inner) % period`. Planned as `Channel` and made
    /// a `Row` (NHWC storage, channels last) or this once the chain's layout is known.
    Repeat(usize, usize, usize),
    /// A [.., C, 1, 1] operand of a 4-D value, before the chain's layout is chosen: the
    /// slot, C, and H * W.
    Channel(usize, usize, usize),
}

#[derive(Clone, Copy, Debug)]
enum Link {
    Unary(FloatUnary),
    /// `dequantizeLinear(quantizeLinear(value))` with one scale and zero point each (an
    /// activation of a QDQ model): two nodes, computed as the reference computes them.
    FakeQuant(FakeQuant),
    /// `cast(cast(value, 'float16'), 'float32')`: the value rounded to float16 (how a
    /// float16 model exported for runtimes without float16 kernels rounds after each op).
    RoundF16,
    /// prelu of the value with the slope `other`.
    Prelu(Other),
    /// `value op other`, or `other op value` when `swapped`.
    Binary {
        op: FloatBinary,
        other: Other,
        swapped: bool,
    },
}

impl Link {
    /// The other operand of a binary link (prelu's slope too).
    fn other_mut(&mut self) -> Option<&mut Other> {
        match self {
            Link::Binary { other, .. } | Link::Prelu(other) => Some(other),
            Link::Unary(_) | Link::FakeQuant(_) | Link::RoundF16 => None,
        }
    }
}

pub(crate) struct ChainStep {
    /// The slot the chain starts from, then the other operands (full-size or rows).
    inputs: Vec<usize>,
    /// Per input: the period of a broadcast row, `None` for a full-size operand.
    periods: Vec<Option<usize>>,
    links: Vec<Link>,
    out: usize,
    /// The output's shape; `None` in a dynamic graph, where it is the first input's at run
    /// time (every full-size operand has the same dimensions, by name).
    shape: Option<Vec<usize>>,
}

/// Elements carried through the links together.
const BLOCK: usize = 256;

/// The link node `n` would add to a chain whose running value is `value`, if it can, and the
/// last node it covers (`n`, or the dequantizeLinear of a fake-quantization pair).
fn link(p: &Planner, n: usize, value: Operand, inputs: &mut Vec<Operand>, start: usize) -> Option<(Link, usize)> {
    if let Some((pair, d)) = FakeQuant::pair(p, n, value) {
        return Some((Link::FakeQuant(pair), d));
    }
    if let Some(d) = p.round_trip(n, value) {
        return Some((Link::RoundF16, d));
    }
    one_link(p, n, value, inputs, start).map(|l| (l, n))
}

/// The link of one element-wise node.
fn one_link(
    p: &Planner,
    n: usize,
    value: Operand,
    inputs: &mut Vec<Operand>,
    start: usize,
) -> Option<Link> {
    let node = &p.orig.nodes[n];
    let y = node.outputs[0];
    if !p.is_f32(y) || !p.same_shape(y, value) {
        return None;
    }
    if let Some(f) = FloatUnary::of(&node.op, webnn_core::DataType::Float32) {
        return (node.op.operands() == [value]).then_some(Link::Unary(f));
    }
    // prelu: the running value is the input, the slope the other operand.
    if let Op::Prelu(a) = &node.op {
        if a.input != value || a.slope == value || !p.is_f32(a.slope) {
            return None;
        }
        return other_of(p, a.slope, value, inputs, start).map(Link::Prelu);
    }
    let op = FloatBinary::of(&node.op)?;
    let [a, b] = node.op.operands()[..] else {
        return None;
    };
    let (other, swapped) = match (a == value, b == value) {
        (true, false) => (b, false),
        (false, true) => (a, true),
        // x op x, or neither side the running value.
        _ => return None,
    };
    if !p.is_f32(other) {
        return None;
    }
    other_of(p, other, value, inputs, start).map(|other| Link::Binary { op, other, swapped })
}

/// How a binary link reads its other operand `other` (float32), if a chain can: a
/// one-element constant, a full-size value computed before the chain starts, or one
/// broadcast along a block of dimensions.
fn other_of(p: &Planner, other: Operand, value: Operand, inputs: &mut Vec<Operand>, start: usize) -> Option<Other> {
    let d = p.orig.desc(other);
    if d.max_elements() == 1 {
        if let Source::Constant(bytes) = &p.orig.info(other).source {
            let v = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            return Some(Other::Scalar(v as f64));
        }
    }
    // A full-size operand must exist before the chain's step runs.
    let ready = p.producer_of(other).is_none_or(|q| q < start);
    if !ready {
        return None;
    }
    if !p.same_shape(other, value) {
        if let Some(period) = row_period(p, other, value) {
            let i = slot_of(inputs, other);
            return Some(Other::Row(i, period));
        }
        let (period, inner, channel) = repeat_of(p, other, value)?;
        let i = slot_of(inputs, other);
        return Some(if channel { Other::Channel(i, period, inner) } else { Other::Repeat(i, period, inner) });
    }
    Some(Other::Input(slot_of(inputs, other)))
}

/// `o`'s position among the chain's inputs, added if new.
fn slot_of(inputs: &mut Vec<Operand>, o: Operand) -> usize {
    match inputs.iter().position(|&x| x == o) {
        Some(i) => i,
        None => {
            inputs.push(o);
            inputs.len() - 1
        }
    }
}

/// The element count of `other` when, its leading 1s dropped, its static shape is the last
/// dimensions of `value`'s (and it is stored in its logical layout).
fn row_period(p: &Planner, other: Operand, value: Operand) -> Option<usize> {
    if !p.orig.desc(other).is_static() || !p.orig.desc(value).is_static() || p.is_nhwc(other) {
        return None;
    }
    let (o, v) = (p.shape(other), p.shape(value));
    let o = &o[o.iter().position(|&d| d != 1).unwrap_or(o.len())..];
    (o.len() <= v.len() && v[v.len() - o.len()..] == *o).then(|| o.iter().product())
}

/// For `other` broadcast over leading and trailing dimensions of `value` (its dimensions
/// other than 1 are one block of `value`'s, aligned to the end as broadcasting aligns them):
/// the block's element count, the count of the dimensions after it, and whether it is the
/// channel axis of a 4-D value (whose bytes read the same in NCHW and NHWC).
fn repeat_of(p: &Planner, other: Operand, value: Operand) -> Option<(usize, usize, bool)> {
    if !p.orig.desc(other).is_static() || !p.orig.desc(value).is_static() {
        return None;
    }
    let (o, v) = (p.shape(other), p.shape(value));
    if o.len() > v.len() {
        return None;
    }
    let mut padded = vec![1; v.len() - o.len()];
    padded.extend(&o);
    let first = padded.iter().position(|&d| d != 1)?;
    let end = padded.iter().rposition(|&d| d != 1)? + 1;
    if padded[first..end] != v[first..end] || end == v.len() {
        return None;
    }
    let channel = v.len() == 4 && first == 1 && end == 2;
    if p.is_nhwc(other) && !channel {
        return None;
    }
    Some((v[first..end].iter().product(), v[end..].iter().product(), channel))
}

/// A chain of at least two links starting at node `n`, or `None`.
pub(crate) fn plan(p: &mut Planner, n: usize) -> Option<Step> {
    let first = &p.orig.nodes[n];
    if first.outputs.len() != 1 {
        return None;
    }
    // The running value starts as an operand of the first node: its only one for a unary
    // op, the first full-size float operand for a binary one.
    let head = match first.op.operands()[..] {
        [x] => x,
        [x, _, _] if matches!(first.op, Op::QuantizeLinear(_)) => x,
        // The operand of the output's shape, when only the second one has it (the first
        // being a scalar or a broadcast row).
        [a, b] if !p.same_shape(a, first.outputs[0]) && p.same_shape(b, first.outputs[0]) => b,
        [a, _] => a,
        _ => return None,
    };
    if !p.is_f32(head) {
        return None;
    }
    let mut inputs = vec![head];
    let (l, last) = link(p, n, head, &mut inputs, n)?;
    let mut links = vec![l];
    let mut nodes = vec![n, last];
    let mut value = p.orig.nodes[last].outputs[0];
    while let Some(u) = p.sole_user(value) {
        let Some((l, last)) = link(p, u, value, &mut inputs, n) else {
            break;
        };
        // Rounding to float16 twice in a row is rounding once.
        if !matches!((links.last(), l), (Some(Link::RoundF16), Link::RoundF16)) {
            links.push(l);
        }
        nodes.extend([u, last]);
        value = p.orig.nodes[last].outputs[0];
    }
    nodes.dedup();
    // A same-shape add/sub/mul/div/max/min followed by at most a clamp or relu has its own
    // float32 SIMD step (`Step::Binary`) in a static graph; a chain is for what that cannot
    // fuse, and for single ops too (one pass, split across the pool, no temporary tensor).
    let simd_binary = matches!(links[0], Link::Binary { other: Other::Input(_), op, .. }
        if !matches!(op, FloatBinary::Pow));
    let then_clamp = links[1..]
        .iter()
        .all(|l| matches!(l, Link::Unary(FloatUnary::Relu | FloatUnary::Clamp { .. })));
    if simd_binary && then_clamp && links.len() <= 2 && p.orig.desc(value).is_static() {
        return None;
    }
    for &u in &nodes[1..] {
        p.absorb(u);
    }
    // All full-size operands in one storage order: as they are when they agree, else each
    // in its logical layout.
    // A broadcast row indexes the logical layout: then every operand is read in it.
    let mut periods = vec![None; inputs.len()];
    let mut channels = vec![false; inputs.len()];
    let mut rows = false;
    for other in links.iter_mut().filter_map(Link::other_mut) {
        match other {
            Other::Row(i, period) | Other::Repeat(i, period, _) => {
                periods[*i] = Some(*period);
                rows = true;
            }
            Other::Channel(i, period, _) => {
                periods[*i] = Some(*period);
                channels[*i] = true;
            }
            Other::Input(_) | Other::Scalar(_) => {}
        }
    }
    let flag = p.is_nhwc(inputs[0]);
    let agree = !rows && inputs.iter().zip(&channels).all(|(&o, &c)| c || p.is_nhwc(o) == flag);
    let nhwc = agree && flag;
    // A per-channel operand is a row when channels are last, a repeat when they are not.
    for other in links.iter_mut().filter_map(Link::other_mut) {
        if let Other::Channel(i, period, inner) = *other {
            *other = if nhwc { Other::Row(i, period) } else { Other::Repeat(i, period, inner) };
        }
    }
    let slots = inputs
        .iter()
        .zip(&channels)
        .map(|(&o, &c)| if agree || c { o.index() } else { p.logical(o) })
        .collect();
    p.set_nhwc(value, nhwc);
    Some(Step::Chain(Box::new(ChainStep {
        inputs: slots,
        periods,
        links,
        out: value.index(),
        shape: p.orig.desc(value).is_static().then(|| p.shape(value)),
    })))
}

impl ChainStep {
    pub(crate) fn describe(&self) -> String {
        format!(
            "element-wise chain of {} ops over {}",
            self.links.len(),
            self.shape.as_ref().map_or("dynamic shape".into(), |s| format!("{s:?}"))
        )
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        self.inputs.clone()
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let shape = match &self.shape {
            Some(s) => s.clone(),
            None => values.get(self.inputs[0])?.shape.clone(),
        };
        let len: usize = shape.iter().product();
        for (&s, period) in self.inputs.iter().zip(&self.periods) {
            if values.f32(s)?.len() != period.unwrap_or(len) {
                return Err(webnn_core::Error::operation_error("element-wise chain: operand sizes disagree"));
            }
        }
        let mut y = values.alloc(len);
        {
            let inputs = self
                .inputs
                .iter()
                .map(|&s| values.f32(s))
                .collect::<Result<Vec<_>>>()?;
            let dst = SharedMut::new(&mut y);
            let inputs = &inputs[..];
            // A chain of correctly rounded links needs no float64 blocks (module `float32`).
            let float32 = self.in_float32();
            ctx.pool.run(len.div_ceil(TASK), &|t| {
                let range = t * TASK..((t + 1) * TASK).min(len);
                // SAFETY: each task writes its own range.
                let out = unsafe { dst.range(range.start, range.len()) };
                match float32 {
                    true => dispatch!(ctx.simd, run_blocks32(self, ctx.simd, out, range.start, inputs)),
                    false => dispatch!(ctx.simd, run_blocks(self, out, range.start, inputs)),
                }
            });
        }
        values.put(self.out, shape, y);
        Ok(())
    }

    /// One link over a block of running values (elements `at..` of the tensors), each
    /// result rounded to float32 as the op alone would store it. The op is matched once per
    /// block, not per element: each arm below is its own loop, where `apply` on a variant
    /// known at compile time inlines to its arithmetic and the plain ones vectorize.
    #[inline(always)]
    fn apply(&self, l: &Link, v: &mut [f64], inputs: &[&[f32]], at: usize) {
        match *l {
            // gelu and erf by the faster approximations (module approx), within a few ULP.
            Link::Unary(FloatUnary::Gelu) => unary(v, crate::approx::gelu),
            Link::Unary(FloatUnary::Erf) => unary(v, crate::approx::erf),
            Link::Unary(f) => {
                use FloatUnary as U;
                match f {
                    // Branch-free polynomials (module vmath): the reference's float32
                    // results but for a last-bit difference now and then.
                    U::Exp => unary(v, vmath::exp),
                    U::Sigmoid => unary(v, vmath::sigmoid),
                    U::Tanh => unary(v, vmath::tanh),
                    U::Elu { alpha } => unary(v, |x| vmath::elu(x, alpha)),
                    U::Neg => unary(v, |x| -x),
                    U::Abs => unary(v, f64::abs),
                    U::Identity => unary(v, |x| x),
                    U::Linear { alpha, beta } => unary(v, |x| alpha * x + beta),
                    // Compare-and-select ops (module `select`: NaN kept in every build).
                    U::Relu => unary(v, select::relu),
                    U::Clamp { lo, hi } => {
                        // A NaN bound compares false, as no bound does; as ∓∞ it stays out of
                        // relaxed min/max, which would return the NaN.
                        let lo = if lo.is_nan() { f64::NEG_INFINITY } else { lo };
                        let hi = if hi.is_nan() { f64::INFINITY } else { hi };
                        unary(v, |x| select::clamp(x, lo, hi))
                    }
                    U::LeakyRelu { alpha } => unary(v, |x| select::leaky_relu(x, alpha)),
                    U::HardSigmoid { alpha, beta } => unary(v, |x| select::hard_sigmoid(x, alpha, beta)),
                    U::HardSwish => unary(v, select::hard_swish),
                    other => unary(v, |x| unary_exact(other, x)),
                }
            }
            // Rounded to float32 inside.
            Link::FakeQuant(q) => q.apply(v),
            // The reference's cast (float16 from the value, to nearest even), branch-free.
            Link::RoundF16 => unary(v, vmath::round_f16),
            Link::Prelu(other) => binary(v, operand2(other, inputs, at, v.len()), select::prelu),
            Link::Binary { op, other, swapped } => {
                let other = operand2(other, inputs, at, v.len());
                use FloatBinary as B;
                match (op, swapped) {
                    (B::Add, _) => binary(v, other, |x, o| x + o),
                    (B::Mul, _) => binary(v, other, |x, o| x * o),
                    (B::Sub, false) => binary(v, other, |x, o| x - o),
                    (B::Sub, true) => binary(v, other, |x, o| o - x),
                    (B::Div, false) => match other {
                        Operand2::Scalar(d) => divide_by(v, d),
                        other => binary(v, other, |x, o| x / o),
                    },
                    (B::Div, true) => binary(v, other, |x, o| o / x),
                    (B::Max, false) => binary(v, other, select::max),
                    (B::Max, true) => binary(v, other, |x, o| select::max(o, x)),
                    (B::Min, false) => binary(v, other, select::min),
                    (B::Min, true) => binary(v, other, |x, o| select::min(o, x)),
                    // pow by a constant 2, 3 or 0.5 (a square, GELU-tanh's cube, a square
                    // root) as products and sqrt: x·x is exact and x·x·x rounds once in
                    // float64 (a float32 square has 48 bits), as a correctly rounded pow
                    // does; pow(±0, 0.5) is +0 and pow(-∞, 0.5) is +∞, where sqrt differs.
                    (B::Pow, false) if matches!(other, Operand2::Scalar(e) if e == 2.0) => unary(v, |x| x * x),
                    (B::Pow, false) if matches!(other, Operand2::Scalar(e) if e == 3.0) => unary(v, |x| x * x * x),
                    (B::Pow, false) if matches!(other, Operand2::Scalar(e) if e == 0.5) => {
                        unary(v, |x| if x == f64::NEG_INFINITY { f64::INFINITY } else { x.sqrt() + 0.0 })
                    }
                    // pow otherwise, and max and min where they stay out of line: one call
                    // per element.
                    (op, false) => binary(v, other, |x, o| binary_exact(op, x, o)),
                    (op, true) => binary(v, other, |x, o| binary_exact(op, o, x)),
                }
            }
        }
    }
}

/// The chain over `out` (elements `start..` of the result), block by block. Generic over
/// the `dispatch!` variants, so its loops are compiled for AVX-512 and AVX2 as well; no
/// fused multiply-adds either way (Rust never contracts `a * b + c`), so every variant
/// computes the same bits.
#[inline(always)]
fn run_blocks<const FMA: bool>(step: &ChainStep, out: &mut [f32], start: usize, inputs: &[&[f32]]) {
    let mut v = [0.0f64; BLOCK];
    for (b, chunk) in out.chunks_mut(BLOCK).enumerate() {
        let at = start + b * BLOCK;
        let v = &mut v[..chunk.len()];
        for (x, &h) in v.iter_mut().zip(&inputs[0][at..]) {
            *x = h as f64;
        }
        for l in &step.links {
            step.apply(l, v, inputs, at);
        }
        for (o, x) in chunk.iter_mut().zip(v.iter()) {
            *o = *x as f32;
        }
    }
}

/// A binary link's other operand over the block of `len` elements from `at`.
#[inline(always)]
fn operand2<'a>(other: Other, inputs: &[&'a [f32]], at: usize, len: usize) -> Operand2<'a> {
    match other {
        Other::Scalar(s) => Operand2::Scalar(s),
        Other::Input(i) => Operand2::Full(&inputs[i][at..at + len]),
        Other::Row(i, period) => Operand2::Row(inputs[i], period, at),
        Other::Repeat(i, period, inner) => Operand2::Repeat(inputs[i], period, inner, at),
        Other::Channel(..) => unreachable!("resolved when the chain is planned"),
    }
}

/// A binary link's other operand over one block.
#[derive(Clone, Copy)]
enum Operand2<'a> {
    Scalar(f64),
    /// The block's own elements of a full-size tensor.
    Full(&'a [f32]),
    /// A broadcast row: the tensor, its period and the block's first element.
    Row(&'a [f32], usize, usize),
    /// A repeat: the tensor, its period, the run each element repeats for, the first element.
    Repeat(&'a [f32], usize, usize, usize),
}

/// The reference's compare-and-select ops (webnn-cpu `scalar.rs`, `FloatUnary::apply` and
/// `FloatBinary::apply`), written out here so that they inline: `apply` matches every op and
/// is too large for LLVM to inline across crates, which left each element of these links a
/// call (a hard-swish chain took 3 ns an element instead of a fraction of one).
///
/// NaN: in wasm each ends in an explicit NaN test (`keep_nan`). LLVM turns the
/// compare-and-selects of a vectorized loop into min/max, which the relaxed-SIMD builds lower
/// to relaxed min/max, and those drop NaN on x86 (a clamp's NaN became its bound in the
/// threads build: WPT `clamp float16`); the test is a plain blend, so a NaN input gives NaN
/// whatever min/max did. Relaxed min/max may also return +0 where the reference gives -0
/// (relu(-0)); the two compare equal in WPT and to the fuzzer. Native x86 min/max and
/// blends keep the selects' meaning, so there the test is left out.
mod select {
    use super::Running;

    /// `r`, or `x` where `x` is NaN, in wasm.
    #[inline(always)]
    fn keep_nan<T: Running>(x: T, r: T) -> T {
        if cfg!(target_arch = "wasm32") && x.is_nan() {
            x
        } else {
            r
        }
    }

    #[inline(always)]
    pub(super) fn relu<T: Running>(x: T) -> T {
        let zero = T::from_f32(0.0);
        keep_nan(x, if x < zero { zero } else { x })
    }

    /// NaN fails both tests and passes through.
    #[inline(always)]
    pub(super) fn clamp<T: Running>(x: T, lo: T, hi: T) -> T {
        keep_nan(x, if x < lo { lo } else if x > hi { hi } else { x })
    }

    #[inline(always)]
    pub(super) fn leaky_relu<T: Running>(x: T, alpha: T) -> T {
        keep_nan(x, if x < T::from_f32(0.0) { alpha * x } else { x })
    }

    #[inline(always)]
    pub(super) fn hard_sigmoid(x: f64, alpha: f64, beta: f64) -> f64 {
        let y = alpha * x + beta;
        keep_nan(y, y.clamp(0.0, 1.0))
    }

    #[inline(always)]
    pub(super) fn hard_swish(x: f64) -> f64 {
        keep_nan(x, x * (x + 3.0).clamp(0.0, 6.0) / 6.0)
    }

    /// prelu (webnn-cpu `parametric.rs`): the slope times a negative value.
    #[inline(always)]
    pub(super) fn prelu<T: Running>(x: T, slope: T) -> T {
        keep_nan(x, if x < T::from_f32(0.0) { slope * x } else { x })
    }

    /// max and min propagate NaN.
    #[inline(always)]
    pub(super) fn max<T: Running>(x: T, y: T) -> T {
        if x.is_nan() || y.is_nan() {
            T::from_f32(f32::NAN)
        } else {
            x.fmax(y)
        }
    }

    #[inline(always)]
    pub(super) fn min<T: Running>(x: T, y: T) -> T {
        if x.is_nan() || y.is_nan() {
            T::from_f32(f32::NAN)
        } else {
            x.fmin(y)
        }
    }
}

/// `f.apply(x)` kept out of line, so it is never vectorized into instructions whose NaN
/// handling differs from the reference's (wasm's relaxed min/max).
#[inline(never)]
fn unary_exact(f: FloatUnary, x: f64) -> f64 {
    f.apply(x)
}

/// `op.apply(x, y)` kept out of line, for the same reason.
#[inline(never)]
fn binary_exact(op: FloatBinary, x: f64, y: f64) -> f64 {
    op.apply(x, y)
}

#[inline(always)]
fn round(x: f64) -> f64 {
    x as f32 as f64
}

/// `x / d` for a constant `d` (a hard-swish's `/ 6`), each result rounded to float32, by a
/// multiplication with `1/d`: an f64 division is most of such a chain's time. The float32
/// results are the division's. With `x` and `d` float32, `x / d` lies either exactly on a
/// float32 rounding boundary (a 25-bit midpoint; `x = mid * d` cannot hold, as `mid * d`
/// has at least 25 significant bits and `x` 24) or at least `2^-49` of its value away from
/// it (`x - mid * d` is a nonzero multiple of the lowest bit of `mid * d`, a 49-bit
/// product), while `x * (1/d)` is within `2^-52` of `x / d`, and so is the f64 quotient:
/// both round to the same float32. Results below float32's normal range have coarser
/// boundaries that break the argument, so a block holding one is divided instead.
#[inline(always)]
fn divide_by(v: &mut [f64], d: f64) {
    let r = 1.0 / d;
    if !(d.is_finite() && d != 0.0 && r.is_finite()) {
        return unary(v, |x| x / d);
    }
    const TINY: f64 = 2.350_988_701_644_575_e-38; // 2^-125
    // A count, not a flag: the sum vectorizes as a reduction.
    let tiny: u32 = v.iter().map(|&x| (x * r).abs()).map(|q| (q != 0.0 && q < TINY) as u32).sum();
    if tiny > 0 {
        unary(v, |x| x / d)
    } else {
        unary(v, |x| x * r)
    }
}

/// The type a chain's running values are held in: float64, each link's result rounded to
/// float32, or float32 itself (module `float32`, for links whose float32 result is that).
trait Running: Copy + PartialOrd + std::ops::Mul<Output = Self> {
    fn from_f32(v: f32) -> Self;
    fn from_f64(v: f64) -> Self;
    /// A link's result as the op alone would store it.
    fn stored(self) -> Self;
    fn is_nan(self) -> bool;
    /// The larger and the smaller (IEEE maxNum and minNum, as the reference's `max`/`min`).
    fn fmax(self, o: Self) -> Self;
    fn fmin(self, o: Self) -> Self;
}

impl Running for f64 {
    #[inline(always)]
    fn from_f32(v: f32) -> f64 {
        v as f64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f64 {
        v
    }
    #[inline(always)]
    fn stored(self) -> f64 {
        round(self)
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    #[inline(always)]
    fn fmax(self, o: f64) -> f64 {
        self.max(o)
    }
    #[inline(always)]
    fn fmin(self, o: f64) -> f64 {
        self.min(o)
    }
}

impl Running for f32 {
    #[inline(always)]
    fn from_f32(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    #[inline(always)]
    fn stored(self) -> f32 {
        self
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    #[inline(always)]
    fn fmax(self, o: f32) -> f32 {
        self.max(o)
    }
    #[inline(always)]
    fn fmin(self, o: f32) -> f32 {
        self.min(o)
    }
}

#[inline(always)]
fn unary<T: Running>(v: &mut [T], f: impl Fn(T) -> T) {
    // A plain loop, not `for_each`: that is a function of its own, which LLVM may leave out
    // of line, compiled without the caller's target features.
    for x in v.iter_mut() {
        *x = f(*x).stored();
    }
}

#[inline(always)]
fn binary<T: Running>(v: &mut [T], other: Operand2, f: impl Fn(T, T) -> T) {
    match other {
        Operand2::Scalar(s) => {
            let s = T::from_f64(s);
            for x in v.iter_mut() {
                *x = f(*x, s).stored();
            }
        }
        Operand2::Full(o) => {
            for (x, &o) in v.iter_mut().zip(o) {
                *x = f(*x, T::from_f32(o)).stored();
            }
        }
        // Runs of the block that read the row contiguously (or one repeated value), so the
        // inner loops vectorize and no element pays for a division.
        Operand2::Row(row, period, at) => {
            let (mut k, mut j) = (0, at % period);
            while k < v.len() {
                let n = (period - j).min(v.len() - k);
                for (x, &o) in v[k..k + n].iter_mut().zip(&row[j..j + n]) {
                    *x = f(*x, T::from_f32(o)).stored();
                }
                k += n;
                j = 0;
            }
        }
        Operand2::Repeat(row, period, inner, at) => {
            let mut k = 0;
            while k < v.len() {
                let i = at + k;
                let o = T::from_f32(row[(i / inner) % period]);
                let n = (inner - i % inner).min(v.len() - k);
                for x in &mut v[k..k + n] {
                    *x = f(*x, o).stored();
                }
                k += n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Division by a constant through its reciprocal gives the division's float32 results,
    /// over random float32 values of every magnitude (results below the normal range among
    /// them) and divisors with inexact reciprocals.
    #[test]
    fn dividing_by_a_constant_is_exact() {
        let mut rng = webnn_models::Rng::new(2);
        let mut next = || rng.next_u64();
        for d in [6.0f32, 3.0, 0.1, 7.0, 1e30, -1.7e-38, 1e-45, 255.0, f32::MAX] {
            for block in 0..2_000 {
                // Every other block keeps to exponents whose quotients stay normal, so the
                // reciprocal's path runs; the others hold anything, and mostly divide.
                let mut v: Vec<f64> = (0..256)
                    .map(|_| next() as u32)
                    .map(|b| if block % 2 == 0 { (b & 0x807f_ffff) | ((0x60 + b % 0x40) << 23) } else { b })
                    .map(f32::from_bits)
                    .filter(|x| !x.is_nan())
                    .map(|x| x as f64)
                    .collect();
                let want: Vec<u32> = v.iter().map(|&x| ((x / d as f64) as f32).to_bits()).collect();
                super::divide_by(&mut v, d as f64);
                for (i, (g, w)) in v.iter().zip(&want).enumerate() {
                    assert_eq!((*g as f32).to_bits(), *w, "d {d:e}, [{i}]");
                }
            }
        }
    }
}
