//! Shape and data movement. Every kernel builds an index map (output element -> source
//! element) and applies it with `Data::gather`, so all data types, int4 included, share one
//! code path. Sources that are not the input (a pad value, a zero, a second operand) are
//! appended to the input's elements and addressed past its end.

use crate::eval::Cx;
use crate::tensor::{broadcast_map, strides, Data, Tensor};
use webnn_core::ops::*;
use webnn_core::{DataType, Error, Result};

/// Marks a padding position in an axis table of `axis_map`.
const OUTSIDE: usize = usize::MAX;

/// The flat source index of every output element when the source offset of output
/// coordinate `o` along axis `d` is `tables[d][o]` (offsets add up across axes). An
/// `OUTSIDE` entry on any axis maps the element to `outside` instead.
pub(crate) fn axis_map(out_shape: &[usize], tables: &[Vec<usize>], outside: usize) -> Vec<usize> {
    let n: usize = out_shape.iter().product();
    let rank = out_shape.len();
    if rank == 0 {
        return vec![0; n];
    }
    let mut map = Vec::with_capacity(n);
    if n == 0 {
        return map;
    }
    let last = &tables[rank - 1];
    let mut idx = vec![0usize; rank - 1];
    loop {
        // The offset of the outer coordinates, then one run along the last axis.
        let mut base = 0usize;
        let mut inside = true;
        for (d, &i) in idx.iter().enumerate() {
            match tables[d][i] {
                OUTSIDE => inside = false,
                off => base += off,
            }
        }
        if inside {
            map.extend(
                last.iter()
                    .map(|&off| if off == OUTSIDE { outside } else { base + off }),
            );
        } else {
            map.extend(std::iter::repeat_n(outside, last.len()));
        }
        // Odometer over the outer axes.
        let mut d = rank - 1;
        loop {
            if d == 0 {
                return map;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < out_shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Appends `src`'s elements to `dst` (same data type, checked at build).
pub(crate) fn append(dst: &mut Data, src: &Data) -> Result<()> {
    match (dst, src) {
        (Data::F32(d), Data::F32(s)) => d.extend_from_slice(s),
        (Data::F16(d), Data::F16(s)) => d.extend_from_slice(s),
        (Data::I32(d), Data::I32(s)) => d.extend_from_slice(s),
        (Data::U32(d), Data::U32(s)) => d.extend_from_slice(s),
        (Data::I64(d), Data::I64(s)) => d.extend_from_slice(s),
        (Data::U64(d), Data::U64(s)) => d.extend_from_slice(s),
        (Data::I8(d), Data::I8(s)) | (Data::I4(d), Data::I4(s)) => d.extend_from_slice(s),
        (Data::U8(d), Data::U8(s)) | (Data::U4(d), Data::U4(s)) => d.extend_from_slice(s),
        (d, s) => {
            return Err(Error::operation_error(format!(
                "cannot join {} and {} elements",
                d.data_type(),
                s.data_type()
            )))
        }
    }
    Ok(())
}

/// The elements of `parts`, one after another.
pub(crate) fn joined(parts: &[&Data]) -> Result<Data> {
    let Some(first) = parts.first() else {
        return Err(Error::operation_error("nothing to join"));
    };
    let mut out = (*first).clone();
    for p in &parts[1..] {
        append(&mut out, p)?;
    }
    Ok(out)
}

/// Offsets `o * stride` for `o` in `0..n`.
fn linear_table(n: usize, stride: usize) -> Vec<usize> {
    (0..n).map(|o| o * stride).collect()
}

pub fn concat(cx: &Cx, op: &Concat) -> Result<Tensor> {
    let inputs: Vec<&Tensor> = op.inputs.iter().map(|&o| cx.t(o)).collect::<Result<_>>()?;
    let axis = op.axis as usize;
    let out_shape = cx.out_shape(0);
    let outer: usize = out_shape[..axis].iter().product();
    let inner: usize = out_shape[axis + 1..].iter().product();
    // Each input contributes a run of `shape[axis] * inner` elements per outer index.
    let mut starts = Vec::with_capacity(inputs.len());
    let mut base = 0;
    for t in &inputs {
        starts.push(base);
        base += t.len();
    }
    let mut map = Vec::with_capacity(out_shape.iter().product());
    for o in 0..outer {
        for (t, &start) in inputs.iter().zip(&starts) {
            let run = t.shape[axis] * inner;
            map.extend(start + o * run..start + (o + 1) * run);
        }
    }
    let data = joined(&inputs.iter().map(|t| &t.data).collect::<Vec<_>>())?;
    Ok(Tensor::new(out_shape, data.gather(&map)))
}

pub fn expand(cx: &Cx, op: &Expand) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let out_shape = cx.out_shape(0);
    let map = broadcast_map(&input.shape, &out_shape);
    Ok(Tensor::new(out_shape, input.data.gather(&map)))
}

/// A single element of `data_type` holding `value` cast as the spec's
/// <https://www.w3.org/TR/webnn/#cast> does: floats round to nearest even; integers clamp to
/// the type's range and round to nearest even, NaN giving 0.
fn scalar(data_type: DataType, value: MLNumber) -> Data {
    match value {
        MLNumber::Double(v) if data_type.is_float() => {
            Tensor::from_f64(data_type, vec![1], &[v]).data
        }
        MLNumber::Double(v) => {
            // Every integer type's range lies within ±1e38, so clamping there first keeps
            // the conversion exact; from_i128 then saturates to the type's bounds.
            let i = if v.is_nan() {
                0
            } else {
                v.clamp(-1e38, 1e38).round_ties_even() as i128
            };
            Tensor::from_i128(data_type, vec![1], &[i]).data
        }
        MLNumber::BigInt(v) => Tensor::from_i128(data_type, vec![1], &[v]).data,
    }
}

/// The source coordinate of padded coordinate `c` (relative to the input start) in a
/// dimension of size `n`, for the edge and reflection modes.
fn pad_source(mode: PaddingMode, c: i64, n: i64) -> i64 {
    match mode {
        PaddingMode::Edge | PaddingMode::Constant => c.clamp(0, n - 1),
        PaddingMode::Reflection => {
            if n == 1 {
                return 0;
            }
            // Mirror without repeating the edge; periodic, so any padding stays in range.
            let period = 2 * (n - 1);
            let m = c.rem_euclid(period);
            if m < n {
                m
            } else {
                period - m
            }
        }
    }
}

pub fn pad(cx: &Cx, op: &Pad) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let out_shape = cx.out_shape(0);
    let in_strides = strides(&input.shape);
    let tables: Vec<Vec<usize>> = (0..input.rank())
        .map(|d| {
            let n = input.shape[d] as i64;
            let begin = op.beginning_padding[d] as i64;
            (0..out_shape[d] as i64)
                .map(|o| {
                    let c = o - begin;
                    if (0..n).contains(&c) {
                        c as usize * in_strides[d]
                    } else if op.options.mode == PaddingMode::Constant {
                        OUTSIDE
                    } else {
                        pad_source(op.options.mode, c, n) as usize * in_strides[d]
                    }
                })
                .collect()
        })
        .collect();
    let map = axis_map(&out_shape, &tables, input.len());
    let data = joined(&[&input.data, &scalar(input.data_type(), op.options.value)])?;
    Ok(Tensor::new(out_shape, data.gather(&map)))
}

pub fn reshape(cx: &Cx, op: &Reshape) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    Ok(Tensor::new(cx.out_shape(0), input.data.clone()))
}

pub fn reverse(cx: &Cx, op: &Reverse) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let rank = input.rank();
    let mut reversed = vec![op.options.axes.is_none(); rank];
    for &a in op.options.axes.iter().flatten() {
        if let Some(r) = reversed.get_mut(a as usize) {
            *r = true;
        }
    }
    let st = strides(&input.shape);
    let tables: Vec<Vec<usize>> = (0..rank)
        .map(|d| {
            let n = input.shape[d];
            if reversed[d] {
                (0..n).map(|o| (n - 1 - o) * st[d]).collect()
            } else {
                linear_table(n, st[d])
            }
        })
        .collect();
    let map = axis_map(&input.shape, &tables, 0);
    Ok(Tensor::new(input.shape.clone(), input.data.gather(&map)))
}

