//! gatherND and gatherElements as copies: each index tuple (gatherND) or index
//! (gatherElements) resolved once to the offset of the slice or element it picks, with the
//! reference's rule (`webnn_cpu::kernels::gather::resolve`: negative counts from the end,
//! then clamped into range), at compile where the indices are constant, and the picks
//! copied; gatherND's slices (everything after the indexed axes) as whole runs. Any element
//! type but int4, static shapes.

use crate::exec::{each_row, Ctx, Step, Values};
use crate::plan::Planner;
use crate::views::{run_rows, Rows};
use webnn_core::ops::{Gather, GatherNd};
use webnn_core::{Error, Operand, Result};
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
    /// The picks of constant indices, resolved at compile.
    known: Option<Picks>,
}

/// Each pick's input offset, and the picks' length.
struct Picks {
    offsets: Vec<usize>,
    slice: usize,
}

enum Kind {
    /// Index tuples of `q` coordinates, each picking a slice of the axes after them.
    Nd { q: usize },
    /// An index per output element, replacing its coordinate along `axis`.
    Elements { axis: usize },
}

fn plannable(p: &Planner, input: Operand, indices: Operand, y: Operand) -> bool {
    // int4/uint4 (two to a byte) stay on the reference.
    let packed = p.orig.desc(input).data_type.bits() < 8;
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

fn step(p: &mut Planner, input: Operand, indices: Operand, y: Operand, kind: Kind) -> Option<Step> {
    let (in_shape, out_shape) = (p.shape(input), p.shape(y));
    let constant = p.orig.constant_data(indices).map(|bytes| Tensor::from_bytes(p.orig.desc(indices), bytes));
    let (input, indices) = (p.logical(input), p.logical(indices));
    let mut step = GathersStep { input, indices, out: y.index(), kind, in_shape, out_shape, known: None };
    if let Some(t) = constant {
        step.known = Some(step.picks(&t.ok()?).ok()?);
    }
    Some(Step::Gathers(Box::new(step)))
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

    /// Where the indices `t` pick.
    fn picks(&self, t: &Tensor) -> Result<Picks> {
        let indices = match &t.data {
            Data::I32(_) | Data::U32(_) | Data::I64(_) | Data::U64(_) => t.to_i128(),
            other => return Err(Error::operation_error(format!("{}: {} indices", self.describe(), other.data_type()))),
        };
        let st = strides(&self.in_shape);
        match self.kind {
            Kind::Nd { q } => {
                let slice: usize = self.in_shape[q..].iter().product();
                let offsets = indices
                    .chunks_exact(q.max(1))
                    .map(|coords| coords.iter().take(q).enumerate().map(|(d, &c)| resolve(c, self.in_shape[d]) * st[d]).sum())
                    .collect();
                Ok(Picks { offsets, slice })
            }
            Kind::Elements { axis } => {
                let (index_shape, n) = (&t.shape, self.in_shape[axis]);
                let ist = strides(index_shape);
                let offsets = indices
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| {
                        (0..index_shape.len())
                            .map(|d| st[d] * if d == axis { resolve(i, n) } else { k / ist[d] % index_shape[d] })
                            .sum()
                    })
                    .collect();
                Ok(Picks { offsets, slice: 1 })
            }
        }
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let computed;
        let picks = match &self.known {
            Some(p) => p,
            None => {
                computed = self.picks(values.get(self.indices)?)?;
                &computed
            }
        };
        let len: usize = self.out_shape.iter().product();
        if picks.offsets.len() * picks.slice != len {
            return Err(Error::operation_error(format!("{}: the indices' size differs from the plan's", self.describe())));
        }
        run_rows(picks, ctx, values, (self.input, self.out), &self.in_shape, &self.out_shape, &self.describe())
    }
}

impl Rows for Picks {
    /// `y`'s `slice`-long runs from `x` at the offsets.
    fn rows<T: Copy + Default + Send + Sync>(&self, ctx: &Ctx, x: &[T], y: &mut [T]) {
        each_row(ctx, y, self.slice, |r, o| o.copy_from_slice(&x[self.offsets[r]..][..self.slice]));
    }
}
