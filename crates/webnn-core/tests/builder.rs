//! The builder's own rules: inputs, constants, operand ownership, build(), and limits.

use webnn_core::ops::{MLNumber, OpOptions};
use webnn_core::{
    op_support_limits, Capabilities, DataType, DataTypeSet, Dim, ErrorKind, GraphBuilder, OpKind,
    OperandDescriptor, Source,
};

fn f32_desc(shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(DataType::Float32, shape)
}

fn labelled(label: &str) -> OpOptions {
    OpOptions { label: label.into() }
}

#[test]
fn input_rules() {
    let mut b = GraphBuilder::new();
    assert_eq!(b.input("", f32_desc(&[2])).unwrap_err().kind, ErrorKind::TypeError);
    b.input("x", f32_desc(&[2])).unwrap();
    let dup = b.input("x", f32_desc(&[2])).unwrap_err();
    assert_eq!(dup.kind, ErrorKind::TypeError);
    assert!(dup.to_string().contains("[x]"), "{dup}");
    assert_eq!(b.input("zero", f32_desc(&[3, 0])).unwrap_err().kind, ErrorKind::TypeError);
    let huge = b.input("huge", f32_desc(&[u32::MAX, u32::MAX, u32::MAX])).unwrap_err();
    assert_eq!(huge.kind, ErrorKind::TypeError);
    let too_deep = b.input("deep", f32_desc(&[1; 9])).unwrap_err();
    assert_eq!(too_deep.kind, ErrorKind::TypeError);
}

#[test]
fn constant_byte_length_must_match() {
    let mut b = GraphBuilder::new();
    assert!(b.constant(f32_desc(&[2, 3]), vec![0; 24]).is_ok());
    assert_eq!(b.constant(f32_desc(&[2, 3]), vec![0; 20]).unwrap_err().kind, ErrorKind::TypeError);
    // int4 packs two elements per byte, rounding up.
    assert!(b.constant(OperandDescriptor::new(DataType::Int4, &[3]), vec![0; 2]).is_ok());
    let s = b.constant_scalar(DataType::Float16, MLNumber::Double(1.0)).unwrap();
    assert_eq!(b.desc(s).unwrap().rank(), 0);
    assert_eq!(b.graph().constant_data(s), Some(&[0x00, 0x3c][..]));
}

#[test]
fn operands_of_another_builder_are_rejected() {
    let mut a = GraphBuilder::new();
    let mut b = GraphBuilder::new();
    let xa = a.input("x", f32_desc(&[2])).unwrap();
    let xb = b.input("x", f32_desc(&[2])).unwrap();
    let err = b.add(xa, xb, labelled("mix")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError);
    assert!(err.to_string().contains("[mix]"), "{err}");
}

#[test]
fn build_rules_and_pruning() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", f32_desc(&[2])).unwrap();
    let unused = b.input("unused", f32_desc(&[2])).unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    let _dead = b.neg(unused, OpOptions::default()).unwrap();
    assert_eq!(b.build(&[]).unwrap_err().kind, ErrorKind::TypeError);
    assert_eq!(b.build(&[("x", x)]).unwrap_err().kind, ErrorKind::TypeError);
    assert_eq!(b.build(&[("y", y), ("y", y)]).unwrap_err().kind, ErrorKind::TypeError);
    let g = b.build(&[("y", y)]).unwrap();
    assert_eq!(g.nodes.len(), 1);
    assert_eq!(g.inputs.len(), 1);
    assert_eq!(g.operands.len(), 2);
    assert!(matches!(g.info(g.outputs[0].1).source, Source::Node { node: 0, index: 0 }));
    // A builder builds once.
    let again = b.relu(x, OpOptions::default()).unwrap_err();
    assert_eq!(again.kind, ErrorKind::InvalidStateError);
    assert_eq!(b.build(&[("y", y)]).unwrap_err().kind, ErrorKind::InvalidStateError);
}

#[test]
fn dynamic_dimensions_flow_through_elementwise_ops() {
    let mut b = GraphBuilder::new();
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 128 };
    let x = b.input("x", OperandDescriptor::with_dims(DataType::Float32, vec![seq.clone(), Dim::Static(4)])).unwrap();
    let bias = b.input("bias", f32_desc(&[4])).unwrap();
    let y = b.add(x, bias, OpOptions::default()).unwrap();
    assert_eq!(b.desc(y).unwrap().shape, vec![seq, Dim::Static(4)]);
    assert_eq!(b.desc(y).unwrap().max_shape(), vec![128, 4]);
}

#[test]
fn op_support_limits_follow_table_and_capabilities() {
    let all = op_support_limits(&Capabilities::default());
    assert_eq!(all.ops.len(), OpKind::ALL.len());
    assert!(all.supports(OpKind::Conv2d, "input", DataType::Float16));
    assert!(!all.supports(OpKind::Conv2d, "input", DataType::Int32));
    let caps = Capabilities {
        data_types: DataTypeSet::F32 | DataTypeSet::I32 | DataTypeSet::U8,
        unsupported: vec![(OpKind::Add, "a", DataTypeSet::I32)],
        ..Capabilities::default()
    };
    let narrow = op_support_limits(&caps);
    assert!(!narrow.supports(OpKind::Conv2d, "input", DataType::Float16));
    assert!(narrow.supports(OpKind::Sub, "a", DataType::Int32));
    assert!(!narrow.supports(OpKind::Add, "a", DataType::Int32));
    assert!(narrow.supports(OpKind::Equal, "output", DataType::Uint8));
}
