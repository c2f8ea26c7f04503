//! The backend's surface: dynamic graphs at each size, input checks.

mod common;

use common::{bytes, floats};
use webnn_core::ops::OpOptions;
use webnn_core::shape::Dim;
use webnn_core::{Backend, DataType, GraphBuilder, HostTensor, OperandDescriptor};
use webnn_fast::FastBackend;

#[test]
fn dynamic_graphs_run_at_each_size() {
    let mut b = GraphBuilder::new();
    let dims = vec![
        Dim::Dynamic {
            name: "n".into(),
            max_size: 8,
        },
        Dim::Static(4),
    ];
    let x = b
        .input("x", OperandDescriptor::with_dims(DataType::Float32, dims))
        .unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    let graph = b.build(&[("y", y)]).unwrap();
    let fast = FastBackend::new(2);
    assert!(fast.dynamic_dimensions());
    // A dynamic relu is a one-link element-wise chain, sized by its input at each dispatch.
    assert_eq!(fast.compile_graph(&graph).unwrap().step_counts(), (1, 0));
    let mut exe = fast.compile(&graph).unwrap();
    for n in [1u32, 3, 8] {
        let v: Vec<f32> = (0..n * 4).map(|i| i as f32 - 5.0).collect();
        let t = HostTensor {
            desc: OperandDescriptor::new(DataType::Float32, &[n, 4]),
            bytes: bytes(&v),
        };
        let out = exe.dispatch(&[("x", &t)]).unwrap();
        assert_eq!(out[0].1.desc.shape.len(), 2);
        assert_eq!(
            floats(&out[0].1.bytes),
            v.iter().map(|x| x.max(0.0)).collect::<Vec<_>>()
        );
    }
}

#[test]
fn inputs_are_checked() {
    let mut b = GraphBuilder::new();
    let x = b
        .input("x", OperandDescriptor::new(DataType::Float32, &[2, 3]))
        .unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    let graph = b.build(&[("y", y)]).unwrap();
    let mut exe = FastBackend::new(1).compile(&graph).unwrap();
    let good = HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[2, 3]),
        bytes: vec![0; 24],
    };
    let wrong_shape = HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[3, 2]),
        bytes: vec![0; 24],
    };
    let wrong_type = HostTensor {
        desc: OperandDescriptor::new(DataType::Int32, &[2, 3]),
        bytes: vec![0; 24],
    };
    assert!(exe.dispatch(&[("x", &good)]).is_ok());
    assert!(exe.dispatch(&[]).is_err());
    assert!(exe.dispatch(&[("x", &wrong_shape)]).is_err());
    assert!(exe.dispatch(&[("x", &wrong_type)]).is_err());
}
