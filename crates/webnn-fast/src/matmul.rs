//! gemm and matmul on the packed-B GEMM. Constant B (weights) is packed once at compile,
//! with `alpha` folded into it and `beta * C` into the bias when C is constant and
//! broadcasts along rows (any other C is added after the product); a B computed by the
//! graph is packed per dispatch, which costs one pass over it.

use crate::exec::{unit_rows, Ctx, Post, Step, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::*;
use webnn_core::Result;
use webnn_cpu::tensor::broadcast_map;
use webnn_gemm::{gemm, gemm_block, gemm_rows, Isa, PackedB};

/// `alpha * A·B + beta * C`.
pub(crate) struct GemmStep {
    a: usize,
    out: usize,
    a_transpose: bool,
    m: usize,
    k: usize,
    /// A constant B as `(first column, packed columns)` blocks: one block, or with a single
    /// row several (see [`GEMV_COLUMNS`]); empty for a B the graph computes (`runtime_b`).
    blocks: Vec<(usize, PackedB)>,
    /// A QDQ model's gemm in integers (`qconv`), in place of `blocks`.
    int8: Option<crate::qconv::QPointwise>,
    /// A B the graph computes: its slot, whether it is transposed, `alpha` and the bias
    /// (`beta` times a constant C's row); packed per dispatch.
    runtime_b: Option<(usize, bool, f32, Option<Vec<f32>>)>,
    /// A C that is not one row for all (or not constant), added after the product.
    c: Option<CTerm>,
    isa: Isa,
    n: usize,
    post: Post,
}

/// `beta * C` broadcast to the output: C's values (constant) or slot, and C's strides along
/// the output's rows and columns (0 where it broadcasts).
struct CTerm {
    values: Result<Vec<f32>, usize>,
    strides: [usize; 2],
    beta: f64,
}

/// With a single row (a fully connected layer at batch 1) there are no rows to share out,
/// and reading B is the whole cost, so B is packed in blocks of this many columns, one
/// task each. The split depends on N alone, so results do not depend on the thread count.
const GEMV_COLUMNS: usize = 256;

/// Row-major transpose of an `r` x `c` matrix.
fn transpose(v: &[f32], r: usize, c: usize) -> Vec<f32> {
    let mut t = vec![0.0; v.len()];
    for i in 0..r {
        for j in 0..c {
            t[j * r + i] = v[i * c + j];
        }
    }
    t
}

pub(crate) fn plan_gemm(p: &mut Planner, n: usize, g: &Gemm) -> Option<Step> {
    let o = &g.options;
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(g.a) || !p.is_f32(g.b) || !p.is_f32(y) || o.c.is_some_and(|c| !p.is_f32(c)) {
        return None;
    }
    let (ys, bs) = (p.shape(y), p.shape(g.b));
    let (m, nn) = (ys[0], ys[1]);
    let k = if o.b_transpose { bs[1] } else { bs[0] };
    if [m, k, nn].contains(&0) {
        return None;
    }
    let alpha = o.alpha as f32;
    let b = p.const_f32(g.b).map(|b| {
        let mut b = if o.b_transpose { transpose(&b, nn, k) } else { b };
        if alpha != 1.0 {
            b.iter_mut().for_each(|v| *v *= alpha);
        }
        b
    });
    // A constant C that is the same for every row becomes the bias; any other is added
    // after the product, as `beta * C` broadcast.
    let (bias, c) = match o.c {
        None => (None, None),
        Some(c) => {
            let (cv, cs) = (p.const_f32(c), p.shape(c));
            let row: Option<Vec<f32>> = match (&cv, cs.as_slice()) {
                (Some(cv), [] | [1] | [1, 1]) => Some(vec![cv[0]; nn]),
                (Some(cv), [x] | [1, x]) if *x == nn => Some(cv.clone()),
                _ => None,
            };
            match row {
                Some(row) => (Some(row.iter().map(|v| o.beta as f32 * v).collect::<Vec<f32>>()), None),
                None => {
                    let values = cv.ok_or_else(|| p.logical(c));
                    let s = crate::copy::broadcast_strides(&cs, &[m, nn]);
                    (None, Some(CTerm { values, strides: [s[0], s[1]], beta: o.beta }))
                }
            }
        }
    };
    let int8 = (!o.a_transpose && alpha == 1.0 && b.is_some())
        .then(|| {
            let weights = |v: &[f32]| if o.b_transpose { v.to_vec() } else { transpose(v, k, nn) };
            crate::qconv::plan(p, g.a, g.b, weights, k, nn, bias.as_deref())
        })
        .flatten();
    let width = if m == 1 { GEMV_COLUMNS } else { nn };
    // The integer kernel replaces the packed float columns.
    let blocks = match (&b, &int8) {
        (Some(b), None) => (0..nn)
            .step_by(width)
            .map(|n0| {
                let w = width.min(nn - n0);
                let cols: Vec<f32> = b.chunks_exact(nn).flat_map(|row| &row[n0..n0 + w]).copied().collect();
                let bias = bias.as_ref().map(|v| &v[n0..n0 + w]);
                (n0, PackedB::new(p.isa, k, w, &cols, bias))
            })
            .collect(),
        _ => Vec::new(),
    };
    let runtime_b = match b {
        None => Some((p.logical(g.b), o.b_transpose, alpha, bias)),
        Some(_) => None,
    };
    let a = p.logical(g.a);
    // With C added after the product, what follows the gemm runs as steps of its own.
    let (post, out) = match c {
        None => p.tail(n, y, true, false),
        Some(_) => (Post::clamp(f32::NEG_INFINITY, f32::INFINITY), y),
    };
    Some(Step::Gemm(Box::new(GemmStep {
        a,
        out: out.index(),
        a_transpose: o.a_transpose,
        m,
        k,
        blocks,
        int8,
        runtime_b,
        c,
        isa: p.isa,
        n: nn,
        post,
    })))
}

impl GemmStep {
    pub(crate) fn describe(&self) -> String {
        format!(
            "gemm {}x{}x{} {}{}",
            self.m,
            self.k,
            self.n,
            match &self.int8 {
                Some(q) => q.describe(),
                None => format!("in {} block(s)", self.blocks.len()),
            },
            self.post.describe()
        )
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        let b = self.runtime_b.as_ref().map(|(b, ..)| *b);
        let c = self.c.as_ref().and_then(|c| c.values.as_ref().err().copied());
        [self.a].into_iter().chain(b).chain(c).chain(self.post.residual).collect()
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (m, k, n) = (self.m, self.k, self.n);
        let mut y = values.alloc(m * n);
        {
            let runtime;
            let blocks = match &self.runtime_b {
                None => &self.blocks[..],
                Some((slot, transposed, alpha, bias)) => {
                    let (transposed, alpha) = (*transposed, *alpha);
                    let b = values.f32(*slot)?;
                    if b.len() != k * n {
                        return Err(webnn_core::Error::operation_error("gemm: B's size differs from the plan's"));
                    }
                    let mut b = if transposed { transpose(b, n, k) } else { b.to_vec() };
                    if alpha != 1.0 {
                        b.iter_mut().for_each(|v| *v *= alpha);
                    }
                    runtime = [(0, PackedB::new(self.isa, k, n, &b, bias.as_deref()))];
                    &runtime[..]
                }
            };
            let a_in = values.f32(self.a)?;
            let t;
            let a = if self.a_transpose {
                t = transpose(a_in, k, m);
                &t[..]
            } else {
                a_in
            };
            let residual = self.post.residual.map(|r| values.f32(r)).transpose()?;
            if let Some(q) = &self.int8 {
                let post = &self.post;
                let (lo, hi) = post.kernel_bounds();
                let (in_kernel, rest) = post.split_quant();
                let unit = unit_rows(m, 8, k * n);
                let dst = SharedMut::new(&mut y);
                ctx.pool.run(m.div_ceil(unit), &|u| {
                    let rows = u * unit..(u * unit + unit).min(m);
                    // SAFETY: each unit writes its own rows.
                    let out = unsafe { dst.range(rows.start * n, rows.len() * n) };
                    q.run(&a[rows.start * k..rows.end * k], crate::qconv::Out::Floats(out), lo, hi, in_kernel.as_ref());
                    rest.finish(ctx.simd, out, residual, rows.start * n);
                });
            } else if let [(_, packed)] = blocks {
                rows_on_pool(ctx, m, k, a, packed, &mut y, &self.post, residual);
            } else {
                let dst = SharedMut::new(&mut y);
                let post = &self.post;
                ctx.pool.run(blocks.len(), &|j| {
                    let (n0, packed) = &blocks[j];
                    // SAFETY: each task writes its own columns of the single row.
                    let out = unsafe { dst.range(*n0, packed.n()) };
                    gemm(1, a, k, packed, out, packed.n(), post.epilogue());
                    post.finish(ctx.simd, out, residual, *n0);
                });
            }
            if let Some(c) = &self.c {
                let cv = match &c.values {
                    Ok(v) => v,
                    Err(slot) => values.f32(*slot)?,
                };
                let [rs, cs] = c.strides;
                if cv.len() <= (m - 1) * rs + (n - 1) * cs {
                    return Err(webnn_core::Error::operation_error("gemm: C's size differs from the plan's"));
                }
                // In f64, as the reference adds it: one rounding.
                for (i, row) in y.chunks_exact_mut(n).enumerate() {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = (*v as f64 + c.beta * cv[i * rs + j * cs] as f64) as f32;
                    }
                }
            }
        }
        values.put(self.out, vec![m, n], y);
        Ok(())
    }
}

