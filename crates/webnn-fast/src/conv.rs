//! conv2d in NHWC, three ways:
//! - 1x1, stride 1, no padding: a GEMM straight over the input's pixels (each pixel's
//!   channels are a row of A), no copy at all;
//! - any other dense (groups = 1) window: the GEMM over an im2col matrix built one tile of
//!   output pixels at a time in a small per-thread buffer, so no whole-tensor im2col exists;
//! - depthwise (one input channel per group, one output channel each): channel-vectorised
//!   loops over the window (`depthwise`);
//! - dense with at most four output channels and a window: dot products along the window
//!   rows (`narrow`), where a GEMM panel would be mostly empty.
//!
//! A dense convolution whose filter or bias the graph computes packs it per dispatch into
//! the pointwise or im2col GEMM (`runtime`). Other grouped convolutions and non-float32 ones
//! run on the reference kernel.

mod runtime;

use crate::buffers::Buf;
use crate::depthwise::{self, Depthwise, Input as DepthwiseInput};
use crate::exec::{unit_rows, Ctx, Post, Step, Values};
use crate::expand::{Expand, Kernel};
use crate::narrow::{self, Narrow};
use crate::planes::{self, Planes};
use crate::stem::{self, Stem};
use crate::winograd::{self, Winograd};
use crate::plan::Planner;
use crate::simd;
use crate::qconv::Out as QOut;
use crate::stored::{Bytes, Sink};
use std::cell::RefCell;
use webnn_core::ops::*;
use webnn_core::Result;
use runtime::Runtime;
use webnn_gemm::{gemm, gemm_rows, PackedB};

/// One output row of image `b`: `(b, oy, out, lo, hi)` (`Conv::image_rows`).
type RowKernel<'a> = dyn Fn(usize, usize, &mut [f32], f32, f32) + Sync + 'a;

/// A planned convolution.
pub(crate) struct Conv {
    input: usize,
    pub(crate) output: usize,
    /// The input is a logical NCHW tensor (a graph input, a reference op's result): it is
    /// transposed to NHWC when the step runs.
    transpose_in: bool,
    /// Batch, input height, width, channels.
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    /// Output height, width, channels.
    oh: usize,
    ow: usize,
    oc: usize,
    /// The output's shape as stored (NHWC).
    out_shape: Vec<usize>,
    kind: Kind,
    post: Post,
    /// The input and the output stored as bytes (`stored`).
    input_bytes: Option<Bytes>,
    output_bytes: Option<Bytes>,
    /// A depthwise convolution's input computed as it goes: the pointwise convolution
    /// whose result only this step reads (`expand`).
    expand: Option<Expand>,
}

enum Kind {
    Pointwise(PackedB),
    /// A QDQ model's pointwise conv in integers (`qconv`).
    QPointwise(crate::qconv::QPointwise),
    Im2col {
        packed: PackedB,
        window: Window,
        tile: usize,
    },
    Depthwise(Depthwise),
    /// Dense, with at most `narrow::MAX_CHANNELS` output channels.
    Narrow(Narrow),
    /// Dense, with at most `planes::MAX_CHANNELS` output channels, over an NCHW image with a
    /// stride-1 window and no padding.
    Planes(Planes),
    /// Dense, with at most `stem::MAX_INPUT_CHANNELS` input channels.
    Stem(Stem),
    /// Dense 3x3, stride 1, many channels: Winograd's F(2x2, 3x3), and the im2col GEMM for
    /// inputs with infinities or NaN (`winograd`).
    Winograd(Box<Winograd>, Box<Kind>),
    /// Dense, with a filter the graph computes: packed per dispatch (`runtime`).
    Runtime(Box<Runtime>),
}

/// The window geometry of a dense convolution.
#[derive(Clone, Copy)]
struct Window {
    kh: usize,
    kw: usize,
    stride: [usize; 2],
    dilation: [usize; 2],
    pad: [usize; 2],
}

