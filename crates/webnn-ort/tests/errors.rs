//! What a caller can get wrong comes back as WebNN errors, never as a panic.

mod common;

use common::{ort, tensor_of};
use webnn_core::ops::OpOptions;
use webnn_core::{Backend, DataType, ErrorKind, GraphBuilder, OperandDescriptor};

fn add_graph() -> webnn_core::Graph {
    let mut b = GraphBuilder::new();
    let x = b
        .input("x", OperandDescriptor::new(DataType::Float32, &[2, 3]))
        .unwrap();
    let y = b
        .input("y", OperandDescriptor::new(DataType::Float32, &[3]))
        .unwrap();
    let z = b.add(x, y, OpOptions::default()).unwrap();
    b.build(&[("z", z)]).unwrap()
}

#[test]
fn dispatch_checks_its_inputs() {
    let mut exe = ort().compile(&add_graph()).unwrap();
    let x = tensor_of(DataType::Float32, &[2, 3], vec![0; 24]);
    let y = tensor_of(
        DataType::Float32,
        &[3],
        [1f32, 2.0, 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    );
    let missing = exe.dispatch(&[("x", &x)]).unwrap_err();
    assert_eq!(missing.kind, ErrorKind::TypeError, "{missing}");
    let wrong = tensor_of(DataType::Float32, &[3, 2], vec![0; 24]);
    let e = exe.dispatch(&[("x", &wrong), ("y", &y)]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TypeError, "{e}");
    let short = tensor_of(DataType::Float32, &[2, 3], vec![0; 20]);
    let e = exe.dispatch(&[("x", &short), ("y", &y)]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TypeError, "{e}");
    // The executable still works after the rejected calls.
    let out = exe.dispatch(&[("x", &x), ("y", &y)]).unwrap();
    let z: Vec<f32> = out[0]
        .1
        .bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(z, [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
}

#[test]
fn capabilities_cover_every_type() {
    let caps = ort().capabilities();
    assert_eq!(caps.data_types, webnn_core::DataTypeSet::ALL);
    assert!(caps.unsupported.is_empty());
    assert_eq!(ort().name(), "ort");
}

#[test]
fn a_backend_with_its_own_threads_gives_the_same_results() {
    let own = webnn_ort::OrtBackend::new().unwrap().with_threads(1);
    let graph = webnn_models::mobilenet_v2(3).unwrap();
    let image = webnn_models::sample_image(5);
    let a = own
        .compile(&graph)
        .unwrap()
        .dispatch(&[("input", &image)])
        .unwrap();
    let b = ort()
        .compile(&graph)
        .unwrap()
        .dispatch(&[("input", &image)])
        .unwrap();
    let f = |t: &webnn_core::HostTensor| -> Vec<f32> {
        t.bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let worst = f(&a[0].1)
        .iter()
        .zip(f(&b[0].1))
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-4, "{worst}");
}
