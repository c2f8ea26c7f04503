#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // only the AVX2 kernels read it
//! Input rows rounded to 16-bit integers, for the AVX2 one- and two-row kernels. AVX2 has
//! no cheap way to turn a weight byte into a float, but it multiplies sixteen 16-bit pairs
//! and adds each two neighbours in one instruction (`vpmaddwd`). So x is rounded once per
//! call, each four neighbours to a step of their own, `x ≈ step·xq` with `step =
//! max|x| / 32767`: a weight vector's products with x sum exactly in 32-bit lanes, one lane
//! per four values, and each lane is scaled by its step as it is converted to a float.
//!
//! The kernel reads the weights 32 bytes at a time without widening them: each 16-bit lane
//! holds two weight bytes, which a mask and shifts split into even and odd (and, for 4 bits,
//! low and high nibble) vectors. So x is stored here in the order those vectors' lanes take,
//! and the products of an even and an odd vector add into the same four values' lane before
//! the one conversion. The rounding error of each x is at most 1/65534 of the largest of its
//! four (SmolLM2's logits: 7.0e-3 from the float64 model's against 3.4e-3 with a step per
//! two values, whose kernel needed twice the conversions and FMAs and was 15% slower; a step
//! per block of 32 gave 2.6e-2, since one large value coarsens its whole block). The shift's
//! `Σ x` per block is summed from the unrounded values.

/// Weights per 32-byte load: 64 for 4 bits, 32 for 8.
pub(super) fn group(bits: u8) -> usize {
    256 / bits as usize
}

/// The position within its group of x's value in lane `l` of the kernel's 16-lane vector `v`
/// of a `bits`-bit group in blocks of `block`. 8 bits: vector 0 holds the even bytes, 1 the
/// odd ones. 4 bits: byte t of a block holds value t in its low nibble and t + block/2 in
/// its high one; vectors 0 and 1 are the even and odd bytes' low nibbles, 2 and 3 their
/// high ones, and a group holds two blocks of 32 (lanes 0-7 the first) or one of 64.
fn position(bits: u8, block: usize, v: usize, l: usize) -> usize {
    if bits == 8 {
        return 2 * l + v;
    }
    let lanes = block / 4;
    (l / lanes) * block + (v / 2) * (block / 2) + 2 * (l % lanes) + v % 2
}

/// Where each slot and product lane of a group reads from, for one layer's bits and block:
/// built with the layer, used by every call.
pub(super) struct Layout16 {
    bits: u8,
    block: usize,
    /// Per slot of a group, its value's position (`position`).
    slots: Vec<usize>,
    /// Per product lane of a group, the quad it sums.
    lanes: Vec<usize>,
}

impl Layout16 {
    pub(super) fn new(bits: u8, block: usize) -> Layout16 {
        let group = group(bits);
        Layout16 {
            bits,
            block,
            slots: (0..group).map(|s| position(bits, block, s / 16, s % 16)).collect(),
            lanes: (0..group / 4).map(|t| position(bits, block, 2 * (t / 8), 2 * (t % 8)) / 4).collect(),
        }
    }
}

/// `m` rows of `k` values in the kernel's order.
pub(super) struct Rows16 {
    pub(super) q: Vec<i16>,
    /// Per four values, in the order of the kernel's product lanes: per group, those of
    /// vectors 0 and 1, then (4 bits) of vectors 2 and 3.
    pub(super) step: Vec<f32>,
    /// Per row and block: the sum of the unrounded values.
    pub(super) sum: Vec<f32>,
    k: usize,
}

