//! Binary element-wise ops whose operands broadcast against each other rather than one
//! being the output's shape (`[1, 1, C] * [1, R, 1]`: a layer normalization written as
//! primitives scales each row's inverse deviation by a per-channel weight). Chains take an
//! operand broadcast into the running value, but here neither side is the output's shape.
//! The walk is compacted as `copy::Permute`'s is (`copy::compact`), so each output row reads
//! each operand as a contiguous run or one repeated value, and the row runs through the same
//! vector loops as same-shape binary steps (`simd::binary`): the same float32 results.

use crate::copy::{broadcast_strides, compact};
use crate::exec::{Ctx, Post, Step, Values, TASK};
use crate::plan::Planner;
use crate::pool::SharedMut;
use crate::simd::{self, BinaryKind};
use webnn_core::{Error, Operand, Result};

pub(crate) struct BroadcastStep {
    kind: BinaryKind,
    a: usize,
    b: usize,
    out: usize,
    out_shape: Vec<usize>,
    /// The output's compacted walk, and each operand's stride along each of its axes (0
    /// where the operand repeats).
    walk: Vec<usize>,
    a_strides: Vec<usize>,
    b_strides: Vec<usize>,
    post: Post,
}

/// The step for `a kind b` with static float32 shapes that broadcast to the output's.
pub(crate) fn plan(p: &mut Planner, n: usize, kind: BinaryKind, a: Operand, b: Operand) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if [a, b, y].iter().any(|&o| !p.is_f32(o) || !p.orig.desc(o).is_static()) {
        return None;
    }
    let shape = p.shape(y);
    if shape.contains(&0) {
        return None;
    }
    let (sa, sb) = (broadcast_strides(&p.shape(a), &shape), broadcast_strides(&p.shape(b), &shape));
    let (walk, [a_strides, b_strides]) = compact(&shape, [&sa, &sb]);
    // Along the last axis an operand is contiguous or repeats (its later axes all have one
    // element); `run` reads it so.
    if [&a_strides, &b_strides].iter().any(|s| s[s.len() - 1] > 1) {
        return None;
    }
    let (a, b) = (p.logical(a), p.logical(b));
    let (post, out) = p.tail(n, y, false, false);
    Some(Step::Broadcast(Box::new(BroadcastStep { kind, a, b, out: out.index(), out_shape: shape, walk, a_strides, b_strides, post })))
}

/// One operand's elements for one output row.
enum Run<'a> {
    Slice(&'a [f32]),
    Repeat(f32),
}

/// The `len` elements from `at` with stride `s` (1 or 0: a broadcast operand is contiguous
/// where it is not repeated).
fn run(v: &[f32], at: usize, s: usize, len: usize) -> Run<'_> {
    match s {
        0 => Run::Repeat(v[at]),
        _ => Run::Slice(&v[at..at + len]),
    }
}

impl BroadcastStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.a, self.b]
    }

    pub(crate) fn describe(&self) -> String {
        format!("{:?} broadcast to {:?}{}", self.kind, self.out_shape, self.post.describe())
    }

    /// The number of elements an operand with these strides must hold.
    fn reach(&self, strides: &[usize]) -> usize {
        self.walk.iter().zip(strides).map(|(&n, &s)| (n - 1) * s).sum::<usize>() + 1
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let len: usize = self.out_shape.iter().product();
        let (va, vb) = (values.f32(self.a)?, values.f32(self.b)?);
        if va.len() < self.reach(&self.a_strides) || vb.len() < self.reach(&self.b_strides) {
            return Err(Error::operation_error(format!("{}: the operands' sizes differ from the plan's", self.describe())));
        }
        let mut y = values.alloc(len);
        {
            let (va, vb) = (values.f32(self.a)?, values.f32(self.b)?);
            let rank = self.walk.len();
            let last = self.walk[rank - 1];
            let rows = len / last;
            let per = (TASK / last).max(1);
            let dst = SharedMut::new(&mut y);
            let simd = ctx.simd;
            ctx.pool.run(rows.div_ceil(per), &|t| {
                let range = t * per..((t + 1) * per).min(rows);
                // SAFETY: each task writes its own rows.
                let out = unsafe { dst.range(range.start * last, range.len() * last) };
                let mut fill = Vec::new();
                for (r, row) in range.clone().zip(out.chunks_exact_mut(last)) {
                    let (mut rest, mut at_a, mut at_b) = (r, 0, 0);
                    for d in (0..rank - 1).rev() {
                        let i = rest % self.walk[d];
                        rest /= self.walk[d];
                        at_a += i * self.a_strides[d];
                        at_b += i * self.b_strides[d];
                    }
                    // A repeated value is written out once per row for the vector loop
                    // (both operands repeat only where the row is one element).
                    let (x, z) = match (run(va, at_a, self.a_strides[rank - 1], last), run(vb, at_b, self.b_strides[rank - 1], last)) {
                        (Run::Slice(x), Run::Slice(z)) => (x, z),
                        (Run::Slice(x), Run::Repeat(c)) => {
                            fill.clear();
                            fill.resize(last, c);
                            (x, &fill[..])
                        }
                        (Run::Repeat(c), Run::Slice(z)) => {
                            fill.clear();
                            fill.resize(last, c);
                            (&fill[..], z)
                        }
                        (Run::Repeat(c), Run::Repeat(e)) => {
                            simd::binary(simd, self.kind, &[c], &[e], row, self.post.lo, self.post.hi);
                            continue;
                        }
                    };
                    simd::binary(simd, self.kind, x, z, row, self.post.lo, self.post.hi);
                }
                self.post.finish(simd, out, None, range.start * last);
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}
