//! End-to-end graphs on the GPU, compared with the cpu backend's results.

mod common;

use common::*;
use webnn_core::ops::*;
use webnn_core::{Backend, DataType, ErrorKind, GraphBuilder, HostTensor, OperandDescriptor};

fn desc(t: DataType, shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(t, shape)
}

#[test]
fn broadcast_add_f32() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Float32, &[2, 3, 4])).unwrap();
    let y = b.input("y", desc(DataType::Float32, &[3, 1])).unwrap();
    let z = b.add(x, y, OpOptions::default()).unwrap();
    let g = b.build(&[("z", z)]).unwrap();
    let xv = f32_tensor(&[2, 3, 4], &values(24, -10.0, 10.0, 1));
    let yv = f32_tensor(&[3, 1], &values(3, -10.0, 10.0, 2));
    for (got, want) in run_both(&g, &[("x", &xv), ("y", &yv)]) {
        assert_close("add", &got, &want, 0);
    }
}

#[test]
fn f16_unary_chain() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Float16, &[5, 7])).unwrap();
    let o = OpOptions::default;
    let e = b.exp(x, o()).unwrap();
    let n = b.neg(e, o()).unwrap();
    let a = b.abs(n, o()).unwrap();
    let s = b.sqrt(a, o()).unwrap();
    let c = b.ceil(s, o()).unwrap();
    let g = b.build(&[("s", s), ("c", c)]).unwrap();
    // 35 elements: an odd count, so the last packed word is half full.
    let xv = f16_tensor(&[5, 7], &values(35, -4.0, 4.0, 3));
    for (got, want) in run_both(&g, &[("x", &xv)]) {
        assert_close("f16 chain", &got, &want, 1);
    }
}

#[test]
fn int32_compare_broadcast() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Int32, &[3, 5])).unwrap();
    let y = b.input("y", desc(DataType::Int32, &[5])).unwrap();
    let o = OpOptions::default;
    let gt = b.greater(x, y, o()).unwrap();
    let eq = b.equal(x, y, o()).unwrap();
    let le = b.lesser_or_equal(y, x, o()).unwrap();
    let g = b.build(&[("gt", gt), ("eq", eq), ("le", le)]).unwrap();
    let xs: Vec<i32> = vec![-3, 0, 7, i32::MIN, i32::MAX, 1, 2, 3, 4, 5, -1, -2, 9, 9, 9];
    let ys: Vec<i32> = vec![-3, 1, 7, i32::MAX, i32::MIN];
    let t = |shape: &[u32], v: &[i32]| HostTensor {
        desc: desc(DataType::Int32, shape),
        bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    };
    for (got, want) in run_both(&g, &[("x", &t(&[3, 5], &xs)), ("y", &t(&[5], &ys))]) {
        assert_eq!(got.bytes, want.bytes);
    }
}

#[test]
fn transpose_every_layout() {
    for t in [
        DataType::Float32,
        DataType::Float16,
        DataType::Int8,
        DataType::Uint8,
        DataType::Int64,
        DataType::Int32,
    ] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", desc(t, &[2, 3, 5])).unwrap();
        let options = TransposeOptions {
            permutation: Some(vec![2, 0, 1]),
            ..Default::default()
        };
        let y = b.transpose(x, options).unwrap();
        let z = b.transpose(x, TransposeOptions::default()).unwrap();
        let g = b.build(&[("y", y), ("z", z)]).unwrap();
        let bytes = (0..30 * t.bits() as usize / 8)
            .map(|k| (k * 37 % 251) as u8)
            .collect();
        let xv = HostTensor {
            desc: desc(t, &[2, 3, 5]),
            bytes,
        };
        for (got, want) in run_both(&g, &[("x", &xv)]) {
            if t.is_float() {
                assert_close("transpose", &got, &want, 0);
            } else {
                assert_eq!(got.bytes, want.bytes, "transpose {t}");
            }
        }
    }
}

#[test]
fn intermediates_reuse_buffers() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Float32, &[64])).unwrap();
    let o = OpOptions::default;
    let mut v = x;
    for k in 0..8 {
        v = if k % 2 == 0 {
            b.sigmoid(v, o()).unwrap()
        } else {
            b.mul(v, x, o()).unwrap()
        };
    }
    let r = b.reshape(v, vec![8.into(), 8.into()], o()).unwrap();
    let g = b.build(&[("r", r)]).unwrap();
    let exe = gpu().compile_graph(&g).unwrap();
    assert_eq!(exe.plan.intermediates, 7);
    assert!(
        exe.slot_count() < exe.plan.intermediates,
        "{} slots",
        exe.slot_count()
    );
    assert_eq!(exe.slot_count(), 2);
    let xv = f32_tensor(&[64], &values(64, -3.0, 3.0, 4));
    for (got, want) in run_both(&g, &[("x", &xv)]) {
        assert_close("chain", &got, &want, 16);
    }
}

