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
fn resolve(i: i128, n: usize) -> usize {
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

/// For each element of a tensor shaped like `indices_shape` (the input's shape but along
/// `axis`), the flat input index it addresses: its own coordinates with the one along `axis`
/// replaced by its index value.
fn element_targets(
    input_shape: &[usize],
    indices_shape: &[usize],
    indices: &[i128],
    axis: usize,
) -> Vec<usize> {
    let in_strides = strides(input_shape);
    let idx_strides = strides(indices_shape);
    let n = input_shape[axis];
    indices
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let mut src = 0;
            for d in 0..indices_shape.len() {
                let c = if d == axis {
                    resolve(i, n)
                } else {
                    k / idx_strides[d] % indices_shape[d]
                };
                src += c * in_strides[d];
            }
            src
        })
        .collect()
}

pub fn gather_elements(cx: &Cx, op: &Gather) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let indices = cx.t(op.indices)?;
    let map = element_targets(
        &input.shape,
        &indices.shape,
        &indices.to_i128(),
        op.options.axis as usize,
    );
    Ok(Tensor::new(indices.shape.clone(), input.data.gather(&map)))
}

/// gatherND/scatterND: for each coordinate tuple (the last indices dimension), the flat
/// input offset of the slice it addresses, and the slice length.
fn nd_offsets(input_shape: &[usize], indices: &Tensor) -> (Vec<usize>, usize) {
    let q = indices.shape.last().copied().unwrap_or(1);
    let in_strides = strides(input_shape);
    let slice: usize = input_shape[q..].iter().product();
    let values = indices.to_i128();
    let offsets = values
        .chunks_exact(q.max(1))
        .map(|coords| {
            coords
                .iter()
                .take(q)
                .enumerate()
                .map(|(d, &c)| resolve(c, input_shape[d]) * in_strides[d])
                .sum()
        })
        .collect();
    (offsets, slice)
}

pub fn gather_nd(cx: &Cx, op: &GatherNd) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let indices = cx.t(op.indices)?;
    let (offsets, slice) = nd_offsets(&input.shape, indices);
    let mut map = Vec::with_capacity(offsets.len() * slice);
    for off in offsets {
        map.extend(off..off + slice);
    }
    Ok(Tensor::new(cx.out_shape(0), input.data.gather(&map)))
}

/// The input with `updates[k]` written at `targets[k]`, in order (a later update to the same
/// element wins): the identity map with the targets redirected to the updates, which follow
/// the input's elements.
fn scatter(
    input: &Tensor,
    updates: &Tensor,
    targets: impl Iterator<Item = usize>,
) -> Result<Tensor> {
    let mut map: Vec<usize> = (0..input.len()).collect();
    for (k, t) in targets.enumerate() {
        map[t] = input.len() + k;
    }
    let data = joined(&[&input.data, &updates.data])?;
    Ok(Tensor::new(input.shape.clone(), data.gather(&map)))
}

pub fn scatter_elements(cx: &Cx, op: &ScatterElements) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let indices = cx.t(op.indices)?;
    let updates = cx.t(op.updates)?;
    let targets = element_targets(
        &input.shape,
        &indices.shape,
        &indices.to_i128(),
        op.options.axis as usize,
    );
    scatter(input, updates, targets.into_iter())
}

pub fn scatter_nd(cx: &Cx, op: &ScatterNd) -> Result<Tensor> {
    let input = cx.t(op.input)?;
    let indices = cx.t(op.indices)?;
    let updates = cx.t(op.updates)?;
    let (offsets, slice) = nd_offsets(&input.shape, indices);
    scatter(
        input,
        updates,
        offsets.into_iter().flat_map(|off| off..off + slice),
    )
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
        let out = scatter(&input, &updates, [1, 1].into_iter()).unwrap();
        assert_eq!(out.data, Data::I4(vec![0, 7, 0]));
    }
}
