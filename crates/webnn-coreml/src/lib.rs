//! webnn-coreml: a validated WebNN graph as a CoreML ML Program: the `Model` protobuf
//! (specification version 9, an `mlProgram` with one `main` function of MIL operations in
//! opset `CoreML8`) and its weight file. Every op is lowered to MIL operations or decomposed
//! where MIL differs: NHWC layouts are transposed, normalizations and quantization are written
//! out, narrow integer types are computed in int32 and cast back. Recurrent ops are expanded
//! into primitives by `webnn_core::passes` first. float32 and float16 graphs keep their types
//! (`Options::float16` computes float32 in float16); `Options::multiarray_io` gives the
//! program the boundary types Core ML's `MLMultiArray` holds, for running it.
//!
//! CoreML has no int64, uint64 or uint32 tensors: graphs with operands of those types, and
//! int4/uint4 inputs or outputs, are rejected with a NotSupportedError (int4/uint4 constants
//! are widened to int8/uint8).

pub mod emit;
mod ops;
pub mod run;
pub use run::CoreMlBackend;
pub mod weights;

/// The CoreML protobuf types (generated from `proto/`).
#[allow(clippy::all, rustdoc::all)]
pub mod proto {
    pub mod specification {
        include!(concat!(env!("OUT_DIR"), "/core_ml.specification.rs"));
        pub mod mil_spec {
            include!(concat!(env!("OUT_DIR"), "/core_ml.specification.mil_spec.rs"));
        }
        pub mod core_ml_models {
            include!(concat!(env!("OUT_DIR"), "/core_ml.specification.core_ml_models.rs"));
        }
    }
}

use emit::{held, tensor_type, Em, In, Ty, V};
use proto::specification::{
    array_feature_type::ArrayDataType, feature_type, mil_spec, model, ArrayFeatureType, FeatureDescription,
    FeatureType, Model, ModelDescription,
};
use std::path::Path;
use webnn_core::{passes, DataType, Error, Graph, OperandDescriptor, Result, Source};

/// The Core ML specification version (iOS 18 / macOS 15).
pub const SPECIFICATION_VERSION: i32 = 9;
/// The MIL opset of that version.
pub const OPSET: &str = "CoreML8";
/// Where constants' `blobFileValue`s point, relative to the package's `Data/com.apple.CoreML`.
pub const WEIGHT_PATH: &str = "@model_path/weights/weight.bin";

/// A graph input or output: its WebNN name and descriptor, and its name, element type and
/// shape in the program.
#[derive(Clone, Debug)]
pub struct Boundary {
    pub name: String,
    pub mil_name: String,
    pub desc: OperandDescriptor,
    pub ty: Ty,
    pub shape: Vec<usize>,
}

/// How a graph is converted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Inputs and outputs as Core ML's `MLMultiArray` can hold them, for running the program:
    /// uint8 and int8 as int32 (the array has no uint8 elements, and int8 ones only from
    /// specification version 10, iOS 26) and 0-D as one element. Without it
    /// they keep WebNN's types and shapes exactly (0-D inputs still come in as one element:
    /// MIL functions take no scalars).
    pub multiarray_io: bool,
    /// float32 computed in float16, as Core ML's Neural Engine runs: float32 constants are
    /// stored as float16 and float32 inputs and outputs are cast at the boundary, where they
    /// stay float32.
    pub float16: bool,
}

/// A converted graph: the model and the contents of its weight file.
#[derive(Clone, Debug)]
pub struct CoreMlModel {
    pub model: Model,
    pub weights: Vec<u8>,
    pub inputs: Vec<Boundary>,
    pub outputs: Vec<Boundary>,
}

