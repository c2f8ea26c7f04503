//! Data movement as copies: concat as block copies (each output row, everything before the
//! axis, is its inputs' rows side by side; features convolutions stored NHWC are joined along
//! their channels where they lie and the result stays NHWC), transpose as strided rows,
//! reshape as one copy into a recycled buffer, pad as row copies (spatial padding of
//! NHWC-stored features where they lie).

use crate::exec::{Ctx, Step, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::*;
use webnn_core::{Error, Result};

/// Output elements per task.
const TASK: usize = 32_768;

pub(crate) struct ConcatStep {
    inputs: Vec<usize>,
    /// Per input: the elements one output row takes from it.
    widths: Vec<usize>,
    rows: usize,
    out: usize,
    out_shape: Vec<usize>,
}

/// The fast step for a float32 concat with static shapes.
pub(crate) fn plan(p: &mut Planner, n: usize, a: &Concat) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(y) || a.inputs.iter().any(|&o| !p.is_f32(o)) || !p.orig.desc(y).is_static() {
        return None;
    }
    let axis = a.axis as usize;
    let shape = p.shape(y);
    let channels = axis == 1 && shape.len() == 4 && a.inputs.iter().all(|&o| p.is_nhwc(o));
    let (inputs, widths, rows, out_shape) = if channels {
        let [nb, _, h, w] = [shape[0], shape[1], shape[2], shape[3]];
        let widths = a.inputs.iter().map(|&o| p.shape(o)[1]).collect();
        (a.inputs.iter().map(|o| o.index()).collect(), widths, nb * h * w, vec![nb, h, w, shape[1]])
    } else {
        let inputs = a.inputs.iter().map(|&o| p.logical(o)).collect();
        let widths = a.inputs.iter().map(|&o| p.shape(o)[axis..].iter().product()).collect();
        (inputs, widths, shape[..axis].iter().product(), shape)
    };
    p.set_nhwc(y, channels);
    Some(Step::Concat(Box::new(ConcatStep { inputs, widths, rows, out: y.index(), out_shape })))
}

