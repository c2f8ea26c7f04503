//! The ONNX importer op by op: one-node models written here, each imported, run on the fast
//! CPU backend and compared with ONNX Runtime running the model itself. The cases are the
//! attribute combinations exports use and where ONNX and WebNN differ (auto_pad, ceil_mode,
//! count_include_pad, 1-D convolutions and pools, negative slice steps, opset-11 softmax on
//! a matrix view, truncating casts, per-axis quantization...).
#![cfg(feature = "ort")]

use webnn::onnx::{self, ImportOptions};
use webnn::{DataType, OperandDescriptor};
use webnn_core::{Backend, HostTensor};
use webnn_onnx::proto::{
    attribute_proto::AttributeType, tensor_proto, tensor_shape_proto::dimension, tensor_shape_proto::Dimension, type_proto,
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto,
    ValueInfoProto,
};
use webnn_ort::OrtBackend;

const F: i32 = tensor_proto::DataType::Float as i32;
const I64: i32 = tensor_proto::DataType::Int64 as i32;
const U8: i32 = tensor_proto::DataType::Uint8 as i32;
const I32: i32 = tensor_proto::DataType::Int32 as i32;

fn ai(name: &str, v: i64) -> AttributeProto {
    AttributeProto { name: Some(name.into()), r#type: Some(AttributeType::Int as i32), i: Some(v), ..Default::default() }
}
fn af(name: &str, v: f32) -> AttributeProto {
    AttributeProto { name: Some(name.into()), r#type: Some(AttributeType::Float as i32), f: Some(v), ..Default::default() }
}
fn aints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto { name: Some(name.into()), r#type: Some(AttributeType::Ints as i32), ints: v.to_vec(), ..Default::default() }
}
fn astr(name: &str, v: &str) -> AttributeProto {
    AttributeProto { name: Some(name.into()), r#type: Some(AttributeType::String as i32), s: Some(v.as_bytes().to_vec()), ..Default::default() }
}

fn node(op: &str, ins: &[&str], outs: &[&str], attribute: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(format!("{op}_{}", outs[0])),
        input: ins.iter().map(|s| s.to_string()).collect(),
        output: outs.iter().map(|s| s.to_string()).collect(),
        attribute,
        ..Default::default()
    }
}

/// A node of ONNX Runtime's contrib domain.
fn ms(op: &str, ins: &[&str], outs: &[&str], attribute: Vec<AttributeProto>) -> NodeProto {
    NodeProto { domain: Some("com.microsoft".into()), ..node(op, ins, outs, attribute) }
}

/// Bytes without a pattern (quantized codes).
fn bytes(n: usize, seed: u32) -> Vec<i32> {
    spread(n, seed).iter().map(|x| ((x + 2.0) * 64.0) as i32 & 255).collect()
}

/// Positive scales.
fn scales(n: usize, seed: u32) -> Vec<f32> {
    spread(n, seed).iter().map(|x| 0.01 + 0.02 * x.abs()).collect()
}

fn value_info(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    let dim = dims.iter().map(|&d| Dimension { value: Some(dimension::Value::DimValue(d)), ..Default::default() }).collect();
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor { elem_type: Some(elem), shape: Some(TensorShapeProto { dim }) })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn floats_init(name: &str, dims: &[i64], v: &[f32]) -> TensorProto {
    TensorProto { name: Some(name.into()), dims: dims.to_vec(), data_type: Some(F), float_data: v.to_vec(), ..Default::default() }
}
fn ints_init(name: &str, dims: &[i64], v: &[i64]) -> TensorProto {
    TensorProto { name: Some(name.into()), dims: dims.to_vec(), data_type: Some(I64), int64_data: v.to_vec(), ..Default::default() }
}
fn typed_init(name: &str, elem: i32, dims: &[i64], v: &[i32]) -> TensorProto {
    TensorProto { name: Some(name.into()), dims: dims.to_vec(), data_type: Some(elem), int32_data: v.to_vec(), ..Default::default() }
}

/// Values spread over [-2, 2) without a pattern.
fn spread(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(747_796_405).max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            4.0 * (s as f32 / u32::MAX as f32) - 2.0
        })
        .collect()
}

struct Case {
    name: &'static str,
    opset: i64,
    inputs: Vec<(&'static str, Vec<i64>)>,
    inits: Vec<TensorProto>,
    nodes: Vec<NodeProto>,
    outputs: Vec<&'static str>,
}

fn case(name: &'static str, opset: i64, inputs: Vec<(&'static str, Vec<i64>)>, inits: Vec<TensorProto>, nodes: Vec<NodeProto>) -> Case {
    let last = nodes.last().map(|n| n.output[0].clone()).unwrap_or_default();
    Case { name, opset, inputs, inits, nodes, outputs: vec![Box::leak(last.into_boxed_str())] }
}

