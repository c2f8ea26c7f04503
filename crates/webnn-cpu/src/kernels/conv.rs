//! conv2d and convTranspose2d, plus the 4-D layout helpers pooling shares.
//!
//! Both convolutions work on canonical layouts (input NCHW, filter OIHW or IOHW) converted
//! once to f64, accumulate in f64 and round once to the output type. The inner loops are
//! axpy-style row updates over precomputed in-bounds ranges, so no per-element bounds test or
//! allocation happens.

use crate::eval::Cx;
use crate::tensor::Tensor;
use std::ops::Range;
use webnn_core::ops::*;
use webnn_core::{Operand, Result};

/// Reorders a 4-D array: axis `k` of the result is axis `perm[k]` of `src` (shape `shape`).
pub(crate) fn permute4<T: Copy>(src: &[T], shape: [usize; 4], perm: [usize; 4]) -> (Vec<T>, [usize; 4]) {
    let strides = [shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1];
    let out_shape = [shape[perm[0]], shape[perm[1]], shape[perm[2]], shape[perm[3]]];
    let s = [strides[perm[0]], strides[perm[1]], strides[perm[2]], strides[perm[3]]];
    if perm == [0, 1, 2, 3] {
        return (src.to_vec(), out_shape);
    }
    let mut out = Vec::with_capacity(src.len());
    for a in 0..out_shape[0] {
        for b in 0..out_shape[1] {
            for c in 0..out_shape[2] {
                let base = a * s[0] + b * s[1] + c * s[2];
                out.extend((0..out_shape[3]).map(|d| src[base + d * s[3]]));
            }
        }
    }
    (out, out_shape)
}

/// The permutation taking an input in `layout` to NCHW.
pub(crate) fn to_nchw(layout: InputLayout) -> [usize; 4] {
    layout.nchw_axes()
}

/// The permutation taking an NCHW result to `layout`.
pub(crate) fn from_nchw(layout: InputLayout) -> [usize; 4] {
    match layout {
        InputLayout::Nchw => [0, 1, 2, 3],
        InputLayout::Nhwc => [0, 2, 3, 1],
    }
}

/// A 4-D shape as an array (the graph validated the rank).
pub(crate) fn shape4(shape: &[usize]) -> [usize; 4] {
    let mut s = [1usize; 4];
    for (d, &n) in s.iter_mut().zip(shape.iter()) {
        *d = n;
    }
    s
}

/// The `k` in `0..count` for which `k * stride + offset` lies in `0..limit`, as a range.
pub(crate) fn span(offset: i64, stride: usize, limit: usize, count: usize) -> std::ops::Range<usize> {
    let s = stride.max(1) as i64;
    // Smallest k with k*s + offset >= 0, largest k with k*s + offset <= limit - 1.
    let lo = (-offset).div_euclid(s) + i64::from((-offset).rem_euclid(s) != 0);
    let hi = (limit as i64 - 1 - offset).div_euclid(s) + 1;
    let lo = lo.clamp(0, count as i64) as usize;
    let hi = hi.clamp(0, count as i64) as usize;
    lo..hi.max(lo)
}

/// Spatial hyperparameters with the spec's defaults.
pub(crate) struct Geometry {
    pub pad_top: i64,
    pub pad_left: i64,
    pub strides: [usize; 2],
    pub dilations: [usize; 2],
}

impl Geometry {
    pub(crate) fn new(
        padding: &Option<Vec<u32>>,
        strides: &Option<Vec<u32>>,
        dilations: &Option<Vec<u32>>,
    ) -> Geometry {
        let two = |v| spatial_pair(v).map(|x| x as usize);
        let [pad_top, _, pad_left, _] = spatial_padding(padding).map(|x| x as i64);
        Geometry { pad_top, pad_left, strides: two(strides), dilations: two(dilations) }
    }
}

