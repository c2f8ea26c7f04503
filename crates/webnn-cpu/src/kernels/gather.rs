//! gather/scatter family, as index maps applied with `Data::gather`.
//!
//! Index values are data: a negative index counts from the end of its dimension, and an index
//! outside `-n..n` is clamped into range. The spec leaves out-of-range behaviour
//! implementation-defined (and suggests clamping); clamping keeps every access in bounds.

use super::shape::joined;
use crate::eval::Cx;
use crate::tensor::{strides, Tensor};
use webnn_core::ops::*;
use webnn_core::Result;

/// Index `i` into a dimension of size `n` (> 0): negative counts from the end, then clamped.
/// The fast backend's gather resolves its indices with it too.
#[inline]
pub fn resolve(i: i128, n: usize) -> usize {
    let n = n as i128;
    let i = if i < 0 { i + n } else { i };
    i.clamp(0, n - 1) as usize
}

pub fn gather(cx: &Cx, op: &Gather) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let indices = cx.t(op.indices)?.to_i128();
    let axis = op.options.axis as usize;
    let n = input.shape[axis];
    let outer: usize = input.shape[..axis].iter().product();
    let inner: usize = input.shape[axis + 1..].iter().product();
    let resolved: Vec<usize> = indices.iter().map(|&i| resolve(i, n)).collect();
    let mut map = Vec::with_capacity(outer * resolved.len() * inner);
    for o in 0..outer {
        for &i in &resolved {
            let start = (o * n + i) * inner;
            map.extend(start..start + inner);
        }
    }
    Ok(Tensor::new(cx.out_shape(0), input.data.gather(&map)))
}

/// gatherElements/scatterElements: for each element of `indices` (shaped like the input but
/// along `axis`), the flat input index it addresses: its own coordinates with the one along
/// `axis` replaced by its index value.
fn element_targets(input: &Tensor, indices: &Tensor, axis: u32) -> Vec<usize> {
    let (input_shape, indices_shape, axis) = (&input.shape, &indices.shape, axis as usize);
    let in_strides = strides(input_shape);
    let idx_strides = strides(indices_shape);
    let n = input_shape[axis];
    indices
        .to_i128()
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let mut src = 0;
            for d in 0..indices_shape.len() {
                let c = if d == axis { resolve(i, n) } else { k / idx_strides[d] % indices_shape[d] };
                src += c * in_strides[d];
            }
            src
        })
        .collect()
}

pub fn gather_elements(cx: &Cx, op: &Gather) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let indices = cx.t(op.indices)?;
    let map = element_targets(input, indices, op.options.axis);
    Ok(Tensor::new(indices.shape.clone(), input.data.gather(&map)))
}

/// gatherND/scatterND: the flat input indices of the slices the coordinate tuples (the last
/// indices dimension) address, slice after slice.
fn nd_targets(input_shape: &[usize], indices: &Tensor) -> Vec<usize> {
    let q = indices.shape.last().copied().unwrap_or(1);
    let in_strides = strides(input_shape);
    let slice: usize = input_shape[q..].iter().product();
    let values = indices.to_i128();
    let offsets = values.chunks_exact(q.max(1)).map(|coords| {
        coords.iter().take(q).enumerate().map(|(d, &c)| resolve(c, input_shape[d]) * in_strides[d]).sum::<usize>()
    });
    offsets.flat_map(|off| off..off + slice).collect()
}

pub fn gather_nd(cx: &Cx, op: &GatherNd) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let map = nd_targets(&input.shape, cx.t(op.indices)?);
    Ok(Tensor::new(cx.out_shape(0), input.data.gather(&map)))
}

/// The input with `updates[k]` written at `targets[k]`, in order (a later update to the same
/// element wins): the identity map with the targets redirected to the updates, which follow
/// the input's elements.
fn scatter(input: &Tensor, updates: &Tensor, targets: &[usize]) -> Result<Tensor> {
    let mut map: Vec<usize> = (0..input.len()).collect();
    for (k, &t) in targets.iter().enumerate() {
        map[t] = input.len() + k;
    }
    let data = joined(&[&input.data, &updates.data])?;
    Ok(Tensor::new(input.shape.clone(), data.gather(&map)))
}

pub fn scatter_elements(cx: &Cx, op: &ScatterElements) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let targets = element_targets(input, cx.t(op.indices)?, op.options.axis);
    scatter(input, cx.t(op.updates)?, &targets)
}

pub fn scatter_nd(cx: &Cx, op: &ScatterNd) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let targets = nd_targets(&input.shape, cx.t(op.indices)?);
    scatter(input, cx.t(op.updates)?, &targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_wraps_negatives_and_clamps() {
        assert_eq!(resolve(-1, 4), 3);
        assert_eq!(resolve(-4, 4), 0);
        assert_eq!(resolve(-10, 4), 0);
        assert_eq!(resolve(4, 4), 3);
        assert_eq!(resolve(i64::MAX as i128, 4), 3);
    }

    #[test]
    fn scatter_later_updates_win() {
        use crate::tensor::Data;
        let input = Tensor::new(vec![3], Data::I4(vec![0, 0, 0]));
        let updates = Tensor::new(vec![2], Data::I4(vec![-8, 7]));
        let out = scatter(&input, &updates, &[1, 1]).unwrap();
        assert_eq!(out.data, Data::I4(vec![0, 7, 0]));
    }
}
