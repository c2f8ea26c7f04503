//! cumulativeSum of float32 values along one axis: the input seen as `outer` blocks of `len`
//! positions along the axis times `inner` lanes, each lane's running sum in f64 in the
//! reference kernel's order (webnn-cpu `reduction.rs`: along the axis, or from its end when
//! reversed), each output rounded once, so the results are its bits. Lanes side by side, a
//! row of the block at a time, so the loops run along contiguous memory.

use crate::exec::{Ctx, Step, Values, TASK};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::CumulativeSum;
use webnn_core::{Error, Result};

pub(crate) struct ScanStep {
    input: usize,
    out: usize,
    outer: usize,
    len: usize,
    inner: usize,
    exclusive: bool,
    reversed: bool,
    out_shape: Vec<usize>,
}

pub(crate) fn plan(p: &mut Planner, n: usize, a: &CumulativeSum) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.orig.desc(a.input).is_static() {
        return None;
    }
    let shape = p.shape(a.input);
    let axis = a.axis as usize;
    let len = *shape.get(axis)?;
    let input = p.logical(a.input);
    Some(Step::Scan(Box::new(ScanStep {
        input,
        out: y.index(),
        outer: shape[..axis].iter().product(),
        len,
        inner: shape[axis + 1..].iter().product(),
        exclusive: a.options.exclusive,
        reversed: a.options.reversed,
        out_shape: shape,
    })))
}

impl ScanStep {
    pub(crate) fn describe(&self) -> String {
        format!("cumulative sum over {} of {:?}", self.len, self.out_shape)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (len, inner) = (self.len, self.inner);
        let block = len * inner;
        let total = self.outer * block;
        if values.f32(self.input)?.len() != total {
            return Err(Error::operation_error("cumulativeSum: the input's size differs from the plan's"));
        }
        let mut y = values.alloc(total);
        {
            let x = values.f32(self.input)?;
            let dst = SharedMut::new(&mut y);
            let per = (TASK / block.max(1)).max(1);
            ctx.pool.run(self.outer.div_ceil(per), &|t| {
                let blocks = t * per..((t + 1) * per).min(self.outer);
                // SAFETY: each task writes its own blocks.
                let out = unsafe { dst.range(blocks.start * block, blocks.len() * block) };
                let mut acc = vec![0.0f64; inner];
                for (b, ob) in blocks.zip(out.chunks_exact_mut(block.max(1))) {
                    let xb = &x[b * block..][..block];
                    acc.fill(0.0);
                    for k in 0..len {
                        let pos = if self.reversed { len - 1 - k } else { k };
                        let (row, o) = (&xb[pos * inner..][..inner], &mut ob[pos * inner..][..inner]);
                        for ((a, o), &v) in acc.iter_mut().zip(o.iter_mut()).zip(row) {
                            let before = *a;
                            *a += v as f64;
                            *o = if self.exclusive { before } else { *a } as f32;
                        }
                    }
                }
            });
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}