/// `C = A·B` for one matrix, its rows split into shape-fixed units across the pool (or its
/// columns, for a B larger than the cache).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rows_on_pool(
    ctx: &Ctx,
    m: usize,
    k: usize,
    a: &[f32],
    packed: &PackedB,
    c: &mut [f32],
    post: &Post,
    residual: Option<&[f32]>,
) {
    let n = packed.n();
    let mr = packed.tile().0;
    if 4 * k * n > B_CACHED && m > mr && packed.panels() > 1 {
        return panels_on_pool(ctx, m, k, a, packed, c, post, residual);
    }
    let unit = unit_rows(m, mr, k * n);
    let dst = SharedMut::new(c);
    ctx.pool.run(m.div_ceil(unit), &|u| {
        let rows = u * unit..(u * unit + unit).min(m);
        // SAFETY: each unit writes its own rows.
        let out = unsafe { dst.range(rows.start * n, rows.len() * n) };
        gemm_rows(rows.clone(), a, k, packed, out, n, post.epilogue());
        post.finish(ctx.simd, out, residual, rows.start * n);
    });
}

/// Packed B above this many bytes does not stay in the L2 cache while row units take turns
/// streaming all of it (a transformer's 768 x 3072 feed-forward weights are 9.4 MB, read
/// once per 6-row unit): such products are split by column panels instead.
const B_CACHED: usize = 1 << 19;