impl Rows16 {
    /// Rows of `k` values to multiply with weights of `layout`'s bits and blocks; `None`
    /// when x holds an infinity or a NaN (the float kernels then give IEEE's answer) or `k`
    /// is not a whole number of the kernel's groups.
    pub(super) fn new(x: &[f32], k: usize, layout: &Layout16) -> Option<Rows16> {
        let (group, block) = (group(layout.bits), layout.block);
        if !k.is_multiple_of(group) || !x.len().is_multiple_of(k) || !x.iter().all(|v| v.is_finite()) {
            return None;
        }
        // Per quad of values in their own order: the inverse step and the step.
        let (mut inv, mut steps) = (Vec::with_capacity(x.len() / 4), Vec::with_capacity(x.len() / 4));
        for quad in x.chunks_exact(4) {
            let max = quad.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            inv.push(if max > 0.0 { 32767.0 / max } else { 0.0 });
            steps.push(max / 32767.0);
        }
        let mut rows = Rows16 {
            q: Vec::with_capacity(x.len()),
            step: Vec::with_capacity(x.len() / 4),
            sum: x.chunks_exact(block).map(|b| b.iter().sum()).collect(),
            k,
        };
        for (g, values) in x.chunks_exact(group).enumerate() {
            let (inv, steps) = (&inv[g * group / 4..], &steps[g * group / 4..]);
            rows.q.extend(layout.slots.iter().map(|&p| round(values[p] * inv[p / 4])));
            rows.step.extend(layout.lanes.iter().map(|&t| steps[t]));
        }
        Some(rows)
    }

    /// Row `i`.
    pub(super) fn row(&self, i: usize) -> X16<'_> {
        let (k, blocks) = (self.k, self.sum.len() * self.k / self.q.len());
        X16 {
            q: &self.q[i * k..(i + 1) * k],
            step: &self.step[i * k / 4..(i + 1) * k / 4],
            sum: &self.sum[i * blocks..(i + 1) * blocks],
        }
    }
}

/// `v` (at most 32767 in size) to the nearest integer, ties to even: adding 1.5·2²³ leaves
/// no fraction bits, in arithmetic that vectorises (`f32::round` is a call to libm on x86-64
/// without SSE4.1).
#[inline(always)]
fn round(v: f32) -> i16 {
    const MAGIC: f32 = 12_582_912.0;
    ((v + MAGIC) - MAGIC) as i16
}

/// One row of `Rows16`, as the kernels read it.
#[derive(Clone, Copy)]
pub(super) struct X16<'a> {
    pub(super) q: &'a [i16],
    pub(super) step: &'a [f32],
    pub(super) sum: &'a [f32],
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of a group appears once, and each product lane's two vectors (even and
    /// odd) read the same four neighbours.
    #[test]
    fn positions_cover_each_group_and_lanes_read_quads() {
        for (bits, block) in [(4u8, 32usize), (4, 64), (8, 16), (8, 32), (8, 64)] {
            let group = group(bits);
            let mut seen = vec![false; group];
            for s in 0..group {
                let p = position(bits, block, s / 16, s % 16);
                assert!(!seen[p], "{bits}-bit, block {block}: {p} twice");
                seen[p] = true;
            }
            for v in (0..group / 16).step_by(2) {
                for j in 0..8 {
                    let quad: Vec<usize> = [(v, 2 * j), (v, 2 * j + 1), (v + 1, 2 * j), (v + 1, 2 * j + 1)]
                        .iter()
                        .map(|&(v, l)| position(bits, block, v, l) / 4)
                        .collect();
                    assert!(quad.iter().all(|&q| q == quad[0]), "{bits}-bit, block {block}: {quad:?}");
                    // Two blocks per group (4-bit 32, 8-bit 16): lanes 0-3 in the first.
                    let at = position(bits, block, v, 2 * j) % group;
                    assert_eq!(at / block, if block * bits as usize == 128 { j / 4 } else { 0 });
                }
            }
        }
    }

    #[test]
    fn rounding_is_to_the_nearest_even() {
        assert_eq!([round(2.5), round(3.5), round(-2.5), round(32767.0), round(-32767.0), round(0.49)], [2, 4, -2, 32767, -32767, 0]);
    }
}
