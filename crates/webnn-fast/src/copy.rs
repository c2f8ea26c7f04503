//! concat as block copies: each output row (everything before the axis) is its inputs' rows
//! side by side. Features convolutions stored NHWC are joined along their channels where they
//! lie (each pixel's channels side by side) and the result stays NHWC.

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
