#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // only the AVX2 kernels read it
//! Input rows rounded to 16-bit integers, for the AVX2 one- and two-row kernels. AVX2 has
//! no cheap way to turn a weight byte into a float (widen, convert, then an FMA per eight
//! weights), but it multiplies sixteen 16-bit pairs and adds each two neighbours in one
//! instruction (`vpmaddwd`). So x is rounded once per call, each two neighbours to a step of
//! their own: `x ≈ step·xq` with `step = max(|x₀|, |x₁|) / 32767`; a weight vector's
//! products with x then sum exactly in 32-bit lanes, one lane per pair, and each lane is
//! scaled by its pair's step as it is converted to a float. The rounding error of each x is
//! at most 1/65534 of the larger of its pair (a step per block of 32 instead moved SmolLM2's
//! logits 300 times as far from the float64 model as float32 does, since one large value
//! coarsens its whole block). The shift's `Σ x` per block is summed from the unrounded
//! values.

/// `m` rows of `k` values, each two neighbours rounded to `step·xq`.
pub(super) struct Rows16 {
    pub(super) q: Vec<i16>,
    /// Per pair of values.
    pub(super) step: Vec<f32>,
    /// Per row and block: the sum of the unrounded values.
    pub(super) sum: Vec<f32>,
}

impl Rows16 {
    /// `None` when x holds an infinity or a NaN (the float kernels then give IEEE's answer)
    /// or the block is odd.
    pub(super) fn new(x: &[f32], block: usize) -> Option<Rows16> {
        if !block.is_multiple_of(2) || !x.iter().all(|v| v.is_finite()) {
            return None;
        }
        let mut rows = Rows16 {
            q: Vec::with_capacity(x.len()),
            step: Vec::with_capacity(x.len() / 2),
            sum: x.chunks_exact(block).map(|b| b.iter().sum()).collect(),
        };
        for p in x.chunks_exact(2) {
            let max = p[0].abs().max(p[1].abs());
            let inv = if max > 0.0 { 32767.0 / max } else { 0.0 };
            rows.q.extend([(p[0] * inv).round() as i16, (p[1] * inv).round() as i16]);
            rows.step.push(max / 32767.0);
        }
        Some(rows)
    }
}

/// One row of `Rows16`, as the kernels read it.
#[derive(Clone, Copy)]
pub(super) struct X16<'a> {
    pub(super) q: &'a [i16],
    pub(super) step: &'a [f32],
    pub(super) sum: &'a [f32],
}

impl Rows16 {
    /// Row `i` of rows of `blocks` blocks of `block`.
    pub(super) fn row(&self, i: usize, blocks: usize, block: usize) -> X16<'_> {
        let b = i * blocks..(i + 1) * blocks;
        X16 {
            q: &self.q[b.start * block..b.end * block],
            step: &self.step[b.start * block / 2..b.end * block / 2],
            sum: &self.sum[b],
        }
    }
}

impl X16<'_> {
    /// The kernels' bounds: `blocks` whole blocks of `block`.
    pub(super) fn check(&self, blocks: usize, block: usize) {
        assert!(self.q.len() >= blocks * block && 2 * self.step.len() >= blocks * block && self.sum.len() == blocks);
    }
}