impl Case {
    fn with_outputs(mut self, outputs: &[&'static str]) -> Case {
        self.outputs = outputs.to_vec();
        self
    }
}

fn model(c: &Case) -> ModelProto {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![
            OperatorSetIdProto { domain: Some(String::new()), version: Some(c.opset) },
            OperatorSetIdProto { domain: Some("com.microsoft".into()), version: Some(1) },
        ],
        graph: Some(GraphProto {
            name: Some(c.name.into()),
            node: c.nodes.clone(),
            input: c.inputs.iter().map(|(n, d)| value_info(n, F, d)).collect(),
            initializer: c.inits.clone(),
            output: c.outputs.iter().map(|n| ValueInfoProto { name: Some(n.to_string()), ..Default::default() }).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Deterministic float inputs for every input of `g`, input i from seed `seed + i`.
fn feeds(g: &webnn_core::Graph, seed: u32) -> Vec<(String, HostTensor)> {
    g.inputs
        .iter()
        .enumerate()
        .map(|(i, (n, o))| {
            let d: &OperandDescriptor = g.desc(*o);
            let v = spread(d.max_elements() as usize, seed + i as u32);
            (n.clone(), HostTensor { desc: d.clone(), bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() })
        })
        .collect()
}

/// Imports, runs on the fast backend and on ONNX Runtime, and returns the largest
/// difference (floats) or an error (integer outputs that differ at all).
fn check(c: &Case) -> Result<f64, String> {
    let m = model(c);
    let imported = onnx::import_model(&m, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let g = imported.graph;
    let feeds = feeds(&g, 11);
    let refs: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let ours = webnn::FastBackend::new(1).compile(&g).map_err(|e| e.to_string())?.dispatch(&refs).map_err(|e| e.to_string())?;
    let ort = OrtBackend::new().unwrap().standard_onnx();
    let theirs = ort.compile_model(&onnx::reference_model(&m, &g)).map_err(|e| e.to_string())?.dispatch(&refs).map_err(|e| e.to_string())?;
    let mut worst = 0f64;
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        if a.desc != b.desc {
            return Err(format!("output {name}: {} here, {} from ONNX Runtime", a.desc, b.desc));
        }
        let dt = a.desc.data_type;
        let shape: Vec<usize> = a.desc.max_shape().iter().map(|&d| d as usize).collect();
        let (x, y) = (
            onnx::Host { dt, shape: shape.clone(), data: a.bytes.clone().into() }.floats(),
            onnx::Host { dt, shape, data: b.bytes.clone().into() }.floats(),
        );
        let d = x.iter().zip(&y).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        if dt != DataType::Float32 && d != 0.0 {
            return Err(format!("output {name} ({dt}) differs: {x:?} against {y:?}"));
        }
        worst = worst.max(d);
    }
    Ok(worst)
}

/// LSTM peepholes for the input and forget gates; the output gate's are zero, the only ones
/// ONNX and WebNN read alike (see the importer's rnn.rs).
fn input_forget_peepholes() -> TensorProto {
    let mut p = spread(30, 27);
    for d in 0..2 {
        p[d * 15 + 5..d * 15 + 10].fill(0.0);
    }
    floats_init("P", &[2, 15], &p)
}

fn cases() -> Vec<Case> {
    let w = |name: &str, dims: &[i64], seed: u32| floats_init(name, dims, &spread(dims.iter().product::<i64>() as usize, seed));
    vec![
        case("conv same_upper stride 2 with bias", 13, vec![("x", vec![1, 3, 9, 9])], vec![w("w", &[4, 3, 3, 3], 1), w("b", &[4], 2)],
            vec![node("Conv", &["x", "w", "b"], &["y"], vec![astr("auto_pad", "SAME_UPPER"), aints("strides", &[2, 2])])]),
        case("conv same_lower stride 2", 13, vec![("x", vec![1, 2, 8, 8])], vec![w("w", &[2, 2, 4, 4], 3)],
            vec![node("Conv", &["x", "w"], &["y"], vec![astr("auto_pad", "SAME_LOWER"), aints("strides", &[2, 2])])]),
        case("conv dilated", 13, vec![("x", vec![1, 2, 9, 8])], vec![w("w", &[3, 2, 3, 2], 22)],
            vec![node("Conv", &["x", "w"], &["y"], vec![aints("dilations", &[2, 3]), aints("pads", &[1, 0, 2, 3])])]),
        case("conv 1-D padded dilated", 13, vec![("x", vec![2, 3, 20])], vec![w("w", &[5, 3, 4], 4)],
            vec![node("Conv", &["x", "w"], &["y"], vec![aints("pads", &[2, 1]), aints("dilations", &[2]), aints("strides", &[3])])]),
        case("conv depthwise asymmetric pads", 13, vec![("x", vec![1, 4, 7, 6])], vec![w("w", &[4, 1, 3, 3], 5)],
            vec![node("Conv", &["x", "w"], &["y"], vec![ai("group", 4), aints("pads", &[0, 1, 1, 2])])]),
        case("convTranspose stride 2 output_padding", 13, vec![("x", vec![1, 3, 5, 5])], vec![w("w", &[3, 2, 3, 3], 6), w("b", &[2], 7)],
            vec![node("ConvTranspose", &["x", "w", "b"], &["y"], vec![aints("strides", &[2, 2]), aints("pads", &[1, 1, 1, 1]), aints("output_padding", &[1, 1])])]),
        case("convTranspose same_upper", 13, vec![("x", vec![1, 2, 4, 5])], vec![w("w", &[2, 3, 3, 3], 8)],
            vec![node("ConvTranspose", &["x", "w"], &["y"], vec![astr("auto_pad", "SAME_UPPER"), aints("strides", &[2, 2])])]),
        case("convTranspose output_shape groups", 13, vec![("x", vec![1, 4, 3, 3])], vec![w("w", &[4, 1, 2, 2], 9)],
            vec![node("ConvTranspose", &["x", "w"], &["y"], vec![ai("group", 2), aints("strides", &[2, 2]), aints("output_shape", &[5, 6])])]),
        case("maxPool ceil_mode", 13, vec![("x", vec![1, 2, 8, 8])], vec![],
            vec![node("MaxPool", &["x"], &["y"], vec![aints("kernel_shape", &[3, 3]), aints("strides", &[2, 2]), ai("ceil_mode", 1)])]),
        case("maxPool 1-D same_upper", 13, vec![("x", vec![1, 3, 11])], vec![],
            vec![node("MaxPool", &["x"], &["y"], vec![aints("kernel_shape", &[3]), aints("strides", &[2]), astr("auto_pad", "SAME_UPPER")])]),
        case("averagePool count_include_pad", 13, vec![("x", vec![1, 2, 6, 6])], vec![],
            vec![node("AveragePool", &["x"], &["y"], vec![aints("kernel_shape", &[3, 3]), aints("pads", &[1, 1, 1, 1]), ai("count_include_pad", 1)])]),
        case("averagePool excluding pads, ceil", 13, vec![("x", vec![1, 2, 7, 7])], vec![],
            vec![node("AveragePool", &["x"], &["y"], vec![aints("kernel_shape", &[2, 2]), aints("strides", &[2, 2]), aints("pads", &[1, 1, 0, 0]), ai("ceil_mode", 1)])]),
        case("lpPool p=2", 13, vec![("x", vec![1, 2, 6, 6])], vec![],
            vec![node("LpPool", &["x"], &["y"], vec![aints("kernel_shape", &[2, 2]), aints("strides", &[2, 2])])]),
        case("globalAveragePool", 13, vec![("x", vec![2, 3, 5, 4])], vec![], vec![node("GlobalAveragePool", &["x"], &["y"], vec![])]),
        case("globalMaxPool", 13, vec![("x", vec![2, 3, 5, 4])], vec![], vec![node("GlobalMaxPool", &["x"], &["y"], vec![])]),
        case("batchNormalization", 15, vec![("x", vec![2, 3, 4, 4])],
            vec![w("s", &[3], 10), w("b", &[3], 11), w("m", &[3], 12), floats_init("v", &[3], &[0.5, 1.5, 2.0])],
            vec![node("BatchNormalization", &["x", "s", "b", "m", "v"], &["y"], vec![af("epsilon", 1e-3)])]),
        case("instanceNormalization 3-D", 13, vec![("x", vec![2, 3, 10])], vec![w("s", &[3], 13), w("b", &[3], 14)],
            vec![node("InstanceNormalization", &["x", "s", "b"], &["y"], vec![])]),
        case("layerNormalization", 17, vec![("x", vec![2, 5, 8])], vec![w("s", &[8], 15), w("b", &[8], 16)],
            vec![node("LayerNormalization", &["x", "s", "b"], &["y"], vec![ai("axis", -1), af("epsilon", 1e-5)])]),
        case("gemm transB alpha beta", 13, vec![("a", vec![3, 5])], vec![w("b", &[4, 5], 17), w("c", &[4], 18)],
            vec![node("Gemm", &["a", "b", "c"], &["y"], vec![ai("transB", 1), af("alpha", 0.5), af("beta", 2.0)])]),
        case("matMul batched", 13, vec![("a", vec![2, 3, 5])], vec![w("b", &[5, 4], 19)], vec![node("MatMul", &["a", "b"], &["y"], vec![])]),
        case("matMul 1-D", 13, vec![("a", vec![5])], vec![w("b", &[2, 5, 4], 20)], vec![node("MatMul", &["a", "b"], &["y"], vec![])]),
        case("softmax opset 11 on a matrix view", 11, vec![("x", vec![2, 3, 4])], vec![], vec![node("Softmax", &["x"], &["y"], vec![ai("axis", 1)])]),
        case("softmax opset 13 axis 1", 13, vec![("x", vec![2, 3, 4])], vec![], vec![node("Softmax", &["x"], &["y"], vec![ai("axis", 1)])]),
        case("logSoftmax", 13, vec![("x", vec![2, 7])], vec![], vec![node("LogSoftmax", &["x"], &["y"], vec![])]),
        case("resize nearest asymmetric floor x2", 13, vec![("x", vec![1, 2, 3, 4])], vec![floats_init("sc", &[4], &[1.0, 1.0, 2.0, 2.0])],
            vec![node("Resize", &["x", "", "sc"], &["y"], vec![astr("mode", "nearest"), astr("coordinate_transformation_mode", "asymmetric"), astr("nearest_mode", "floor")])]),
        case("resize linear half_pixel sizes", 13, vec![("x", vec![1, 2, 4, 5])], vec![ints_init("sz", &[4], &[1, 2, 7, 3])],
            vec![node("Resize", &["x", "", "", "sz"], &["y"], vec![astr("mode", "linear")])]),
        case("slice negative step", 13, vec![("x", vec![4, 6])],
            vec![ints_init("st", &[2], &[-1, 5]), ints_init("en", &[2], &[-10, 0]), ints_init("ax", &[2], &[0, 1]), ints_init("sp", &[2], &[-1, -2])],
            vec![node("Slice", &["x", "st", "en", "ax", "sp"], &["y"], vec![])]),
        case("slice step 2, clamped ends", 13, vec![("x", vec![3, 9])],
            vec![ints_init("st", &[1], &[1]), ints_init("en", &[1], &[i64::MAX]), ints_init("ax", &[1], &[-1]), ints_init("sp", &[1], &[2])],
            vec![node("Slice", &["x", "st", "en", "ax", "sp"], &["y"], vec![])]),
        case("pad reflect", 13, vec![("x", vec![1, 2, 4, 4])], vec![ints_init("p", &[8], &[0, 0, 1, 2, 0, 0, 2, 1])],
            vec![node("Pad", &["x", "p"], &["y"], vec![astr("mode", "reflect")])]),
        case("pad negative and constant", 13, vec![("x", vec![3, 5])], vec![ints_init("p", &[4], &[1, -1, -1, 2]), floats_init("v", &[], &[0.5])],
            vec![node("Pad", &["x", "p", "v"], &["y"], vec![])]),
        case("gather negative indices", 13, vec![("x", vec![3, 5, 2])], vec![ints_init("i", &[2, 2], &[-1, 0, 4, -5])],
            vec![node("Gather", &["x", "i"], &["y"], vec![ai("axis", 1)])]),
        case("split sizes", 13, vec![("x", vec![2, 7])], vec![ints_init("s", &[2], &[3, 4])],
            vec![node("Split", &["x", "s"], &["y0", "y1"], vec![ai("axis", 1)]), node("Concat", &["y1", "y0"], &["y"], vec![ai("axis", 1)])]),
        case("reshape from shape arithmetic", 13, vec![("x", vec![2, 3, 4])], vec![ints_init("m1", &[1], &[-1]), ints_init("z", &[1], &[0]), ints_init("o", &[1], &[1])],
            vec![
                node("Shape", &["x"], &["s"], vec![]),
                node("Slice", &["s", "z", "o"], &["lead"], vec![]),
                node("Concat", &["lead", "m1"], &["shape"], vec![ai("axis", 0)]),
                node("Reshape", &["x", "shape"], &["y"], vec![]),
            ]),
        case("flatten, unsqueeze, squeeze", 13, vec![("x", vec![2, 3, 4])], vec![ints_init("a", &[1], &[1])],
            vec![
                node("Flatten", &["x"], &["f"], vec![ai("axis", 2)]),
                node("Unsqueeze", &["f", "a"], &["u"], vec![]),
                node("Squeeze", &["u", "a"], &["y"], vec![]),
            ]),
        case("transpose default", 13, vec![("x", vec![2, 3, 4])], vec![], vec![node("Transpose", &["x"], &["y"], vec![])]),
        case("expand bidirectional", 13, vec![("x", vec![3, 1])], vec![ints_init("s", &[3], &[2, 1, 4])], vec![node("Expand", &["x", "s"], &["y"], vec![])]),
        case("tile", 13, vec![("x", vec![2, 3])], vec![ints_init("r", &[2], &[2, 3])], vec![node("Tile", &["x", "r"], &["y"], vec![])]),
        case("clip min only", 13, vec![("x", vec![10])], vec![floats_init("lo", &[], &[-0.5])], vec![node("Clip", &["x", "lo"], &["y"], vec![])]),
        case("clip opset 10 attributes", 10, vec![("x", vec![10])], vec![], vec![node("Clip", &["x"], &["y"], vec![af("min", -1.0), af("max", 0.5)])]),
        case("lrn", 13, vec![("x", vec![1, 5, 3, 3])], vec![],
            vec![node("LRN", &["x"], &["y"], vec![ai("size", 3), af("alpha", 0.1), af("beta", 0.75), af("bias", 2.0)])]),
        case("activations", 20, vec![("x", vec![2, 8])], vec![],
            vec![
                node("Elu", &["x"], &["a"], vec![af("alpha", 0.7)]),
                node("Selu", &["a"], &["b"], vec![]),
                node("LeakyRelu", &["b"], &["c"], vec![af("alpha", 0.2)]),
                node("HardSigmoid", &["c"], &["d"], vec![af("alpha", 0.3)]),
                node("HardSwish", &["d"], &["e"], vec![]),
                node("Softplus", &["e"], &["f"], vec![]),
                node("Gelu", &["f"], &["g"], vec![astr("approximate", "tanh")]),
                node("Erf", &["g"], &["y"], vec![]),
            ]),
        case("reductions", 18, vec![("x", vec![2, 3, 4])], vec![ints_init("ax", &[2], &[0, -1])],
            vec![
                node("ReduceMean", &["x", "ax"], &["m"], vec![ai("keepdims", 0)]),
                node("ReduceL2", &["x", "ax"], &["l"], vec![ai("keepdims", 0)]),
                node("ReduceLogSumExp", &["x"], &["e"], vec![ai("keepdims", 1)]),
                node("Add", &["m", "l"], &["s"], vec![]),
                node("Mul", &["s", "e"], &["y"], vec![]),
            ]),
        case("reduceSum opset 13 axes input, reduceMax opset 13 axes attribute", 13, vec![("x", vec![2, 3, 4])], vec![ints_init("ax", &[1], &[1])],
            vec![node("ReduceSum", &["x", "ax"], &["s"], vec![]), node("ReduceMax", &["s"], &["y"], vec![aints("axes", &[2]), ai("keepdims", 0)])]),
        case("argMax", 13, vec![("x", vec![3, 5])], vec![], vec![node("ArgMax", &["x"], &["y"], vec![ai("axis", 1), ai("keepdims", 0)])]),
        case("TopK k = 1, the largest", 13, vec![("x", vec![3, 5])], vec![ints_init("k", &[1], &[1])],
            vec![node("TopK", &["x", "k"], &["values", "indices"], vec![ai("axis", 1)])]).with_outputs(&["values", "indices"]),
        case("TopK k = 1, the smallest along axis 0", 13, vec![("x", vec![3, 5])], vec![ints_init("k", &[1], &[1])],
            vec![node("TopK", &["x", "k"], &["values", "indices"], vec![ai("axis", 0), ai("largest", 0)])]).with_outputs(&["values", "indices"]),
        case("where greater", 13, vec![("x", vec![2, 4]), ("z", vec![4])], vec![],
            vec![node("Greater", &["x", "z"], &["c"], vec![]), node("Where", &["c", "x", "z"], &["y"], vec![])]),
        case("cast truncates toward zero", 13, vec![("x", vec![12])], vec![floats_init("k", &[], &[3.0])],
            vec![node("Mul", &["x", "k"], &["s"], vec![]), node("Cast", &["s"], &["y"], vec![ai("to", tensor_proto::DataType::Int32 as i64)])]),
        case("cast to bool", 13, vec![("x", vec![6])], vec![], vec![node("Floor", &["x"], &["f"], vec![]), node("Cast", &["f"], &["b"], vec![ai("to", tensor_proto::DataType::Bool as i64)]),
                node("Cast", &["b"], &["y"], vec![ai("to", F as i64)])]),
        case("quantize, dequantize per axis", 13, vec![("x", vec![1, 3, 2, 2])],
            vec![floats_init("s", &[3], &[0.02, 0.05, 0.1]), typed_init("z", tensor_proto::DataType::Uint8 as i32, &[3], &[128, 100, 3])],
            vec![node("QuantizeLinear", &["x", "s", "z"], &["q"], vec![]), node("DequantizeLinear", &["q", "s", "z"], &["y"], vec![])]),
        case("prelu, variadic max, mean, sum", 13, vec![("x", vec![1, 3, 2, 2]), ("z", vec![1, 3, 2, 2])], vec![w("sl", &[3, 1, 1], 21)],
            vec![
                node("PRelu", &["x", "sl"], &["p"], vec![]),
                node("Max", &["p", "z", "x"], &["m"], vec![]),
                node("Mean", &["m", "z"], &["n"], vec![]),
                node("Sum", &["n", "x", "p"], &["y"], vec![]),
            ]),
        case("isInf negative only, not", 13, vec![("x", vec![6])], vec![floats_init("big", &[], &[1e38])],
            vec![node("Mul", &["x", "big"], &["a"], vec![]), node("Mul", &["a", "big"], &["b"], vec![]), node("IsInf", &["b"], &["i"], vec![ai("detect_positive", 0)]), node("Not", &["i"], &["n"], vec![]), node("Cast", &["n"], &["y"], vec![ai("to", F as i64)])]),
        {
            let mut c = case("lstm bidirectional, bias, initial state, peepholes", 13, vec![("x", vec![4, 2, 3]), ("h0", vec![2, 2, 5])],
                vec![w("W", &[2, 20, 3], 23), w("R", &[2, 20, 5], 24), w("B", &[2, 40], 25), w("c0", &[2, 2, 5], 26), input_forget_peepholes()],
                vec![node("LSTM", &["x", "W", "R", "B", "", "h0", "c0", "P"], &["Y", "Y_h", "Y_c"], vec![ai("hidden_size", 5), astr("direction", "bidirectional")])]);
            c.outputs = vec!["Y", "Y_h", "Y_c"];
            c
        },
        case("lstm forward, last state only", 13, vec![("x", vec![3, 1, 4])], vec![w("W", &[1, 8, 4], 28), w("R", &[1, 8, 2], 29)],
            vec![node("LSTM", &["x", "W", "R"], &["", "y"], vec![ai("hidden_size", 2)])]).with_outputs(&["y"]),
        {
            let mut c = case("gru reverse, linear_before_reset", 13, vec![("x", vec![5, 2, 3])],
                vec![w("W", &[1, 12, 3], 30), w("R", &[1, 12, 4], 31), w("B", &[1, 24], 32)],
                vec![node("GRU", &["x", "W", "R", "B"], &["Y", "Y_h"], vec![ai("hidden_size", 4), astr("direction", "reverse"), ai("linear_before_reset", 1)])]);
            c.outputs = vec!["Y", "Y_h"];
            c
        },
        case("gru reset before the product", 13, vec![("x", vec![2, 1, 3])], vec![w("W", &[1, 9, 3], 33), w("R", &[1, 9, 3], 34), w("B", &[1, 18], 35)],
            vec![node("GRU", &["x", "W", "R", "B"], &["Y"], vec![ai("hidden_size", 3)])]),
        case("gatherElements", 13, vec![("x", vec![3, 4])], vec![ints_init("i", &[2, 4], &[0, 2, -1, 1, 2, 0, 1, -3])],
            vec![node("GatherElements", &["x", "i"], &["y"], vec![ai("axis", 0)])]),
        case("gatherND", 13, vec![("x", vec![2, 3, 4])], vec![ints_init("i", &[2, 2], &[1, 2, 0, 1])], vec![node("GatherND", &["x", "i"], &["y"], vec![])]),
        case("scatterElements", 13, vec![("x", vec![3, 3]), ("u", vec![2, 3])], vec![ints_init("i", &[2, 3], &[1, 0, 2, 0, 2, 1])],
            vec![node("ScatterElements", &["x", "i", "u"], &["y"], vec![ai("axis", 0)])]),
        case("scatterND", 13, vec![("x", vec![4, 3]), ("u", vec![2, 3])], vec![ints_init("i", &[2, 1], &[3, 1])], vec![node("ScatterND", &["x", "i", "u"], &["y"], vec![])]),
        case("cumSum exclusive reverse", 13, vec![("x", vec![2, 5])], vec![ints_init("a", &[], &[1])],
            vec![node("CumSum", &["x", "a"], &["y"], vec![ai("exclusive", 1), ai("reverse", 1)])]),
        case("trilu lower k=1", 14, vec![("x", vec![2, 4, 5])], vec![ints_init("k", &[], &[1])], vec![node("Trilu", &["x", "k"], &["y"], vec![ai("upper", 0)])]),
        case("depthToSpace DCR", 13, vec![("x", vec![1, 8, 2, 3])], vec![], vec![node("DepthToSpace", &["x"], &["y"], vec![ai("blocksize", 2)])]),
        case("depthToSpace CRD", 13, vec![("x", vec![1, 8, 2, 3])], vec![], vec![node("DepthToSpace", &["x"], &["y"], vec![ai("blocksize", 2), astr("mode", "CRD")])]),
        case("spaceToDepth", 13, vec![("x", vec![1, 2, 4, 6])], vec![], vec![node("SpaceToDepth", &["x"], &["y"], vec![ai("blocksize", 2)])]),
        case("mish, celu, thresholdedRelu", 18, vec![("x", vec![12])], vec![],
            vec![node("Mish", &["x"], &["a"], vec![]), node("Celu", &["a"], &["b"], vec![af("alpha", 0.5)]), node("ThresholdedRelu", &["b"], &["y"], vec![af("alpha", 0.1)])]),
        {
            // The branch taken depends on a size known at import.
            let then_g = GraphProto { name: Some("then".into()), node: vec![node("Relu", &["x"], &["t"], vec![])], output: vec![ValueInfoProto { name: Some("t".into()), ..Default::default() }], ..Default::default() };
            let else_g = GraphProto { name: Some("else".into()), node: vec![node("Neg", &["x"], &["e"], vec![])], output: vec![ValueInfoProto { name: Some("e".into()), ..Default::default() }], ..Default::default() };
            let graph_attr = |name: &str, g: GraphProto| AttributeProto { name: Some(name.into()), r#type: Some(AttributeType::Graph as i32), g: Some(g), ..Default::default() };
            case("if on a shape", 13, vec![("x", vec![3, 4])], vec![ints_init("four", &[], &[4])],
                vec![
                    node("Size", &["x"], &["n"], vec![]),
                    node("Greater", &["n", "four"], &["c"], vec![]),
                    node("If", &["c"], &["y"], vec![graph_attr("then_branch", then_g), graph_attr("else_branch", else_g)]),
                ])
        },
        // ONNX Runtime's contrib operators of LLM exports (import/contrib.rs).
        case("SimplifiedLayerNormalization (RMSNorm)", 17, vec![("x", vec![2, 3, 8])], vec![floats_init("w", &[8], &spread(8, 40))],
            vec![node("SimplifiedLayerNormalization", &["x", "w"], &["y"], vec![af("epsilon", 1e-5), ai("axis", -1)])]),
        case("SkipSimplifiedLayerNormalization, the sum output", 17, vec![("x", vec![2, 3, 8]), ("skip", vec![2, 3, 8])],
            vec![floats_init("w", &[8], &spread(8, 41)), floats_init("bias", &[8], &spread(8, 42))],
            vec![ms("SkipSimplifiedLayerNormalization", &["x", "skip", "w", "bias"], &["y", "", "", "sum"], vec![af("epsilon", 1e-6)])])
            .with_outputs(&["y", "sum"]),
        case("MatMulNBits 4-bit, zero points, bias, 3-D input", 17, vec![("a", vec![2, 3, 64])],
            vec![
                typed_init("b", U8, &[6, 2, 16], &bytes(6 * 2 * 16, 43)),
                floats_init("scales", &[12], &scales(12, 44)),
                typed_init("zp", U8, &[6], &bytes(6, 45)),
                floats_init("bias", &[6], &spread(6, 46)),
            ],
            vec![ms("MatMulNBits", &["a", "b", "scales", "zp", "", "bias"], &["y"], vec![ai("K", 64), ai("N", 6), ai("bits", 4), ai("block_size", 32)])]),
        case("MatMulNBits 4-bit, an odd number of blocks per row", 17, vec![("a", vec![5, 48])],
            vec![
                typed_init("b", U8, &[7, 3, 8], &bytes(7 * 3 * 8, 47)),
                floats_init("scales", &[21], &scales(21, 48)),
                typed_init("zp", U8, &[14], &bytes(14, 49)),
            ],
            vec![ms("MatMulNBits", &["a", "b", "scales", "zp"], &["y"], vec![ai("K", 48), ai("N", 7), ai("bits", 4), ai("block_size", 16)])]),
        case("MatMulNBits 4-bit, default zero points", 17, vec![("a", vec![1, 32])],
            vec![typed_init("b", U8, &[4, 1, 16], &bytes(64, 50)), floats_init("scales", &[4], &scales(4, 51))],
            vec![ms("MatMulNBits", &["a", "b", "scales"], &["y"], vec![ai("K", 32), ai("N", 4), ai("bits", 4), ai("block_size", 32)])]),
        case("MatMulNBits 8-bit", 17, vec![("a", vec![3, 32])],
            vec![
                typed_init("b", U8, &[5, 2, 16], &bytes(160, 52)),
                floats_init("scales", &[10], &scales(10, 53)),
                typed_init("zp", U8, &[10], &bytes(10, 54)),
            ],
            vec![ms("MatMulNBits", &["a", "b", "scales", "zp"], &["y"], vec![ai("K", 32), ai("N", 5), ai("bits", 8), ai("block_size", 16)])]),
        case("MatMulNBits 4-bit, float zero points (a block minimum)", 17, vec![("a", vec![3, 64])],
            vec![
                typed_init("b", U8, &[5, 2, 16], &bytes(160, 71)),
                floats_init("scales", &[10], &scales(10, 72)),
                floats_init("zp", &[10], &spread(10, 73).iter().map(|x| 4.0 * x).collect::<Vec<f32>>()),
            ],
            vec![ms("MatMulNBits", &["a", "b", "scales", "zp"], &["y"], vec![ai("K", 64), ai("N", 5), ai("bits", 4), ai("block_size", 32)])]),
        case("GatherBlockQuantized 4-bit, zero points, [2, 3] indices", 17, vec![("x", vec![2, 3, 64])],
            vec![
                typed_init("data", U8, &[6, 32], &bytes(192, 74)),
                ints_init("ids", &[2, 3], &[5, 0, 2, 2, 1, 4]),
                floats_init("scales", &[6, 2], &scales(12, 75)),
                typed_init("zp", U8, &[6, 1], &bytes(6, 76)),
            ],
            vec![
                ms("GatherBlockQuantized", &["data", "ids", "scales", "zp"], &["rows"], vec![ai("bits", 4), ai("block_size", 32)]),
                node("Add", &["rows", "x"], &["y"], vec![]),
            ]),
        case("GatherBlockQuantized 8-bit, default zero points", 17, vec![("x", vec![2, 32])],
            vec![typed_init("data", U8, &[4, 32], &bytes(128, 77)), ints_init("ids", &[2], &[3, 1]), floats_init("scales", &[4, 2], &scales(8, 78))],
            vec![
                ms("GatherBlockQuantized", &["data", "ids", "scales"], &["rows"], vec![ai("bits", 8), ai("block_size", 16)]),
                node("Add", &["rows", "x"], &["y"], vec![]),
            ]),
        case("RotaryEmbedding interleaved, [B, S, hidden], position ids", 17, vec![("x", vec![1, 4, 16])],
            vec![ints_init("pos", &[1, 4], &[3, 1, 0, 2]), floats_init("cos", &[8, 4], &spread(32, 55)), floats_init("sin", &[8, 4], &spread(32, 56))],
            vec![ms("RotaryEmbedding", &["x", "pos", "cos", "sin"], &["y"], vec![ai("interleaved", 1)])]),
        case("RotaryEmbedding on halves, [B, heads, S, D], a position offset", 17, vec![("x", vec![2, 2, 3, 8])],
            vec![ints_init("pos", &[1], &[2]), floats_init("cos", &[8, 4], &spread(32, 57)), floats_init("sin", &[8, 4], &spread(32, 58))],
            vec![ms("RotaryEmbedding", &["x", "pos", "cos", "sin"], &["y"], vec![ai("interleaved", 0)])]),
        // GroupQueryAttention: the past as ONNX Runtime reads it (BNSH), seqlens_k the
        // sequences' lengths less one, total_sequence_length the longest.
        case("GroupQueryAttention decode step, the cache grows, rotary on halves", 17,
            vec![("q", vec![1, 1, 64]), ("k", vec![1, 1, 32]), ("v", vec![1, 1, 32]), ("past_k", vec![1, 2, 5, 16]), ("past_v", vec![1, 2, 5, 16])],
            vec![typed_init("seqlens", I32, &[1], &[5]), typed_init("total", I32, &[], &[6]), floats_init("cos", &[8, 8], &spread(64, 61)), floats_init("sin", &[8, 8], &spread(64, 62))],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total", "cos", "sin"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 4), ai("kv_num_heads", 2), ai("do_rotary", 1)])])
            .with_outputs(&["y", "present_k", "present_v"]),
        case("GroupQueryAttention first prompt, packed QKV, interleaved rotary, batch 2", 17,
            vec![("qkv", vec![2, 3, 64])],
            vec![typed_init("seqlens", I32, &[2], &[2, 2]), typed_init("total", I32, &[], &[3]), floats_init("cos", &[4, 8], &spread(32, 63)), floats_init("sin", &[4, 8], &spread(32, 64))],
            vec![ms("GroupQueryAttention", &["qkv", "", "", "", "", "seqlens", "total", "cos", "sin"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 2), ai("kv_num_heads", 1), ai("do_rotary", 1), ai("rotary_interleaved", 1)])])
            .with_outputs(&["y", "present_k", "present_v"]),
        // The shared-buffer form: the cache is longer than the total, its rows past the
        // sequence zero (ONNX Runtime zeroes them in a separate present).
        case("GroupQueryAttention in a cache of 6 rows, a local window, softcap", 17,
            vec![("q", vec![1, 1, 16]), ("k", vec![1, 1, 16]), ("v", vec![1, 1, 16])],
            vec![
                floats_init("past_k", &[1, 2, 6, 8], &first_rows(&spread(96, 65), 2, 6, 8, 3)),
                floats_init("past_v", &[1, 2, 6, 8], &first_rows(&spread(96, 66), 2, 6, 8, 3)),
                typed_init("seqlens", I32, &[1], &[3]),
                typed_init("total", I32, &[], &[4]),
            ],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 2), ai("kv_num_heads", 2), ai("local_window_size", 2), af("softcap", 5.0), af("scale", 0.3)])])
            .with_outputs(&["y", "present_k", "present_v"]),
        // The same in the form the fused attention takes (no softcap): its kernel reads the
        // head-major cache up to the last row the mask shows (4 of 8).
        case("GroupQueryAttention in a cache of 8 rows, a local window, fused", 17,
            vec![("q", vec![1, 1, 32]), ("k", vec![1, 1, 16]), ("v", vec![1, 1, 16])],
            vec![
                floats_init("past_k", &[1, 2, 8, 8], &first_rows(&spread(128, 67), 2, 8, 8, 3)),
                floats_init("past_v", &[1, 2, 8, 8], &first_rows(&spread(128, 68), 2, 8, 8, 3)),
                typed_init("seqlens", I32, &[1], &[3]),
                typed_init("total", I32, &[], &[4]),
            ],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 4), ai("kv_num_heads", 2), ai("local_window_size", 3)])])
            .with_outputs(&["y", "present_k", "present_v"]),
        // The shared-buffer form with the caches as inputs: each written in place (a cache
        // write at [0, head, 5]) and read by the fused attention from the bound bytes.
        case("GroupQueryAttention, the caches written in place", 17,
            vec![("q", vec![1, 1, 32]), ("k", vec![1, 1, 16]), ("v", vec![1, 1, 16]), ("past_k", vec![1, 2, 6, 8]), ("past_v", vec![1, 2, 6, 8])],
            vec![typed_init("seqlens", I32, &[1], &[5]), typed_init("total", I32, &[], &[6])],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 4), ai("kv_num_heads", 2)])])
            .with_outputs(&["y", "present_k", "present_v"]),
        // Only the key cache an output (an in-place pair): its write cannot lend the attention
        // both caches' bytes, so it fills its slot and the attention reads values.
        case("GroupQueryAttention, only the key cache written in place", 17,
            vec![("q", vec![1, 1, 32]), ("k", vec![1, 1, 16]), ("v", vec![1, 1, 16]), ("past_k", vec![1, 2, 6, 8]), ("past_v", vec![1, 2, 6, 8])],
            vec![typed_init("seqlens", I32, &[1], &[5]), typed_init("total", I32, &[], &[6])],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 4), ai("kv_num_heads", 2)])])
            .with_outputs(&["y", "present_k"]),
        // An additive bias on the scores (after softcap, as ONNX Runtime adds it), and a sink
        // logit of 0 in each row's softmax.
        case("GroupQueryAttention with attention_bias, softcap and smooth_softmax", 17,
            vec![("q", vec![1, 1, 32]), ("k", vec![1, 1, 16]), ("v", vec![1, 1, 16]), ("past_k", vec![1, 2, 4, 8]), ("past_v", vec![1, 2, 4, 8])],
            vec![typed_init("seqlens", I32, &[1], &[4]), typed_init("total", I32, &[], &[5]), floats_init("bias", &[1, 4, 1, 5], &spread(20, 69))],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total", "", "", "", "bias"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 4), ai("kv_num_heads", 2), ai("smooth_softmax", 1), af("softcap", 2.0)])])
            .with_outputs(&["y", "present_k", "present_v"]),
        // A learned sink logit per query head (gpt-oss), over a batch of two lengths.
        case("GroupQueryAttention with head_sink, batch 2", 17,
            vec![("q", vec![2, 1, 32]), ("k", vec![2, 1, 16]), ("v", vec![2, 1, 16]), ("past_k", vec![2, 2, 4, 8]), ("past_v", vec![2, 2, 4, 8])],
            vec![typed_init("seqlens", I32, &[2], &[4, 2]), typed_init("total", I32, &[], &[5]), floats_init("sink", &[4], &spread(4, 70))],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total", "", "", "", "", "sink"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 4), ai("kv_num_heads", 2)])]),
        // Sequences of different lengths in one batch: each attends over its own rows.
        case("GroupQueryAttention decode step, batch 2 of lengths 5 and 3", 17,
            vec![("q", vec![2, 1, 32]), ("k", vec![2, 1, 16]), ("v", vec![2, 1, 16]), ("past_k", vec![2, 2, 4, 8]), ("past_v", vec![2, 2, 4, 8])],
            vec![typed_init("seqlens", I32, &[2], &[4, 2]), typed_init("total", I32, &[], &[5])],
            vec![ms("GroupQueryAttention", &["q", "k", "v", "past_k", "past_v", "seqlens", "total"], &["y", "present_k", "present_v"],
                vec![ai("num_heads", 4), ai("kv_num_heads", 2)])]),
    ]
}

