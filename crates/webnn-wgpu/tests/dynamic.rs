//! Flexible inputs on the wgpu backend: one compiled graph (buffers planned at the bounds)
//! dispatched at several sizes against the cpu backend at the same sizes, through host
//! tensors and through device tensors; sizes met again reuse their pipelines and bind groups.

use webnn_core::{Backend, DataType, Dim, ErrorKind, HostTensor, OperandDescriptor};
use webnn_models::{flexible_probe, probe_values};

fn x(rows: u32) -> HostTensor {
    HostTensor {
        desc: OperandDescriptor::new(DataType::Float32, &[rows, 8]),
        bytes: probe_values(rows as usize * 8, 3),
    }
}

/// Float32 values, or (another data type) its bytes, which must then agree exactly.
fn floats(t: &HostTensor) -> Vec<f32> {
    if t.desc.data_type != DataType::Float32 {
        return t.bytes.iter().map(|&b| b as f32 * 1e6).collect();
    }
    t.bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn one_compiled_graph_at_every_size() {
    let graph = flexible_probe(Dim::Dynamic {
        name: "seq".into(),
        max_size: 16,
    })
    .unwrap();
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    let mut gpu = backend.compile_graph(&graph).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(&graph).unwrap();
    let mut pipelines = 0;
    for (k, seq) in [16u32, 1, 5, 16, 5, 9].into_iter().enumerate() {
        let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x(seq))]).unwrap();
        let want = cpu.dispatch(&[("x", &x(seq))]).unwrap();
        for ((name, g), (_, w)) in got.iter().zip(&want) {
            assert_eq!(g.desc, w.desc, "{name} at seq {seq}");
            for (i, (a, b)) in floats(g).iter().zip(floats(w)).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                    "{name}[{i}] at seq {seq}: wgpu {a}, cpu {b}"
                );
            }
        }
        if k == 4 {
            // seq 5 again: its shape is kept, nothing is created.
            assert_eq!(
                backend.pipelines(),
                pipelines,
                "pipelines created for a size met before"
            );
        }
        pipelines = backend.pipelines();
    }
    // Seq 1's products run on the row-frame gemv, every other size on the tiled kernels
    // chosen at the bounds: two sets of steps, each reshaped in place for its sizes.
    assert_eq!(
        gpu.shapes_built(),
        2,
        "a set of steps for the tiled products and one for the gemv"
    );
    let err = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x(17))]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError, "above the bound");
}

#[test]
fn device_tensors_at_every_size() {
    let graph = flexible_probe(Dim::Dynamic {
        name: "seq".into(),
        max_size: 16,
    })
    .unwrap();
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    let mut gpu = backend.compile_graph(&graph).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(&graph).unwrap();
    for seq in [3u32, 12] {
        let want = cpu.dispatch(&[("x", &x(seq))]).unwrap();
        let input = gpu.create_tensor(x(seq).desc).unwrap();
        input.write(&x(seq).bytes).unwrap();
        let outs: Vec<(String, webnn_wgpu::WgpuTensor)> = want
            .iter()
            .map(|(n, t)| (n.clone(), gpu.create_tensor(t.desc.clone()).unwrap()))
            .collect();
        let bound: Vec<(&str, &webnn_wgpu::WgpuTensor)> =
            outs.iter().map(|(n, t)| (n.as_str(), t)).collect();
        gpu.dispatch_tensors(&[("x", &input)], &bound).unwrap();
        for ((name, t), (_, w)) in outs.iter().zip(&want) {
            let got = HostTensor {
                desc: t.desc().clone(),
                bytes: t.read().unwrap(),
            };
            for (a, b) in floats(&got).iter().zip(floats(w)) {
                assert!(
                    (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                    "{name} at seq {seq}: wgpu {a}, cpu {b}"
                );
            }
        }
    }
}

#[test]
fn sizes_with_the_same_kernels_reuse_the_steps_in_place() {
    let graph = flexible_probe(Dim::Dynamic {
        name: "seq".into(),
        max_size: 16,
    })
    .unwrap();
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    let mut gpu = backend.compile_graph(&graph).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(&graph).unwrap();
    let (shapes, pipelines) = (gpu.shapes_built(), backend.pipelines());
    for seq in [13u32, 14, 15, 16, 14] {
        let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x(seq))]).unwrap();
        let want = cpu.dispatch(&[("x", &x(seq))]).unwrap();
        for ((name, g), (_, w)) in got.iter().zip(&want) {
            assert_eq!(g.desc, w.desc, "{name} at seq {seq}");
            for (a, b) in floats(g).iter().zip(floats(w)) {
                assert!(
                    (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                    "{name} at seq {seq}: wgpu {a}, cpu {b}"
                );
            }
        }
    }
    assert_eq!(
        gpu.shapes_built(),
        shapes,
        "no steps or bind groups built for these sizes"
    );
    assert_eq!(
        backend.pipelines(),
        pipelines,
        "no pipelines created for these sizes"
    );
}