/// Reorders a 4-D array: axis `k` of the result is axis `perm[k]` of `src`.
fn permute4(src: &[f32], shape: [usize; 4], perm: [usize; 4]) -> Vec<f32> {
    let st = [
        shape[1] * shape[2] * shape[3],
        shape[2] * shape[3],
        shape[3],
        1,
    ];
    let d = perm.map(|p| shape[p]);
    let s = perm.map(|p| st[p]);
    let mut out = Vec::with_capacity(src.len());
    for a in 0..d[0] {
        for b in 0..d[1] {
            for c in 0..d[2] {
                out.extend((0..d[3]).map(|e| src[a * s[0] + b * s[1] + c * s[2] + e * s[3]]));
            }
        }
    }
    out
}

/// An OIHW filter (filters of `c` channels of `taps` taps each) rearranged for a kernel:
/// element (filter `o`, channel `ic`, tap `t`) goes to index `at(o, ic, t)`.
fn rearranged(oihw: &[f32], c: usize, taps: usize, at: impl Fn(usize, usize, usize) -> usize) -> Vec<f32> {
    let mut out = vec![0.0f32; oihw.len()];
    for (i, &v) in oihw.iter().enumerate() {
        let (o, rest) = (i / (c * taps), i % (c * taps));
        out[at(o, rest / taps, rest % taps)] = v;
    }
    out
}

fn four(v: &[usize]) -> [usize; 4] {
    [v[0], v[1], v[2], v[3]]
}

