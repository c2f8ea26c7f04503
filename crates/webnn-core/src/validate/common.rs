//! Helpers shared by the validators: operand lookup, the op table's slot checks, axes.

use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::graph::{Graph, Operand};
use crate::ops::{OpKind, Slot};
use crate::shape::{broadcast_shapes, Dim, OperandDescriptor};

/// What a validator sees: the graph so far and the op being validated.
pub(crate) struct Ctx<'a> {
    pub graph: &'a Graph,
    pub kind: OpKind,
}

impl<'a> Ctx<'a> {
    pub fn desc(&self, o: Operand) -> &'a OperandDescriptor {
        self.graph.desc(o)
    }

    /// Flexible inputs: each dynamic entry of a shape argument (`newShape`, `sizes`) names a
    /// dimension the graph's inputs declare, with their bound; a derived one (`past+1`) is
    /// the sum of declared ones.
    pub fn known_dims(&self, what: &str, dims: &[Dim]) -> Result<()> {
        let declared = |name: &str| {
            self.graph.inputs.iter().flat_map(|(_, o)| self.graph.desc(*o).shape.iter()).find_map(|d| match d {
                Dim::Dynamic { name: n, max_size } if &**n == name => Some(*max_size as u64),
                _ => None,
            })
        };
        for (i, d) in dims.iter().enumerate() {
            let Dim::Dynamic { name, max_size } = d else { continue };
            let bound = name.split('+').try_fold(0u64, |acc, term| match term.parse::<u64>() {
                Ok(n) => Some(acc + n),
                Err(_) => declared(term).map(|m| acc + m),
            });
            match bound {
                Some(b) if b == *max_size as u64 => {}
                Some(b) => {
                    return Err(Error::type_error(format!(
                        "{what}[{i}] = {d}, but the inputs bound '{name}' by {b}"
                    )))
                }
                None => {
                    return Err(Error::type_error(format!(
                        "{what}[{i}] = {d} names a dimension no input declares"
                    )))
                }
            }
        }
        Ok(())
    }

    /// The op table's row for `slot`.
    pub fn slot(&self, slot: &str) -> Slot {
        match self.kind.slots().iter().find(|s| s.name == slot) {
            Some(s) => *s,
            None => panic!("op table: {} has no slot {slot}", self.kind.name()),
        }
    }

    /// Checks `o` against the table's data types and rank range for `slot`
    /// (<https://www.w3.org/TR/webnn/#api-mlgraphbuilder-validate-operand> plus the op's
    /// constraint table) and returns its descriptor.
    pub fn check(&self, slot: &str, o: Operand) -> Result<&'a OperandDescriptor> {
        let d = self.desc(o);
        self.check_desc(slot, d)?;
        Ok(d)
    }

    /// As `check`, for a descriptor (e.g. an inferred output).
    pub fn check_desc(&self, slot: &str, d: &OperandDescriptor) -> Result<()> {
        let s = self.slot(slot);
        if !s.data_types.contains(d.data_type) {
            return Err(Error::type_error(format!(
                "{slot}: data type {} is not one of {}",
                d.data_type, s.data_types
            )));
        }
        let r = d.rank() as u32;
        if r < s.min_rank || r > s.max_rank {
            let want = if s.min_rank == s.max_rank {
                format!("{}", s.min_rank)
            } else {
                format!("{}..={}", s.min_rank, s.max_rank)
            };
            return Err(Error::type_error(format!("{slot}: rank {r} is not {want}")));
        }
        Ok(())
    }
}

/// TypeError unless `b` has the data type of `a`.
pub(crate) fn same_type(what_a: &str, a: &OperandDescriptor, what_b: &str, b: &OperandDescriptor) -> Result<()> {
    if a.data_type != b.data_type {
        return Err(Error::type_error(format!(
            "{what_b} has data type {} but {what_a} has {}",
            b.data_type, a.data_type
        )));
    }
    Ok(())
}

/// Bidirectional broadcasting of two operands' shapes, as a TypeError on failure.
pub(crate) fn broadcast(a: &OperandDescriptor, b: &OperandDescriptor) -> Result<Vec<Dim>> {
    broadcast_shapes(&a.shape, &b.shape, true).ok_or_else(|| {
        Error::type_error(format!("shapes {} and {} are not broadcastable", a.shape_string(), b.shape_string()))
    })
}

/// Checks `axes` are distinct and below `rank`; absent axes mean every axis.
pub(crate) fn axes_or_all(axes: Option<&[u32]>, rank: usize) -> Result<Vec<usize>> {
    match axes {
        None => Ok((0..rank).collect()),
        Some(axes) => {
            let mut seen = vec![false; rank];
            let mut out = Vec::with_capacity(axes.len());
            for &a in axes {
                let a = a as usize;
                if a >= rank {
                    return Err(Error::type_error(format!("axis {a} is out of range for rank {rank}")));
                }
                if seen[a] {
                    return Err(Error::type_error(format!("axis {a} appears twice")));
                }
                seen[a] = true;
                out.push(a);
            }
            Ok(out)
        }
    }
}

/// TypeError unless `axis < rank`.
pub(crate) fn check_axis(axis: u32, rank: usize) -> Result<usize> {
    if (axis as usize) < rank {
        Ok(axis as usize)
    } else {
        Err(Error::type_error(format!("axis {axis} is out of range for rank {rank}")))
    }
}

/// A static output descriptor.
pub(crate) fn desc(data_type: DataType, shape: Vec<Dim>) -> OperandDescriptor {
    OperandDescriptor::with_dims(data_type, shape)
}
