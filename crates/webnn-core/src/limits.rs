//! `opSupportLimits()`: the op table's constraints narrowed by a backend's capabilities.

use crate::builder::MAX_TENSOR_BYTE_LENGTH;
use crate::dtype::{DataType, DataTypeSet};
use crate::ops::{InputLayout, OpKind, MAX_RANK};

/// What a backend declares about itself.
#[derive(Clone, Debug)]
pub struct Capabilities {
    pub preferred_input_layout: InputLayout,
    pub max_tensor_byte_length: u64,
    /// Data types the backend handles at all.
    pub data_types: DataTypeSet,
    pub max_rank: u32,
    /// Per op and slot, data types the backend lacks although the spec allows them.
    pub unsupported: Vec<(OpKind, &'static str, DataTypeSet)>,
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            preferred_input_layout: InputLayout::Nchw,
            max_tensor_byte_length: MAX_TENSOR_BYTE_LENGTH,
            data_types: DataTypeSet::ALL,
            max_rank: MAX_RANK,
            unsupported: Vec::new(),
        }
    }
}

/// `MLTensorLimits`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorLimits {
    pub data_types: DataTypeSet,
    pub min_rank: u32,
    pub max_rank: u32,
}

/// `MLOpSupportLimits`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSupportLimits {
    pub preferred_input_layout: InputLayout,
    pub max_tensor_byte_length: u64,
    pub input: TensorLimits,
    pub constant: TensorLimits,
    pub output: TensorLimits,
    /// Per op, per slot (`input`, `filter`, ..., `output`).
    pub ops: Vec<(OpKind, Vec<(&'static str, TensorLimits)>)>,
}

impl OpSupportLimits {
    pub fn op(&self, kind: OpKind) -> &[(&'static str, TensorLimits)] {
        self.ops.iter().find(|(k, _)| *k == kind).map(|(_, s)| s.as_slice()).unwrap_or(&[])
    }
    /// Whether `data_type` is supported for `slot` of `kind`.
    pub fn supports(&self, kind: OpKind, slot: &str, data_type: DataType) -> bool {
        self.op(kind).iter().any(|(s, l)| *s == slot && l.data_types.contains(data_type))
    }
}

/// Derives `opSupportLimits()` for a backend.
pub fn op_support_limits(caps: &Capabilities) -> OpSupportLimits {
    let general =
        TensorLimits { data_types: caps.data_types, min_rank: 0, max_rank: caps.max_rank.min(MAX_RANK) };
    let ops = OpKind::ALL
        .iter()
        .map(|&kind| {
            let slots = kind
                .slots()
                .iter()
                .map(|s| {
                    let mut types = s.data_types.intersection(caps.data_types);
                    for (k, slot, lacks) in &caps.unsupported {
                        if *k == kind && *slot == s.name {
                            types = DataTypeSet(types.0 & !lacks.0);
                        }
                    }
                    let limits = TensorLimits {
                        data_types: types,
                        min_rank: s.min_rank,
                        max_rank: s.max_rank.min(caps.max_rank),
                    };
                    (s.name, limits)
                })
                .collect();
            (kind, slots)
        })
        .collect();
    OpSupportLimits {
        preferred_input_layout: caps.preferred_input_layout,
        max_tensor_byte_length: caps.max_tensor_byte_length,
        input: general.clone(),
        constant: general.clone(),
        output: general,
        ops,
    }
}
