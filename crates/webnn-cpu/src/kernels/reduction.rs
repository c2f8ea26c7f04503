//! Reductions, arg min/max, cumulative sum, softmax.
//!
//! Float inputs are computed in f64 and rounded once to the output type. Integer sums and
//! products are computed in i128 with wrapping arithmetic and truncated to the output type:
//! the spec leaves integer overflow unspecified, and two's-complement wrapping is what native
//! integer accumulators of the same width produce (wrapping mod 2^128 then truncating equals
//! wrapping in the output's width).

use crate::eval::Cx;
use crate::tensor::{strides, Data, Tensor};
use crate::with_data;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{DataType, Error, OpKind, Result};

/// For each element of `shape` in row-major order, `Σ index[d] * eff_strides[d]`: with the
/// strides of a keep-dimensions output and 0 at reduced axes this maps every input element to
/// its reduction group.
pub(crate) fn strided_map(shape: &[usize], eff_strides: &[usize]) -> Vec<usize> {
    let n: usize = shape.iter().product();
    let rank = shape.len();
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0usize; rank];
    let mut off = 0usize;
    for _ in 0..n {
        map.push(off);
        for ax in (0..rank).rev() {
            idx[ax] += 1;
            off += eff_strides[ax];
            if idx[ax] < shape[ax] {
                break;
            }
            off -= eff_strides[ax] * idx[ax];
            idx[ax] = 0;
        }
    }
    map
}

/// The group of each input element when the axes flagged in `reduced` are reduced, with the
/// keep-dimensions shape of the result.
pub(crate) fn group_map(shape: &[usize], reduced: &[bool]) -> (Vec<usize>, Vec<usize>) {
    let kept: Vec<usize> = shape
        .iter()
        .zip(reduced)
        .map(|(&d, &r)| if r { 1 } else { d })
        .collect();
    let eff: Vec<usize> = strides(&kept)
        .iter()
        .zip(reduced)
        .map(|(&s, &r)| if r { 0 } else { s })
        .collect();
    (strided_map(shape, &eff), kept)
}

/// `(outer, size, inner)`: `shape` seen as three dimensions around `axis`.
pub(crate) fn lanes(shape: &[usize], axis: usize) -> Result<(usize, usize, usize)> {
    if axis >= shape.len() {
        return Err(Error::operation_error(format!(
            "axis {axis} is out of range for rank {}",
            shape.len()
        )));
    }
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    Ok((outer, shape[axis], inner))
}

/// Truncates integers to `data_type` (two's-complement wrap; int4/uint4 keep the low nibble).
fn wrap_to(data_type: DataType, shape: Vec<usize>, v: &[i128]) -> Tensor {
    let data = match data_type {
        DataType::Int32 => Data::I32(v.iter().map(|&x| x as i32).collect()),
        DataType::Uint32 => Data::U32(v.iter().map(|&x| x as u32).collect()),
        DataType::Int64 => Data::I64(v.iter().map(|&x| x as i64).collect()),
        DataType::Uint64 => Data::U64(v.iter().map(|&x| x as u64).collect()),
        DataType::Int8 => Data::I8(v.iter().map(|&x| x as i8).collect()),
        DataType::Uint8 => Data::U8(v.iter().map(|&x| x as u8).collect()),
        DataType::Int4 => Data::I4(v.iter().map(|&x| ((x as i8) << 4) >> 4).collect()),
        DataType::Uint4 => Data::U4(v.iter().map(|&x| (x as u8) & 0xF).collect()),
        DataType::Float32 | DataType::Float16 => return Tensor::from_i128(data_type, shape, v),
    };
    Tensor::new(shape, data)
}

/// Folds each input element into its group's accumulator.
fn fold<T: Copy, A: Copy>(
    map: &[usize],
    v: &[T],
    groups: usize,
    init: A,
    f: impl Fn(A, T) -> A,
) -> Vec<A> {
    let mut acc = vec![init; groups];
    for (&g, &x) in map.iter().zip(v) {
        acc[g] = f(acc[g], x);
    }
    acc
}

