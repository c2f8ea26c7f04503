//! webnn-onnx: a validated WebNN graph as an ONNX model (opset 21, which ONNX Runtime 1.31
//! runs) with WebNN's exact semantics. Where ONNX differs, ops are decomposed: layouts are
//! transposed, pooling rounding follows the output size, reductions over no axes reduce
//! each element alone, indices are clamped, and data types ONNX Runtime's kernels lack are
//! computed in a wider type and cast back (and where its kernels are wrong: int64
//! Max/Min/Clip/ReduceMax compare only the low 32 bits, integer ReduceSum/ReduceProd
//! saturate, integer division traps on MIN / -1). Recurrent ops are expanded into primitives
//! by `webnn_core::passes` first. Dynamic dimensions become `dim_param`s; sizes an op needs
//! are read from the inputs' shapes at run time. Constants of 1 KiB and more are external
//! data.
//!
//! int4/uint4 inputs, outputs and constants are ONNX INT4/UINT4 tensors (packed as WebNN
//! packs them), held as int8/uint8 inside the model.
//!
//! The other direction, an ONNX model in as a WebNN graph, is [`import`] (docs/onnx.md).

mod emit;
mod nbits;
mod ops;
pub mod import;

/// The ONNX protobuf types (generated from `proto/onnx.proto`).
#[allow(clippy::all)]
pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}

use emit::{attr_i, boundary_type, held, onnx_type, Em};
use proto::{
    tensor_shape_proto::{dimension, Dimension},
    type_proto, GraphProto, ModelProto, OperatorSetIdProto, TensorShapeProto, TypeProto,
    ValueInfoProto,
};
use webnn_core::{passes, DataType, Error, Graph, OperandDescriptor, Result, Source};

/// The ONNX operator set the models use.
pub const OPSET: i64 = 21;
/// ONNX IR version 10 (the one opset 21 came with).
pub const IR_VERSION: i64 = 10;

/// A graph input or output: its WebNN name and descriptor, and its name in the model.
#[derive(Clone, Debug)]
pub struct Boundary {
    pub name: String,
    pub onnx_name: String,
    pub desc: OperandDescriptor,
}

/// The file the model's external initializers refer to (next to the model file).
pub const EXTERNAL_DATA_FILE: &str = "weights.bin";
/// Constants of at least this many bytes are stored as external data: the protobuf stays
/// small (and under its 2 GiB limit) and the weights are not copied into it.
pub const EXTERNAL_THRESHOLD: usize = 1024;
/// External tensors start at multiples of this (ONNX Runtime can then map them in place).
const EXTERNAL_ALIGN: usize = 64;

/// A converted graph.
#[derive(Clone, Debug)]
pub struct OnnxModel {
    pub model: ModelProto,
    pub inputs: Vec<Boundary>,
    pub outputs: Vec<Boundary>,
    /// The contents of `EXTERNAL_DATA_FILE`: large constants, each at the offset its
    /// initializer names.
    pub external_data: Vec<u8>,
}

impl OnnxModel {
    pub fn to_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(&self.model)
    }

    /// The model as one file, its large constants back inside the protobuf: for runtimes
    /// that take a single buffer (ONNX Runtime Web). Under protobuf's 2 GiB limit only.
    pub fn to_self_contained_bytes(&self) -> Vec<u8> {
        let mut model = self.model.clone();
        if let Some(graph) = model.graph.as_mut() {
            for t in &mut graph.initializer {
                let field = |k: &str| {
                    t.external_data
                        .iter()
                        .find(|e| e.key.as_deref() == Some(k))
                        .and_then(|e| e.value.as_deref()?.parse::<usize>().ok())
                };
                let (Some(offset), Some(length)) = (field("offset"), field("length")) else {
                    continue;
                };
                t.raw_data = Some(self.external_data[offset..offset + length].to_vec());
                t.external_data.clear();
                t.data_location = None;
            }
        }
        prost::Message::encode_to_vec(&model)
    }

    /// Writes the model to `path` and its external data next to it, as ONNX tools expect.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())?;
        let dir = path.parent().unwrap_or(std::path::Path::new("."));
        std::fs::write(dir.join(EXTERNAL_DATA_FILE), &self.external_data)
    }
}

/// Moves the raw data of large initializers into one buffer of external data.
fn externalize(initializers: &mut [proto::TensorProto]) -> Vec<u8> {
    let mut data = Vec::new();
    for t in initializers {
        let large = t
            .raw_data
            .as_ref()
            .is_some_and(|r| r.len() >= EXTERNAL_THRESHOLD);
        if !large {
            continue;
        }
        let raw = t.raw_data.take().unwrap_or_default();
        data.resize(data.len().div_ceil(EXTERNAL_ALIGN) * EXTERNAL_ALIGN, 0);
        let entry = |k: &str, v: String| proto::StringStringEntryProto {
            key: Some(k.into()),
            value: Some(v),
        };
        t.external_data = vec![
            entry("location", EXTERNAL_DATA_FILE.into()),
            entry("offset", data.len().to_string()),
            entry("length", raw.len().to_string()),
        ];
        t.data_location = Some(proto::tensor_proto::DataLocation::External as i32);
        data.extend_from_slice(&raw);
    }
    data
}