/// The fast step for conv2d node `n`, or `None` for the reference kernel.
pub(crate) fn plan(p: &mut Planner, n: usize, a: &Conv2d) -> Option<Step> {
    let o = &a.options;
    let y = p.orig.nodes[n].outputs[0];
    if !p.is_f32(a.input) || !p.is_f32(a.filter) || !p.is_f32(y) {
        return None;
    }
    let filter = p.const_f32(a.filter);
    // Constant values, or the operand the graph computes.
    let bias = o.bias.map(|b| p.const_f32(b).ok_or(b));
    let axes = o.input_layout.nchw_axes();
    let (xs, ys, fs) = (
        four(&p.shape(a.input)),
        four(&p.shape(y)),
        four(&p.shape(a.filter)),
    );
    let [nb, c, h, w] = axes.map(|i| xs[i]);
    let [_, oc, oh, ow] = axes.map(|i| ys[i]);
    let [fo, fi, kh, kw] = o.filter_layout.oihw_axes().map(|i| fs[i]);
    // Any empty dimension (not their product, which wraps in wasm32's 32-bit usize).
    if [nb, c, h, w, oc, oh, ow, kh, kw].contains(&0) {
        return None;
    }
    let groups = o.groups as usize;
    let [sh, sw] = spatial_pair(&o.strides).map(|v| v as usize);
    let [dh, dw] = spatial_pair(&o.dilations).map(|v| v as usize);
    let [pt, pb, pl, pr] = spatial_padding(&o.padding).map(|v| v as usize);
    let window = Window {
        kh,
        kw,
        stride: [sh, sw],
        dilation: [dh, dw],
        pad: [pt, pl],
    };
    let (dense, taps) = (groups == 1 && fi == c && fo == oc, kh * kw);
    let pointwise = kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt + pb + pl + pr == 0 && oh == h && ow == w;
    let (filter, bias) = match (filter, bias) {
        (Some(filter), None) => (filter, None),
        (Some(filter), Some(Ok(bias))) => (filter, Some(bias)),
        // The graph computes the filter or the bias: dense ones are packed per dispatch.
        (_, bias) if dense => {
            let bias = bias.map(|b| b.map_err(|o| p.logical(o)));
            let (filter_shape, oihw_axes) = (fs, o.filter_layout.oihw_axes());
            let filter = p.logical(a.filter);
            let pixels = nb * oh * ow;
            let r = Runtime { filter, bias, filter_shape, oihw_axes, window, c, oc, pixels, pointwise, isa: p.isa };
            return Some(finish(p, n, a, Kind::Runtime(Box::new(r)), [nb, c, h, w], [oh, ow, oc]));
        }
        _ => return None,
    };
    let oihw = permute4(&filter, fs, o.filter_layout.oihw_axes());
    // The narrow path skips taps in the padding; the padding's zeros times an infinite or
    // NaN weight are NaN, so such filters take the im2col GEMM, which multiplies them.
    let finite = filter.iter().all(|v| v.is_finite());
    let planar = [sh, sw, dh, dw] == [1; 4] && pt + pb + pl + pr == 0 && o.input_layout == InputLayout::Nchw;
    // The tap-major layout [kh][kw][c][oc] (the stem kernel's, and the im2col GEMM's B).
    let by_tap = |o, ic, t| (t * c + ic) * oc + o;
    let or_zeros = |b: Option<Vec<f32>>| b.unwrap_or_else(|| vec![0.0; oc]);
    let kind = if dense && oc <= planes::MAX_CHANNELS && taps > 1 && planar {
        let weights = rearranged(&oihw, c, taps, |o, ic, t| (ic * taps + t) * oc + o);
        Kind::Planes(Planes {
            c,
            h,
            w,
            oc,
            ow,
            kh,
            kw,
            weights,
            bias: or_zeros(bias.clone()),
        })
    } else if dense && oc <= narrow::MAX_CHANNELS && taps > 1 && finite {
        let weights = rearranged(&oihw, c, taps, |o, ic, t| (o * taps + t) * c + ic);
        Kind::Narrow(Narrow {
            c,
            h,
            w,
            oc,
            kh,
            kw,
            stride: [sh, sw],
            dilation: [dh, dw],
            pad: [pt, pl],
            weights,
            bias: or_zeros(bias.clone()),
        })
    } else if dense && c <= stem::MAX_INPUT_CHANNELS && taps > 1 && finite {
        // (The narrow path's NaN caveat holds here too.)
        let weights = rearranged(&oihw, c, taps, by_tap);
        Kind::Stem(Stem {
            c,
            h,
            w,
            ow,
            oc,
            kh,
            kw,
            stride: [sh, sw],
            dilation: [dh, dw],
            pad: [pt, pl],
            // Set with the input's storage below.
            nchw: false,
            weights,
            bias: or_zeros(bias.clone()),
        })
    } else if dense {
        let k = taps * c;
        // B[(ky * kw + kx) * c + ic][oc]: the im2col row order, pixel-major like NHWC.
        let b = rearranged(&oihw, c, taps, by_tap);
        let axes = o.filter_layout.oihw_axes();
        let int8 = match pointwise {
            true => crate::qconv::plan(p, a.input, a.filter, |v| permute4(v, fs, axes), c, oc, bias.as_deref()),
            false => None,
        };
        if let Some(q) = int8 {
            Kind::QPointwise(q)
        } else if pointwise {
            Kind::Pointwise(PackedB::new(p.isa, k, oc, &b, bias.as_deref()))
        } else {
            let packed = PackedB::new(p.isa, k, oc, &b, bias.as_deref());
            let mr = packed.tile().0;
            // Enough rows that each panel of B is reused across a GEMM row block (16 kernel
            // tiles), few enough that the tile of A stays in L2.
            let tile = unit_rows(nb * oh * ow, mr, k * oc).clamp(16 * mr, 64 * mr);
            let winograd = [kh, kw, sh, sw, dh, dw] == [3, 3, 1, 1, 1, 1] && c.min(oc) >= winograd::MIN_CHANNELS && finite;
            let im2col = Kind::Im2col { packed, window, tile };
            match winograd {
                true => {
                    let wg = Winograd::new(p.isa, &oihw, (c, oc), (h, w), (oh, ow), [pt, pl], or_zeros(bias.clone()));
                    Kind::Winograd(Box::new(wg), Box::new(im2col))
                }
                false => im2col,
            }
        }
    } else if groups == c && fi == 1 && fo == c && oc == c {
        let weights = rearranged(&oihw, 1, taps, |o, _, t| t * c + o);
        Kind::Depthwise(Depthwise {
            c,
            h,
            w,
            ow,
            kh,
            kw,
            stride: [sh, sw],
            dilation: [dh, dw],
            pad: [pt, pl],
            weights,
            bias: or_zeros(bias),
        })
    } else {
        return None;
    };
    Some(finish(p, n, a, kind, [nb, c, h, w], [oh, ow, oc]))
}

