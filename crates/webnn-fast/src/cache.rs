//! Key/value caches updated where they lie. A decoder binds each cache tensor as an input and
//! as the output that `scatterND` updates (`Graph::in_place_pairs`), then reads its first
//! rows through a `slice`, or (head-major caches, an imported GroupQueryAttention's, written
//! at `[b, head, position]`) hands it whole to a fused attention step. The reference scatter
//! would copy the whole cache every step (and the dispatch would copy it in and out); this
//! step writes only the new rows into the bound tensor's bytes and decodes only the rows the
//! slice reads (none for an attention that reads the bytes itself). Float16 caches take their rows
//! from a float32 → float16 `cast` that the step absorbs (rounding them itself, to nearest
//! even as the cast does).

use crate::exec::Values;
use crate::plan::Planner;
use webnn_core::ops::Op;
use half::f16;
use webnn_core::{DataType, DimBindings, Error, Operand, Result};
use webnn_cpu::{Data, Tensor};

/// `scatterND(cache, indices [..., k], updates [..., ...row])` of a float32 graph input, or
/// of a float16 one with `updates = cast(x)` of float32 `x`, and the `slice` of its leading
/// rows that reads it (k = 1) or the fused attention that reads it whole.
pub(crate) struct CacheWrite {
    /// The cache's graph input (its slot is never filled: the bytes are the value).
    pub input: usize,
    indices: usize,
    /// The float32 rows (the cast's input for a float16 cache).
    updates: usize,
    /// Whether the cache holds float16.
    pub half: bool,
    /// The sizes of the axes an index addresses (the first k), their product the cache's
    /// rows, and the elements in one row (the other axes).
    axes: Vec<usize>,
    rows: usize,
    row: usize,
    /// The scatter's output slot and the cache's shape when a fused attention step reads the
    /// cache whole: it reads the bound bytes when `plan::link_caches` links the two, else
    /// the slot is filled (`decode_prefix`).
    pub attended: Option<(usize, Vec<usize>)>,
    /// The slice of the leading rows: its slot and output operand (for its bound size).
    prefix: Option<(usize, Operand)>,
    /// Whether the slice's rows (or, `attended`, the whole cache) are decoded into its slot:
    /// not when its only reader is an
    /// attention step that reads the cache's bytes itself (`plan::link_caches`).
    pub decode_prefix: bool,
}

/// The cache write for the scatter node `n` that makes output `out` of an in-place pair,
/// when it updates a float32 (or cast float16) input at index tuples of any depth and
/// nothing but the graph output and a leading-rows slice (depth 1; absorbed) or a fused
/// attention (`attended`: the operands such steps read whole) reads the result.
pub(crate) fn plan(p: &mut Planner, n: usize, out: Operand, attended: &std::collections::HashSet<Operand>) -> Option<CacheWrite> {
    let g = p.orig;
    let Op::ScatterNd(a) = &g.nodes[n].op else { return None };
    let shape = g.desc(a.input).static_shape()?;
    let depth = g.desc(a.indices).shape.last().and_then(|d| d.as_static())? as usize;
    if shape.is_empty() || depth == 0 || depth > shape.len() {
        return None;
    }
    // A float16 cache's rows: the float32 operand a cast narrows, the cast read only here.
    let (updates, cast) = match g.desc(a.input).data_type {
        DataType::Float32 => (a.updates, None),
        DataType::Float16 => {
            let c = p.sole_user(a.updates).and(p.producer_of(a.updates))?;
            let Op::Cast(cast) = &g.nodes[c].op else { return None };
            (g.desc(cast.input).data_type == DataType::Float32).then_some((cast.input, Some(c)))?
        }
        _ => return None,
    };
    let mut read_whole = None;
    let prefix = match p.users(out) {
        [] => None,
        // Its attention reads the cache itself (the view nodes are the attention's).
        &[_] if attended.contains(&out) => {
            read_whole = Some((out.index(), shape.iter().map(|&d| d as usize).collect()));
            None
        }
        &[u] if depth == 1 => {
            let Op::Slice(s) = &g.nodes[u].op else { return None };
            let unit = s.options.strides.as_ref().is_none_or(|v| v.iter().all(|&x| x == 1));
            let leading = s.starts.iter().all(|&x| x == 0)
                && s.sizes[1..].iter().zip(&shape[1..]).all(|(d, &n)| d.as_static() == Some(n));
            if !unit || !leading {
                return None;
            }
            p.absorb(u);
            let y = g.nodes[u].outputs[0];
            Some((y.index(), y))
        }
        _ => return None,
    };
    if let Some(c) = cast {
        p.absorb(c);
    }
    Some(CacheWrite {
        input: a.input.index(),
        indices: a.indices.index(),
        updates: updates.index(),
        half: cast.is_some(),
        axes: shape[..depth].iter().map(|&d| d as usize).collect(),
        rows: shape[..depth].iter().map(|&d| d as usize).product(),
        row: shape[depth..].iter().map(|&d| d as usize).product(),
        attended: read_whole,
        prefix,
        decode_prefix: true,
    })
}