/// NaN-propagating max/min (the fast backend's reductions and softmax use them too, per
/// element: `#[inline]` lets them inline across the crate boundary).
#[inline]
pub fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}
#[inline]
pub fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// The ten reductions. Absent axes reduce every axis; an empty list reduces none, so the
/// reduction function applies to each element alone (e.g. reduceSumSquare gives x²).
pub fn reduce(cx: &Cx, kind: OpKind, op: &Reduce) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let rank = x.rank();
    let mut reduced = vec![op.options.axes.is_none(); rank];
    for &a in op.options.axes.iter().flatten() {
        if let Some(r) = reduced.get_mut(a as usize) {
            *r = true;
        }
    }
    let (map, kept) = group_map(&x.shape, &reduced);
    let groups: usize = kept.iter().product();
    let out_shape: Vec<usize> = if op.options.keep_dimensions {
        kept
    } else {
        x.shape
            .iter()
            .zip(&reduced)
            .filter(|(_, &r)| !r)
            .map(|(&d, _)| d)
            .collect()
    };
    let dt = x.data_type();
    let float_only = matches!(
        kind,
        OpKind::ReduceL2 | OpKind::ReduceLogSum | OpKind::ReduceLogSumExp | OpKind::ReduceMean
    );
    if !dt.is_float() && !float_only {
        let v = x.to_i128();
        let sum = |f: fn(i128) -> i128| fold(&map, &v, groups, 0i128, |a, x| a.wrapping_add(f(x)));
        return Ok(match kind {
            OpKind::ReduceL1 => wrap_to(dt, out_shape, &sum(i128::wrapping_abs)),
            OpKind::ReduceSumSquare => wrap_to(dt, out_shape, &sum(|x| x.wrapping_mul(x))),
            OpKind::ReduceProduct => wrap_to(
                dt,
                out_shape,
                &fold(&map, &v, groups, 1i128, i128::wrapping_mul),
            ),
            // An empty group (a zero-sized axis) saturates to the type's bounds.
            OpKind::ReduceMax => {
                Tensor::from_i128(dt, out_shape, &fold(&map, &v, groups, i128::MIN, i128::max))
            }
            OpKind::ReduceMin => {
                Tensor::from_i128(dt, out_shape, &fold(&map, &v, groups, i128::MAX, i128::min))
            }
            _ => wrap_to(dt, out_shape, &sum(|x| x)),
        });
    }
    let v = x.to_f64();
    let count = v.len().checked_div(groups).unwrap_or(0) as f64;
    let sum = |f: fn(f64) -> f64| fold(&map, &v, groups, 0.0f64, |a, x| a + f(x));
    let out: Vec<f64> = match kind {
        OpKind::ReduceL1 => sum(f64::abs),
        OpKind::ReduceL2 => sum(|x| x * x).into_iter().map(f64::sqrt).collect(),
        OpKind::ReduceLogSum => sum(|x| x).into_iter().map(f64::ln).collect(),
        OpKind::ReduceLogSumExp => {
            // max + ln Σ exp(x - max) stays finite where exp(x) would overflow.
            let max = fold(&map, &v, groups, f64::NEG_INFINITY, fmax);
            let mut s = vec![0.0f64; groups];
            for (&g, &x) in map.iter().zip(&v) {
                s[g] += (x - max[g]).exp();
            }
            max.iter()
                .zip(&s)
                .map(|(&m, &s)| if m.is_finite() { m + s.ln() } else { m })
                .collect()
        }
        OpKind::ReduceMax => fold(&map, &v, groups, f64::NEG_INFINITY, fmax),
        OpKind::ReduceMin => fold(&map, &v, groups, f64::INFINITY, fmin),
        OpKind::ReduceMean => sum(|x| x).into_iter().map(|s| s / count).collect(),
        OpKind::ReduceProduct => fold(&map, &v, groups, 1.0f64, |a, x| a * x),
        OpKind::ReduceSumSquare => sum(|x| x * x),
        _ => sum(|x| x),
    };
    Ok(Tensor::from_f64(dt, out_shape, &out))
}

/// Index of the first extreme value of each lane; a NaN counts as the extreme (the first NaN
/// wins), so results never depend on where comparison with NaN happens to stop.
fn arg_index<T: PartialOrd + Copy>(
    v: &[T],
    (outer, n, inner): (usize, usize, usize),
    want_max: bool,
) -> Vec<i128> {
    #[allow(clippy::eq_op)]
    let is_nan = |x: T| x != x;
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            let mut best = 0usize;
            if n > 0 && !is_nan(v[base]) {
                let mut bv = v[base];
                for k in 1..n {
                    let x = v[base + k * inner];
                    if is_nan(x) {
                        best = k;
                        break;
                    }
                    if (want_max && x > bv) || (!want_max && x < bv) {
                        best = k;
                        bv = x;
                    }
                }
            }
            out.push(best as i128);
        }
    }
    out
}