#[test]
fn a_dynamic_batch_through_convolutions_and_pooling() {
    let graph = webnn_models::flexible_batch_probe(Dim::Dynamic {
        name: "batch".into(),
        max_size: 4,
    })
    .unwrap();
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    let mut gpu = backend.compile_graph(&graph).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(&graph).unwrap();
    for n in [4u32, 1, 3, 4, 2] {
        let x = HostTensor {
            desc: OperandDescriptor::new(DataType::Float32, &[n, 3, 8, 8]),
            bytes: probe_values(n as usize * 192, 7),
        };
        let got = webnn_core::Executable::dispatch(&mut gpu, &[("x", &x)]).unwrap();
        let want = cpu.dispatch(&[("x", &x)]).unwrap();
        for ((name, g), (_, w)) in got.iter().zip(&want) {
            assert_eq!(g.desc, w.desc, "{name} at batch {n}");
            for (i, (a, b)) in floats(g).iter().zip(floats(w)).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-3 * b.abs().max(1.0),
                    "{name}[{i}] at batch {n}: wgpu {a}, cpu {b}"
                );
            }
        }
    }
    println!(
        "shapes built over batches 4, 1, 3, 4, 2: {}",
        gpu.shapes_built()
    );
}

/// Derived dimensions: concat along a dynamic axis gives `past+1`, which a slice of a static
/// cache and an element-wise op then share; every size matches the cpu backend.
#[test]
fn derived_dimensions_from_concat_and_a_dynamic_slice() {
    use webnn_core::ops::{OpOptions, ReduceOptions, SliceOptions};
    let f = DataType::Float32;
    let past = Dim::Dynamic {
        name: "past".into(),
        max_size: 7,
    };
    let mut b = webnn_core::GraphBuilder::new();
    let p = b
        .input("past", OperandDescriptor::with_dims(f, vec![past, Dim::Static(4)]))
        .unwrap();
    let row = b.input("row", OperandDescriptor::new(f, &[1, 4])).unwrap();
    let cache = b.input("cache", OperandDescriptor::new(f, &[8, 4])).unwrap();
    let grown = b.concat(&[p, row], 0, OpOptions::default()).unwrap();
    let total = b.desc(grown).unwrap().shape[0].clone();
    assert_eq!(total.to_string(), "past+1<=8");
    let view = b
        .slice_dims(cache, vec![0, 0], vec![total, Dim::Static(4)], SliceOptions::default())
        .unwrap();
    let sum = b.add(grown, view, OpOptions::default()).unwrap();
    let columns = ReduceOptions {
        axes: Some(vec![0]),
        ..Default::default()
    };
    let red = b.reduce_sum(sum, columns).unwrap();
    let graph = b.build(&[("sum", sum), ("red", red)]).unwrap();
    let backend = webnn_wgpu::WgpuBackend::new().expect("a wgpu adapter (Mesa lavapipe)");
    let mut gpu = backend.compile_graph(&graph).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(&graph).unwrap();
    let t = |shape: &[u32], seed| HostTensor {
        desc: OperandDescriptor::new(f, shape),
        bytes: probe_values(shape.iter().product::<u32>() as usize, seed),
    };
    for rows in [7u32, 1, 3, 7] {
        let inputs = [t(&[rows, 4], 1), t(&[1, 4], 2), t(&[8, 4], 3)];
        let named = [("past", &inputs[0]), ("row", &inputs[1]), ("cache", &inputs[2])];
        let got = webnn_core::Executable::dispatch(&mut gpu, &named).unwrap();
        let want = cpu.dispatch(&named).unwrap();
        assert_eq!(got[0].1.desc, OperandDescriptor::new(f, &[rows + 1, 4]));
        for ((name, g), (_, w)) in got.iter().zip(&want) {
            assert_eq!(g.desc, w.desc);
            assert_eq!(floats(g), floats(w), "{name} at past {rows}");
        }
    }
    assert_eq!(gpu.shapes_built(), 1);
}