/// `v` `[heads, rows, d]` with the rows from `kept` on zero.
fn first_rows(v: &[f32], heads: usize, rows: usize, d: usize, kept: usize) -> Vec<f32> {
    let mut v = v.to_vec();
    for h in 0..heads {
        v[(h * rows + kept) * d..(h + 1) * rows * d].fill(0.0);
    }
    v
}

#[test]
fn single_op_models_match_onnx_runtime() {
    let mut failures = Vec::new();
    for c in cases() {
        match check(&c) {
            Ok(d) if d <= 2e-5 => println!("{:48} max |diff| {d:.1e}", c.name),
            Ok(d) => failures.push(format!("{}: differs from ONNX Runtime by {d}", c.name)),
            Err(e) => failures.push(format!("{}: {e}", c.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// GroupQueryAttention's imports on wgpu (Mesa's lavapipe), against the fast cpu: a batch of
/// one through the fused attention kernels over head-major caches, batches as primitives.
#[test]
fn group_query_attention_on_wgpu_matches_the_fast_cpu() {
    let wgpu = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    for c in cases().iter().filter(|c| c.name.starts_with("GroupQueryAttention")) {
        let g = onnx::import_model(&model(c), &ImportOptions::default()).unwrap().graph;
        let feeds = feeds(&g, 31);
        let refs: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let fast = webnn::FastBackend::new(1).compile(&g).unwrap().dispatch(&refs).unwrap();
        let gpu = wgpu.compile(&g).unwrap().dispatch(&refs).unwrap();
        for ((name, a), (_, b)) in fast.iter().zip(&gpu) {
            let f = |t: &HostTensor| -> Vec<f32> { t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect() };
            let d = f(a).iter().zip(&f(b)).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
            println!("{:64} {name}: max |fast - wgpu| {d:.1e}", c.name);
            assert!(d <= 1e-5, "{}: output {name} differs between the fast cpu and wgpu by {d}", c.name);
        }
    }
}

/// The contrib operators import as the patterns the fused kernels match (so an ONNX Runtime
/// GenAI-style export runs the same kernels as a graph built op by op).
#[test]
fn contrib_operators_import_as_the_fused_patterns() {
    let all = cases();
    let graph = |name: &str| {
        let c = all.iter().find(|c| c.name.starts_with(name)).unwrap_or_else(|| panic!("no case {name}"));
        onnx::import_model(&model(c), &ImportOptions::default()).unwrap().graph
    };
    use webnn_core::fusion::{attentions, quantized_linears, rms_norms, ropes};
    assert_eq!(rms_norms(&graph("SimplifiedLayerNormalization")).len(), 1);
    assert_eq!(rms_norms(&graph("SkipSimplifiedLayerNormalization")).len(), 1);
    assert_eq!(quantized_linears(&graph("MatMulNBits 4-bit, zero points")).len(), 1);
    assert_eq!(quantized_linears(&graph("MatMulNBits 8-bit")).len(), 1);
    let offset = quantized_linears(&graph("MatMulNBits 4-bit, float zero points"));
    assert!(offset.len() == 1 && offset[0].offset.is_some(), "{offset:?}");
    assert_eq!(ropes(&graph("RotaryEmbedding interleaved")).len(), 1);
    // A batch of one in the fused attention's form; batches and softcap stay primitives.
    assert_eq!(attentions(&graph("GroupQueryAttention in a cache of 8 rows")).len(), 1);
    assert_eq!(attentions(&graph("GroupQueryAttention decode step, the cache grows")).len(), 1);
    assert!(attentions(&graph("GroupQueryAttention decode step, batch 2")).is_empty());
    let in_place = graph("GroupQueryAttention, the caches written in place");
    assert_eq!((attentions(&in_place).len(), in_place.in_place_pairs().len()), (1, 2));
}

#[test]
fn errors_name_the_node_its_op_and_opset() {
    let unknown = case("unknown op", 13, vec![("x", vec![2])], vec![], vec![node("NonZero", &["x"], &["y"], vec![])]);
    let e = onnx::import_model(&model(&unknown), &ImportOptions::default()).unwrap_err();
    assert_eq!(e.kind, webnn::ErrorKind::NotSupportedError);
    assert!(e.to_string().contains("ONNX node 'NonZero_y' (NonZero, opset 13): the op type NonZero has no WebNN lowering"), "{e}");

    let runtime_shape = case("runtime shape", 13, vec![("x", vec![2, 3]), ("s", vec![2])], vec![],
        vec![node("Cast", &["s"], &["si"], vec![ai("to", I64 as i64)]), node("Reshape", &["x", "si"], &["y"], vec![])]);
    let e = onnx::import_model(&model(&runtime_shape), &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("(Reshape, opset 13): the shape (input 1) is computed at run time"), "{e}");

    let bad_resize = case("cubic", 13, vec![("x", vec![1, 1, 2, 2])], vec![floats_init("sc", &[4], &[1.0, 1.0, 2.0, 2.0])],
        vec![node("Resize", &["x", "", "sc"], &["y"], vec![astr("mode", "cubic")])]);
    let e = onnx::import_model(&model(&bad_resize), &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("mode 'cubic'"), "{e}");

    // A WebNN validation failure keeps the builder's TypeError, prefixed with the node.
    let mismatch = case("mismatch", 13, vec![("a", vec![2, 3]), ("b", vec![4, 5])], vec![], vec![node("MatMul", &["a", "b"], &["y"], vec![])]);
    let e = onnx::import_model(&model(&mismatch), &ImportOptions::default()).unwrap_err();
    assert_eq!(e.kind, webnn::ErrorKind::TypeError);
    assert!(e.to_string().contains("ONNX node 'MatMul_y' (MatMul, opset 13)"), "{e}");

    let peep = case("peephole", 13, vec![("x", vec![2, 1, 3])], vec![floats_init("W", &[1, 8, 3], &spread(24, 1)), floats_init("R", &[1, 8, 2], &spread(16, 2)), floats_init("P", &[1, 6], &[0.1; 6])],
        vec![node("LSTM", &["x", "W", "R", "", "", "", "", "P"], &["y"], vec![ai("hidden_size", 2)])]);
    let e = onnx::import_model(&model(&peep), &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("output-gate peephole"), "{e}");

    // Contrib operators not imported, and attributes the decompositions do not express.
    let gqa = case("gqa", 17, vec![("q", vec![1, 1, 16])], vec![typed_init("seqlens", I32, &[1], &[0])],
        vec![ms("GroupQueryAttention", &["q", "", "", "", "", "seqlens"], &["y"], vec![ai("num_heads", 1), ai("kv_num_heads", 1), ai("qk_output", 1)])]);
    let e = onnx::import_model(&model(&gqa), &ImportOptions::default()).unwrap_err();
    assert_eq!(e.kind, webnn::ErrorKind::NotSupportedError);
    assert!(e.to_string().contains("(com.microsoft.GroupQueryAttention, opset 17): qk_output (the QK output) is not supported"), "{e}");
    let unknown_contrib = case("attention", 17, vec![("q", vec![1, 1, 16])], vec![], vec![ms("MultiHeadAttention", &["q"], &["y"], vec![])]);
    let e = onnx::import_model(&model(&unknown_contrib), &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("com.microsoft.MultiHeadAttention is not imported"), "{e}");
    let two_bit = case("2-bit", 17, vec![("a", vec![1, 32])], vec![typed_init("b", U8, &[4, 1, 8], &bytes(32, 1)), floats_init("s", &[4], &scales(4, 2))],
        vec![ms("MatMulNBits", &["a", "b", "s"], &["y"], vec![ai("K", 32), ai("N", 4), ai("bits", 2), ai("block_size", 32)])]);
    let e = onnx::import_model(&model(&two_bit), &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("bits = 2 (4 and 8 are imported) is not supported"), "{e}");

    let top2 = case("top 2", 13, vec![("x", vec![3, 5])], vec![ints_init("k", &[1], &[2])], vec![node("TopK", &["x", "k"], &["v", "i"], vec![])]);
    let e = onnx::import_model(&model(&top2), &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("k = 2 (WebNN has no top-k"), "{e}");

    let old = case("old opset", 5, vec![("x", vec![2])], vec![], vec![node("Relu", &["x"], &["y"], vec![])]);
    let e = onnx::import_model(&model(&old), &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("opset 5"), "{e}");

    // Bytes that are not a model, and a dim_param nobody sized.
    assert_eq!(onnx::import(b"\xff\xff\xff", &ImportOptions::default()).unwrap_err().kind, webnn::ErrorKind::DataError);
    let mut named = model(&case("named dim", 13, vec![("x", vec![2])], vec![], vec![node("Relu", &["x"], &["y"], vec![])]));
    let vi = &mut named.graph.as_mut().unwrap().input[0];
    if let Some(type_proto::Value::TensorType(t)) = vi.r#type.as_mut().and_then(|t| t.value.as_mut()) {
        t.shape.as_mut().unwrap().dim[0].value = Some(dimension::Value::DimParam("batch".into()));
    }
    let e = onnx::import_model(&named, &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("dim_param 'batch'"), "{e}");
    let bounded = onnx::import_model(&named, &ImportOptions::default().with_dims("batch<=8").unwrap()).unwrap();
    assert!(bounded.graph.is_dynamic());
    let fixed = onnx::import_model(&named, &ImportOptions::default().with_dims("batch=3").unwrap()).unwrap();
    assert_eq!(fixed.graph.input_desc("x").unwrap(), &OperandDescriptor::new(DataType::Float32, &[3]));
}

/// MobileNetV2 (random weights) exported by this project, imported again: the same graph
/// up to float rounding, on the fast backend.
#[test]
fn exported_mobilenet_imports_back() {
    let original = webnn_models::mobilenet_v2(3).unwrap();
    let bytes = webnn_onnx::convert(&original).unwrap().to_self_contained_bytes();
    let imported = onnx::import(&bytes, &ImportOptions::default()).unwrap().graph;
    let image = webnn_models::sample_image(5);
    let fast = webnn::FastBackend::new(1);
    let a = fast.compile(&original).unwrap().dispatch(&[("input", &image)]).unwrap();
    let input_name = imported.inputs[0].0.clone();
    let b = fast.compile(&imported).unwrap().dispatch(&[(input_name.as_str(), &image)]).unwrap();
    let f = |t: &HostTensor| t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
    let (x, y) = (f(&a[0].1), f(&b[0].1));
    let d = x.iter().zip(&y).map(|(p, q)| (p - q).abs()).fold(0.0, f32::max);
    println!("MobileNetV2 round trip: {} WebNN ops -> ONNX -> {} WebNN ops, max |diff| {d:.1e}", original.nodes.len(), imported.nodes.len());
    assert!(d < 1e-4, "{d}");
}

/// Untrusted files: every case's model with a few bytes changed (seeded), imported. Each
/// import succeeds or fails with an error; none panics, hangs or takes unbounded memory.
#[test]
fn corrupted_models_fail_cleanly() {
    use prost::Message;
    let mut seed = 0x9e37_79b9u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let (mut ok, mut failed) = (0, 0);
    for c in cases() {
        let bytes = model(&c).encode_to_vec();
        for _ in 0..60 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let at = next() as usize % b.len();
                b[at] = next() as u8;
            }
            let result = std::panic::catch_unwind(|| onnx::import(&b, &ImportOptions::default()).map(|_| ()));
            match result {
                Ok(Ok(())) => ok += 1,
                Ok(Err(_)) => failed += 1,
                Err(_) => panic!("{}: importing a corrupted model panicked: {b:?}", c.name),
            }
        }
    }
    println!("corrupted models: {ok} imported, {failed} refused, none panicked");
    assert!(failed > 0 && ok > 0);
}