fn value_info(name: &str, desc: &OperandDescriptor) -> ValueInfoProto {
    let dim = desc
        .shape
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                webnn_core::Dim::Static(n) => dimension::Value::DimValue(*n as i64),
                webnn_core::Dim::Dynamic { name, .. } => {
                    dimension::Value::DimParam(name.to_string())
                }
            }),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(boundary_type(desc.data_type)),
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// What a conversion may use beyond the standard operator set.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvertOptions {
    /// Fused 4-bit quantized products as ONNX Runtime's `com.microsoft.MatMulNBits`: the
    /// weights stay 4-bit (for ONNX Runtime; other runtimes may lack the operator).
    pub matmul_nbits: bool,
    /// layerNormalization over trailing axes (with a scale) and instanceNormalization in NCHW
    /// (with a scale and a bias) as ONNX's `LayerNormalization` and `InstanceNormalization`,
    /// computed by the runtime in the input's type, as framework exports write them; runtimes
    /// that take ONNX to WebNN (ONNX Runtime Web's WebNN execution provider) map each to one
    /// op. The default spells them out in float64, for results as exact as WebNN asks.
    pub normalization_ops: bool,
}

/// Converts a validated graph to standard ONNX.
pub fn convert(graph: &Graph) -> Result<OnnxModel> {
    convert_with(graph, ConvertOptions::default())
}

/// Converts a validated graph.
pub fn convert_with(graph: &Graph, options: ConvertOptions) -> Result<OnnxModel> {
    let graph = passes::expand(graph, &|_| true)?;
    let fused = if options.matmul_nbits { nbits::matches(&graph) } else { Vec::new() };
    let absorbed: std::collections::HashSet<usize> = fused.iter().flat_map(|q| q.absorbed.iter().copied()).collect();
    // Constants that only absorbed nodes read are not emitted (MatMulNBits has its own).
    let mut kept = vec![false; graph.operands.len()];
    for (_, node) in graph.nodes.iter().enumerate().filter(|(i, _)| !absorbed.contains(i)) {
        for o in node.op.operands() {
            kept[o.index()] = true;
        }
    }
    for (_, o) in &graph.outputs {
        kept[o.index()] = true;
    }
    let mut em = Em::new(&graph);
    em.normalization_ops = options.normalization_ops;
    let mut inputs = Vec::new();
    for (i, (name, o)) in graph.inputs.iter().enumerate() {
        let onnx_name = format!("input_{i}");
        let held_value = match graph.desc(*o).data_type {
            dt @ (DataType::Int4 | DataType::Uint4) => em.node(
                "Cast",
                &[&onnx_name],
                vec![attr_i("to", onnx_type(dt) as i64)],
            ),
            _ => onnx_name.clone(),
        };
        em.set(*o, held_value);
        em.dim_source(&onnx_name, graph.desc(*o));
        inputs.push(Boundary {
            name: name.clone(),
            onnx_name,
            desc: graph.desc(*o).clone(),
        });
    }
    for (i, info) in graph.operands.iter().enumerate() {
        if let Source::Constant(data) = &info.source {
            if !absorbed.is_empty() && !kept[i] {
                continue;
            }
            let desc = &info.desc;
            let shape = desc.require_static("a constant")?;
            let dims: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
            let dt = desc.data_type;
            let mut name = em.initializer(boundary_type(dt), &dims, data.to_vec());
            if held(dt) != dt {
                name = em.node("Cast", &[&name], vec![attr_i("to", onnx_type(dt) as i64)]);
            }
            em.set(webnn_core::Operand::from_raw(0, i as u32), name);
        }
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        if absorbed.contains(&i) {
            continue;
        }
        let lowered = match fused.iter().find(|q| q.node == i) {
            Some(q) => nbits::lower(&mut em, q, node.outputs[0]),
            None => ops::lower(&mut em, node),
        };
        lowered.map_err(|e| e.at(node.op.name(), node.op.label()))?;
    }
    let mut outputs = Vec::new();
    for (i, (name, o)) in graph.outputs.iter().enumerate() {
        let onnx_name = format!("output_{i}");
        let v = em.v(*o)?;
        let dt = graph.desc(*o).data_type;
        let (op, attribute) = match dt {
            DataType::Int4 | DataType::Uint4 => {
                ("Cast", vec![attr_i("to", boundary_type(dt) as i64)])
            }
            _ => ("Identity", vec![]),
        };
        em.nodes.push(proto::NodeProto {
            input: vec![v],
            output: vec![onnx_name.clone()],
            name: Some(format!("output_{i}_{}", op.to_lowercase())),
            op_type: Some(op.into()),
            attribute,
            ..Default::default()
        });
        outputs.push(Boundary {
            name: name.clone(),
            onnx_name,
            desc: graph.desc(*o).clone(),
        });
    }
    if graph.nodes.is_empty() && graph.outputs.is_empty() {
        return Err(Error::type_error("the graph has no outputs"));
    }
    let external_data = externalize(&mut em.initializers);
    let g = GraphProto {
        name: Some("webnn".into()),
        input: inputs
            .iter()
            .map(|b| value_info(&b.onnx_name, &b.desc))
            .collect(),
        output: outputs
            .iter()
            .map(|b| value_info(&b.onnx_name, &b.desc))
            .collect(),
        node: std::mem::take(&mut em.nodes),
        initializer: std::mem::take(&mut em.initializers),
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: Some(IR_VERSION),
        producer_name: Some("webnn-rs".into()),
        producer_version: Some(env!("CARGO_PKG_VERSION").into()),
        opset_import: std::iter::once((String::new(), OPSET))
            .chain((!fused.is_empty()).then(|| (nbits::DOMAIN.to_owned(), 1)))
            .map(|(domain, version)| OperatorSetIdProto { domain: Some(domain), version: Some(version) })
            .collect(),
        graph: Some(g),
        ..Default::default()
    };
    Ok(OnnxModel {
        model,
        inputs,
        outputs,
        external_data,
    })
}