impl ConcatStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        self.inputs.clone()
    }

    pub(crate) fn describe(&self) -> String {
        format!("concat of {} inputs, {} rows of {:?}", self.inputs.len(), self.rows, self.widths)
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let width: usize = self.widths.iter().sum();
        for (&slot, &w) in self.inputs.iter().zip(&self.widths) {
            if values.f32(slot)?.len() != w * self.rows {
                return Err(Error::operation_error("concat: an input's size differs from the plan's"));
            }
        }
        let mut y = values.alloc(self.rows * width);
        {
            let xs = self.inputs.iter().map(|&s| values.f32(s)).collect::<Result<Vec<_>>>()?;
            let dst = SharedMut::new(&mut y);
            let per = (TASK / width.max(1)).max(1);
            ctx.pool.run(self.rows.div_ceil(per), &|t| {
                let rows = t * per..((t + 1) * per).min(self.rows);
                // SAFETY: each task writes its own rows.
                let out = unsafe { dst.range(rows.start * width, rows.len() * width) };
                for (r, row) in rows.zip(out.chunks_exact_mut(width)) {
                    let mut at = 0;
                    for (x, &w) in xs.iter().zip(&self.widths) {
                        row[at..at + w].copy_from_slice(&x[r * w..][..w]);
                        at += w;
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}

/// transpose (any rank, any permutation) and reshape (a copy into a recycled buffer): data
/// movement without the reference kernels' index maps and fresh allocations.
pub(crate) struct Permute {
    input: usize,
    out: usize,
    /// The output's elements in order walk this shape, with the input's stride along each
    /// axis (a reshape: one axis of stride 1; a broadcast axis: stride 0), from `offset`.
    /// Compacted (see `compact`): the walk's rows are as long as the layout allows, so a
    /// shape ending in a 1 does not make every element a row of its own.
    walk: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    out_shape: Vec<usize>,
    /// What the step does, for `describe`: the op it stands for.
    what: &'static str,
}

impl Permute {
    /// A strided copy of slot `input` into slot `out`, of shape `shape`, the input's stride
    /// along each axis `strides`, from `offset` (transpose, reshape; module `views`: slice,
    /// expand, split).
    pub(crate) fn strided(what: &'static str, input: usize, out: usize, shape: Vec<usize>, strides: Vec<usize>, offset: usize) -> Permute {
        Permute { offset, ..Permute::walking(what, input, out, (&shape, &strides), shape.clone()) }
    }

    /// A strided copy whose walk (`shape`, `strides`) has other axes than the output's
    /// `out_shape` (the same elements in the same order; tile walks each axis as repetition
    /// and input index).
    fn walking(what: &'static str, input: usize, out: usize, (shape, strides): (&[usize], &[usize]), out_shape: Vec<usize>) -> Permute {
        let (walk, [strides]) = compact(shape, [strides]);
        Permute { input, out, out_shape, walk, strides, offset: 0, what }
    }
}

/// The same walk with fewer axes, for `K` strided operands at once: axes of one element
/// dropped, and an axis merged into the next where stepping along it is, for every operand,
/// stepping a whole run of the next (`stride[d] = n[d + 1] * stride[d + 1]`). An empty
/// walk becomes one axis of one element.
pub(crate) fn compact<const K: usize>(walk: &[usize], strides: [&[usize]; K]) -> (Vec<usize>, [Vec<usize>; K]) {
    if walk.contains(&0) {
        return (vec![0], std::array::from_fn(|_| vec![1]));
    }
    let (mut w, mut s): (Vec<usize>, [Vec<usize>; K]) = (Vec::new(), std::array::from_fn(|_| Vec::new()));
    for d in (0..walk.len()).filter(|&d| walk[d] != 1) {
        let n = walk[d];
        let merges = !w.is_empty() && (0..K).all(|k| s[k][s[k].len() - 1] == n * strides[k][d]);
        match (merges, w.last_mut()) {
            (true, Some(last)) => {
                *last *= n;
                (0..K).for_each(|k| *s[k].last_mut().expect("as long as `w`") = strides[k][d]);
            }
            _ => {
                w.push(n);
                (0..K).for_each(|k| s[k].push(strides[k][d]));
            }
        }
    }
    if w.is_empty() {
        return (vec![1], std::array::from_fn(|_| vec![1]));
    }
    (w, s)
}

/// An operand's strides along the axes of the shape `out` it broadcasts to: its own,
/// right-aligned, 0 where it has one element and `out` more (expand; broadcast binaries).
pub(crate) fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let own = webnn_cpu::tensor::strides(shape);
    let lead = out.len() - shape.len();
    (0..out.len())
        .map(|d| match d.checked_sub(lead) {
            Some(k) if shape[k] == out[d] => own[k],
            _ => 0,
        })
        .collect()
}

/// The fast step for a float32 transpose with static shapes.
pub(crate) fn plan_transpose(p: &mut Planner, n: usize, a: &Transpose) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(y) || !p.orig.desc(y).is_static() {
        return None;
    }
    let xs = p.shape(a.input);
    let rank = xs.len();
    if rank == 0 {
        return None;
    }
    let perm: Vec<usize> = match &a.options.permutation {
        Some(v) => v.iter().map(|&d| d as usize).collect(),
        None => (0..rank).rev().collect(),
    };
    let mut in_strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        in_strides[d] = in_strides[d + 1] * xs[d + 1];
    }
    let walk: Vec<usize> = perm.iter().map(|&d| xs[d]).collect();
    let input = p.logical(a.input);
    let strides = perm.iter().map(|&d| in_strides[d]).collect();
    Some(Step::Permute(Box::new(Permute::strided("transpose", input, y.index(), walk, strides, 0))))
}

/// The fast step for a float32 tile with static shapes: the output walks each axis as
/// (repetition, input index), the repetition with stride 0.
pub(crate) fn plan_tile(p: &mut Planner, n: usize, a: &Tile) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(y) || !p.orig.desc(y).is_static() {
        return None;
    }
    let xs = p.shape(a.input);
    let in_strides = webnn_cpu::tensor::strides(&xs);
    let mut walk = Vec::with_capacity(2 * xs.len());
    let mut strides = Vec::with_capacity(2 * xs.len());
    for ((&d, &s), &r) in xs.iter().zip(&in_strides).zip(&a.repetitions) {
        walk.extend([r as usize, d]);
        strides.extend([0, s]);
    }
    let input = p.logical(a.input);
    Some(Step::Permute(Box::new(Permute::walking("tile", input, y.index(), (&walk, &strides), p.shape(y)))))
}

/// The fast step for a float32 reshape with static shapes: the same elements in order.
pub(crate) fn plan_reshape(p: &mut Planner, n: usize, a: &Reshape) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(y) || !p.orig.desc(y).is_static() {
        return None;
    }
    let out_shape = p.shape(y);
    let input = p.logical(a.input);
    let strides = webnn_cpu::tensor::strides(&out_shape);
    Some(Step::Permute(Box::new(Permute::strided("copy", input, y.index(), out_shape, strides, 0))))
}