pub fn slice(cx: &Cx, op: &Slice) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let out_shape = cx.out_shape(0);
    let st = strides(&input.shape);
    let tables: Vec<Vec<usize>> = (0..input.rank())
        .map(|d| {
            let start = op.starts[d] as usize;
            let step = op.options.strides.as_ref().map_or(1, |s| s[d] as usize);
            (0..out_shape[d])
                .map(|o| (start + o * step) * st[d])
                .collect()
        })
        .collect();
    let map = axis_map(&out_shape, &tables, 0);
    Ok(Tensor::new(out_shape, input.data.gather(&map)))
}

pub fn split(cx: &Cx, op: &Split) -> Result<Vec<Tensor>> {
    let input = cx.t(op.input)?;
    let axis = op.options.axis as usize;
    let st = strides(&input.shape);
    let mut start = 0;
    let mut outs = Vec::with_capacity(cx.node.outputs.len());
    for i in 0..cx.node.outputs.len() {
        let out_shape = cx.out_shape(i);
        let tables: Vec<Vec<usize>> = (0..input.rank())
            .map(|d| {
                let first = if d == axis { start } else { 0 };
                (0..out_shape[d]).map(|o| (first + o) * st[d]).collect()
            })
            .collect();
        start += out_shape[axis];
        let map = axis_map(&out_shape, &tables, 0);
        outs.push(Tensor::new(out_shape, input.data.gather(&map)));
    }
    Ok(outs)
}

pub fn tile(cx: &Cx, op: &Tile) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let out_shape = cx.out_shape(0);
    let st = strides(&input.shape);
    let tables: Vec<Vec<usize>> = (0..input.rank())
        .map(|d| {
            (0..out_shape[d])
                .map(|o| (o % input.shape[d]) * st[d])
                .collect()
        })
        .collect();
    let map = axis_map(&out_shape, &tables, 0);
    Ok(Tensor::new(out_shape, input.data.gather(&map)))
}

