//! `MLGraphBuilder`: inputs, constants, the one generic path every op goes through
//! (ownership check, validation, output inference), and `build()`.
//! The per-op methods are in `builder_ops.rs`.

use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::graph::{Graph, Node, Operand, OperandInfo, Source};
use crate::ops::{MLNumber, Op};
use crate::shape::{Dim, OperandDescriptor};
use crate::validate;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The largest tensor this implementation accepts, in bytes (2 GiB - 1, what a wasm32 page
/// can address comfortably and what GPU buffer limits allow).
pub const MAX_TENSOR_BYTE_LENGTH: u64 = i32::MAX as u64;

static NEXT_BUILDER: AtomicU32 = AtomicU32::new(1);

/// Builds one graph. After `build()` every method fails with InvalidStateError.
#[derive(Debug)]
pub struct GraphBuilder {
    id: u32,
    graph: Graph,
    built: bool,
}

impl Default for GraphBuilder {
    fn default() -> Self {
        GraphBuilder::new()
    }
}

impl GraphBuilder {
    pub fn new() -> GraphBuilder {
        GraphBuilder { id: NEXT_BUILDER.fetch_add(1, Ordering::Relaxed), graph: Graph::default(), built: false }
    }

    /// The descriptor of an operand of this builder (`MLOperand.dataType`/`.shape`).
    pub fn desc(&self, o: Operand) -> Result<&OperandDescriptor> {
        self.graph.check_operand(self.id, o)?;
        Ok(self.graph.desc(o))
    }

    /// The graph built so far, every operand included.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    fn check_state(&self) -> Result<()> {
        if self.built {
            return Err(Error::invalid_state("the builder has already built a graph"));
        }
        Ok(())
    }

    fn push_operand(&mut self, desc: OperandDescriptor, source: Source) -> Operand {
        let o = Operand { builder: self.id, index: self.graph.operands.len() as u32 };
        self.graph.operands.push(OperandInfo { desc, source });
        o
    }

    /// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-input>
    pub fn input(&mut self, name: &str, desc: OperandDescriptor) -> Result<Operand> {
        self.check_state().map_err(|e| e.at("input", name))?;
        let err = |rule: String| Error::type_error(rule).at("input", name);
        if name.is_empty() {
            return Err(err("the input name must not be empty".into()));
        }
        if self.graph.inputs.iter().any(|(n, _)| n == name) {
            return Err(err(format!("an input named '{name}' already exists")));
        }
        check_descriptor(&desc).map_err(|e| e.at("input", name))?;
        self.check_dynamic_dims(&desc).map_err(err)?;
        let o = self.push_operand(desc, Source::Input(name.to_owned()));
        self.graph.inputs.push((name.to_owned(), o));
        Ok(o)
    }

    /// Flexible inputs: each dynamic dimension has a valid name, and one name has one bound
    /// across the graph's inputs.
    fn check_dynamic_dims(&self, desc: &OperandDescriptor) -> std::result::Result<(), String> {
        let declared = self.graph.inputs.iter().flat_map(|(_, o)| self.graph.desc(*o).shape.iter());
        let declared: Vec<&Dim> = declared.chain(desc.shape.iter()).collect();
        for d in &desc.shape {
            let Dim::Dynamic { name, max_size } = d else { continue };
            if !crate::shape::valid_dim_name(name) {
                return Err(format!(
                    "dynamic dimension name '{name}' must start with a letter or '_' and hold only letters, digits, '_', '-' and '.'"
                ));
            }
            let other = declared.iter().find_map(|e| match e {
                Dim::Dynamic { name: n, max_size: m } if n == name && m != max_size => Some(*m),
                _ => None,
            });
            if let Some(m) = other {
                return Err(format!("dynamic dimension '{name}' has maxSize {max_size} here and {m} elsewhere"));
            }
        }
        Ok(())
    }

    /// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-buffer>: `data` holds the
    /// elements as laid out in memory (little-endian, int4/uint4 two per byte).
    pub fn constant(&mut self, desc: OperandDescriptor, data: Vec<u8>) -> Result<Operand> {
        self.constant_shared(desc, Arc::from(data))
    }

    /// `constant` with data shared rather than copied (graph rewrites reuse a graph's
    /// constants this way).
    pub fn constant_shared(&mut self, desc: OperandDescriptor, data: Arc<[u8]>) -> Result<Operand> {
        self.check_state().map_err(|e| e.at("constant", ""))?;
        check_descriptor(&desc).map_err(|e| e.at("constant", ""))?;
        if desc.shape.iter().any(Dim::is_dynamic) {
            return Err(Error::type_error("a constant cannot have dynamic dimensions").at("constant", ""));
        }
        let expected = desc.max_byte_length().unwrap_or(u64::MAX);
        if data.len() as u64 != expected {
            return Err(Error::type_error(format!(
                "the buffer holds {} bytes but the descriptor {} needs {expected}",
                data.len(),
                desc
            ))
            .at("constant", ""));
        }
        Ok(self.push_operand(desc, Source::Constant(data)))
    }

    /// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-type-value>: a 0-D constant.
    pub fn constant_scalar(&mut self, data_type: DataType, value: MLNumber) -> Result<Operand> {
        let bytes = encode_number(data_type, value);
        self.constant(OperandDescriptor::new(data_type, &[]), bytes)
    }

    /// Validates `op`, infers its outputs and appends it. Every builder method ends here.
    pub fn add_op(&mut self, op: Op) -> Result<Vec<Operand>> {
        let name = op.name();
        let label = op.label().to_owned();
        self.check_state().map_err(|e| e.at(name, &label))?;
        for o in op.operands() {
            self.graph.check_operand(self.id, o).map_err(|e| e.at(name, &label))?;
        }
        let outputs = validate::infer(&self.graph, &op).map_err(|e| e.at(name, &label))?;
        for d in &outputs {
            check_descriptor(d).map_err(|e| e.at(name, &label))?;
        }
        let node = self.graph.nodes.len();
        let handles: Vec<Operand> = outputs
            .into_iter()
            .enumerate()
            .map(|(index, desc)| self.push_operand(desc, Source::Node { node, index }))
            .collect();
        self.graph.nodes.push(Node { op, outputs: handles.clone() });
        Ok(handles)
    }

    /// Like `add_op` for ops with exactly one output.
    pub(crate) fn add1(&mut self, op: Op) -> Result<Operand> {
        let outs = self.add_op(op)?;
        Ok(outs[0])
    }

    /// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build>
    pub fn build(&mut self, outputs: &[(&str, Operand)]) -> Result<Graph> {
        self.check_state().map_err(|e| e.at("build", ""))?;
        let err = |rule: String| Error::type_error(rule).at("build", "");
        if outputs.is_empty() {
            return Err(err("at least one output is required".into()));
        }
        let mut names = HashSet::new();
        for (name, o) in outputs {
            if name.is_empty() {
                return Err(err("an output name must not be empty".into()));
            }
            if !names.insert(*name) {
                return Err(err(format!("the output name '{name}' is used twice")));
            }
            self.graph.check_operand(self.id, *o).map_err(|e| e.at("build", name))?;
            match self.graph.info(*o).source {
                Source::Node { .. } => {}
                Source::Input(_) | Source::Constant(_) => {
                    return Err(err(format!("output '{name}' is an input or a constant, not an op result")))
                }
            }
        }
        let named: Vec<(String, Operand)> = outputs.iter().map(|(n, o)| (n.to_string(), *o)).collect();
        let g = self.graph.pruned(&named);
        self.built = true;
        Ok(g)
    }
}

