//! Pooling and resample2d.

use super::conv::{from_nchw, out_hw, permute4, shape4, span, to_nchw, Geometry};
use crate::eval::Cx;
use crate::tensor::Tensor;
use webnn_core::ops::*;
use webnn_core::{OpKind, Result};

/// The pooling windows over an NCHW array of shape `s`, giving an NCHW `[n, c, oh, ow]`.
struct Windows {
    s: [usize; 4],
    window: [usize; 2],
    g: Geometry,
    out_hw: [usize; 2],
}

impl Windows {
    /// Folds every window of `x` into one value per output element: `step` sees the in-bounds
    /// elements (padding is excluded), `finish` gets the accumulator and how many it saw.
    fn fold<T: Copy, A: Copy, R>(
        &self,
        x: &[T],
        init: A,
        step: impl Fn(A, T) -> A,
        finish: impl Fn(A, usize) -> R,
    ) -> Vec<R> {
        let ([n, c, h, w], [oh, ow], g, window) = (self.s, self.out_hw, &self.g, self.window);
        let mut out = Vec::with_capacity(n * c * oh * ow);
        for plane in 0..n * c {
            let x_plane = &x[plane * h * w..][..h * w];
            for oy in 0..oh {
                let top = (oy * g.strides[0]) as i64 - g.pad_top;
                let rows = span(top, g.dilations[0], h, window[0]);
                for ox in 0..ow {
                    let left = (ox * g.strides[1]) as i64 - g.pad_left;
                    let cols = span(left, g.dilations[1], w, window[1]);
                    let mut acc = init;
                    for r in rows.clone() {
                        let iy = (top + (r * g.dilations[0]) as i64) as usize;
                        let x_row = &x_plane[iy * w..][..w];
                        for q in cols.clone() {
                            acc = step(acc, x_row[(left + (q * g.dilations[1]) as i64) as usize]);
                        }
                    }
                    out.push(finish(acc, rows.len() * cols.len()));
                }
            }
        }
        out
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d>. Elements of the padding (and of
/// windows that `ceil` rounding lets overhang the input) are not counted: averagePool2d
/// divides by the number of input elements in the window, as WPT expects. A window holding
/// no input element at all (possible only with padding larger than the window, a case the
/// spec leaves open) gives 0 for average and L2, and the lowest value for max.
pub fn pool2d(cx: &Cx, kind: OpKind, op: &Pool2d) -> Result<Tensor> {
    let o = &op.options;
    let input = cx.t(op.input)?;
    let s = shape4(&input.shape);
    let [oh, ow] = out_hw(cx, o.layout);
    let p = to_nchw(o.layout);
    let nchw_shape = [s[p[0]], s[p[1]], s[p[2]], s[p[3]]];
    let window = match &o.window_dimensions {
        Some(v) if v.len() == 2 => [v[0] as usize, v[1] as usize],
        _ => [nchw_shape[2], nchw_shape[3]],
    };
    let g = Geometry::new(&o.padding, &o.strides, &o.dilations);
    let windows = Windows { s: nchw_shape, window, g, out_hw: [oh, ow] };
    let out_nchw = [nchw_shape[0], nchw_shape[1], oh, ow];
    let dt = cx.out_type(0);
    if !dt.is_float() {
        // Only maxPool2d accepts integer types; i128 holds every one exactly.
        let (x, _) = permute4(&input.to_i128(), s, p);
        let y = windows.fold(&x, i128::MIN, i128::max, |m, _| m);
        let (y, shape) = permute4(&y, out_nchw, from_nchw(o.layout));
        return Ok(Tensor::from_i128(dt, shape.to_vec(), &y));
    }
    let (x, _) = permute4(&input.to_f64(), s, p);
    let y = match kind {
        OpKind::AveragePool2d => windows.fold(&x, 0.0, |a, v| a + v, |a, n| if n == 0 { 0.0 } else { a / n as f64 }),
        OpKind::L2Pool2d => windows.fold(&x, 0.0, |a, v| a + v * v, |a, _| a.sqrt()),
        // NaN is sticky: once seen it wins, as in every other max reduction.
        _ => windows.fold(&x, f64::NEG_INFINITY, |m: f64, v: f64| if v.is_nan() || v > m { v } else { m }, |m, _| m),
    };
    let (y, shape) = permute4(&y, out_nchw, from_nchw(o.layout));
    Ok(Tensor::from_f64(dt, shape.to_vec(), &y))
}

/// Per output coordinate along one axis: the two input indices to blend and the weight of
/// the second (`x0 == x1`, weight 0 for nearest-neighbor and unresampled axes). The fast
/// backend's resample2d uses the same taps.
pub fn axis_taps(in_size: usize, out_size: usize, mode: Option<InterpolationMode>) -> Vec<(usize, usize, f64)> {
    let last = in_size.saturating_sub(1);
    (0..out_size)
        .map(|o| {
            let Some(mode) = mode else {
                return (o.min(last), o.min(last), 0.0);
            };
            // Half-pixel mapping: (o + 0.5) / scale - 0.5 with scale = out / in.
            let coord = ((o as f64 + 0.5) * in_size as f64 / out_size as f64 - 0.5).clamp(0.0, last as f64);
            match mode {
                InterpolationMode::NearestNeighbor => {
                    let i = ((coord - 0.5).ceil().max(0.0) as usize).min(last);
                    (i, i, 0.0)
                }
                InterpolationMode::Linear => {
                    let x0 = (coord.floor() as usize).min(last);
                    let x1 = (coord.ceil() as usize).min(last);
                    (x0, x1, coord - x0 as f64)
                }
            }
        })
        .collect()
}

/// `a * (1 - t) + b * t`, exactly `a` when `t` is 0 (so infinities do not become NaN).
/// `#[inline]`: the fast backend's resample2d calls it per element.
#[inline]
pub fn lerp(a: f64, b: f64, t: f64) -> f64 {
    if t == 0.0 {
        a
    } else {
        a * (1.0 - t) + b * t
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method>, with the spec's
/// half-pixel coordinate transformation. Integer outputs (uint8/int8) of linear mode round
/// to nearest (the spec does not say how).
pub fn resample2d(cx: &Cx, op: &Resample2d) -> Result<Tensor> {
    let o = &op.options;
    let input = cx.t(op.input)?;
    let s = shape4(&input.shape);
    let out = shape4(&cx.out_shape(0));
    let axes = match &o.axes {
        Some(a) if a.len() == 2 => [a[0] as usize, a[1] as usize],
        _ => [2, 3],
    };
    let taps: Vec<Vec<(usize, usize, f64)>> =
        (0..4).map(|d| axis_taps(s[d], out[d], axes.contains(&d).then_some(o.mode))).collect();
    let strides = [s[1] * s[2] * s[3], s[2] * s[3], s[3], 1];
    let x = input.to_f64();
    let (ya, yb) = (axes[0].min(3), axes[1].min(3));
    let mut y = Vec::with_capacity(out.iter().product());
    let mut idx = [0usize; 4];
    for i0 in 0..out[0] {
        idx[0] = i0;
        for i1 in 0..out[1] {
            idx[1] = i1;
            for i2 in 0..out[2] {
                idx[2] = i2;
                for i3 in 0..out[3] {
                    idx[3] = i3;
                    let mut base = 0;
                    for d in 0..4 {
                        if d != ya && d != yb {
                            base += taps[d][idx[d]].0 * strides[d];
                        }
                    }
                    let (a0, a1, ta) = taps[ya][idx[ya]];
                    let (b0, b1, tb) = taps[yb][idx[yb]];
                    let at = |i: usize, j: usize| x[base + i * strides[ya] + j * strides[yb]];
                    y.push(lerp(lerp(at(a0, b0), at(a1, b0), ta), lerp(at(a0, b1), at(a1, b1), ta), tb));
                }
            }
        }
    }
    let dt = cx.out_type(0);
    if !dt.is_float() {
        y.iter_mut().for_each(|v| *v = v.round());
    }
    Ok(Tensor::from_f64(dt, out.to_vec(), &y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CpuGraph;
    use std::collections::HashMap;
    use webnn_core::{DataType, GraphBuilder, Operand, OperandDescriptor};

    fn run(x: Tensor, f: impl FnOnce(&mut GraphBuilder, Operand) -> Operand) -> Tensor {
        let shape: Vec<u32> = x.shape.iter().map(|&d| d as u32).collect();
        let mut b = GraphBuilder::new();
        let input = b.input("x", OperandDescriptor::new(x.data_type(), &shape)).unwrap();
        let y = f(&mut b, input);
        let g = CpuGraph::new(b.build(&[("y", y)]).unwrap()).unwrap();
        let mut feeds = HashMap::new();
        feeds.insert("x".to_owned(), x);
        g.run(&feeds).unwrap().remove(0).1
    }

    #[test]
    fn max_pool_on_int64_is_exact() {
        let big = (1i128 << 60) + 1;
        let x = Tensor::from_i128(DataType::Int64, vec![1, 1, 2, 2], &[big, big - 1, -big, 3]);
        let opts = Pool2dOptions {
            window_dimensions: Some(vec![2, 2]),
            padding: Some(vec![1, 0, 1, 0]),
            ..Default::default()
        };
        let y = run(x, |b, x| b.max_pool2d(x, opts).unwrap());
        assert_eq!(y.shape, vec![1, 1, 2, 2]);
        assert_eq!(y.to_i128(), vec![big, big, big, big]);
    }

    #[test]
    fn windows_entirely_in_padding() {
        // One row and column of padding with a 1x1 window: three outputs see only padding.
        let x = Tensor::from_f64(DataType::Float32, vec![1, 1, 1, 1], &[5.0]);
        let opts = || Pool2dOptions {
            window_dimensions: Some(vec![1, 1]),
            padding: Some(vec![1, 0, 1, 0]),
            ..Default::default()
        };
        let avg = run(x.clone(), |b, x| b.average_pool2d(x, opts()).unwrap());
        assert_eq!(avg.to_f64(), vec![0.0, 0.0, 0.0, 5.0]);
        let max = run(x, |b, x| b.max_pool2d(x, opts()).unwrap());
        assert_eq!(max.to_f64(), vec![f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY, 5.0]);
    }

    #[test]
    fn max_pool_propagates_nan() {
        let x = Tensor::from_f64(DataType::Float32, vec![1, 1, 1, 3], &[1.0, f64::NAN, 2.0]);
        let y = run(x, |b, x| b.max_pool2d(x, Pool2dOptions::default()).unwrap());
        assert!(y.to_f64()[0].is_nan());
    }

    #[test]
    fn resample_linear_matches_the_spec_example() {
        let row = [0.0, 1.0, 2.0, 3.0];
        let rows: Vec<f64> = [0.0, 0.0, 12.0, 12.0].iter().flat_map(|&r| row.map(|v| v + r)).collect();
        let x = Tensor::from_f64(DataType::Float32, vec![1, 1, 4, 4], &rows);
        let opts = Resample2dOptions { mode: InterpolationMode::Linear, sizes: Some(vec![8, 8]), ..Default::default() };
        let y = run(x, |b, x| b.resample2d(x, opts).unwrap()).to_f64();
        let first = [0.0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.0];
        for (r, add) in [0.0, 0.0, 0.0, 3.0, 9.0, 12.0, 12.0, 12.0].iter().enumerate() {
            let want: Vec<f64> = first.iter().map(|v| v + add).collect();
            assert_eq!(&y[r * 8..][..8], &want[..], "row {r}");
        }
    }

    #[test]
    fn resample_nearest_on_separated_axes_and_int8() {
        // Axes [1, 3] (not adjacent), downscale then upscale, int8 data.
        let x = Tensor::from_i128(DataType::Int8, vec![1, 4, 1, 2], &[1, 2, 3, 4, 5, 6, 7, 8]);
        let opts = Resample2dOptions { sizes: Some(vec![2, 4]), axes: Some(vec![1, 3]), ..Default::default() };
        let y = run(x, |b, x| b.resample2d(x, opts).unwrap());
        assert_eq!(y.shape, vec![1, 2, 1, 4]);
        // Channel coordinates (o + 0.5) * 2 - 0.5 = 0.5, 2.5 -> ceil(c - 0.5) = 0, 2.
        assert_eq!(y.to_i128(), vec![1, 1, 2, 2, 5, 5, 6, 6]);
    }
}