impl CacheWrite {
    pub(crate) fn describe(&self) -> String {
        let read = if self.decode_prefix { "" } else { ", its rows read in place" };
        format!("cache write, {} rows of {}{read}", self.rows, self.row)
    }

    /// The slot of the leading-rows slice this step absorbed, if any.
    pub(crate) fn prefix_slot(&self) -> Option<usize> {
        self.prefix.map(|(slot, _)| slot)
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        vec![self.indices, self.updates]
    }

    /// Writes the update rows into `cache` (the bound tensor's little-endian bytes) in order,
    /// a later row to the same index winning; indices count from the end when negative and
    /// are clamped into range, as the reference kernel does. Then decodes the slice's rows.
    pub(crate) fn run(&self, values: &mut Values, cache: &mut [u8], dims: &DimBindings, graph: &webnn_core::Graph) -> Result<()> {
        let size = if self.half { 2 } else { 4 };
        let row_bytes = self.row * size;
        if cache.len() != self.rows * row_bytes {
            return Err(Error::operation_error("cache write: the bound tensor has another size"));
        }
        let indices = values.get(self.indices)?.to_i128();
        let updates = values.f32(self.updates)?;
        let depth = self.axes.len();
        if updates.len() * depth != indices.len() * self.row {
            return Err(Error::operation_error("cache write: updates and indices disagree"));
        }
        for (k, index) in indices.chunks_exact(depth).enumerate() {
            // The row of the index tuple, each component wrapped and clamped on its axis.
            let r = index.iter().zip(&self.axes).fold(0usize, |r, (&i, &n)| {
                let n = n as i128;
                r * n as usize + (if i < 0 { i + n } else { i }).clamp(0, n - 1) as usize
            });
            let dst = &mut cache[r * row_bytes..(r + 1) * row_bytes];
            let src = &updates[k * self.row..(k + 1) * self.row];
            match self.half {
                true => dst.chunks_exact_mut(2).zip(src).for_each(|(d, v)| d.copy_from_slice(&f16::from_f32(*v).to_le_bytes())),
                false => dst.chunks_exact_mut(4).zip(src).for_each(|(d, v)| d.copy_from_slice(&v.to_le_bytes())),
            }
        }
        if !self.decode_prefix {
            return Ok(());
        }
        // The slice's rows, or the whole cache for an attention that does not read the bytes.
        let slot_shape = match (&self.prefix, &self.attended) {
            (Some((slot, y)), _) => Some((*slot, dims.shape(graph.desc(*y))?.iter().map(|&d| d as usize).collect::<Vec<_>>())),
            (None, Some((slot, shape))) => Some((*slot, shape.clone())),
            (None, None) => None,
        };
        if let Some((slot, shape)) = slot_shape {
            let len: usize = shape.iter().product();
            let bytes = &cache[..len * size];
            if self.half {
                let v = bytes.chunks_exact(2).map(|b| f16::from_le_bytes([b[0], b[1]])).collect();
                values.put_tensor(slot, Tensor::new(shape, Data::F16(v)));
                return Ok(());
            }
            let mut v = values.alloc(len);
            for (x, b) in v.iter_mut().zip(bytes.chunks_exact(4)) {
                *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            values.put(slot, shape, v);
        }
        Ok(())
    }
}