#[test]
fn work_beyond_the_device_limits_is_a_not_supported_error() {
    // A transpose reads across the whole input, so it cannot be split into windows: with
    // bindings limited to 1 KiB, a 4 KiB transpose does not compile.
    let small = webnn_wgpu::WgpuBackend::with_gpu(gpu().gpu().clone()).with_max_binding(1024);
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Float32, &[32, 32])).unwrap();
    let opts = webnn_core::ops::TransposeOptions {
        label: "t".into(),
        ..Default::default()
    };
    let y = b.transpose(x, opts).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    let err = small
        .compile(&g)
        .err()
        .expect("the transpose must not compile");
    assert_eq!(err.kind, ErrorKind::NotSupportedError);
    assert!(err.to_string().contains("transpose"), "{err}");
    assert!(err.to_string().contains("[t]"), "{err}");
    // Every op of the table runs on the GPU, int4 quantization included.
    let limits = webnn_core::op_support_limits(&gpu().capabilities());
    for &kind in webnn_core::OpKind::ALL {
        let slot = kind.slots()[0];
        assert!(
            slot.data_types
                .iter()
                .any(|t| limits.supports(kind, slot.name, t)),
            "{kind:?}"
        );
    }
    assert!(limits.supports(
        webnn_core::OpKind::DequantizeLinear,
        "input",
        DataType::Int4
    ));
    assert!(limits.supports(webnn_core::OpKind::Add, "a", DataType::Int64));
}

#[test]
fn outputs_may_alias_inputs_and_constants() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Uint8, &[3])).unwrap();
    let c = b
        .constant(
            desc(DataType::Int64, &[2]),
            [5i64, -7].iter().flat_map(|v| v.to_le_bytes()).collect(),
        )
        .unwrap();
    let r = b
        .reshape(x, vec![1.into(), 3.into()], OpOptions::default())
        .unwrap();
    let i = b.identity(c, OpOptions::default()).unwrap();
    let g = b.build(&[("r", r), ("i", i)]).unwrap();
    let xv = HostTensor {
        desc: desc(DataType::Uint8, &[3]),
        bytes: vec![1, 2, 3],
    };
    for (got, want) in run_both(&g, &[("x", &xv)]) {
        assert_eq!(got.bytes, want.bytes);
    }
}

#[test]
fn large_tensors_dispatch_in_windows() {
    // A 4 KiB binding limit splits these 12 KiB (int64) and 1.5 KiB (uint8) tensors.
    let small = webnn_wgpu::WgpuBackend::with_gpu(gpu().gpu().clone()).with_max_binding(4096);
    let n = 1500u32;
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Int64, &[n])).unwrap();
    let y = b.input("y", desc(DataType::Int64, &[n])).unwrap();
    let s = b.add(x, y, OpOptions::default()).unwrap();
    let e = b.greater(x, y, OpOptions::default()).unwrap();
    let c = b.cast(s, DataType::Int8, OpOptions::default()).unwrap();
    let g = b.build(&[("e", e), ("c", c)]).unwrap();
    let t = |seed: i64| HostTensor {
        desc: desc(DataType::Int64, &[n]),
        bytes: (0..n as i64)
            .flat_map(|k| (k * seed % 1001 - 500).to_le_bytes())
            .collect(),
    };
    let (xv, yv) = (t(7), t(13));
    let mut exe = small.compile(&g).unwrap();
    let got = exe.dispatch(&[("x", &xv), ("y", &yv)]).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(&g).unwrap();
    let want = cpu.dispatch(&[("x", &xv), ("y", &yv)]).unwrap();
    assert_eq!(got, want);
    // A transpose cannot be split: a clear NotSupportedError.
    let mut b = GraphBuilder::new();
    let x = b.input("x", desc(DataType::Float32, &[40, 40])).unwrap();
    let y = b.transpose(x, TransposeOptions::default()).unwrap();
    let g = b.build(&[("y", y)]).unwrap();
    let err = small.compile(&g).err().expect("too large to bind");
    assert_eq!(err.kind, ErrorKind::NotSupportedError);
}

