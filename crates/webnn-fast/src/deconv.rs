//! convTranspose2d (groups = 1, float32) in NHWC as a GEMM and a gather:
//! every input pixel's channels times the filter give that pixel's contribution to each
//! window tap (`cols = X · W`, W packed once as [input channels, taps × output channels]);
//! each output pixel then sums the contributions that land on it, found from its own
//! position (the gather form of col2im, so output rows can be split across threads with no
//! two writing one element). The bias starts each sum; a following residual add and clamp
//! are fused as after a convolution, and the result stays NHWC for the next convolution. A
//! filter or bias the graph computes is packed per dispatch (one pass over it).

use crate::buffers::Buf;
use crate::exec::{Ctx, Post, Step, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use crate::simd;
use webnn_core::ops::*;
use webnn_core::Result;
use std::cell::RefCell;
use webnn_gemm::{gemm_rows, Epilogue, PackedB};

thread_local! {
    /// Each thread's contributions of a band's input rows, kept between steps.
    static COLS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

pub(crate) struct Deconv {
    input: usize,
    output: usize,
    /// The input is a logical NCHW tensor, transposed to NHWC when the step runs.
    transpose_in: bool,
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    oh: usize,
    ow: usize,
    oc: usize,
    kh: usize,
    kw: usize,
    stride: [usize; 2],
    dilation: [usize; 2],
    pad: [usize; 2],
    weights: Weights,
    bias: Bias,
    out_shape: Vec<usize>,
    post: Post,
}

/// The filter: packed at compile, or (the graph computes it) the slot packed per dispatch
/// with its layout's strides.
enum Weights {
    Packed(PackedB),
    Computed { filter: usize, strides: [usize; 4], isa: webnn_gemm::Isa },
}

/// The bias: `oc` values (zeros without one), or the slot of one the graph computes.
enum Bias {
    Values(Vec<f32>),
    Computed(usize),
}

/// B[i][(ky * kw + kx) * oc + o]: a row per input channel, the taps' output channels, from
/// a filter whose element (i, o, ky, kx) lies at `strides` in its layout.
fn pack(isa: webnn_gemm::Isa, filter: &[f32], strides: [usize; 4], [c, oc, kh, kw]: [usize; 4]) -> PackedB {
    let taps = kh * kw;
    let mut b = vec![0.0f32; c * taps * oc];
    for i in 0..c {
        for oo in 0..oc {
            for t in 0..taps {
                let (ky, kx) = (t / kw, t % kw);
                b[(i * taps + t) * oc + oo] = filter[i * strides[0] + oo * strides[1] + ky * strides[2] + kx * strides[3]];
            }
        }
    }
    PackedB::new(isa, c, taps * oc, &b, None)
}

/// The fast step for a convTranspose2d node, or `None` for the reference kernel.
pub(crate) fn plan(p: &mut Planner, n: usize, a: &ConvTranspose2d) -> Option<Step> {
    let o = &a.options;
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.is_f32(a.filter) || !p.is_f32(y) || o.groups != 1 {
        return None;
    }
    let filter = p.const_f32(a.filter);
    let bias = match o.bias {
        Some(b) => match p.const_f32(b) {
            Some(v) => Bias::Values(v),
            None => Bias::Computed(p.logical(b)),
        },
        None => Bias::Values(Vec::new()),
    };
    let axes = o.input_layout.nchw_axes();
    let (xs, ys, fs) = (p.shape(a.input), p.shape(y), p.shape(a.filter));
    let [nb, c, h, w] = axes.map(|i| xs[i]);
    let [_, oc, oh, ow] = axes.map(|i| ys[i]);
    let [fi, fo, kh, kw] = o.filter_layout.iohw_axes().map(|i| fs[i]);
    // Any empty dimension (not their product, which wraps in wasm32's 32-bit usize).
    if fi != c || fo != oc || [nb, c, h, w, oc, oh, ow, kh, kw].contains(&0) {
        return None;
    }
    // Filter element (i, o, ky, kx) at its layout's position.
    let strides = {
        let mut s = [0usize; 4];
        let mut acc = 1;
        for d in (0..4).rev() {
            s[d] = acc;
            acc *= fs[d];
        }
        o.filter_layout.iohw_axes().map(|d| s[d])
    };
    let weights = match filter {
        Some(f) => Weights::Packed(pack(p.isa, &f, strides, [c, oc, kh, kw])),
        None => Weights::Computed { filter: p.logical(a.filter), strides, isa: p.isa },
    };
    let bias = match bias {
        Bias::Values(v) if v.is_empty() => Bias::Values(vec![0.0; oc]),
        bias => bias,
    };
    let [pt, _, pl, _] = spatial_padding(&o.padding).map(|v| v as usize);
    let (input, transpose_in, stored_nhwc) = match o.input_layout {
        InputLayout::Nchw => (a.input.index(), !p.is_nhwc(a.input), true),
        InputLayout::Nhwc => (p.logical(a.input), false, false),
    };
    let (post, out) = p.tail(n, y, true, stored_nhwc);
    Some(Step::Deconv(Box::new(Deconv {
        input,
        output: out.index(),
        transpose_in,
        n: nb,
        h,
        w,
        c,
        oh,
        ow,
        oc,
        kh,
        kw,
        stride: spatial_pair(&o.strides).map(|v| v as usize),
        dilation: spatial_pair(&o.dilations).map(|v| v as usize),
        pad: [pt, pl],
        weights,
        bias,
        out_shape: vec![nb, oh, ow, oc],
        post,
    })))
}

/// The input index `i` and tap `k` pairs with `i * stride + k * dilation - pad = o`, for
/// `i < len` and `k < taps`.
fn sources(o: usize, stride: usize, dilation: usize, pad: usize, len: usize, taps: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..taps).filter_map(move |k| {
        let at = (o + pad).checked_sub(k * dilation)?;
        (at % stride == 0 && at / stride < len).then_some((at / stride, k))
    })
}

impl Deconv {
    pub(crate) fn describe(&self) -> String {
        format!(
            "conv transpose {}x{}/{} {}x{}x{} -> {}x{}x{}{}",
            self.kh, self.kw, self.stride[0], self.h, self.w, self.c, self.oh, self.ow, self.oc, self.post.describe()
        )
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        let filter = match self.weights {
            Weights::Computed { filter, .. } => Some(filter),
            Weights::Packed(_) => None,
        };
        let bias = match self.bias {
            Bias::Computed(b) => Some(b),
            Bias::Values(_) => None,
        };
        std::iter::once(self.input).chain(self.post.residual).chain(filter).chain(bias).collect()
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (c, oc, taps) = (self.c, self.oc, self.kh * self.kw);
        let pixels = self.n * self.h * self.w;
        if values.f32(self.input)?.len() != pixels * c {
            return Err(webnn_core::Error::operation_error("convTranspose2d: the input's size differs from the plan's"));
        }
        let mut transposed = match self.transpose_in {
            true => values.alloc(pixels * c),
            false => Buf::empty(),
        };
        let mut y = values.alloc(self.n * self.oh * self.ow * oc);
        {
            let computed;
            let packed = match &self.weights {
                Weights::Packed(p) => p,
                Weights::Computed { filter, strides, isa } => {
                    let f = values.f32(*filter)?;
                    if f.len() != c * oc * taps {
                        return Err(webnn_core::Error::operation_error("convTranspose2d: the filter's size differs from the plan's"));
                    }
                    computed = pack(*isa, f, *strides, [c, oc, self.kh, self.kw]);
                    &computed
                }
            };
            let bias = match &self.bias {
                Bias::Values(v) => &v[..],
                Bias::Computed(b) => values.f32(*b)?,
            };
            if bias.len() != oc {
                return Err(webnn_core::Error::operation_error("convTranspose2d: the bias's size differs from the plan's"));
            }
            let xin = values.f32(self.input)?;
            let x = if self.transpose_in {
                crate::copy::nchw_to_nhwc(ctx, xin, &mut transposed, self.n, c, self.h * self.w);
                &transposed[..]
            } else {
                xin
            };
            let residual = self.post.residual.map(|r| values.f32(r)).transpose()?;
            let (width, row_len) = (taps * oc, self.ow * oc);
            let band = self.band();
            let bands = self.oh.div_ceil(band);
            let dst = SharedMut::new(&mut y);
            let (post, simd) = (&self.post, ctx.simd);
            ctx.pool.run(self.n * bands, &|t| {
                let (b, oy0) = (t / bands, (t % bands) * band);
                let oys = oy0..(oy0 + band).min(self.oh);
                // The input rows whose contributions land on these output rows.
                let touched = oys.clone().flat_map(|oy| sources(oy, self.stride[0], self.dilation[0], self.pad[0], self.h, self.kh).map(|(iy, _)| iy));
                let (first, last) = touched.fold((usize::MAX, 0), |(a, z), iy| (a.min(iy), z.max(iy + 1)));
                let first = first.min(last);
                COLS.with_borrow_mut(|cols| {
                    // cols = X · B for those rows, one GEMM per input row: each input pixel's
                    // contribution to every tap (the same bits whichever band computes it).
                    cols.resize((last - first) * self.w * width, 0.0);
                    for (k, iy) in (first..last).enumerate() {
                        let pixels = (b * self.h + iy) * self.w;
                        gemm_rows(pixels..pixels + self.w, x, c, packed, &mut cols[k * self.w * width..][..self.w * width], width, Epilogue::NONE);
                    }
                    // SAFETY: each task writes its own output rows.
                    let out = unsafe { dst.range((b * self.oh + oys.start) * row_len, oys.len() * row_len) };
                    for (oy, row) in oys.clone().zip(out.chunks_exact_mut(row_len)) {
                        self.gather_row(cols, bias, first, oy, row);
                        if residual.is_none() {
                            // simd::clamp, not f32::clamp: LLVM turns the latter's two
                            // compare-and-assigns into pmax/pmin, which relaxed-SIMD wasm
                            // builds lower to relaxed max/min, losing NaN on x86 hosts (the
                            // fuzzer's page found it).
                            row.iter_mut().for_each(|v| *v = simd::clamp(*v, post.lo, post.hi));
                        }
                    }
                    post.finish(simd, out, residual, (b * self.oh + oys.start) * row_len);
                });
            });
        }
        values.recycle(transposed);
        values.put(self.output, self.out_shape.clone(), y);
        Ok(())
    }

    /// Output rows per task: input rows' contributions for about `BAND_BYTES`, computed by
    /// the task and gathered while in cache (the whole image's would be megabytes, written
    /// out and read back); a few input rows are computed by two tasks.
    fn band(&self) -> usize {
        const BAND_BYTES: usize = 1 << 20;
        let row = self.w * self.kh * self.kw * self.oc * 4;
        let inputs = (BAND_BYTES / row.max(1)).max(2);
        // Input rows `inputs` cover about (inputs - 1) strides of output rows.
        ((inputs - 1) * self.stride[0]).max(1)
    }

    /// Output row `oy`: `bias` plus every contribution landing on each pixel, from `cols`,
    /// the contributions of the image's input rows from `first`.
    fn gather_row(&self, cols: &[f32], bias: &[f32], first: usize, oy: usize, out: &mut [f32]) {
        let (oc, taps) = (self.oc, self.kh * self.kw);
        for (ox, px) in out.chunks_exact_mut(oc).enumerate() {
            px.copy_from_slice(bias);
            for (iy, ky) in sources(oy, self.stride[0], self.dilation[0], self.pad[0], self.h, self.kh) {
                for (ix, kx) in sources(ox, self.stride[1], self.dilation[1], self.pad[1], self.w, self.kw) {
                    let pixel = (iy - first) * self.w + ix;
                    let from = &cols[(pixel * taps + ky * self.kw + kx) * oc..][..oc];
                    px.iter_mut().zip(from).for_each(|(o, v)| *o += v);
                }
            }
        }
    }
}