pub fn transpose(cx: &Cx, op: &Transpose) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let rank = input.rank();
    let perm: Vec<usize> = match &op.options.permutation {
        Some(p) => p.iter().map(|&p| p as usize).collect(),
        None => (0..rank).rev().collect(),
    };
    let st = strides(&input.shape);
    let out_shape: Vec<usize> = perm.iter().map(|&p| input.shape[p]).collect();
    let tables: Vec<Vec<usize>> = perm
        .iter()
        .map(|&p| linear_table(input.shape[p], st[p]))
        .collect();
    let map = axis_map(&out_shape, &tables, 0);
    Ok(Tensor::new(out_shape, input.data.gather(&map)))
}

pub fn triangular(cx: &Cx, op: &Triangular) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let rank = input.rank();
    let (rows, cols) = (input.shape[rank - 2], input.shape[rank - 1]);
    let zero = input.len();
    let diagonal = op.options.diagonal as i64;
    let mut map = Vec::with_capacity(input.len());
    for k in 0..input.len() {
        let (i, j) = ((k / cols % rows) as i64, (k % cols) as i64);
        // Upper keeps the elements on or above the `diagonal`-th diagonal, lower on or below.
        let keep = if op.options.upper {
            j - i >= diagonal
        } else {
            j - i <= diagonal
        };
        map.push(if keep { k } else { zero });
    }
    let data = joined(&[&input.data, &Data::zeros(input.data_type(), 1)])?;
    Ok(Tensor::new(input.shape.clone(), data.gather(&map)))
}

pub fn where_(cx: &Cx, op: &Where) -> Result<Tensor> {
    let condition = cx.t(op.condition)?;
    let t = cx.t(op.true_value)?;
    let f = cx.t(op.false_value)?;
    let out_shape = cx.out_shape(0);
    let Data::U8(cond) = &condition.data else {
        return Err(Error::operation_error("where: condition must be uint8"));
    };
    let cm = broadcast_map(&condition.shape, &out_shape);
    let tm = broadcast_map(&t.shape, &out_shape);
    let fm = broadcast_map(&f.shape, &out_shape);
    // Non-zero selects trueValue; falseValue's elements follow trueValue's.
    let map: Vec<usize> = (0..cm.len())
        .map(|k| {
            if cond[cm[k]] != 0 {
                tm[k]
            } else {
                t.len() + fm[k]
            }
        })
        .collect();
    let data = joined(&[&t.data, &f.data])?;
    Ok(Tensor::new(out_shape, data.gather(&map)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_map_handles_scalars_and_padding() {
        assert_eq!(axis_map(&[], &[], 9), vec![0]);
        // 1-D: [pad, 0, 1, pad]
        let t = vec![OUTSIDE, 0, 1, OUTSIDE];
        assert_eq!(axis_map(&[4], &[t], 7), vec![7, 0, 1, 7]);
        // 2x2 transpose of a 2x2 input.
        assert_eq!(
            axis_map(&[2, 2], &[vec![0, 1], vec![0, 2]], 0),
            vec![0, 2, 1, 3]
        );
    }

    #[test]
    fn reflection_and_edge_sources() {
        // n = 3: ... 2 1 | 0 1 2 | 1 0 ...
        let r: Vec<i64> = (-2..5)
            .map(|c| pad_source(PaddingMode::Reflection, c, 3))
            .collect();
        assert_eq!(r, vec![2, 1, 0, 1, 2, 1, 0]);
        let e: Vec<i64> = (-2..5)
            .map(|c| pad_source(PaddingMode::Edge, c, 3))
            .collect();
        assert_eq!(e, vec![0, 0, 0, 1, 2, 2, 2]);
        assert_eq!(pad_source(PaddingMode::Reflection, 5, 1), 0);
    }

    #[test]
    fn pad_value_casts_like_the_spec() {
        let d = |dt, v| scalar(dt, MLNumber::Double(v));
        assert_eq!(d(DataType::Int32, 2.5), Data::I32(vec![2]));
        assert_eq!(d(DataType::Int32, 3.5), Data::I32(vec![4]));
        assert_eq!(d(DataType::Int32, f64::NAN), Data::I32(vec![0]));
        assert_eq!(d(DataType::Uint8, 300.0), Data::U8(vec![255]));
        assert_eq!(d(DataType::Int4, -9.0), Data::I4(vec![-8]));
        assert_eq!(d(DataType::Uint32, f64::NEG_INFINITY), Data::U32(vec![0]));
        assert_eq!(
            scalar(DataType::Int64, MLNumber::BigInt(i128::MAX)),
            Data::I64(vec![i64::MAX])
        );
        assert_eq!(d(DataType::Float32, 0.1), Data::F32(vec![0.1f32]));
    }

    #[test]
    fn joined_keeps_int4_elements() {
        let d = joined(&[&Data::I4(vec![-8, 7]), &Data::I4(vec![1])]).unwrap();
        assert_eq!(d, Data::I4(vec![-8, 7, 1]));
        assert!(joined(&[&Data::I4(vec![1]), &Data::U4(vec![1])]).is_err());
    }
}