/// `C = A·B` in units of column panels over all rows: each unit streams its part of B once,
/// into a block of its own, and a second pass over rows gathers the blocks into C and adds
/// the residual. Units are fixed by the shape alone (bit-identical for any thread count).
#[allow(clippy::too_many_arguments)]
fn panels_on_pool(
    ctx: &Ctx,
    m: usize,
    k: usize,
    a: &[f32],
    packed: &PackedB,
    c: &mut [f32],
    post: &Post,
    residual: Option<&[f32]>,
) {
    let (n, nr, panels) = (packed.n(), packed.tile().1, packed.panels());
    let per = panels.div_ceil(48).max(16_384usize.div_ceil(m * k * nr).max(1));
    let units = panels.div_ceil(per);
    let columns = |u: usize| (u * per * nr)..(((u + 1) * per * nr).min(n));
    // Unit u's block holds its columns of every row, rows of its width, at m * its first column.
    let mut blocks = vec![0.0f32; m * n];
    {
        let dst = SharedMut::new(&mut blocks);
        ctx.pool.run(units, &|u| {
            let cols = columns(u);
            // SAFETY: each unit writes its own block.
            let out = unsafe { dst.range(m * cols.start, m * cols.len()) };
            let ps = u * per..((u + 1) * per).min(panels);
            gemm_block(0..m, ps, a, k, packed, out, cols.len(), post.epilogue());
        });
    }
    let unit = unit_rows(m, 1, n);
    let dst = SharedMut::new(c);
    ctx.pool.run(m.div_ceil(unit), &|t| {
        let rows = t * unit..(t * unit + unit).min(m);
        // SAFETY: each task writes its own rows.
        let out = unsafe { dst.range(rows.start * n, rows.len() * n) };
        for (i, row) in rows.clone().zip(out.chunks_exact_mut(n)) {
            for u in 0..units {
                let cols = columns(u);
                row[cols.clone()].copy_from_slice(&blocks[m * cols.start + i * cols.len()..][..cols.len()]);
            }
        }
        post.finish(ctx.simd, out, residual, rows.start * n);
    });
}