/// Checks a descriptor is representable: no zero dimension, bounded byte length.
/// <https://www.w3.org/TR/webnn/#valid-dimension>
pub fn check_descriptor(desc: &OperandDescriptor) -> Result<()> {
    if desc.rank() > crate::ops::MAX_RANK as usize {
        return Err(Error::type_error(format!(
            "rank {} exceeds the supported maximum {}",
            desc.rank(),
            crate::ops::MAX_RANK
        )));
    }
    for d in &desc.shape {
        if d.max_size() == 0 {
            return Err(Error::type_error(format!("dimension sizes must be positive, got {}", desc.shape_string())));
        }
    }
    match desc.max_byte_length() {
        Some(n) if n <= MAX_TENSOR_BYTE_LENGTH => Ok(()),
        _ => Err(Error::type_error(format!(
            "{} is larger than the supported {MAX_TENSOR_BYTE_LENGTH} bytes",
            desc
        ))),
    }
}

/// Encodes one number as an element of `data_type` (little-endian; int4/uint4 in the low
/// nibble). Integers truncate toward zero and saturate; NaN becomes 0.
pub fn encode_number(data_type: DataType, value: MLNumber) -> Vec<u8> {
    let int = |min: i128, max: i128| -> i128 {
        match value {
            MLNumber::BigInt(v) => v.clamp(min, max),
            MLNumber::Double(v) if v.is_nan() => 0,
            MLNumber::Double(v) => (v.trunc().clamp(min as f64, max as f64)) as i128,
        }
    };
    match data_type {
        DataType::Float32 => (value.as_f64() as f32).to_le_bytes().to_vec(),
        DataType::Float16 => half::f16::from_f64(value.as_f64()).to_bits().to_le_bytes().to_vec(),
        DataType::Int32 => (int(i32::MIN as i128, i32::MAX as i128) as i32).to_le_bytes().to_vec(),
        DataType::Uint32 => (int(0, u32::MAX as i128) as u32).to_le_bytes().to_vec(),
        DataType::Int64 => (int(i64::MIN as i128, i64::MAX as i128) as i64).to_le_bytes().to_vec(),
        DataType::Uint64 => (int(0, u64::MAX as i128) as u64).to_le_bytes().to_vec(),
        DataType::Int8 => vec![int(-128, 127) as i8 as u8],
        DataType::Uint8 => vec![int(0, 255) as u8],
        DataType::Int4 => vec![(int(-8, 7) as i8 as u8) & 0xF],
        DataType::Uint4 => vec![int(0, 15) as u8],
    }
}