/// argMin/argMax: ties give the first index.
pub fn arg_min_max(cx: &Cx, kind: OpKind, op: &ArgMinMax) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let axis = op.axis as usize;
    let l = lanes(&x.shape, axis)?;
    let want_max = kind == OpKind::ArgMax;
    let idx = with_data!(&x.data, |v: _T| arg_index(&v[..], l, want_max));
    let mut shape = x.shape.clone();
    if op.options.keep_dimensions {
        shape[axis] = 1;
    } else {
        shape.remove(axis);
    }
    Ok(Tensor::from_i128(op.options.output_data_type, shape, &idx))
}

/// Visits each lane along the axis in summation order, giving the flat indices.
fn for_each_lane(
    l: (usize, usize, usize),
    reversed: bool,
    mut f: impl FnMut(&mut dyn Iterator<Item = usize>),
) {
    let (outer, n, inner) = l;
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            if reversed {
                f(&mut (0..n).rev().map(|k| base + k * inner));
            } else {
                f(&mut (0..n).map(|k| base + k * inner));
            }
        }
    }
}

/// cumulativeSum: inclusive or exclusive prefix sums, optionally from the end of the axis.
pub fn cumulative_sum(cx: &Cx, op: &CumulativeSum) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let l = lanes(&x.shape, op.axis as usize)?;
    let (exclusive, reversed) = (op.options.exclusive, op.options.reversed);
    let dt = x.data_type();
    if dt.is_float() {
        let v = x.to_f64();
        let mut out = vec![0.0f64; v.len()];
        for_each_lane(l, reversed, |idx| {
            let mut acc = 0.0f64;
            for j in idx {
                let before = acc;
                acc += v[j];
                out[j] = if exclusive { before } else { acc };
            }
        });
        Ok(Tensor::from_f64(dt, x.shape.clone(), &out))
    } else {
        let v = x.to_i128();
        let mut out = vec![0i128; v.len()];
        for_each_lane(l, reversed, |idx| {
            let mut acc = 0i128;
            for j in idx {
                let before = acc;
                acc = acc.wrapping_add(v[j]);
                out[j] = if exclusive { before } else { acc };
            }
        });
        Ok(wrap_to(dt, x.shape.clone(), &out))
    }
}