/// `y[k] += a * x[k * stride]` for every `k` of `y` (a contiguous fast path for stride 1).
fn axpy(y: &mut [f64], a: f64, x: &[f64], stride: usize) {
    if stride == 1 {
        y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
    } else {
        y.iter_mut().zip(x.iter().step_by(stride)).for_each(|(y, x)| *y += a * x);
    }
}

/// `y[k * stride] += a * x[k]` for every `k` of `x`.
fn scatter_axpy(y: &mut [f64], a: f64, x: &[f64], stride: usize) {
    if stride == 1 {
        y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
    } else {
        y.iter_mut().step_by(stride).zip(x).for_each(|(y, x)| *y += a * x);
    }
}

/// Adds the bias per channel of an NCHW buffer, permutes it to `layout` and rounds once.
fn finish(cx: &Cx, mut y: Vec<f64>, shape: [usize; 4], bias: Option<&Tensor>, layout: InputLayout) -> Result<Tensor> {
    if let Some(bias) = bias {
        let b = bias.to_f64();
        let plane = shape[2] * shape[3];
        for (i, chunk) in y.chunks_mut(plane.max(1)).enumerate() {
            let v = b.get(i % shape[1].max(1)).copied().unwrap_or(0.0);
            chunk.iter_mut().for_each(|x| *x += v);
        }
    }
    let (y, out_shape) = permute4(&y, shape, from_nchw(layout));
    Ok(Tensor::from_f64(cx.out_type(0), out_shape.to_vec(), &y))
}

/// Output height and width from the output shape inferred at build.
pub(crate) fn out_hw(cx: &Cx, layout: InputLayout) -> [usize; 2] {
    let s = shape4(&cx.out_shape(0));
    match layout {
        InputLayout::Nchw => [s[2], s[3]],
        InputLayout::Nhwc => [s[1], s[2]],
    }
}

/// What both convolutions start from: the input as NCHW and the filter in its canonical
/// layout (OIHW for conv2d, IOHW for convTranspose2d), both as f64, with their shapes.
struct ConvOperands<'a> {
    x: Vec<f64>,
    x_shape: [usize; 4],
    f: Vec<f64>,
    f_shape: [usize; 4],
    bias: Option<&'a Tensor>,
    out_hw: [usize; 2],
}

fn conv_operands<'a>(
    cx: &Cx<'a>,
    [input, filter]: [Operand; 2],
    bias: Option<Operand>,
    layout: InputLayout,
    filter_perm: [usize; 4],
) -> Result<ConvOperands<'a>> {
    let (input, filter) = (cx.t(input)?, cx.t(filter)?);
    let (x, x_shape) = permute4(&input.to_f64(), shape4(&input.shape), to_nchw(layout));
    let (f, f_shape) = permute4(&filter.to_f64(), shape4(&filter.shape), filter_perm);
    Ok(ConvOperands { x, x_shape, f, f_shape, bias: cx.opt(bias)?, out_hw: out_hw(cx, layout) })
}

/// Walks the filter taps `(r, q)` linking one plane pair of a convolution: position `k` of the
/// dense plane (`dense_hw`; the output for conv2d, the input for convTranspose2d) meets
/// position `k * stride + tap * dilation - pad` of the strided plane (`strided_hw`). For each
/// tap, with weight `weight(r, q)`, and each row pair it links, calls
/// `row(weight, dense_row, strided_row, dense_cols, strided_col0)`: the in-bounds dense columns
/// and the strided column the first of them meets.
fn for_each_tap(
    g: &Geometry,
    [kh, kw]: [usize; 2],
    [dh, dw]: [usize; 2],
    [sh, sw]: [usize; 2],
    weight: impl Fn(usize, usize) -> f64,
    mut row: impl FnMut(f64, usize, usize, Range<usize>, usize),
) {
    for r in 0..kh {
        let row_off = (r * g.dilations[0]) as i64 - g.pad_top;
        let rows = span(row_off, g.strides[0], sh, dh);
        for q in 0..kw {
            let col_off = (q * g.dilations[1]) as i64 - g.pad_left;
            let cols = span(col_off, g.strides[1], sw, dw);
            if cols.is_empty() {
                continue;
            }
            let wv = weight(r, q);
            let col0 = ((cols.start * g.strides[1]) as i64 + col_off) as usize;
            for k in rows.clone() {
                let strided_row = ((k * g.strides[0]) as i64 + row_off) as usize;
                row(wv, k, strided_row, cols.clone(), col0);
            }
        }
    }
}