/// The step for `kind`: where it reads its input (NCHW inputs are transposed as the step
/// reads them, unless stored NHWC or read by a kernel that takes them as they lie) and
/// what it fuses after it.
fn finish(p: &mut Planner, n: usize, a: &Conv2d, kind: Kind, [nb, c, h, w]: [usize; 4], [oh, ow, oc]: [usize; 3]) -> Step {
    let (o, y) = (&a.options, p.orig.nodes[n].outputs[0]);
    let (input, mut transpose_in, stored_nhwc) = match o.input_layout {
        // The planes kernel reads the NCHW image (converted once where it is stored NHWC).
        InputLayout::Nchw if matches!(kind, Kind::Planes(_)) => (p.logical(a.input), false, true),
        InputLayout::Nchw => (a.input.index(), !p.nhwc[a.input.index()], true),
        InputLayout::Nhwc => (p.logical(a.input), false, false),
    };
    // The stem kernel reads an NCHW image where it lies.
    let mut kind = kind;
    if let Kind::Stem(s) = &mut kind {
        (s.nchw, transpose_in) = (transpose_in, false);
    }
    let (post, out) = p.tail(n, y, true, stored_nhwc);
    Step::Conv(Box::new(Conv {
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
        out_shape: vec![nb, oh, ow, oc],
        kind,
        post,
        input_bytes: None,
        output_bytes: None,
        expand: None,
    }))
}

/// Slack after an im2col tile: copies of up to this many floats move a whole vector.
const SPILL: usize = 16;

/// `dst[..len] = src[..len]`. A run of a few floats (an RGB window row is 9) as a library
/// `memcpy` call costs more than the data; where `overrun` allows it and both sides have
/// room, a fixed 16-float copy (one or two vector moves) is made instead and the extra floats
/// are left for the next segment to overwrite.
#[inline(always)]
fn copy(dst: &mut [f32], src: &[f32], len: usize, overrun: bool) {
    if overrun && len <= SPILL && dst.len() >= SPILL && src.len() >= SPILL {
        dst[..SPILL].copy_from_slice(&src[..SPILL]);
    } else {
        dst[..len].copy_from_slice(&src[..len]);
    }
}

