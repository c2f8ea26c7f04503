//! Shape and data movement ops.

use super::common::{axes_or_all, broadcast, check_axis, desc, same_type, Ctx};
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::{broadcast_shapes, Dim, OperandDescriptor};

/// The largest <https://www.w3.org/TR/webnn/#valid-dimension>: the range of IDL `long`.
const MAX_VALID_DIMENSION: u64 = i32::MAX as u64;

/// The largest <https://www.w3.org/TR/webnn/#valid-tensor-count>.
const MAX_TENSOR_COUNT: usize = 8192;

/// `n` as a dimension if it is a valid dimension (positive, within `long`).
fn valid_dimension(what: &str, n: u64) -> Result<u32> {
    if n == 0 || n > MAX_VALID_DIMENSION {
        return Err(Error::type_error(format!(
            "{what} = {n} is not a valid dimension (1..={MAX_VALID_DIMENSION})"
        )));
    }
    Ok(n as u32)
}

fn valid_tensor_count(what: &str, n: usize) -> Result<()> {
    if n == 0 || n > MAX_TENSOR_COUNT {
        return Err(Error::type_error(format!(
            "{what} = {n} is not a valid tensor count (1..={MAX_TENSOR_COUNT})"
        )));
    }
    Ok(())
}

/// The static size of `d`, or NotSupportedError: the op needs the number.
fn static_dim(what: &str, d: &Dim) -> Result<u32> {
    d.as_static()
        .ok_or_else(|| Error::not_supported(format!("{what} must be a static dimension, got {d}")))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-concat>
pub(super) fn concat(cx: &Ctx, op: &Concat) -> Result<OperandDescriptor> {
    valid_tensor_count("the number of inputs", op.inputs.len())?;
    let first = cx.check("inputs", op.inputs[0])?;
    let axis = check_axis(op.axis, first.rank())?;
    if op.inputs.len() == 1 {
        return Ok(first.clone());
    }
    // Along the axis the sizes add up; dynamic parts give a derived dimension (`past+1`).
    let mut size = first.shape[axis].clone();
    for (i, &o) in op.inputs.iter().enumerate().skip(1) {
        let input = cx.check("inputs", o)?;
        same_type("inputs[0]", first, &format!("inputs[{i}]"), input)?;
        if input.rank() != first.rank() {
            return Err(Error::type_error(format!(
                "inputs[{i}] has rank {} but inputs[0] has rank {}",
                input.rank(),
                first.rank()
            )));
        }
        for (d, (a, b)) in input.shape.iter().zip(&first.shape).enumerate() {
            if d != axis && a != b {
                return Err(Error::type_error(format!(
                    "inputs[{i}] shape {} differs from inputs[0] shape {} at axis {d}",
                    input.shape_string(),
                    first.shape_string()
                )));
            }
        }
        size = size
            .sum(&input.shape[axis])
            .filter(|s| s.max_size() as u64 <= MAX_VALID_DIMENSION)
            .ok_or_else(|| {
                Error::type_error(format!(
                    "the concatenated axis size up to inputs[{i}] is not a valid dimension (1..={MAX_VALID_DIMENSION})"
                ))
            })?;
    }
    let mut shape = first.shape.clone();
    shape[axis] = size;
    Ok(desc(first.data_type, shape))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-expand>: the input broadcasts
/// unidirectionally to `newShape`, whose rank may be larger.
pub(super) fn expand(cx: &Ctx, op: &Expand) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    check_new_shape(&op.new_shape)?;
    cx.known_dims("newShape", &op.new_shape)?;
    let shape = broadcast_shapes(&op.new_shape, &input.shape, false).ok_or_else(|| {
        let target = desc(input.data_type, op.new_shape.clone());
        Error::type_error(format!(
            "input shape {} is not broadcastable to the new shape {}",
            input.shape_string(),
            target.shape_string()
        ))
    })?;
    let out = desc(input.data_type, shape);
    cx.check_desc("output", &out)?;
    Ok(out)
}

/// Every entry of a `newShape` argument is a valid dimension.
fn check_new_shape(new_shape: &[Dim]) -> Result<()> {
    for (i, d) in new_shape.iter().enumerate() {
        valid_dimension(&format!("newShape[{i}]"), d.max_size() as u64)?;
    }
    Ok(())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad>: each output dimension is
/// `beginning + input + ending`; reflection needs paddings smaller than the dimension.
pub(super) fn pad(cx: &Ctx, op: &Pad) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let rank = input.rank();
    if op.beginning_padding.len() != rank || op.ending_padding.len() != rank {
        return Err(Error::type_error(format!(
            "beginningPadding (length {}) and endingPadding (length {}) must have the input rank {rank}",
            op.beginning_padding.len(),
            op.ending_padding.len()
        )));
    }
    let mut shape = Vec::with_capacity(rank);
    for (i, d) in input.shape.iter().enumerate() {
        let (begin, end) = (op.beginning_padding[i], op.ending_padding[i]);
        if begin == 0 && end == 0 {
            shape.push(d.clone());
            continue;
        }
        let n = static_dim(&format!("input dimension {i}"), d)?;
        if op.options.mode == PaddingMode::Reflection && (begin >= n || end >= n) {
            return Err(Error::type_error(format!(
                "reflection padding ({begin}, {end}) must be smaller than input dimension {i} of size {n}"
            )));
        }
        let size = n as u64 + begin as u64 + end as u64;
        shape.push(Dim::Static(valid_dimension(
            &format!("output dimension {i}"),
            size,
        )?));
    }
    // options.value is cast to the input's data type by the backend when it pads.
    Ok(desc(input.data_type, shape))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reshape-method>: the element counts
/// must agree. Dynamic dimensions cancel out when both shapes hold the same ones.
pub(super) fn reshape(cx: &Ctx, op: &Reshape) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let out = desc(input.data_type, op.new_shape.clone());
    cx.check_desc("output", &out)?;
    check_new_shape(&op.new_shape)?;
    cx.known_dims("newShape", &op.new_shape)?;
    // Static parts multiply; dynamic dims must match one for one by name.
    let mut dynamic_in: Vec<&Dim> = input.shape.iter().filter(|d| d.is_dynamic()).collect();
    let mut count_in: u64 = 1;
    for d in &input.shape {
        if let Some(n) = d.as_static() {
            count_in = count_in.saturating_mul(n as u64);
        }
    }
    let mut count_out: u64 = 1;
    for d in &op.new_shape {
        match d.as_static() {
            Some(n) => count_out = count_out.saturating_mul(n as u64),
            None => match dynamic_in.iter().position(|x| *x == d) {
                Some(p) => {
                    dynamic_in.swap_remove(p);
                }
                None => {
                    return Err(Error::not_supported(format!(
                        "cannot prove that new shape {} has the element count of input shape {}",
                        out.shape_string(),
                        input.shape_string()
                    )))
                }
            },
        }
    }
    if !dynamic_in.is_empty() {
        return Err(Error::not_supported(format!(
            "cannot prove that new shape {} has the element count of input shape {}",
            out.shape_string(),
            input.shape_string()
        )));
    }
    // Saturation cannot hide a mismatch: valid shapes stay far below u64::MAX.
    if count_in != count_out {
        return Err(Error::type_error(format!(
            "new shape {} does not have the element count of input shape {}",
            out.shape_string(),
            input.shape_string()
        )));
    }
    Ok(out)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reverse-method>: axes distinct and in
/// range; absent axes mean every axis.
pub(super) fn reverse(cx: &Ctx, op: &Reverse) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    axes_or_all(op.options.axes.as_deref(), input.rank())?;
    Ok(input.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-slice>: each output dimension is
/// `ceil(size / stride)` of a window `start..start+size` inside the input.
pub(super) fn slice(cx: &Ctx, op: &Slice) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let rank = input.rank();
    if op.sizes.iter().any(|s| s.max_size() == 0) {
        return Err(Error::type_error("sizes must not contain 0"));
    }
    cx.known_dims("sizes", &op.sizes)?;
    if op.starts.len() != rank || op.sizes.len() != rank {
        return Err(Error::type_error(format!(
            "starts (length {}) and sizes (length {}) must have the input rank {rank}",
            op.starts.len(),
            op.sizes.len()
        )));
    }
    if let Some(strides) = &op.options.strides {
        if strides.len() != rank {
            return Err(Error::type_error(format!(
                "strides (length {}) must have the input rank {rank}",
                strides.len()
            )));
        }
    }
    let mut shape = Vec::with_capacity(rank);
    for (i, d) in input.shape.iter().enumerate() {
        let (start, size) = (op.starts[i], &op.sizes[i]);
        let stride = op.options.strides.as_ref().map_or(1, |s| s[i]);
        if stride < 1 {
            return Err(Error::type_error(format!(
                "strides[{i}] must be at least 1"
            )));
        }
        shape.push(slice_dim(i, d, start, size, stride)?);
    }
    Ok(desc(input.data_type, shape))
}

/// One output dimension of a slice. A dynamic size (flexible inputs) takes the leading part of
/// a static dimension that holds it at its bound (`sizes = [total]` over a cache of capacity
/// rows); a size equal to a dynamic input dimension keeps it whole.
fn slice_dim(i: usize, d: &Dim, start: u32, size: &Dim, stride: u32) -> Result<Dim> {
    if d.is_dynamic() || size.is_dynamic() {
        if size == d && start == 0 && stride == 1 {
            return Ok(d.clone());
        }
        let n = static_dim(&format!("input dimension {i}"), d)?;
        if stride != 1 {
            return Err(Error::not_supported(format!(
                "sizes[{i}] = {size} is dynamic, so strides[{i}] must be 1"
            )));
        }
        if start as u64 + size.max_size() as u64 > n as u64 {
            return Err(Error::type_error(format!(
                "starts[{i}] + sizes[{i}] = {start} + {size} can exceed input dimension {i} of size {n}"
            )));
        }
        return Ok(size.clone());
    }
    let (n, size) = (static_dim(&format!("input dimension {i}"), d)?, size.max_size());
    if start >= n {
        return Err(Error::type_error(format!(
            "starts[{i}] = {start} is not below input dimension {i} of size {n}"
        )));
    }
    if start as u64 + size as u64 > n as u64 {
        return Err(Error::type_error(format!(
            "starts[{i}] + sizes[{i}] = {} exceeds input dimension {i} of size {n}",
            start as u64 + size as u64
        )));
    }
    Ok(Dim::Static(size.div_ceil(stride)))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-split>: a count that divides the axis,
/// or sizes that sum to it.
pub(super) fn split(cx: &Ctx, op: &Split) -> Result<Vec<OperandDescriptor>> {
    let input = cx.check("input", op.input)?;
    let axis = check_axis(op.options.axis, input.rank())?;
    let n = static_dim("the split axis", &input.shape[axis])?;
    let sizes: Vec<u32> = match &op.splits {
        Splits::Count(count) => {
            valid_tensor_count("splits", *count as usize)?;
            if n % count != 0 {
                return Err(Error::type_error(format!(
                    "splits = {count} does not evenly divide axis {axis} of size {n}"
                )));
            }
            vec![n / count; *count as usize]
        }
        Splits::Sizes(sizes) => {
            valid_tensor_count("the number of splits", sizes.len())?;
            if sizes.contains(&0) {
                return Err(Error::type_error("splits must not contain 0"));
            }
            let sum: u64 = sizes.iter().map(|&s| s as u64).sum();
            if sum != n as u64 {
                return Err(Error::type_error(format!(
                    "the splits sum to {sum}, not to axis {axis} of size {n}"
                )));
            }
            sizes.clone()
        }
    };
    Ok(sizes
        .into_iter()
        .map(|s| {
            let mut shape = input.shape.clone();
            shape[axis] = Dim::Static(s);
            desc(input.data_type, shape)
        })
        .collect())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tile>: one positive repetition count
/// per dimension.
pub(super) fn tile(cx: &Ctx, op: &Tile) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    if op.repetitions.len() != input.rank() {
        return Err(Error::type_error(format!(
            "repetitions (length {}) must have the input rank {}",
            op.repetitions.len(),
            input.rank()
        )));
    }
    if op.repetitions.contains(&0) {
        return Err(Error::type_error("repetitions must not contain 0"));
    }
    let mut shape = Vec::with_capacity(input.rank());
    for (i, (d, &r)) in input.shape.iter().zip(&op.repetitions).enumerate() {
        if r == 1 {
            shape.push(d.clone());
            continue;
        }
        let n = static_dim(&format!("input dimension {i}"), d)?;
        let size = n as u64 * r as u64;
        shape.push(Dim::Static(valid_dimension(
            &format!("output dimension {i}"),
            size,
        )?));
    }
    Ok(desc(input.data_type, shape))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose>: `permutation` is a
/// permutation of the axes (reversed by default); output dimension i is input dimension
/// `permutation[i]`.
pub(super) fn transpose(cx: &Ctx, op: &Transpose) -> Result<OperandDescriptor> {
    let input = cx.check("input", op.input)?;
    let rank = input.rank();
    let perm = permutation(op.options.permutation.as_deref(), rank)?;
    Ok(desc(
        input.data_type,
        perm.iter().map(|&p| input.shape[p].clone()).collect(),
    ))
}

/// The permutation of a transpose, checked: length = rank, in range, no duplicates.
fn permutation(perm: Option<&[u32]>, rank: usize) -> Result<Vec<usize>> {
    let Some(perm) = perm else {
        return Ok((0..rank).rev().collect());
    };
    if perm.len() != rank {
        return Err(Error::type_error(format!(
            "permutation (length {}) must have the input rank {rank}",
            perm.len()
        )));
    }
    let mut seen = vec![false; rank];
    for &p in perm {
        let p = p as usize;
        if p >= rank {
            return Err(Error::type_error(format!(
                "permutation value {p} is out of range for rank {rank}"
            )));
        }
        if seen[p] {
            return Err(Error::type_error(format!(
                "permutation value {p} appears twice"
            )));
        }
        seen[p] = true;
    }
    Ok(perm.iter().map(|&p| p as usize).collect())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-triangular>: rank >= 2 (from the table).
pub(super) fn triangular(cx: &Ctx, op: &Triangular) -> Result<OperandDescriptor> {
    Ok(cx.check("input", op.input)?.clone())
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where>: the output is the bidirectional
/// broadcast of all three shapes, with trueValue's data type.
pub(super) fn where_(cx: &Ctx, op: &Where) -> Result<OperandDescriptor> {
    let condition = cx.check("condition", op.condition)?;
    let true_value = cx.check("trueValue", op.true_value)?;
    let false_value = cx.check("falseValue", op.false_value)?;
    same_type("trueValue", true_value, "falseValue", false_value)?;
    let values = desc(true_value.data_type, broadcast(true_value, false_value)?);
    let out = desc(true_value.data_type, broadcast(condition, &values)?);
    cx.check_desc("output", &out)?;
    Ok(out)
}
