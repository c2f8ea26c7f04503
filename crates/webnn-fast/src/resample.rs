//! resample2d (nearest neighbour and linear, float32) as a gather over precomputed taps: per
//! resampled axis, each output index's two source indices and weight, computed with the
//! reference kernel's half-pixel arithmetic and blended in f64 as it blends, so results are
//! bit for bit the reference's. A value stored NHWC is resampled where it lies (its spatial
//! axes are the storage's axes 1 and 2) and stays NHWC.

use crate::exec::{Ctx, Step, Values, TASK};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::Resample2d;
use webnn_core::{Error, Result};
use webnn_cpu::kernels::pool::{axis_taps, lerp};

pub(crate) struct ResampleStep {
    input: usize,
    out: usize,
    /// Physical (storage-order) shapes.
    in_shape: [usize; 4],
    out_shape: [usize; 4],
    /// Per physical axis, per output index: (first source, second source, weight of the
    /// second). Axes not resampled map each index to itself.
    taps: [Vec<(usize, usize, f64)>; 4],
    /// The resampled physical axes, in order.
    axes: [usize; 2],
}

pub(crate) fn plan(p: &mut Planner, n: usize, a: &Resample2d) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(y) || !p.orig.desc(y).is_static() || !p.orig.desc(a.input).is_static() {
        return None;
    }
    let (xs, ys) = (p.shape(a.input), p.shape(y));
    let logical_axes = match &a.options.axes {
        Some(v) if v.len() == 2 => [v[0] as usize, v[1] as usize],
        _ => [2, 3],
    };
    // NHWC storage of NCHW logical axes: logical d lives at physical position perm[d].
    let nhwc = p.is_nhwc(a.input) && logical_axes == [2, 3];
    let (input, order) = if nhwc { (a.input.index(), [0, 2, 3, 1]) } else { (p.logical(a.input), [0, 1, 2, 3]) };
    p.set_nhwc(y, nhwc);
    // order[physical] = the logical axis stored there.
    let phys = |s: &[usize]| -> [usize; 4] { [s[order[0]], s[order[1]], s[order[2]], s[order[3]]] };
    let (in_shape, out_shape) = (phys(&xs), phys(&ys));
    let resampled = |logical: usize| logical_axes.contains(&logical).then_some(a.options.mode);
    let taps = [0, 1, 2, 3].map(|d| axis_taps(in_shape[d], out_shape[d], resampled(order[d])));
    let mut axes = [0usize; 2];
    for (k, &l) in logical_axes.iter().enumerate() {
        axes[k] = order.iter().position(|&o| o == l)?;
    }
    Some(Step::Resample(Box::new(ResampleStep { input, out: y.index(), in_shape, out_shape, taps, axes })))
}

impl ResampleStep {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        format!("resample {:?} -> {:?}", self.in_shape, self.out_shape)
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let s = self.in_shape;
        if values.f32(self.input)?.len() != s.iter().product::<usize>() {
            return Err(Error::operation_error("resample2d: the input's size differs from the plan's"));
        }
        let strides = [s[1] * s[2] * s[3], s[2] * s[3], s[3], 1];
        let o = self.out_shape;
        let last = o[3];
        let rows = o[0] * o[1] * o[2];
        let [ya, yb] = self.axes;
        let mut y = values.alloc(rows * last);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            let per = (TASK / last).max(1);
            ctx.pool.run(rows.div_ceil(per), &|t| {
                let range = t * per..((t + 1) * per).min(rows);
                // SAFETY: each task writes its own rows.
                let out = unsafe { dst.range(range.start * last, range.len() * last) };
                for (r, row) in range.zip(out.chunks_exact_mut(last)) {
                    let at = [r / (o[1] * o[2]), (r / o[2]) % o[1], r % o[2]];
                    // The row's offset along the axes it fixes that are not resampled.
                    let base: usize = (0..3).filter(|&d| d != ya && d != yb).map(|d| self.taps[d][at[d]].0 * strides[d]).sum();
                    if ya == 3 {
                        // The first-named axis is the last one (axes [3, 2]): it varies along
                        // the row and the other is fixed; the blend keeps the reference's order.
                        let (b0, b1, tb) = self.taps[yb][at[yb]];
                        let (sb0, sb1) = (base + b0 * strides[yb], base + b1 * strides[yb]);
                        for (v, &(a0, a1, ta)) in row.iter_mut().zip(&self.taps[3]) {
                            let px = |s: usize, i: usize| x[s + i] as f64;
                            *v = lerp(lerp(px(sb0, a0), px(sb0, a1), ta), lerp(px(sb1, a0), px(sb1, a1), ta), tb) as f32;
                        }
                        continue;
                    }
                    let (a0, a1, ta) = self.taps[ya][at[ya]];
                    let (sa0, sa1) = (base + a0 * strides[ya], base + a1 * strides[ya]);
                    if yb == 3 {
                        // The last axis is resampled: its taps vary along the row.
                        for (v, &(b0, b1, tb)) in row.iter_mut().zip(&self.taps[3]) {
                            let px = |s: usize, j: usize| x[s + j] as f64;
                            *v = lerp(lerp(px(sa0, b0), px(sa1, b0), ta), lerp(px(sa0, b1), px(sa1, b1), ta), tb) as f32;
                        }
                        continue;
                    }
                    // Both resampled axes are fixed by the row: four source runs blended
                    // (or, nearest, one copied), as the reference blends each element.
                    let (b0, b1, tb) = self.taps[yb][at[yb]];
                    let run = |s: usize, j: usize| &x[s + j * strides[yb]..s + j * strides[yb] + last];
                    let (p00, p10, p01, p11) = (run(sa0, b0), run(sa1, b0), run(sa0, b1), run(sa1, b1));
                    if ta == 0.0 && tb == 0.0 {
                        row.copy_from_slice(p00);
                        continue;
                    }
                    for (i, v) in row.iter_mut().enumerate() {
                        let f = |p: &[f32]| p[i] as f64;
                        *v = lerp(lerp(f(p00), f(p10), ta), lerp(f(p01), f(p11), ta), tb) as f32;
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.to_vec(), y);
        Ok(())
    }
}
