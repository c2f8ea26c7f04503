//! Flexible inputs on the cpu backend: one graph with a bounded dynamic dimension dispatched
//! at several sizes gives exactly what the same graph built with that size static gives.

use webnn_core::{Backend, DataType, Dim, ErrorKind, HostTensor, OperandDescriptor};
use webnn_models::{flexible_probe, probe_values};

fn x(rows: u32, cols: u32) -> HostTensor {
    HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[rows, cols]),
        bytes: probe_values((rows * cols) as usize, 3),
    }
}

#[test]
fn one_graph_serves_every_size_within_its_bound() {
    let dynamic = flexible_probe(Dim::Dynamic { name: "seq".into(), max_size: 16 }).unwrap();
    let mut exe = webnn_cpu::CpuBackend.compile(&dynamic).unwrap();
    for seq in [1u32, 5, 16] {
        let got = exe.dispatch(&[("x", &x(seq, 8))]).unwrap();
        let fixed = flexible_probe(Dim::Static(seq)).unwrap();
        let want = webnn_cpu::CpuBackend.compile(&fixed).unwrap().dispatch(&[("x", &x(seq, 8))]).unwrap();
        assert_eq!(got, want, "seq {seq}");
    }
}

#[test]
fn sizes_outside_the_bounds_are_type_errors() {
    let dynamic = flexible_probe(Dim::Dynamic { name: "seq".into(), max_size: 16 }).unwrap();
    let mut exe = webnn_cpu::CpuBackend.compile(&dynamic).unwrap();
    for (rows, cols) in [(17, 8), (3, 7)] {
        assert_eq!(exe.dispatch(&[("x", &x(rows, cols))]).unwrap_err().kind, ErrorKind::TypeError, "{rows}x{cols}");
    }
}

#[test]
fn a_dynamic_batch_through_convolutions_and_pooling() {
    use webnn_models::flexible_batch_probe;
    let dynamic = flexible_batch_probe(Dim::Dynamic { name: "batch".into(), max_size: 4 }).unwrap();
    let mut exe = webnn_cpu::CpuBackend.compile(&dynamic).unwrap();
    for n in [1u32, 3, 4] {
        let x = HostTensor {
            desc: OperandDescriptor::new(DataType::Float32, &[n, 3, 8, 8]),
            bytes: probe_values(n as usize * 192, 7),
        };
        let got = exe.dispatch(&[("x", &x)]).unwrap();
        let fixed = flexible_batch_probe(Dim::Static(n)).unwrap();
        let want = webnn_cpu::CpuBackend.compile(&fixed).unwrap().dispatch(&[("x", &x)]).unwrap();
        assert_eq!(got, want, "batch {n}");
    }
}