impl CoreMlModel {
    pub fn to_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(&self.model)
    }

    /// Writes an `.mlpackage` directory: `Manifest.json`, `Data/com.apple.CoreML/model.mlmodel`
    /// and `Data/com.apple.CoreML/weights/weight.bin`.
    pub fn write_package(&self, dir: &Path) -> std::io::Result<()> {
        let data = dir.join("Data/com.apple.CoreML");
        std::fs::create_dir_all(data.join("weights"))?;
        std::fs::write(data.join("model.mlmodel"), self.to_bytes())?;
        std::fs::write(data.join("weights/weight.bin"), &self.weights)?;
        std::fs::write(dir.join("Manifest.json"), MANIFEST)?;
        Ok(())
    }
}

/// The package manifest coremltools writes, with fixed identifiers for the two items.
const MANIFEST: &str = r#"{
    "fileFormatVersion": "1.0.0",
    "itemInfoEntries": {
        "6B4D3E8A-2F1C-4A5B-9C7D-0E1F2A3B4C5D": {
            "author": "com.apple.CoreML",
            "description": "CoreML Model Specification",
            "name": "model.mlmodel",
            "path": "com.apple.CoreML/model.mlmodel"
        },
        "7C5E4F9B-3A2D-4B6C-8D8E-1F2A3B4C5D6E": {
            "author": "com.apple.CoreML",
            "description": "CoreML Model Weights",
            "name": "weights",
            "path": "com.apple.CoreML/weights"
        }
    },
    "rootModelIdentifier": "6B4D3E8A-2F1C-4A5B-9C7D-0E1F2A3B4C5D"
}
"#;

/// The feature description of a boundary value. Core ML's multi-array has no uint8 element
/// type: a program with uint8 inputs or outputs loads only when converted with
/// `Options::multiarray_io`; without it they are described as int32.
fn feature(b: &Boundary) -> FeatureDescription {
    let data_type = match b.ty {
        Ty::F32 => ArrayDataType::Float32,
        Ty::F16 => ArrayDataType::Float16,
        Ty::I8 => ArrayDataType::Int8,
        Ty::I32 | Ty::U8 | Ty::Bool => ArrayDataType::Int32,
    };
    let shape = if b.shape.is_empty() { vec![1] } else { b.shape.iter().map(|&n| n as i64).collect() };
    FeatureDescription {
        name: b.mil_name.clone(),
        short_description: String::new(),
        r#type: Some(FeatureType {
            is_optional: false,
            r#type: Some(feature_type::Type::MultiArrayType(ArrayFeatureType {
                shape,
                data_type: data_type as i32,
                ..Default::default()
            })),
        }),
    }
}

/// int4/uint4 bytes (two per byte, low nibble first) as one sign- or zero-extended byte each.
fn unpack_nibbles(dt: DataType, packed: &[u8], elements: usize) -> Vec<u8> {
    (0..elements)
        .map(|i| {
            let n = (packed.get(i / 2).copied().unwrap_or(0) >> ((i % 2) * 4)) & 0xf;
            if dt == DataType::Int4 && n >= 8 {
                n | 0xf0
            } else {
                n
            }
        })
        .collect()
}

/// Converts a validated graph, keeping WebNN's boundary types (`Options::default()`).
pub fn convert(graph: &Graph) -> Result<CoreMlModel> {
    convert_with(graph, &Options::default())
}