/// softmax along `axis`: exp(x - max) / Σ exp(x - max).
pub fn softmax(cx: &Cx, op: &Softmax) -> Result<Tensor> {
    let x = cx.t(op.input)?;
    let l = lanes(&x.shape, op.axis as usize)?;
    let v = x.to_f64();
    let mut out = vec![0.0f64; v.len()];
    let mut lane: Vec<usize> = Vec::with_capacity(l.1);
    for_each_lane(l, false, |idx| {
        lane.clear();
        lane.extend(idx);
        let max = lane.iter().fold(f64::NEG_INFINITY, |m, &j| fmax(m, v[j]));
        let mut sum = 0.0f64;
        for &j in &lane {
            let e = (v[j] - max).exp();
            out[j] = e;
            sum += e;
        }
        for &j in &lane {
            out[j] /= sum;
        }
    });
    Ok(Tensor::from_f64(x.data_type(), x.shape.clone(), &out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn group_map_reduces_flagged_axes() {
        let (map, kept) = group_map(&[2, 3], &[false, true]);
        assert_eq!(kept, vec![2, 1]);
        assert_eq!(map, vec![0, 0, 0, 1, 1, 1]);
        let (map, kept) = group_map(&[2, 3], &[true, false]);
        assert_eq!(kept, vec![1, 3]);
        assert_eq!(map, vec![0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn integer_sums_wrap_to_the_output_width() {
        let t = wrap_to(DataType::Int32, vec![2], &[i32::MAX as i128 + 1, -5]);
        assert_eq!(t.data, Data::I32(vec![i32::MIN, -5]));
        let t = wrap_to(DataType::Int4, vec![1], &[9]);
        assert_eq!(t.data, Data::I4(vec![-7]));
    }

    #[test]
    fn arg_index_first_tie_and_nan() {
        assert_eq!(
            arg_index(&[1.0f32, 3.0, 3.0, 0.0], (1, 4, 1), true),
            vec![1]
        );
        assert_eq!(
            arg_index(&[1.0f32, 0.0, 0.0, 2.0], (1, 4, 1), false),
            vec![1]
        );
        assert_eq!(
            arg_index(&[1.0f32, f32::NAN, 5.0], (1, 3, 1), true),
            vec![1]
        );
        assert_eq!(
            arg_index(&[f16::from_f32(2.0), f16::from_f32(-1.0)], (1, 2, 1), false),
            vec![1]
        );
        assert_eq!(arg_index(&[5i64, 7, 7, 1], (2, 2, 1), true), vec![1, 0]);
    }

    /// Builds `f(input)` over one input and runs it on the CPU backend.
    fn run(
        input: Tensor,
        f: impl FnOnce(
            &mut webnn_core::GraphBuilder,
            webnn_core::Operand,
        ) -> Result<webnn_core::Operand>,
    ) -> Tensor {
        use webnn_core::Backend;
        let host = input.to_host();
        let mut b = webnn_core::GraphBuilder::new();
        let x = b.input("x", host.desc.clone()).expect("input");
        let y = f(&mut b, x).expect("valid op");
        let graph = b.build(&[("y", y)]).expect("build");
        let mut exe = crate::CpuBackend.compile(&graph).expect("compile");
        let out = exe.dispatch(&[("x", &host)]).expect("dispatch");
        Tensor::from_bytes(&out[0].1.desc, &out[0].1.bytes).expect("decode")
    }

    #[test]
    fn integer_reductions_are_exact_and_wrap() {
        let x = Tensor::new(vec![2, 2], Data::I32(vec![i32::MAX, 1, -3, 4]));
        let axes = |a: Option<Vec<u32>>| ReduceOptions {
            axes: a,
            ..Default::default()
        };
        let y = run(x.clone(), |b, x| b.reduce_sum(x, axes(Some(vec![1]))));
        assert_eq!(y.data, Data::I32(vec![i32::MIN, 1]));
        let y = run(x.clone(), |b, x| b.reduce_sum_square(x, axes(Some(vec![]))));
        assert_eq!(y.data, Data::I32(vec![1, 1, 9, 16]));
        let y = run(x.clone(), |b, x| b.reduce_l1(x, axes(Some(vec![0]))));
        assert_eq!(y.data, Data::I32(vec![i32::MIN + 2, 5]));
        let big = Tensor::new(vec![3], Data::U64(vec![u64::MAX, 3, 1 << 40]));
        let y = run(big.clone(), |b, x| b.reduce_max(x, axes(None)));
        assert_eq!(y.data, Data::U64(vec![u64::MAX]));
        let y = run(big, |b, x| b.reduce_product(x, axes(None)));
        assert_eq!(
            y.data,
            Data::U64(vec![u64::MAX.wrapping_mul(3).wrapping_mul(1 << 40)])
        );
        let i8x = Tensor::new(vec![3], Data::I8(vec![-7, 100, -128]));
        let y = run(i8x, |b, x| b.reduce_min(x, axes(None)));
        assert_eq!(y.data, Data::I8(vec![-128]));
    }

    #[test]
    fn cumulative_sum_exclusive_reversed() {
        let x = Tensor::new(vec![2, 3], Data::I64(vec![1, 2, 3, 10, 20, 30]));
        let opts = CumulativeSumOptions {
            exclusive: true,
            reversed: true,
            ..Default::default()
        };
        let y = run(x, |b, x| b.cumulative_sum(x, 1, opts));
        assert_eq!(y.data, Data::I64(vec![5, 3, 0, 50, 30, 0]));
    }

    #[test]
    fn log_sum_exp_and_softmax_are_stable() {
        let x = Tensor::new(vec![1, 2], Data::F32(vec![1000.0, 1000.0]));
        let y = run(x.clone(), |b, x| {
            b.reduce_log_sum_exp(x, Default::default())
        });
        assert_eq!(y.data, Data::F32(vec![(1000.0f64 + 2f64.ln()) as f32]));
        let y = run(x, |b, x| b.softmax(x, 1, Default::default()));
        assert_eq!(y.data, Data::F32(vec![0.5, 0.5]));
    }
}