/// The products of non-finite weights with the zeros of the padding, which the tap walk
/// skips: conv2d convolves the zero-padded input, so an infinite (or NaN) weight that meets
/// padding makes that output NaN, as on every backend that pads explicitly. Finite weights
/// add nothing there, so this pass runs only for filters with non-finite entries.
fn padding_products(
    g: &Geometry,
    [kh, kw]: [usize; 2],
    [oh, ow]: [usize; 2],
    [h, w]: [usize; 2],
    weight: &dyn Fn(usize, usize) -> f64,
    y_plane: &mut [f64],
) {
    for r in 0..kh {
        for q in 0..kw {
            let wv = weight(r, q);
            if wv.is_finite() {
                continue;
            }
            for oy in 0..oh {
                let iy = (oy * g.strides[0] + r * g.dilations[0]) as i64 - g.pad_top;
                for ox in 0..ow {
                    let ix = (ox * g.strides[1] + q * g.dilations[1]) as i64 - g.pad_left;
                    if iy < 0 || iy >= h as i64 || ix < 0 || ix >= w as i64 {
                        y_plane[oy * ow + ox] += wv * 0.0;
                    }
                }
            }
        }
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d>
pub fn conv2d(cx: &Cx, op: &Conv2d) -> Result<Tensor> {
    let o = &op.options;
    let filter_perm = o.filter_layout.oihw_axes();
    let p = conv_operands(cx, [op.input, op.filter], o.bias, o.input_layout, filter_perm)?;
    let ([n, c, h, w], [oc, icg, kh, kw], [oh, ow]) = (p.x_shape, p.f_shape, p.out_hw);
    let g = Geometry::new(&o.padding, &o.strides, &o.dilations);
    let groups = (o.groups as usize).max(1);
    let ocg = (oc / groups).max(1);
    let mut y = vec![0.0f64; n * oc * oh * ow];
    for b in 0..n {
        for out_c in 0..oc {
            let group = out_c / ocg;
            let y_plane = &mut y[(b * oc + out_c) * oh * ow..][..oh * ow];
            for i in 0..icg {
                let in_c = group * icg + i;
                if in_c >= c {
                    continue;
                }
                let x_plane = &p.x[(b * c + in_c) * h * w..][..h * w];
                let weight = |r, q| p.f[((out_c * icg + i) * kh + r) * kw + q];
                for_each_tap(&g, [kh, kw], [oh, ow], [h, w], weight, |wv, oy, iy, cols, ix0| {
                    let x_row = &x_plane[iy * w..][..w];
                    axpy(&mut y_plane[oy * ow..][..ow][cols], wv, &x_row[ix0..], g.strides[1]);
                });
                padding_products(&g, [kh, kw], [oh, ow], [h, w], &weight, y_plane);
            }
        }
    }
    finish(cx, y, [n, oc, oh, ow], p.bias, o.input_layout)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d>: every input element
/// scatters `value * filter` into the output window it maps to.
pub fn conv_transpose2d(cx: &Cx, op: &ConvTranspose2d) -> Result<Tensor> {
    let o = &op.options;
    let filter_perm = o.filter_layout.iohw_axes();
    let p = conv_operands(cx, [op.input, op.filter], o.bias, o.input_layout, filter_perm)?;
    let ([n, c, h, w], [_, ocg, kh, kw], [oh, ow]) = (p.x_shape, p.f_shape, p.out_hw);
    let g = Geometry::new(&o.padding, &o.strides, &o.dilations);
    let groups = (o.groups as usize).max(1);
    let oc = ocg * groups;
    // The spec does not require the input channels to divide by groups; any remainder
    // channels belong to no group and contribute nothing.
    let icg = c / groups;
    let mut y = vec![0.0f64; n * oc * oh * ow];
    for b in 0..n {
        for group in 0..groups {
            for oc_l in 0..ocg {
                let out_c = group * ocg + oc_l;
                let y_plane = &mut y[(b * oc + out_c) * oh * ow..][..oh * ow];
                for i in 0..icg {
                    let in_c = group * icg + i;
                    let x_plane = &p.x[(b * c + in_c) * h * w..][..h * w];
                    let weight = |r, q| p.f[((in_c * ocg + oc_l) * kh + r) * kw + q];
                    for_each_tap(&g, [kh, kw], [h, w], [oh, ow], weight, |wv, iy, oy, cols, ox0| {
                        let x_row = &x_plane[iy * w..][..w];
                        scatter_axpy(&mut y_plane[oy * ow..][..ow][ox0..], wv, &x_row[cols], g.strides[1]);
                    });
                }
            }
        }
    }
    finish(cx, y, [n, oc, oh, ow], p.bias, o.input_layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_matches_brute_force() {
        for offset in -7i64..7 {
            for stride in 1..4usize {
                for limit in 0..6usize {
                    for count in 0..6usize {
                        let want: Vec<usize> = (0..count)
                            .filter(|&k| {
                                let p = (k * stride) as i64 + offset;
                                p >= 0 && p < limit as i64
                            })
                            .collect();
                        let got: Vec<usize> = span(offset, stride, limit, count).collect();
                        assert_eq!(got, want, "offset {offset} stride {stride} limit {limit} count {count}");
                    }
                }
            }
        }
    }

    use crate::CpuGraph;
    use std::collections::HashMap;
    use webnn_core::{DataType, GraphBuilder, Operand, OperandDescriptor};

    fn data(n: usize, seed: usize) -> Vec<f64> {
        (0..n).map(|i| ((i * 7 + seed * 13) % 17) as f64 - 8.0).collect()
    }

    /// Builds `f(builder, x, filter)` over an NCHW input and an OIHW/IOHW constant filter and runs it.
    fn run(
        x_shape: [usize; 4],
        f_shape: [usize; 4],
        f: impl FnOnce(&mut GraphBuilder, Operand, Operand) -> Operand,
    ) -> Tensor {
        let u = |s: [usize; 4]| s.map(|d| d as u32);
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(DataType::Float32, &u(x_shape))).unwrap();
        let ft = Tensor::from_f64(DataType::Float32, f_shape.to_vec(), &data(f_shape.iter().product(), 1));
        let filter = b.constant(OperandDescriptor::new(DataType::Float32, &u(f_shape)), ft.to_bytes()).unwrap();
        let y = f(&mut b, x, filter);
        let g = CpuGraph::new(b.build(&[("y", y)]).unwrap()).unwrap();
        let xt = Tensor::from_f64(DataType::Float32, x_shape.to_vec(), &data(x_shape.iter().product(), 0));
        let mut feeds = HashMap::new();
        feeds.insert("x".to_owned(), xt);
        g.run(&feeds).unwrap().remove(0).1
    }

    /// (input [n,c,h,w], filter spatial, groups, out channels, padding, strides, dilations)
    type Case = ([usize; 4], [usize; 2], usize, usize, [u32; 4], [u32; 2], [u32; 2]);
    const CASES: &[Case] = &[
        ([1, 2, 7, 6], [3, 2], 1, 3, [1, 0, 2, 1], [2, 1], [1, 2]),
        ([2, 4, 5, 5], [2, 3], 2, 4, [0, 1, 1, 0], [1, 3], [2, 1]),
        ([1, 3, 6, 4], [3, 3], 3, 6, [2, 2, 2, 2], [3, 2], [2, 2]),
    ];

    #[test]
    fn conv2d_matches_brute_force() {
        for &(xs, [kh, kw], groups, oc, p, s, d) in CASES {
            let icg = xs[1] / groups;
            let fs = [oc, icg, kh, kw];
            let opts = Conv2dOptions {
                padding: Some(p.to_vec()),
                strides: Some(s.to_vec()),
                dilations: Some(d.to_vec()),
                groups: groups as u32,
                ..Default::default()
            };
            let y = run(xs, fs, |b, x, f| b.conv2d(x, f, opts).unwrap());
            let [_, _, oh, ow] = shape4(&y.shape);
            let (x, f, got) = (data(xs.iter().product(), 0), data(fs.iter().product(), 1), y.to_f64());
            let [n, c, h, w] = xs;
            for (idx, &g) in got.iter().enumerate() {
                let (b, o, oy, ox) = (idx / (oc * oh * ow), idx / (oh * ow) % oc, idx / ow % oh, idx % ow);
                let mut want = 0.0;
                for i in 0..icg {
                    for r in 0..kh {
                        for q in 0..kw {
                            let iy = (oy * s[0] as usize + r * d[0] as usize) as i64 - p[0] as i64;
                            let ix = (ox * s[1] as usize + q * d[1] as usize) as i64 - p[2] as i64;
                            if iy >= 0 && ix >= 0 && (iy as usize) < h && (ix as usize) < w {
                                let ic = o / (oc / groups) * icg + i;
                                want += x[((b * c + ic) * h + iy as usize) * w + ix as usize]
                                    * f[((o * icg + i) * kh + r) * kw + q];
                            }
                        }
                    }
                }
                assert_eq!(g, want, "case {xs:?} at {idx} (n={n})");
            }
        }
    }

    #[test]
    fn conv_transpose2d_matches_brute_force() {
        for &(xs, [kh, kw], groups, oc, p, s, d) in CASES {
            let ocg = oc / groups;
            let fs = [xs[1], ocg, kh, kw];
            let opts = ConvTranspose2dOptions {
                padding: Some(p.to_vec()),
                strides: Some(s.to_vec()),
                dilations: Some(d.to_vec()),
                output_padding: Some(vec![s[0] - 1, s[1] - 1]),
                groups: groups as u32,
                ..Default::default()
            };
            let y = run(xs, fs, |b, x, f| b.conv_transpose2d(x, f, opts).unwrap());
            let [_, _, oh, ow] = shape4(&y.shape);
            let (x, f) = (data(xs.iter().product(), 0), data(fs.iter().product(), 1));
            let [n, c, h, w] = xs;
            let icg = c / groups;
            let mut want = vec![0.0; n * oc * oh * ow];
            for b in 0..n {
                for ic in 0..c {
                    let group = ic / icg;
                    for ol in 0..ocg {
                        for iy in 0..h {
                            for ix in 0..w {
                                for r in 0..kh {
                                    for q in 0..kw {
                                        let oy = (iy * s[0] as usize + r * d[0] as usize) as i64 - p[0] as i64;
                                        let ox = (ix * s[1] as usize + q * d[1] as usize) as i64 - p[2] as i64;
                                        if oy >= 0 && ox >= 0 && (oy as usize) < oh && (ox as usize) < ow {
                                            let o = group * ocg + ol;
                                            want[((b * oc + o) * oh + oy as usize) * ow + ox as usize] += x
                                                [((b * c + ic) * h + iy) * w + ix]
                                                * f[((ic * ocg + ol) * kh + r) * kw + q];
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            assert_eq!(y.to_f64(), want, "case {xs:?}");
        }
    }

    #[test]
    fn permute4_nhwc_roundtrip() {
        let src: Vec<u32> = (0..24).collect();
        let (nchw, s) = permute4(&src, [1, 2, 3, 4], to_nchw(InputLayout::Nhwc));
        assert_eq!(s, [1, 4, 2, 3]);
        let (back, s2) = permute4(&nchw, s, from_nchw(InputLayout::Nhwc));
        assert_eq!(s2, [1, 2, 3, 4]);
        assert_eq!(back, src);
    }
}
