//! gatherND and gatherElements as copies: each index tuple (gatherND) or index
//! (gatherElements) resolved once to the offset of the slice or element it picks, with the
//! reference's rule (`webnn_cpu::kernels::gather::resolve`: negative counts from the end,
//! then clamped into range), and the picks copied; gatherND's slices (everything after the
//! indexed axes) as whole runs. Any element type but int4, static shapes.

use crate::exec::{Ctx, Step, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use webnn_core::ops::{Gather, GatherNd};
use webnn_core::{DataType, Error, Result};
use webnn_cpu::kernels::gather::resolve;
use webnn_cpu::tensor::strides;
use webnn_cpu::{Data, Tensor};

pub(crate) struct GathersStep {
    input: usize,
    indices: usize,
    out: usize,
    kind: Kind,
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
}

enum Kind {
    /// Index tuples of `q` coordinates, each picking a slice of the axes after them.
    Nd { q: usize },
    /// An index per output element, replacing its coordinate along `axis`.
    Elements { axis: usize },
}

fn plannable(p: &Planner, input: webnn_core::Operand, indices: webnn_core::Operand, y: webnn_core::Operand) -> bool {
    let packed = matches!(p.orig.desc(input).data_type, DataType::Int4 | DataType::Uint4);
    !packed && [input, indices, y].iter().all(|&o| p.orig.desc(o).is_static()) && !p.shape(input).contains(&0)
}

pub(crate) fn plan_nd(p: &mut Planner, n: usize, a: &GatherNd) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !plannable(p, a.input, a.indices, y) {
        return None;
    }
    let q = *p.shape(a.indices).last()?;
    step(p, a.input, a.indices, y, Kind::Nd { q })
}

pub(crate) fn plan_elements(p: &mut Planner, n: usize, a: &Gather) -> Option<Step> {
    let y = p.orig.nodes[n].outputs[0];
    if !plannable(p, a.input, a.indices, y) {
        return None;
    }
    step(p, a.input, a.indices, y, Kind::Elements { axis: a.options.axis as usize })
}

fn step(p: &mut Planner, input: webnn_core::Operand, indices: webnn_core::Operand, y: webnn_core::Operand, kind: Kind) -> Option<Step> {
    let (in_shape, out_shape) = (p.shape(input), p.shape(y));
    let (input, indices) = (p.logical(input), p.logical(indices));
    Some(Step::Gathers(Box::new(GathersStep { input, indices, out: y.index(), kind, in_shape, out_shape })))
}

impl GathersStep {
    pub(crate) fn describe(&self) -> String {
        let what = match self.kind {
            Kind::Nd { .. } => "gatherND",
            Kind::Elements { .. } => "gatherElements",
        };
        format!("{what} to {:?}", self.out_shape)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input, self.indices]
    }

    /// The input offset of each pick, and the picks' length.
    fn picks(&self, indices: &[i128], index_shape: &[usize]) -> Result<(Vec<usize>, usize)> {
        let st = strides(&self.in_shape);
        match self.kind {
            Kind::Nd { q } => {
                let slice: usize = self.in_shape[q..].iter().product();
                let offsets = indices
                    .chunks_exact(q.max(1))
                    .map(|coords| coords.iter().take(q).enumerate().map(|(d, &c)| resolve(c, self.in_shape[d]) * st[d]).sum())
                    .collect();
                Ok((offsets, slice))
            }
            Kind::Elements { axis } => {
                let ist = strides(index_shape);
                let n = self.in_shape[axis];
                let offsets = indices
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| {
                        (0..index_shape.len())
                            .map(|d| st[d] * if d == axis { resolve(i, n) } else { k / ist[d] % index_shape[d] })
                            .sum()
                    })
                    .collect();
                Ok((offsets, 1))
            }
        }
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (offsets, slice) = {
            let t = values.get(self.indices)?;
            let indices = match &t.data {
                Data::I32(_) | Data::U32(_) | Data::I64(_) | Data::U64(_) => t.to_i128(),
                other => return Err(Error::operation_error(format!("{}: {} indices", self.describe(), other.data_type()))),
            };
            self.picks(&indices, &t.shape)?
        };
        let len: usize = self.out_shape.iter().product();
        let in_len: usize = self.in_shape.iter().product();
        if offsets.len() * slice != len || values.get(self.input)?.data.len() != in_len {
            return Err(Error::operation_error(format!("{}: the operands' sizes differ from the plan's", self.describe())));
        }
        if let Data::F32(_) = values.get(self.input)?.data {
            let mut y = values.alloc(len);
            copy_picks(ctx, values.f32(self.input)?, &offsets, slice, &mut y);
            values.put(self.out, self.out_shape.clone(), y);
            return Ok(());
        }
        let data = {
            let x = &values.get(self.input)?.data;
            macro_rules! each {
                ($($variant:ident),*) => {
                    match x {
                        $(Data::$variant(v) => {
                            let mut y = vec![Default::default(); len];
                            copy_picks(ctx, v, &offsets, slice, &mut y);
                            Data::$variant(y)
                        })*
                        other => return Err(Error::operation_error(format!("{}: {} values", self.describe(), other.data_type()))),
                    }
                };
            }
            each!(F16, I8, U8, I32, U32, I64, U64)
        };
        values.put_tensor(self.out, Tensor::new(self.out_shape.clone(), data));
        Ok(())
    }
}

/// `y`'s `slice`-long runs from `x` at `offsets`, in tasks across the pool.
fn copy_picks<T: Copy + Send + Sync>(ctx: &Ctx, x: &[T], offsets: &[usize], slice: usize, y: &mut [T]) {
    let slice = slice.max(1);
    let per = (crate::exec::TASK / slice).max(1);
    let dst = SharedMut::new(y);
    ctx.pool.run(offsets.len().div_ceil(per), &|t| {
        let range = t * per..((t + 1) * per).min(offsets.len());
        // SAFETY: each task writes its own picks.
        let out = unsafe { dst.range(range.start * slice, range.len() * slice) };
        for (&at, o) in offsets[range].iter().zip(out.chunks_exact_mut(slice)) {
            o.copy_from_slice(&x[at..at + slice]);
        }
    });
}
