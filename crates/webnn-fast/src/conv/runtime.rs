//! Dense convolutions whose filter (or bias) the graph computes: an input, or another op's
//! result (a model that generates its weights; most of WPT's `subgraph` cases). They are
//! planned like the constant-filter ones, and each dispatch rearranges and packs the
//! filter (one pass over it) into the kernel a constant filter of that shape gets: the
//! pointwise GEMM, or the im2col one (which multiplies the padding's zeros too, so an
//! infinite or NaN weight gives the reference's NaN). Grouped and depthwise ones stay on
//! the reference.

use super::{permute4, rearranged, Kind, Window};
use crate::exec::{unit_rows, Values};
use webnn_core::{Error, Result};
use webnn_gemm::{Isa, PackedB};

pub(super) struct Runtime {
    pub filter: usize,
    /// The bias: constant values, or the slot of one the graph computes.
    pub bias: Option<std::result::Result<Vec<f32>, usize>>,
    /// The filter's shape as it is laid out, and the axes that put it in OIHW order.
    pub filter_shape: [usize; 4],
    pub oihw_axes: [usize; 4],
    pub window: Window,
    /// Input and output channels, and output pixels (of all images).
    pub c: usize,
    pub oc: usize,
    pub pixels: usize,
    /// A 1x1 window that keeps the image's size: the GEMM reads the pixels as they lie.
    pub pointwise: bool,
    pub isa: Isa,
}

impl Runtime {
    /// The slots it reads besides the input.
    pub(super) fn reads(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.filter).chain(self.bias.as_ref().and_then(|b| b.as_ref().err().copied()))
    }

    /// The kernel that a constant filter holding this dispatch's values gets.
    pub(super) fn kind(&self, values: &Values) -> Result<Kind> {
        let f = values.f32(self.filter)?;
        if f.len() != self.filter_shape.iter().product::<usize>() {
            return Err(Error::operation_error("conv2d: the filter's size differs from the plan's"));
        }
        let bias = match &self.bias {
            None => None,
            Some(Ok(v)) => Some(&v[..]),
            Some(Err(slot)) => Some(values.f32(*slot)?),
        };
        if bias.is_some_and(|b| b.len() != self.oc) {
            return Err(Error::operation_error("conv2d: the bias's size differs from the plan's"));
        }
        let oihw = permute4(f, self.filter_shape, self.oihw_axes);
        let (c, oc, taps) = (self.c, self.oc, self.window.kh * self.window.kw);
        let k = taps * c;
        // The im2col row order, as the constant-filter plan packs it.
        let b = rearranged(&oihw, c, taps, |o, ic, t| (t * c + ic) * oc + o);
        let packed = PackedB::new(self.isa, k, oc, &b, bias);
        Ok(match self.pointwise {
            true => Kind::Pointwise(packed),
            false => {
                let mr = packed.tile().0;
                let tile = unit_rows(self.pixels, mr, k * oc).clamp(16 * mr, 64 * mr);
                Kind::Im2col { packed, window: self.window, tile }
            }
        })
    }
}
