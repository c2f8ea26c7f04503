//! The shape of converted models: opset, boundary types (int4 packed), external data.

use prost::Message;
use webnn_core::ops::OpOptions;
use webnn_core::{DataType, GraphBuilder, OperandDescriptor};
use webnn_onnx::proto::{tensor_proto, type_proto, ModelProto};
use webnn_onnx::{convert, EXTERNAL_DATA_FILE, EXTERNAL_THRESHOLD, OPSET};

fn elem_type(v: &webnn_onnx::proto::ValueInfoProto) -> i32 {
    match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::TensorType(t)) => t.elem_type.unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn boundary_types_opset_and_external_data() {
    let mut b = GraphBuilder::new();
    let x = b
        .input("x", OperandDescriptor::new(DataType::Float32, &[16, 32]))
        .unwrap();
    let q = b
        .input("q", OperandDescriptor::new(DataType::Int4, &[5]))
        .unwrap();
    let big: Vec<u8> = (0..16 * 32 * 4).map(|i| (i % 251) as u8).collect();
    let w = b
        .constant(
            OperandDescriptor::new(DataType::Float32, &[16, 32]),
            big.clone(),
        )
        .unwrap();
    let small = b
        .constant(OperandDescriptor::new(DataType::Float32, &[2]), vec![0; 8])
        .unwrap();
    let y = b.add(x, w, OpOptions::default()).unwrap();
    let r = b
        .reshape(small, vec![1.into(), 2.into()], OpOptions::default())
        .unwrap();
    let scale = b
        .constant(
            OperandDescriptor::new(DataType::Float32, &[1]),
            0.5f32.to_le_bytes().to_vec(),
        )
        .unwrap();
    let zero = b
        .constant(OperandDescriptor::new(DataType::Int4, &[1]), vec![0])
        .unwrap();
    let f = b
        .dequantize_linear(q, scale, zero, OpOptions::default())
        .unwrap();
    let c = b
        .quantize_linear(f, scale, zero, OpOptions::default())
        .unwrap();
    let g = b.build(&[("y", y), ("r", r), ("c", c)]).unwrap();
    let m = convert(&g).unwrap();

    let decoded = ModelProto::decode(m.to_bytes().as_slice()).unwrap();
    assert_eq!(decoded, m.model);
    assert_eq!(decoded.opset_import[0].version, Some(OPSET));
    let graph = decoded.graph.unwrap();
    let names: Vec<&str> = m.inputs.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["x", "q"]);
    assert_eq!(
        elem_type(&graph.input[0]),
        tensor_proto::DataType::Float as i32
    );
    // int4 crosses the boundary packed, as ONNX INT4.
    assert_eq!(
        elem_type(&graph.input[1]),
        tensor_proto::DataType::Int4 as i32
    );
    assert_eq!(
        elem_type(&graph.output[2]),
        tensor_proto::DataType::Int4 as i32
    );
    let int4_constant = graph
        .initializer
        .iter()
        .find(|t| t.data_type == Some(tensor_proto::DataType::Int4 as i32));
    assert_eq!(
        int4_constant.and_then(|t| t.raw_data.clone()),
        Some(vec![0])
    );

    // The large constant is external, 64-byte aligned; the small one inline.
    let external: Vec<_> = graph
        .initializer
        .iter()
        .filter(|t| !t.external_data.is_empty())
        .collect();
    assert_eq!(external.len(), 1);
    let entry = |k: &str| {
        external[0]
            .external_data
            .iter()
            .find(|e| e.key.as_deref() == Some(k))
            .and_then(|e| e.value.clone())
    };
    assert_eq!(entry("location").as_deref(), Some(EXTERNAL_DATA_FILE));
    let offset: usize = entry("offset").unwrap().parse().unwrap();
    let length: usize = entry("length").unwrap().parse().unwrap();
    assert_eq!(offset % 64, 0);
    assert_eq!(&m.external_data[offset..offset + length], &big[..]);
    assert!(graph.initializer.iter().all(|t| !t.external_data.is_empty()
        || t.raw_data.as_ref().map_or(0, |r| r.len()) < EXTERNAL_THRESHOLD));
}

#[test]
fn dynamic_dimensions_become_dim_params_read_at_run_time() {
    let mut b = GraphBuilder::new();
    let n = || webnn_core::Dim::Dynamic {
        name: "n".into(),
        max_size: 4,
    };
    let x = b
        .input(
            "x",
            OperandDescriptor::with_dims(DataType::Float32, vec![n(), 3.into()]),
        )
        .unwrap();
    let y = b
        .reshape(x, vec![n(), 3.into(), 1.into()], OpOptions::default())
        .unwrap();
    let m = convert(&b.build(&[("y", y)]).unwrap()).unwrap();
    let graph = m.model.graph.unwrap();
    let dims = |v: &webnn_onnx::proto::ValueInfoProto| match v
        .r#type
        .as_ref()
        .and_then(|t| t.value.as_ref())
    {
        Some(type_proto::Value::TensorType(t)) => t.shape.clone().unwrap().dim,
        _ => vec![],
    };
    use webnn_onnx::proto::tensor_shape_proto::dimension::Value;
    let first = |v| dims(v)[0].value.clone();
    assert_eq!(first(&graph.input[0]), Some(Value::DimParam("n".into())));
    assert_eq!(first(&graph.output[0]), Some(Value::DimParam("n".into())));
    // The reshape's target reads n from the input's shape.
    let shape = graph
        .node
        .iter()
        .find(|n| n.op_type.as_deref() == Some("Shape"))
        .expect("a Shape node");
    assert_eq!(shape.input, ["input_0"]);
}