/// More products (or depthwise planes) than one dispatch dimension holds (65535): the tiled
/// kernels step over the rest.
#[test]
fn products_beyond_the_dispatch_grid() {
    let batches = 70_000u32;
    let mut b = GraphBuilder::new();
    let x = b
        .input("x", desc(DataType::Float32, &[batches, 1, 2]))
        .unwrap();
    let w = b
        .input("w", desc(DataType::Float32, &[batches, 2, 3]))
        .unwrap();
    let y = b.matmul(x, w, OpOptions::default()).unwrap();
    let planes = b
        .input("p", desc(DataType::Float32, &[1, batches, 1, 2]))
        .unwrap();
    let f = b
        .input("f", desc(DataType::Float32, &[batches, 1, 1, 1]))
        .unwrap();
    let options = webnn_core::ops::Conv2dOptions {
        groups: batches,
        ..Default::default()
    };
    let z = b.conv2d(planes, f, options).unwrap();
    let g = b.build(&[("y", y), ("z", z)]).unwrap();
    let n = batches as usize;
    let xv = f32_tensor(&[batches, 1, 2], &values(2 * n, -1.0, 1.0, 1));
    let wv = f32_tensor(&[batches, 2, 3], &values(6 * n, -1.0, 1.0, 2));
    let pv = f32_tensor(&[1, batches, 1, 2], &values(2 * n, -1.0, 1.0, 3));
    let fv = f32_tensor(&[batches, 1, 1, 1], &values(n, -1.0, 1.0, 4));
    // Sums of two products may cancel: compare with an absolute floor, not in ulps.
    for (got, want) in run_both(&g, &[("x", &xv), ("w", &wv), ("p", &pv), ("f", &fv)]) {
        assert_eq!(mismatch(&got, &want, 0), None);
    }
}

/// A scatter's copy of its input runs as a word copy (`KernelId::Copy`) on every storage
/// width, a packed type's partly filled last word included; a transpose stays strided even
/// where it only moves dimensions of size 1.
#[test]
fn scatters_copy_their_input_by_words() {
    for (t, shape) in [(DataType::Int8, [5u32, 3]), (DataType::Float16, [3, 3]), (DataType::Int64, [2, 3]), (DataType::Float32, [4, 2])] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", desc(t, &shape)).unwrap();
        let one = b.input("one", desc(t, &[1, shape[1]])).unwrap();
        let i = b.constant(desc(DataType::Int32, &[1, 1]), 1i32.to_le_bytes().to_vec()).unwrap();
        let s = b.scatter_nd(x, i, one, OpOptions::default()).unwrap();
        let row = b.reshape(one, vec![shape[1].into(), 1.into()], OpOptions::default()).unwrap();
        let turned = b.transpose(row, TransposeOptions::default()).unwrap();
        let g = b.build(&[("s", s), ("turned", turned)]).unwrap();
        let kernels: Vec<String> = webnn_wgpu::lower_graph(&g.resolved(&Default::default()))
            .unwrap()
            .iter()
            .flat_map(|l| match l {
                webnn_wgpu::lower::Lowering::Kernels(c) => c.iter().map(|c| c.key.label()).collect(),
                webnn_wgpu::lower::Lowering::Alias(_) => vec![],
            })
            .collect();
        assert!(kernels[0].starts_with("Copy"), "{t}: {kernels:?}");
        assert!(kernels.iter().any(|k| k.starts_with("Strided")), "{t}: {kernels:?}");
        let n = (shape[0] * shape[1]) as usize;
        let bytes = |n: usize, seed: u8| -> Vec<u8> {
            let len = (n * t.bits() as usize).div_ceil(8);
            // Finite floats: no NaN payload to tell apart.
            let mask = if t.is_float() { 0x3f } else { 0xff };
            (0..len).map(|k| (k as u8).wrapping_mul(37).wrapping_add(seed) & mask).collect()
        };
        let xv = HostTensor { desc: desc(t, &shape), bytes: bytes(n, 3) };
        let ov = HostTensor { desc: desc(t, &[1, shape[1]]), bytes: bytes(shape[1] as usize, 101) };
        for (got, want) in run_both(&g, &[("x", &xv), ("one", &ov)]) {
            assert_eq!(got.bytes, want.bytes, "{t}");
        }
    }
}