impl Permute {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        format!("{} to {:?}", self.what, self.out_shape)
    }

    /// A walk whose last two axes transpose the input's contiguous axis (`[.., A, B]` with
    /// strides `[.., 1, s]`: NCHW to NHWC, a matrix transpose): `transpose_tiles`, each outer
    /// index's first input offset from the leading axes.
    fn transposed(&self, ctx: &Ctx, x: &[f32], y: &mut [f32]) {
        let rank = self.walk.len();
        let dims = (self.walk[rank - 2], self.walk[rank - 1], self.strides[rank - 1]);
        transpose_tiles(ctx, x, y, dims, &|o| {
            let (mut rest, mut base) = (o, self.offset);
            for d in (0..rank - 2).rev() {
                base += (rest % self.walk[d]) * self.strides[d];
                rest /= self.walk[d];
            }
            base
        });
    }

    /// The largest input index the walk reads, plus one.
    fn extent(&self) -> usize {
        let last: usize = self.walk.iter().zip(&self.strides).map(|(&n, &s)| n.saturating_sub(1) * s).sum();
        self.offset + last + 1
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let len: usize = self.walk.iter().product();
        let reach = if len == 0 { 0 } else { self.extent() };
        if values.f32(self.input)?.len() < reach {
            return Err(Error::operation_error(format!("{}: the input's size differs from the plan's", self.describe())));
        }
        let mut y = values.alloc(len);
        let rank = self.walk.len();
        if rank >= 2 && self.strides[rank - 2] == 1 && self.strides[rank - 1] > 1 {
            self.transposed(ctx, values.f32(self.input)?, &mut y);
            values.put(self.out, self.out_shape.clone(), y);
            return Ok(());
        }
        {
            let x = values.f32(self.input)?;
            // Rows along the last walked axis; tasks of whole rows.
            let last = *self.walk.last().unwrap_or(&1);
            let (stride, rows) = (*self.strides.last().unwrap_or(&1), len / last.max(1));
            let dst = SharedMut::new(&mut y);
            let per = (TASK / last.max(1)).max(1);
            ctx.pool.run(rows.div_ceil(per), &|t| {
                let range = t * per..((t + 1) * per).min(rows);
                // SAFETY: each task writes its own rows.
                let out = unsafe { dst.range(range.start * last, range.len() * last) };
                for (r, row) in range.zip(out.chunks_exact_mut(last)) {
                    // The row's first input offset from its index along the leading axes.
                    let (mut rest, mut at) = (r, self.offset);
                    for d in (0..rank - 1).rev() {
                        at += (rest % self.walk[d]) * self.strides[d];
                        rest /= self.walk[d];
                    }
                    match stride {
                        1 => row.copy_from_slice(&x[at..at + last]),
                        0 => row.fill(x[at]),
                        _ => row.iter_mut().enumerate().for_each(|(k, o)| *o = x[at + k * stride]),
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}

/// `y[o][a][b] = x[base(o) + a + b * s]` for `(a_len, b_len, s)`: matrices whose
/// contiguous axis becomes the strided one (NCHW to NHWC, a transpose), in 16 x 16 tiles and
/// in parallel. Row by row each output row would read one element from each of `b_len`
/// cache lines, and a line would be evicted before the next row reads its neighbour; a
/// serial scatter the other way strides its writes the same way.
pub(crate) fn transpose_tiles(ctx: &Ctx, x: &[f32], y: &mut [f32], (a_len, b_len, s): (usize, usize, usize), base: &(dyn Fn(usize) -> usize + Sync)) {
    const T: usize = 16;
    if a_len * b_len == 0 {
        return;
    }
    let outer = y.len() / (a_len * b_len);
    let tiles = a_len.div_ceil(T);
    let units = outer * tiles;
    let per = (TASK / (T * b_len)).max(1);
    let dst = SharedMut::new(y);
    ctx.pool.run(units.div_ceil(per), &|t| {
        for u in t * per..((t + 1) * per).min(units) {
            let (o, a0) = (u / tiles, (u % tiles) * T);
            let a1 = (a0 + T).min(a_len);
            let base = base(o);
            // SAFETY: each unit writes its own rows `a0..a1` of its outer index.
            let out = unsafe { dst.range((o * a_len + a0) * b_len, (a1 - a0) * b_len) };
            // Whole 8 x 8 blocks in registers where the machine has AVX; the columns from
            // `b0` element by element.
            #[cfg(target_arch = "x86_64")]
            let b0 = match ctx.simd != crate::simd::Simd::Base && a1 - a0 == T {
                // SAFETY: a `Simd` beyond `Base` comes from `Isa::detect`, which found AVX.
                true => unsafe { x86::blocks(&x[base + a0..], s, out, b_len) },
                false => 0,
            };
            #[cfg(not(target_arch = "x86_64"))]
            let b0 = 0;
            for b0 in (b0..b_len).step_by(T) {
                let b1 = (b0 + T).min(b_len);
                for (a, row) in (a0..a1).zip(out.chunks_exact_mut(b_len)) {
                    for (b, v) in (b0..b1).zip(&mut row[b0..b1]) {
                        *v = x[base + a + b * s];
                    }
                }
            }
        }
    });
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// `out`'s 16 rows of `b_len` (`out[j][b] = x[j + b·s]`), in whole 8 x 8 blocks from
    /// column 0; returns the first column not done.
    ///
    /// # Safety
    /// AVX present.
    pub(super) unsafe fn blocks(x: &[f32], s: usize, out: &mut [f32], b_len: usize) -> usize {
        let whole = b_len / 8 * 8;
        if whole == 0 {
            return 0;
        }
        assert!(15 + (whole - 1) * s < x.len() && out.len() >= 16 * b_len);
        for b0 in (0..whole).step_by(8) {
            for half in [0, 8] {
                // SAFETY: AVX is present (the caller's contract); the block's reads lie
                // within the bound asserted above, and its writes in `out`'s rows
                // `half..half + 8`.
                unsafe { block8(x.as_ptr().add(half + b0 * s), s, out[half * b_len + b0..].as_mut_ptr(), b_len) };
            }
        }
        whole
    }

    /// `y[j][k] = x[j + k·s]` for j, k < 8: eight input rows loaded, transposed in
    /// registers (unpack, shuffle, lane permute), stored as eight output rows `ldy` apart.
    ///
    /// # Safety
    /// AVX present; the 8 x 8 elements readable from `x` and writable at `y`.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn block8(x: *const f32, s: usize, y: *mut f32, ldy: usize) {
        unsafe {
            // (No closures: they would not inherit the target feature.)
            let mut r = [_mm256_setzero_ps(); 8];
            for (k, r) in r.iter_mut().enumerate() {
                *r = _mm256_loadu_ps(x.add(k * s));
            }
            let t = [
                _mm256_unpacklo_ps(r[0], r[1]),
                _mm256_unpackhi_ps(r[0], r[1]),
                _mm256_unpacklo_ps(r[2], r[3]),
                _mm256_unpackhi_ps(r[2], r[3]),
                _mm256_unpacklo_ps(r[4], r[5]),
                _mm256_unpackhi_ps(r[4], r[5]),
                _mm256_unpacklo_ps(r[6], r[7]),
                _mm256_unpackhi_ps(r[6], r[7]),
            ];
            let u = [
                _mm256_shuffle_ps::<0x44>(t[0], t[2]),
                _mm256_shuffle_ps::<0xEE>(t[0], t[2]),
                _mm256_shuffle_ps::<0x44>(t[1], t[3]),
                _mm256_shuffle_ps::<0xEE>(t[1], t[3]),
                _mm256_shuffle_ps::<0x44>(t[4], t[6]),
                _mm256_shuffle_ps::<0xEE>(t[4], t[6]),
                _mm256_shuffle_ps::<0x44>(t[5], t[7]),
                _mm256_shuffle_ps::<0xEE>(t[5], t[7]),
            ];
            for j in 0..4 {
                _mm256_storeu_ps(y.add(j * ldy), _mm256_permute2f128_ps::<0x20>(u[j], u[j + 4]));
                _mm256_storeu_ps(y.add((j + 4) * ldy), _mm256_permute2f128_ps::<0x31>(u[j], u[j + 4]));
            }
        }
    }
}

/// NCHW images (`n` of `c` planes of `hw`) to NHWC: `transpose_tiles` per image.
pub(crate) fn nchw_to_nhwc(ctx: &Ctx, src: &[f32], dst: &mut [f32], n: usize, c: usize, hw: usize) {
    debug_assert_eq!(dst.len(), n * c * hw);
    transpose_tiles(ctx, src, dst, (hw, c, hw), &|b| b * c * hw);
}

/// pad (constant, edge, reflection) as row copies, NHWC-stored features padded where they
/// lie when only their spatial axes grow (the result stays NHWC for the next convolution).
pub(crate) struct PadStep {
    input: usize,
    out: usize,
    /// Physical input and output shapes.
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
    /// Per axis, per output index: the input index it copies, or `None` for the constant.
    tables: Vec<Vec<Option<usize>>>,
    value: f32,
}

/// The input index output index `o` of an axis of `n` elements reads (`begin` padded before
/// it), as the reference's `pad` maps it.
fn pad_source(mode: PaddingMode, o: usize, begin: usize, n: usize) -> Option<usize> {
    let c = o as i64 - begin as i64;
    let n = n as i64;
    if (0..n).contains(&c) {
        return Some(c as usize);
    }
    match mode {
        PaddingMode::Constant => None,
        PaddingMode::Edge => Some(c.clamp(0, n - 1) as usize),
        PaddingMode::Reflection if n == 1 => Some(0),
        PaddingMode::Reflection => {
            let period = 2 * (n - 1);
            let m = c.rem_euclid(period);
            Some(if m < n { m } else { period - m } as usize)
        }
    }
}

/// The fast step for a float32 pad with static shapes.
pub(crate) fn plan_pad(p: &mut Planner, n: usize, a: &Pad) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(y) || !p.orig.desc(y).is_static() || p.shape(a.input).is_empty() {
        return None;
    }
    let (mut xs, mut ys) = (p.shape(a.input), p.shape(y));
    let mut begin: Vec<usize> = a.beginning_padding.iter().map(|&v| v as usize).collect();
    let spatial = xs.len() == 4 && ys[0] == xs[0] && ys[1] == xs[1];
    let nhwc = p.is_nhwc(a.input) && spatial;
    let input = if nhwc {
        // Logical NCHW axes in NHWC order.
        let perm = [0, 2, 3, 1];
        (xs, ys, begin) = (perm.map(|d| xs[d]).to_vec(), perm.map(|d| ys[d]).to_vec(), perm.map(|d| begin[d]).to_vec());
        a.input.index()
    } else {
        p.logical(a.input)
    };
    p.set_nhwc(y, nhwc);
    let tables = (0..xs.len()).map(|d| (0..ys[d]).map(|o| pad_source(a.options.mode, o, begin[d], xs[d])).collect()).collect();
    Some(Step::Pad(Box::new(PadStep {
        input,
        out: y.index(),
        in_shape: xs,
        out_shape: ys,
        tables,
        value: a.options.value.as_f64() as f32,
    })))
}

impl PadStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        format!("pad {:?} to {:?}", self.in_shape, self.out_shape)
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let len: usize = self.out_shape.iter().product();
        if values.f32(self.input)?.len() != self.in_shape.iter().product::<usize>() {
            return Err(Error::operation_error("pad: the input's size differs from the plan's"));
        }
        let rank = self.out_shape.len();
        let mut in_strides = vec![1usize; rank];
        for d in (0..rank - 1).rev() {
            in_strides[d] = in_strides[d + 1] * self.in_shape[d + 1];
        }
        let last = self.out_shape[rank - 1];
        let rows = len / last;
        // The last axis unpadded: each row is one slice of the input.
        let whole = self.tables[rank - 1].iter().enumerate().all(|(o, s)| *s == Some(o)) && last == self.in_shape[rank - 1];
        let mut y = values.alloc(len);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            let per = (TASK / last).max(1);
            ctx.pool.run(rows.div_ceil(per), &|t| {
                let range = t * per..((t + 1) * per).min(rows);
                // SAFETY: each task writes its own rows.
                let out = unsafe { dst.range(range.start * last, range.len() * last) };
                for (r, row) in range.zip(out.chunks_exact_mut(last)) {
                    let (mut rest, mut at) = (r, Some(0usize));
                    for d in (0..rank - 1).rev() {
                        let o = rest % self.out_shape[d];
                        rest /= self.out_shape[d];
                        at = at.zip(self.tables[d][o]).map(|(a, i)| a + i * in_strides[d]);
                    }
                    match at {
                        None => row.fill(self.value),
                        Some(at) if whole => row.copy_from_slice(&x[at..at + last]),
                        Some(at) => {
                            for (v, s) in row.iter_mut().zip(&self.tables[rank - 1]) {
                                *v = s.map_or(self.value, |i| x[at + i]);
                            }
                        }
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::Pool;

    /// Every element lands where it belongs, in 8 x 8 blocks (AVX) and element by element,
    /// with whole and partial tiles, on every ISA the machine has.
    #[test]
    fn nchw_to_nhwc_moves_every_element() {
        let pool = Pool::new(3);
        for isa in webnn_gemm::Isa::available() {
            let ctx = Ctx { pool: &pool, simd: crate::simd::Simd::for_isa(isa) };
            for (n, c, hw) in [(2, 3, 5), (1, 40, 6), (2, 17, 33), (1, 96, 300), (2, 24, 37)] {
                let v: Vec<f32> = (0..n * c * hw).map(|i| i as f32).collect();
                let mut t = vec![0.0; v.len()];
                nchw_to_nhwc(&ctx, &v, &mut t, n, c, hw);
                for (b, ch, p) in (0..n).flat_map(|b| (0..c).flat_map(move |ch| (0..hw).map(move |p| (b, ch, p)))) {
                    assert_eq!(t[(b * hw + p) * c + ch], v[(b * c + ch) * hw + p], "{isa}");
                }
            }
        }
    }
}