/// Converts a validated graph.
pub fn convert_with(graph: &Graph, options: &Options) -> Result<CoreMlModel> {
    // The program type of a boundary value of type `ty`.
    let io_ty = |ty: Ty| if options.multiarray_io && matches!(ty, Ty::U8 | Ty::I8) { Ty::I32 } else { ty };
    if graph.outputs.is_empty() {
        return Err(Error::type_error("the graph has no outputs"));
    }
    let graph = passes::expand(graph, &|_| true)?;
    let mut em = Em::new(&graph);
    em.float16 = options.float16;
    let mut inputs = Vec::new();
    let mut fn_inputs = Vec::new();
    for (i, (name, o)) in graph.inputs.iter().enumerate() {
        let mil_name = format!("input_{i}");
        let ty = em.ty(*o)?;
        let shape = em.shape(*o)?;
        // Core ML functions take no scalars: a 0-D input comes in as one element.
        let declared = if shape.is_empty() { vec![1] } else { shape.clone() };
        let exact = held(graph.desc(*o).data_type)?;
        let v = V { name: mil_name.clone(), ty: io_ty(exact), shape: declared.clone() };
        fn_inputs.push(mil_spec::NamedValueType { name: mil_name.clone(), r#type: Some(tensor_type(v.ty, &v.shape)) });
        let b = Boundary { name: name.clone(), mil_name, desc: graph.desc(*o).clone(), ty: v.ty, shape: declared };
        let v = em.cast(&v, ty);
        let v = em.reshape(&v, shape);
        em.set(*o, v);
        inputs.push(b);
    }
    for (i, info) in graph.operands.iter().enumerate() {
        if let Source::Constant(data) = &info.source {
            let dt = info.desc.data_type;
            let shape: Vec<usize> =
                info.desc.require_static("a constant")?.iter().map(|&n| n as usize).collect();
            let elements = shape.iter().product();
            let (ty, bytes) = match dt {
                DataType::Int4 => (Ty::I8, unpack_nibbles(dt, data, elements)),
                DataType::Uint4 => (Ty::U8, unpack_nibbles(dt, data, elements)),
                DataType::Float32 if options.float16 => {
                    let halves = data.chunks_exact(4).flat_map(|c| {
                        half::f16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_le_bytes()
                    });
                    (Ty::F16, halves.collect())
                }
                _ => (held(dt)?, data.to_vec()),
            };
            let v = em.constant(ty, &shape, &bytes);
            em.set(webnn_core::Operand::from_raw(0, i as u32), v);
        }
    }
    for node in &graph.nodes {
        ops::lower(&mut em, node).map_err(|e| e.at(node.op.name(), node.op.label()))?;
    }
    let mut outputs = Vec::new();
    let mut out_names: Vec<String> = Vec::new();
    for (name, o) in &graph.outputs {
        let mut v = em.v(*o)?;
        if em.ty(*o)? != v.ty {
            return Err(Error::operation_error(format!("output {name} has type {:?}", v.ty)));
        }
        v = em.cast(&v, held(graph.desc(*o).data_type)?);
        if options.multiarray_io {
            v = em.cast(&v, io_ty(v.ty));
            if v.shape.is_empty() {
                // expand_dims rather than reshape: coremltools cannot fold a reshape of a
                // constant scalar.
                let x = In::V(v.clone());
                v = em.op("expand_dims", vec![("x", x), ("axes", In::Ints(vec![0]))], v.ty, vec![1]);
            }
        }
        // Each function output is a distinct value made by an operation of the block.
        if out_names.contains(&v.name) || fn_inputs.iter().any(|i| i.name == v.name) {
            v = em.unary("identity", &v, vec![]);
        }
        out_names.push(v.name.clone());
        let desc = graph.desc(*o).clone();
        outputs.push(Boundary { name: name.clone(), mil_name: v.name, desc, ty: v.ty, shape: v.shape });
    }
    let block = mil_spec::Block { inputs: vec![], outputs: out_names, operations: std::mem::take(&mut em.ops), attributes: Default::default() };
    let function = mil_spec::Function {
        inputs: fn_inputs,
        opset: OPSET.into(),
        block_specializations: [(OPSET.to_owned(), block)].into_iter().collect(),
        attributes: Default::default(),
    };
    let program = mil_spec::Program {
        version: 1,
        functions: [("main".to_owned(), function)].into_iter().collect(),
        doc_string: String::new(),
        attributes: Default::default(),
    };
    let description = ModelDescription {
        input: inputs.iter().map(feature).collect(),
        output: outputs.iter().map(feature).collect(),
        ..Default::default()
    };
    let model = Model {
        specification_version: SPECIFICATION_VERSION,
        description: Some(description),
        r#type: Some(model::Type::MlProgram(program)),
        ..Default::default()
    };
    Ok(CoreMlModel { model, weights: em.weights.into_bytes(), inputs, outputs })
}