/// A stack of matrix products with broadcast batch dimensions.
pub(crate) struct MatmulStep {
    a: usize,
    b: usize,
    out: usize,
    m: usize,
    k: usize,
    n: usize,
    /// For each output matrix, the index of its A and B matrices.
    a_batches: Vec<usize>,
    b_batches: Vec<usize>,
    /// One packed B per B matrix when B is constant.
    packed: Option<Vec<PackedB>>,
    isa: Isa,
    out_shape: Vec<usize>,
    post: Post,
}

pub(crate) fn plan_matmul(p: &mut Planner, n: usize, mm: &Binary) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(mm.a) || !p.is_f32(mm.b) || !p.is_f32(y) {
        return None;
    }
    let (sa, sb, out_shape) = (p.shape(mm.a), p.shape(mm.b), p.shape(y));
    let (ra, rb, ro) = (sa.len(), sb.len(), out_shape.len());
    let (m, k, nn) = (sa[ra - 2], sa[ra - 1], sb[rb - 1]);
    if [m, k, nn].contains(&0) {
        return None;
    }
    let out_batch = &out_shape[..ro - 2];
    let a_batches = broadcast_map(&sa[..ra - 2], out_batch);
    let b_batches = broadcast_map(&sb[..rb - 2], out_batch);
    let packed = p.const_f32(mm.b).map(|b| {
        let count = sb[..rb - 2].iter().product::<usize>();
        (0..count)
            .map(|i| PackedB::new(p.isa, k, nn, &b[i * k * nn..][..k * nn], None))
            .collect()
    });
    let (a, b) = (p.logical(mm.a), p.logical(mm.b));
    let (post, out) = p.tail(n, y, true, false);
    Some(Step::Matmul(Box::new(MatmulStep {
        a,
        b,
        out: out.index(),
        m,
        k,
        n: nn,
        a_batches,
        b_batches,
        packed,
        isa: p.isa,
        out_shape,
        post,
    })))
}

impl MatmulStep {
    pub(crate) fn describe(&self) -> String {
        format!(
            "matmul {} x {}x{}x{}{}",
            self.a_batches.len(),
            self.m,
            self.k,
            self.n,
            self.post.describe()
        )
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        let b = self.packed.is_none().then_some(self.b);
        [self.a]
            .into_iter()
            .chain(b)
            .chain(self.post.residual)
            .collect()
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (m, k, n) = (self.m, self.k, self.n);
        let batches = self.a_batches.len();
        let mut y = values.alloc(batches * m * n);
        {
            let runtime: Vec<PackedB>;
            let packed = match &self.packed {
                Some(p) => p,
                None => {
                    let b = values.f32(self.b)?;
                    runtime = b
                        .chunks_exact((k * n).max(1))
                        .map(|bm| PackedB::new(self.isa, k, n, bm, None))
                        .collect();
                    &runtime
                }
            };
            let a = values.f32(self.a)?;
            let residual = self.post.residual.map(|r| values.f32(r)).transpose()?;
            if let ([0], [pb]) = (self.a_batches.as_slice(), packed.as_slice()) {
                rows_on_pool(ctx, m, k, &a[..m * k], pb, &mut y, &self.post, residual);
                values.put(self.out, self.out_shape.clone(), y);
                return Ok(());
            }
            let unit = unit_rows(m, packed.first().map_or(1, |p| p.tile().0), k * n);
            let per = m.div_ceil(unit);
            let dst = SharedMut::new(&mut y);
            let post = &self.post;
            ctx.pool.run(batches * per, &|u| {
                let (batch, part) = (u / per, u % per);
                let rows = part * unit..(part * unit + unit).min(m);
                let base = batch * m * n;
                // SAFETY: each unit writes its own rows of its own matrix.
                let out = unsafe { dst.range(base + rows.start * n, rows.len() * n) };
                let a_mat = &a[self.a_batches[batch] * m * k..][..m * k];
                let pb = &packed[self.b_batches[batch]];
                gemm_rows(rows.clone(), a_mat, k, pb, out, n, post.epilogue());
                post.finish(ctx.simd, out, residual, base + rows.start * n);
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}
