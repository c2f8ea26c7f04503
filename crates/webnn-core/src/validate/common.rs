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