thread_local! {
    /// Each thread's im2col tile, kept between ops so it is allocated once.
    static TILE: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

impl Conv {
    pub(crate) fn describe(&self) -> String {
        let kind = match &self.kind {
            Kind::Pointwise(_) => "pointwise".to_owned(),
            Kind::QPointwise(q) => format!("pointwise {}", q.describe()),
            Kind::Im2col { window, .. } => {
                format!("im2col {}x{}/{}", window.kh, window.kw, window.stride[0])
            }
            Kind::Depthwise(d) => format!("depthwise {}x{}/{}", d.kh, d.kw, d.stride[0]),
            Kind::Narrow(d) => format!("narrow {}x{}/{}", d.kh, d.kw, d.stride[0]),
            Kind::Planes(d) => format!("planes {}x{}/1 nchw", d.kh, d.kw),
            Kind::Stem(d) => format!("stem {}x{}/{}{}", d.kh, d.kw, d.stride[0], if d.nchw { " nchw" } else { "" }),
            Kind::Winograd(..) => "winograd 3x3/1".to_owned(),
            Kind::Runtime(r) => format!("{} {}x{}/{}, filter computed", if r.pointwise { "pointwise" } else { "im2col" }, r.window.kh, r.window.kw, r.window.stride[0]),
        };
        let (read, written) = (if self.input_bytes.is_some() { " bytes" } else { "" }, if self.output_bytes.is_some() { " as bytes" } else { "" });
        let expand = self.expand.as_ref().map_or(String::new(), |e| format!("pointwise {}->{}{} then ", e.c, self.c, e.describe()));
        format!(
            "conv {expand}{kind}{read} {}x{}x{} -> {}x{}x{}{}{written}",
            self.h, self.w, self.c, self.oh, self.ow, self.oc, self.post.describe()
        )
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        let runtime = match &self.kind {
            Kind::Runtime(r) => r.reads().collect(),
            _ => Vec::new(),
        };
        std::iter::once(self.expand.as_ref().map_or(self.input, |e| e.input))
            .chain(self.post.residual)
            .chain(runtime)
            .collect()
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (oc, m) = (self.oc, self.n * self.oh * self.ow);
        let stored = self.output_bytes.is_some();
        let mut y = values.alloc(if stored { 0 } else { m * oc });
        let mut y_bytes = values.alloc_bytes(if stored { m * oc } else { 0 });
        let mut transposed = match self.transpose_in {
            true => values.alloc(self.n * self.c * self.h * self.w),
            false => Buf::empty(),
        };
        {
            // With an expansion, the expansion's input (`c` of its channels per pixel).
            let (slot, channels) = self.expand.as_ref().map_or((self.input, self.c), |e| (e.input, e.c));
            let bytes = self.input_bytes.map(|b| values.bytes(slot).map(|v| (v, b))).transpose()?;
            let xin = match bytes {
                Some(_) => &[][..],
                None => values.f32(slot)?,
            };
            let x = if self.transpose_in {
                crate::copy::nchw_to_nhwc(ctx, xin, &mut transposed, self.n, self.c, self.h * self.w);
                &transposed[..]
            } else {
                xin
            };
            let size = self.n * self.h * self.w * channels;
            if bytes.as_ref().map_or(x.len(), |(v, _)| v.len()) != size {
                return Err(webnn_core::Error::operation_error(format!("{}: the input's size differs from the plan's", self.describe())));
            }
            let residual = self.post.residual.map(|r| values.f32(r)).transpose()?;
            // Stored as bytes, the output's pair quantizes into them (`Sink`), not the step.
            let (pair, post) = match stored {
                true => self.post.split_quant(),
                false => (None, self.post),
            };
            let (post, simd) = (&post, ctx.simd);
            let sink = Sink::new(simd, &mut y, &mut y_bytes, pair);
            let image = self.h * self.w * self.c;
            let built;
            let kind = match &self.kind {
                Kind::Winograd(_, im2col) if !winograd::finite(simd, x) => im2col.as_ref(),
                Kind::Runtime(r) => {
                    built = r.kind(values)?;
                    &built
                }
                kind => kind,
            };
            match kind {
                // A GEMM over the pixels; by column panels where B is larger than the cache
                // (SqueezeNet's last layer: 512 x 1000 weights over 169 pixels, streamed once
                // per 8-row unit when split by rows).
                // SAFETY: the only use of the sink in this arm.
                Kind::Pointwise(packed) if let Some(out) = unsafe { sink.floats() } => {
                    crate::matmul::rows_on_pool(ctx, m, self.c, x, packed, out, post, residual);
                }
                Kind::Pointwise(packed) => {
                    let unit = unit_rows(m, packed.tile().0, self.c * oc);
                    ctx.pool.run(m.div_ceil(unit), &|u| {
                        let rows = u * unit..(u * unit + unit).min(m);
                        // SAFETY: each unit writes its own rows.
                        unsafe {
                            sink.rows(rows.start * oc, rows.len() * oc, |out| {
                                gemm_rows(rows.clone(), x, self.c, packed, out, oc, post.epilogue());
                                post.finish(simd, out, residual, rows.start * oc);
                            })
                        };
                    });
                }
                Kind::QPointwise(q) => {
                    let (lo, hi) = post.kernel_bounds();
                    let (in_kernel, rest) = post.split_quant();
                    let in_kernel = in_kernel.as_ref();
                    let unit = unit_rows(m, 8, self.c * oc);
                    ctx.pool.run(m.div_ceil(unit), &|u| {
                        let rows = u * unit..(u * unit + unit).min(m);
                        let input = rows.start * self.c..rows.end * self.c;
                        let run = |out: QOut, quant| match &bytes {
                            Some((v, _)) => q.run_bytes(&v[input.clone()], out, lo, hi, quant),
                            None => q.run(&x[input.clone()], out, lo, hi, quant),
                        };
                        // SAFETY (both): each unit writes its own rows.
                        match unsafe { sink.bytes(rows.start * oc, rows.len() * oc) } {
                            // Stored: the kernel writes the pair's integers from its registers.
                            Some((out, pair)) => run(QOut::Bytes(out, pair), None),
                            None => unsafe {
                                sink.rows(rows.start * oc, rows.len() * oc, |out| {
                                    run(QOut::Floats(out), in_kernel);
                                    rest.finish(simd, out, residual, rows.start * oc);
                                })
                            },
                        }
                    });
                }
                Kind::Im2col {
                    packed,
                    window,
                    tile,
                } => {
                    let (tile, k) = (*tile, packed.k());
                    ctx.pool.run(m.div_ceil(tile), &|u| {
                        let rows = u * tile..(u * tile + tile).min(m);
                        // SAFETY: each unit writes its own rows.
                        unsafe {
                            sink.rows(rows.start * oc, rows.len() * oc, |out| {
                                TILE.with_borrow_mut(|a| {
                                    // `SPILL` floats of slack for the short copies' overrun.
                                    a.resize(tile * k + SPILL, 0.0);
                                    self.im2col(x, window, rows.clone(), a);
                                    gemm(rows.len(), a, k, packed, out, oc, post.epilogue());
                                });
                                post.finish(simd, out, residual, rows.start * oc);
                            })
                        };
                    });
                }
                Kind::Winograd(wg, _) => {
                    let row_len = self.ow * oc;
                    let (lo, hi) = post.kernel_bounds();
                    ctx.pool.run(wg.tasks(self.n), &|task| {
                        let (b, rows) = wg.rows(task);
                        let start = (b * self.oh + rows.start) * row_len;
                        // SAFETY: each task writes its own rows.
                        unsafe {
                            sink.rows(start, rows.len() * row_len, |out| {
                                wg.band(simd, &x[b * image..][..image], rows.clone(), out, lo, hi);
                                post.finish(simd, out, residual, start);
                            })
                        };
                    });
                }
                Kind::Narrow(d) => self.image_rows(ctx, &sink, post, residual, 1, &|b, oy, out, lo, hi| {
                    d.row(simd, &x[b * image..][..image], oy, out, lo, hi)
                }),
                Kind::Planes(d) => self.image_rows(ctx, &sink, post, residual, 1, &|b, oy, out, lo, hi| {
                    d.row(simd, &x[b * image..][..image], oy, out, lo, hi)
                }),
                Kind::Stem(d) => {
                    let unit = unit_rows(self.n * self.oh, 1, self.ow * oc * d.kh * d.kw * d.c);
                    self.image_rows(ctx, &sink, post, residual, unit, &|b, oy, out, lo, hi| {
                        d.row(simd, &x[b * image..][..image], oy, out, lo, hi)
                    })
                }
                Kind::Depthwise(d) if let Some(e) = &self.expand => {
                    let (rows, row_len) = (self.n * self.oh, self.ow * oc);
                    let (lo, hi) = post.kernel_bounds();
                    let input = match &bytes {
                        Some((v, stored)) => {
                            let (offset, scale) = stored.zero_and_scale();
                            DepthwiseInput::Bytes(v, offset, scale)
                        }
                        None => DepthwiseInput::Floats(x),
                    };
                    let unit = e.unit(rows, ctx.pool.threads());
                    ctx.pool.run(rows.div_ceil(unit), &|u| {
                        e.rows(simd, d, input, self.oh, u * unit..(u * unit + unit).min(rows), lo, hi, &|r, row| {
                            // SAFETY: each unit writes its own rows.
                            unsafe {
                                sink.rows(r * row_len, row_len, |out| {
                                    row(out);
                                    post.finish(simd, out, residual, r * row_len);
                                })
                            };
                        });
                    });
                }
                // 8-bit activations: each task decodes its window rows once into a ring.
                Kind::Depthwise(d) if let Some((v, stored)) = &bytes && d.stride == [1, 1] => {
                    let (offset, scale) = stored.zero_and_scale();
                    let (rows, row_len, line) = (self.n * self.oh, self.ow * oc, self.w * self.c);
                    let (lo, hi) = post.kernel_bounds();
                    // One task per thread: a cut decodes its window's rows twice.
                    let unit = rows.div_ceil(ctx.pool.threads().max(1)).max(1);
                    ctx.pool.run(rows.div_ceil(unit), &|u| {
                        d.with_ring(|ring| {
                            for r in u * unit..(u * unit + unit).min(rows) {
                                // SAFETY: each unit writes its own rows.
                                unsafe {
                                    sink.rows(r * row_len, row_len, |out| {
                                        ring.row(simd, r / self.oh, r % self.oh, out, lo, hi, |b, iy, slot| {
                                            depthwise::decode(simd, &v[(b * self.h + iy) * line..][..line], offset, scale, slot)
                                        });
                                        post.finish(simd, out, residual, r * row_len);
                                    })
                                };
                            }
                        })
                    });
                }
                Kind::Runtime(_) => unreachable!("a runtime filter's kernel is built above"),
                Kind::Depthwise(d) => {
                    let unit = unit_rows(self.n * self.oh, 1, self.ow * oc * d.kh * d.kw);
                    self.image_rows(ctx, &sink, post, residual, unit, &|b, oy, out, lo, hi| {
                        let at = b * image..(b + 1) * image;
                        let input = match &bytes {
                            Some((v, stored)) => {
                                let (offset, scale) = stored.zero_and_scale();
                                DepthwiseInput::Bytes(&v[at], offset, scale)
                            }
                            None => DepthwiseInput::Floats(&x[at]),
                        };
                        d.row(simd, input, oy, out, lo, hi)
                    })
                }
            }
        }
        match stored {
            true => values.put_bytes(self.output, self.out_shape.clone(), y_bytes),
            false => values.put(self.output, self.out_shape.clone(), y),
        }
        values.recycle(transposed);
        Ok(())
    }

    /// The kernels that compute one output row at a time (narrow, stem, depthwise):
    /// `row(image, oy, out, lo, hi)` for every output row, `unit` rows per task, each into
    /// the sink and through the rest of the epilogue.
    #[allow(clippy::too_many_arguments)]
    fn image_rows(
        &self,
        ctx: &Ctx,
        sink: &Sink,
        post: &Post,
        residual: Option<&[f32]>,
        unit: usize,
        row: &RowKernel,
    ) {
        let (rows, row_len) = (self.n * self.oh, self.ow * self.oc);
        let (lo, hi) = post.kernel_bounds();
        ctx.pool.run(rows.div_ceil(unit), &|u| {
            for r in u * unit..(u * unit + unit).min(rows) {
                // SAFETY: each unit writes its own rows.
                unsafe {
                    sink.rows(r * row_len, row_len, |out| {
                        row(r / self.oh, r % self.oh, out, lo, hi);
                        post.finish(ctx.simd, out, residual, r * row_len);
                    })
                };
            }
        });
    }

    /// Rows `rows` (output pixels) of the im2col matrix into `a`, `kh * kw * c` per row, zero
    /// where the window leaves the image. Segments are written in increasing order, so the
    /// overrun of a short copy is always overwritten by what follows it (or lands in the
    /// tile's slack).
    fn im2col(&self, x: &[f32], win: &Window, rows: std::ops::Range<usize>, a: &mut [f32]) {
        let (c, k) = (self.c, win.kh * win.kw * self.c);
        for (i, p) in rows.enumerate() {
            let (b, rest) = (p / (self.oh * self.ow), p % (self.oh * self.ow));
            let (oy, ox) = (rest / self.ow, rest % self.ow);
            let iy0 = (oy * win.stride[0]) as isize - win.pad[0] as isize;
            let ix0 = (ox * win.stride[1]) as isize - win.pad[1] as isize;
            let kxs = simd::taps(ix0, win.dilation[1], self.w, win.kw);
            // With dilation 1 the window row's taps are adjacent pixels: one copy of
            // `kw * c` floats instead of `kw` copies of `c`.
            let whole = win.dilation[1] == 1 && kxs == (0..win.kw);
            let kys = simd::taps(iy0, win.dilation[0], self.h, win.kh);
            // Inside the image every segment of the row is written, in order, so short copies
            // may overrun; at the borders the zeros between segments must stay.
            let inside = whole && kys == (0..win.kh);
            if !inside {
                a[i * k..][..k].fill(0.0);
            }
            for ky in kys {
                let iy = (iy0 + (ky * win.dilation[0]) as isize) as usize;
                let line = &x[(b * self.h + iy) * self.w * c..][..self.w * c];
                let row = i * k;
                if whole {
                    let (src, seg) = (ix0 as usize * c, win.kw * c);
                    copy(&mut a[row + ky * seg..], &line[src..], seg, inside);
                    continue;
                }
                for kx in kxs.clone() {
                    let ix = (ix0 + (kx * win.dilation[1]) as isize) as usize;
                    copy(
                        &mut a[row + (ky * win.kw + kx) * c..],
                        &line[ix * c..],
                        c,
                        false,
                    );
                }
            }
        }
    }
}

/// The step's part in `expand`'s fusion.
impl Conv {
    /// The pointwise convolution `e` whose result this depthwise one alone reads, as an
    /// expansion computed row by row inside it; `e` back where either does not qualify:
    /// NHWC input, no residual, a window at most `RING_TAPS` rows high, and either float32
    /// throughout with a clamp alone (and float16 roundings: an export's round trips) as
    /// the expansion's epilogue, or the integer kernel with an 8-bit pair.
    pub(crate) fn absorb(&mut self, e: Box<Conv>) -> Result<(), Box<Conv>> {
        let Kind::Depthwise(d) = &self.kind else { return Err(e) };
        let fits = d.window_rows(0).len() <= crate::depthwise::RING_TAPS;
        let same = (e.n, e.oh, e.ow, e.oc) == (self.n, self.h, self.w, self.c) && self.input == e.output;
        let alone = !self.transpose_in && !e.transpose_in && self.expand.is_none() && e.expand.is_none();
        let no_residual = e.post.residual.is_none() && self.post.residual != Some(e.output);
        if !(fits && same && alone && no_residual) {
            return Err(e);
        }
        match e.kind {
            // Float32 throughout: a clamp (and float16 roundings: an export's round trips).
            Kind::Pointwise(packed) if e.post.quant.is_none() && [e.input_bytes, e.output_bytes, self.input_bytes, self.output_bytes] == [None; 4] => {
                let (epilogue, round) = (e.post.epilogue(), e.post.rounds());
                let kernel = Kernel::Floats { packed, epilogue, round };
                self.expand = Some(Expand { input: e.input, c: e.c, kernel });
                Ok(())
            }
            // A QDQ block: the clamp and the 8-bit pair in the integer kernel's registers
            // (whose bytes, had they been stored, the depthwise kernel would decode to the
            // same values); the expansion's input, bytes or not, becomes this step's.
            Kind::QPointwise(q) if let (Some(pair), false) = (e.post.quant, e.post.rounds()) && pair.lanes().is_some() => {
                let (lo, hi) = e.post.kernel_bounds();
                self.expand = Some(Expand { input: e.input, c: e.c, kernel: Kernel::Ints { q, lo, hi, pair } });
                self.input_bytes = e.input_bytes;
                Ok(())
            }
            kind => Err(Box::new(Conv { kind, ..*e })),
        }
    }

    /// Whether this is a pointwise convolution, writing slot `output`: what `expand::fuse`
    /// pairs with a depthwise reader.
    pub(crate) fn pointwise_output(&self) -> Option<usize> {
        matches!(self.kind, Kind::Pointwise(_) | Kind::QPointwise(_)).then_some(self.output)
    }

    /// Whether this is a depthwise convolution, reading slot `input`.
    pub(crate) fn depthwise_input(&self) -> Option<usize> {
        matches!(self.kind, Kind::Depthwise(_)).then_some(self.input)
    }
}

/// The step's part in byte storage (`stored::store`).
impl Conv {
    /// The storage its output can take: the kernels that run units of rows can all write
    /// through a `Sink`, which applies the pair where the step would have (last; with a
    /// residual, `split_quant` keeps the pair in the step, so such outputs stay float32).
    pub(crate) fn output_bytes(&self) -> Option<Bytes> {
        let (pair, _) = self.post.split_quant();
        pair.as_ref().and_then(Bytes::of)
    }

    /// Whether it can read its input (slot `input`) as these bytes: the integer pointwise
    /// kernel reads them as its uint8 rows; the depthwise kernel decodes them as it loads
    /// them.
    pub(crate) fn reads_bytes(&self, input: usize, bytes: &Bytes) -> bool {
        let ours = input == self.input && !self.transpose_in && self.post.residual != Some(input);
        ours && match &self.kind {
            Kind::QPointwise(q) => {
                let (zero, scale) = bytes.zero_and_scale();
                q.reads_bytes(zero, scale)
            }
            Kind::Depthwise(_) => true,
            Kind::Pointwise(_) | Kind::Im2col { .. } | Kind::Narrow(_) | Kind::Planes(_) | Kind::Stem(_) | Kind::Winograd(..) | Kind::Runtime(_) => false,
        }
    }

    pub(crate) fn set_output_bytes(&mut self, bytes: Bytes) {
        self.output_bytes = Some(bytes);
    }

    pub(crate) fn set_input_bytes(&mut self, bytes: Bytes) {
        self.input_bytes = Some(bytes);
    }
}
