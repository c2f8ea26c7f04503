//! quantizeLinear and dequantizeLinear with blockwise-broadcast scale and zero point.

use crate::eval::Cx;
use crate::tensor::{strides, Tensor};
use webnn_core::ops::*;
use webnn_core::{Error, Result};

/// For each element of `shape` (the input's), the flat index of the `small` element whose
/// block holds it: along every axis `small`'s size divides the input's and each of its
/// elements covers `input / small` consecutive positions. A lower-rank `small` is aligned to
/// the trailing axes (validation requires equal ranks; this keeps the kernel total).
pub fn block_map(small: &[usize], shape: &[usize]) -> Result<Vec<usize>> {
    let bad = || {
        Error::operation_error(format!(
            "shape {small:?} is not blockwise broadcastable to {shape:?}"
        ))
    };
    let pad = shape.len().checked_sub(small.len()).ok_or_else(bad)?;
    let dims: Vec<usize> = (0..shape.len())
        .map(|i| if i < pad { 1 } else { small[i - pad] })
        .collect();
    let block = shape
        .iter()
        .zip(&dims)
        .map(|(&n, &d)| {
            if d != 0 && n % d == 0 {
                Ok(n / d)
            } else {
                Err(bad())
            }
        })
        .collect::<Result<Vec<usize>>>()?;
    let small_strides = strides(&dims);
    // Per axis and position, its share of the flat index; then the innermost axis in runs.
    let share: Vec<Vec<usize>> = (0..shape.len())
        .map(|ax| (0..shape[ax]).map(|i| i / block[ax] * small_strides[ax]).collect())
        .collect();
    let n: usize = shape.iter().product();
    let Some((inner, outer_axes)) = share.split_last() else {
        return Ok(vec![0; n]);
    };
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0usize; outer_axes.len()];
    for _ in 0..n.checked_div(inner.len()).unwrap_or(0) {
        let base: usize = idx.iter().zip(outer_axes).map(|(&i, s)| s[i]).sum();
        map.extend(inner.iter().map(|&c| base + c));
        for ax in (0..idx.len()).rev() {
            idx[ax] += 1;
            if idx[ax] < shape[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    Ok(map)
}

/// The scale's and zero point's block maps (one map when their shapes agree, as validation
/// requires).
fn maps(
    scale: &Tensor,
    zero_point: &Tensor,
    shape: &[usize],
) -> Result<(Vec<usize>, Option<Vec<usize>>)> {
    let s = block_map(&scale.shape, shape)?;
    let z = if zero_point.shape == scale.shape {
        None
    } else {
        Some(block_map(&zero_point.shape, shape)?)
    };
    Ok((s, z))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear>:
/// saturate(roundEven(input / scale) + zeroPoint) in the zero point's type. The quotient is
/// taken in f64, one rounding closer to exact than the spec's emulation in the input's type.
pub fn quantize_linear(cx: &Cx, op: &QuantizeLinear) -> Result<Tensor> {
    let (x, scale, zp) = (cx.t(op.input)?, cx.t(op.scale)?, cx.t(op.zero_point)?);
    let (sm, zm) = maps(scale, zp, &x.shape)?;
    let (xv, sv, zv) = (x.to_f64(), scale.to_f64(), zp.to_i128());
    let out: Vec<f64> = xv
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let z = zv[zm.as_ref().map_or(sm[i], |m| m[i])];
            // NaN (0/0) gives 0 + zero point, ±Infinity saturates: from_f64 does both.
            let q = (v / sv[sm[i]]).round_ties_even();
            if q.is_nan() {
                z as f64
            } else {
                q + z as f64
            }
        })
        .collect();
    Ok(Tensor::from_f64(zp.data_type(), x.shape.clone(), &out))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear>:
/// (input − zeroPoint) · scale, in the scale's type. The difference is exact; the product is
/// rounded once.
pub fn dequantize_linear(cx: &Cx, op: &QuantizeLinear) -> Result<Tensor> {
    let (x, scale, zp) = (cx.t(op.input)?, cx.t(op.scale)?, cx.t(op.zero_point)?);
    let (sm, zm) = maps(scale, zp, &x.shape)?;
    let (xv, sv, zv) = (x.to_i128(), scale.to_f64(), zp.to_i128());
    let out: Vec<f64> = xv
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let z = zv[zm.as_ref().map_or(sm[i], |m| m[i])];
            (v - z) as f64 * sv[sm[i]]
        })
        .collect();
    Ok(Tensor::from_f64(scale.data_type(), x.shape.clone(), &out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elementwise::tests::run;
    use crate::tensor::Data;
    use webnn_core::ops::OpOptions;

    #[test]
    fn block_map_repeats_each_element_over_its_block() {
        assert_eq!(block_map(&[2], &[6]).unwrap(), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(
            block_map(&[2, 1], &[4, 2]).unwrap(),
            vec![0, 0, 0, 0, 1, 1, 1, 1]
        );
        assert_eq!(
            block_map(&[1, 2], &[2, 4]).unwrap(),
            vec![0, 0, 1, 1, 0, 0, 1, 1]
        );
        assert_eq!(block_map(&[], &[]).unwrap(), vec![0]);
        assert!(block_map(&[4], &[6]).is_err());
        // Rank 4, blocks on three axes, against the definition element by element.
        let (small, shape) = ([2, 1, 3, 2], [4, 3, 6, 4]);
        let map = block_map(&small, &shape).unwrap();
        let mut k = 0;
        for a in 0..4 {
            for b in 0..3 {
                for c in 0..6 {
                    for d in 0..4 {
                        let want = ((a / 2 + b / 3) * 3 + c / 2) * 2 + d / 2;
                        assert_eq!(map[k], want, "[{a}, {b}, {c}, {d}]");
                        k += 1;
                    }
                }
            }
        }
        assert!(block_map(&[1], &[0]).unwrap().is_empty());
    }

    #[test]
    fn quantize_rounds_half_to_even_and_saturates() {
        let x = Tensor::new(
            vec![6],
            Data::F32(vec![2.5, 3.5, -2.5, 1000.0, -1000.0, f32::NAN]),
        );
        let s = Tensor::new(vec![1], Data::F32(vec![1.0]));
        let z = Tensor::new(vec![1], Data::I8(vec![0]));
        let q = run(&[x.clone(), s.clone(), z], |g, o| {
            g.quantize_linear(o[0], o[1], o[2], OpOptions::default())
        })
        .unwrap();
        assert_eq!(q.data, Data::I8(vec![2, 4, -2, 127, -128, 0]));
        let z = Tensor::new(vec![1], Data::U4(vec![1]));
        let q = run(&[x, s, z], |g, o| {
            g.quantize_linear(o[0], o[1], o[2], OpOptions::default())
        })
        .unwrap();
        assert_eq!(q.data, Data::U4(vec![3, 5, 0, 15, 0, 1]));
    }

    #[test]
    fn dequantize_is_exact_before_the_one_rounding() {
        let x = Tensor::new(vec![2, 2], Data::U32(vec![u32::MAX, 0, 5, 6]));
        let s = Tensor::new(vec![2, 1], Data::F32(vec![0.5, 2.0]));
        let z = Tensor::new(vec![2, 1], Data::U32(vec![1, 5]));
        let d = run(&[x, s, z], |g, o| {
            g.dequantize_linear(o[0], o[1], o[2], OpOptions::default())
        })
        .unwrap();
        assert_eq!(d.data, Data::F32(vec![2147483647.0, -0.5, 0.0, 2.0]));
    }
}
