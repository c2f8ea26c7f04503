//! The shape of converted programs: the model and its description, the weight file, the
//! package on disk, the boundary options, and what is refused (with an error, not a panic).

use prost::Message;
use webnn_core::ops::OpOptions;
use webnn_core::{op_support_limits, Backend, DataType, ErrorKind, GraphBuilder, OpKind, OperandDescriptor};
use webnn_coreml::emit::Ty;
use webnn_coreml::proto::specification::{mil_spec::value, model, Model};
use webnn_coreml::{convert, convert_with, CoreMlBackend, Options, OPSET, SPECIFICATION_VERSION};

fn program(m: &Model) -> &webnn_coreml::proto::specification::mil_spec::Program {
    match &m.r#type {
        Some(model::Type::MlProgram(p)) => p,
        other => panic!("not an ML program: {other:?}"),
    }
}

#[test]
fn program_weights_and_package() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[4, 8])).unwrap();
    let big: Vec<u8> = (0..4 * 8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let w = b.constant(OperandDescriptor::new(DataType::Float32, &[4, 8]), big.clone()).unwrap();
    let y = b.add(x, w, OpOptions::default()).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    let m = convert(&g).unwrap();

    let decoded = Model::decode(m.to_bytes().as_slice()).unwrap();
    assert_eq!(decoded, m.model);
    assert_eq!(decoded.specification_version, SPECIFICATION_VERSION);
    let p = program(&decoded);
    let main = &p.functions["main"];
    assert_eq!(main.opset, OPSET);
    let block = &main.block_specializations[OPSET];
    assert_eq!(block.outputs, vec![m.outputs[0].mil_name.clone()]);
    // The 32-element constant lives in the weight file: header, metadata, then its data.
    let blob = block
        .operations
        .iter()
        .filter(|op| op.r#type == "const")
        .find_map(|op| match &op.attributes["val"].value {
            Some(value::Value::BlobFileValue(f)) => Some(f.clone()),
            _ => None,
        })
        .expect("a constant in the weight file");
    assert_eq!(blob.file_name, webnn_coreml::WEIGHT_PATH);
    assert_eq!(blob.offset, 64);
    assert_eq!(&m.weights[128..128 + big.len()], &big[..]);
    let description = decoded.description.unwrap();
    assert_eq!(description.input[0].name, "input_0");
    assert_eq!(description.output[0].name, m.outputs[0].mil_name);

    let dir = std::env::temp_dir().join(format!("webnn-coreml-model-test-{}.mlpackage", std::process::id()));
    m.write_package(&dir).unwrap();
    let data = dir.join("Data/com.apple.CoreML");
    assert_eq!(std::fs::read(data.join("model.mlmodel")).unwrap(), m.to_bytes());
    assert_eq!(std::fs::read(data.join("weights/weight.bin")).unwrap(), m.weights);
    assert!(dir.join("Manifest.json").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn multiarray_io_widens_narrow_integers_and_scalars() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Uint8, &[])).unwrap();
    let y = b.input("y", OperandDescriptor::new(DataType::Uint8, &[])).unwrap();
    let z = b.equal(x, y, OpOptions::default()).unwrap();
    let g = b.build(&[("z", z)]).unwrap();

    let exact = convert(&g).unwrap();
    assert_eq!((exact.inputs[0].ty, exact.inputs[0].shape.clone()), (Ty::U8, vec![1]));
    assert_eq!((exact.outputs[0].ty, exact.outputs[0].shape.clone()), (Ty::U8, vec![]));
    let io = convert_with(&g, &Options { multiarray_io: true, ..Options::default() }).unwrap();
    assert_eq!((io.inputs[0].ty, io.inputs[0].shape.clone()), (Ty::I32, vec![1]));
    assert_eq!((io.outputs[0].ty, io.outputs[0].shape.clone()), (Ty::I32, vec![1]));
}

#[test]
fn float16_computes_float32_in_half_precision() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[16])).unwrap();
    let data: Vec<u8> = (0..16).flat_map(|i| (i as f32 * 0.5).to_le_bytes()).collect();
    let w = b.constant(OperandDescriptor::new(DataType::Float32, &[16]), data).unwrap();
    let y = b.mul(x, w, OpOptions::default()).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    let m = convert_with(&g, &Options { float16: true, ..Options::default() }).unwrap();
    assert_eq!((m.inputs[0].ty, m.outputs[0].ty), (Ty::F32, Ty::F32));
    let halves: Vec<u8> = (0..16).flat_map(|i| half::f16::from_f32(i as f32 * 0.5).to_le_bytes()).collect();
    assert_eq!(&m.weights[128..128 + 32], &halves[..]);
    let block = &program(&m.model).functions["main"].block_specializations[OPSET];
    let kinds: Vec<&str> = block.operations.iter().map(|op| op.r#type.as_str()).collect();
    assert_eq!(kinds, ["cast", "const", "mul", "cast"]);
}

#[test]
fn int64_is_refused_with_not_supported() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Int64, &[3])).unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    let e = convert(&g).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotSupportedError);
    assert!(e.to_string().contains("int64"), "{e}");

    let limits = op_support_limits(&CoreMlBackend.capabilities());
    assert!(!limits.supports(OpKind::Add, "a", DataType::Int64));
    assert!(limits.supports(OpKind::Add, "a", DataType::Float16));
    assert!(!limits.supports(OpKind::QuantizeLinear, "output", DataType::Int4));
    assert!(limits.supports(OpKind::DequantizeLinear, "input", DataType::Int4));
}

#[cfg(not(all(feature = "macos-run", target_os = "macos")))]
#[test]
fn compiling_to_run_needs_macos() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[2])).unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    let e = CoreMlBackend.compile(&g).err().expect("no Core ML here");
    assert_eq!(e.kind, ErrorKind::NotSupportedError);
}
