//! Global average pooling (a window covering the whole image, as at the end of most
//! classifiers), read straight from NHWC-stored features: no layout change before the pool,
//! and its [N, C, 1, 1] result is the same bytes in either layout. Sums run in f64 like the
//! reference's, so the results match it to the last bit but for rare ties.

use crate::exec::{Step, Values};
use crate::plan::Planner;
use webnn_core::ops::*;
use webnn_core::Result;

pub(crate) struct GlobalPool {
    input: usize,
    out: usize,
    n: usize,
    c: usize,
    hw: usize,
    /// The input holds channels last (NHWC storage or an NHWC graph layout).
    channels_last: bool,
    out_shape: Vec<usize>,
}

/// The fast step for an averagePool2d node whose window is the whole image, else `None`.
pub(crate) fn plan(p: &mut Planner, n: usize, a: &Pool2d) -> Option<Step> {
    let o = &a.options;
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.is_f32(y) {
        return None;
    }
    let axes = o.layout.nchw_axes();
    let (xs, ys) = (p.shape(a.input), p.shape(y));
    let [nb, c, h, w] = axes.map(|i| xs[i]);
    let [_, _, oh, ow] = axes.map(|i| ys[i]);
    let window = o
        .window_dimensions
        .as_deref()
        .map_or([h, w], |v| [v[0] as usize, v[1] as usize]);
    let plain = spatial_padding(&o.padding) == [0; 4] && spatial_pair(&o.dilations) == [1, 1];
    if window != [h, w] || (oh, ow) != (1, 1) || !plain || h * w == 0 {
        return None;
    }
    let (input, channels_last) = match o.layout {
        InputLayout::Nchw => (a.input.index(), p.nhwc[a.input.index()]),
        InputLayout::Nhwc => (p.logical(a.input), true),
    };
    Some(Step::GlobalPool(Box::new(GlobalPool {
        input,
        out: y.index(),
        n: nb,
        c,
        hw: h * w,
        channels_last,
        out_shape: ys,
    })))
}

impl GlobalPool {
    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.input]
    }

    pub(crate) fn describe(&self) -> String {
        format!("global average pool {}x{}", self.hw, self.c)
    }

    pub(crate) fn run(&self, values: &mut Values) -> Result<()> {
        let (c, hw) = (self.c, self.hw);
        let mut y = values.alloc(self.n * c);
        let x = values.f32(self.input)?;
        let mut sums = vec![0.0f64; c];
        for (b, out) in y.chunks_exact_mut(c).enumerate() {
            let image = &x[b * c * hw..][..c * hw];
            sums.fill(0.0);
            if self.channels_last {
                for px in image.chunks_exact(c) {
                    sums.iter_mut().zip(px).for_each(|(s, v)| *s += *v as f64);
                }
            } else {
                for (s, plane) in sums.iter_mut().zip(image.chunks_exact(hw)) {
                    *s = plane.iter().map(|v| *v as f64).sum();
                }
            }
            out.iter_mut()
                .zip(&sums)
                .for_each(|(o, s)| *o = (s / hw as f64) as f32);
        }
        values.put(self.out, self.out_shape.clone(), y);
        Ok(())
    }
}
