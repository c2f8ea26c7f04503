//! GPU tensors (MLTensor): writes and reads, graphs chained on the GPU through tensors, and
//! the errors a caller can cause.

mod common;

use common::{f32_tensor, gpu};
use webnn_core::ops::OpOptions;
use webnn_core::{DataType, ErrorKind, GraphBuilder, OperandDescriptor};

fn desc(t: DataType, shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(t, shape)
}

#[test]
fn tensors_round_trip_packed_types() {
    // 7 int4 elements: four bytes, the last half empty.
    let t = gpu().create_tensor(desc(DataType::Int4, &[7])).unwrap();
    assert_eq!(t.read().unwrap(), vec![0; 4], "new tensors are zero");
    let data = vec![0x21, 0x43, 0x65, 0x07];
    t.write(&data).unwrap();
    assert_eq!(t.read().unwrap(), data);
    let h = gpu().create_tensor(desc(DataType::Float16, &[3])).unwrap();
    let bytes: Vec<u8> = [1.5f32, -2.0, 65504.0]
        .iter()
        .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
        .collect();
    h.write(&bytes).unwrap();
    assert_eq!(h.read().unwrap(), bytes);
    let err = h.write(&[0; 4]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError);
}

#[test]
fn graphs_chain_through_tensors_without_readback() {
    let x_desc = desc(DataType::Float32, &[2, 3]);
    let mut b = GraphBuilder::new();
    let x = b.input("x", x_desc.clone()).unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    let mut first = gpu().compile_graph(&b.build(&[("y", y)]).unwrap()).unwrap();
    let mut b = GraphBuilder::new();
    let y_in = b.input("y", x_desc.clone()).unwrap();
    let z = b.add(y_in, y_in, OpOptions::default()).unwrap();
    let z = b.neg(z, OpOptions::default()).unwrap();
    let mut second = gpu().compile_graph(&b.build(&[("z", z)]).unwrap()).unwrap();

    let tx = first.create_tensor(x_desc.clone()).unwrap();
    let ty = first.create_tensor(x_desc.clone()).unwrap();
    let tz = second.create_tensor(x_desc.clone()).unwrap();
    let input = f32_tensor(&[2, 3], &[-1.0, 2.0, -3.0, 4.0, 0.5, -0.5]);
    tx.write(&input.bytes).unwrap();
    first
        .dispatch_tensors(&[("x", &tx)], &[("y", &ty)])
        .unwrap();
    second
        .dispatch_tensors(&[("y", &ty)], &[("z", &tz)])
        .unwrap();
    let want: Vec<u8> = [-0.0f32, -4.0, -0.0, -8.0, -1.0, -0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(tz.read().unwrap(), want);
    // Running again with new input data reuses everything compiled.
    tx.write(&f32_tensor(&[2, 3], &[1.0; 6]).bytes).unwrap();
    first
        .dispatch_tensors(&[("x", &tx)], &[("y", &ty)])
        .unwrap();
    second
        .dispatch_tensors(&[("y", &ty)], &[("z", &tz)])
        .unwrap();
    let want: Vec<u8> = [-2.0f32; 6].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(tz.read().unwrap(), want);
}

#[test]
fn dispatching_wrong_tensors_is_a_type_error() {
    let d = desc(DataType::Float32, &[4]);
    let mut b = GraphBuilder::new();
    let x = b.input("x", d.clone()).unwrap();
    let y = b.exp(x, OpOptions::default()).unwrap();
    let mut g = gpu().compile_graph(&b.build(&[("y", y)]).unwrap()).unwrap();
    let tx = g.create_tensor(d.clone()).unwrap();
    let ty = g.create_tensor(d.clone()).unwrap();
    let other = g.create_tensor(desc(DataType::Float16, &[4])).unwrap();
    let cases = [
        g.dispatch_tensors(&[("x", &other)], &[("y", &ty)]),
        g.dispatch_tensors(&[("x", &tx)], &[("y", &tx)]),
        g.dispatch_tensors(&[("w", &tx)], &[("y", &ty)]),
        g.dispatch_tensors(&[("x", &tx)], &[]),
    ];
    for (k, r) in cases.into_iter().enumerate() {
        let err = r.expect_err("must fail");
        assert_eq!(err.kind, ErrorKind::TypeError, "case {k}: {err}");
    }
    // The failed calls left the graph usable.
    g.dispatch_tensors(&[("x", &tx)], &[("y", &ty)]).unwrap();
    assert_eq!(
        ty.read().unwrap(),
        [1.0f32; 4]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>()
    );
}

#[test]
fn alternating_tensor_sets_keep_their_bindings() {
    // Outputs are bound where they lie, so each set of output tensors binds the kernels its
    // own way. A set met before reuses its bind groups (the graph keeps four sets' plans);
    // more sets than that evict the oldest, and every dispatch stays right.
    let d = desc(DataType::Float32, &[4]);
    let mut b = GraphBuilder::new();
    let x = b.input("x", d.clone()).unwrap();
    let w = b.input("w", d.clone()).unwrap();
    let y = b.sub(x, w, OpOptions::default()).unwrap();
    let z = b.neg(y, OpOptions::default()).unwrap();
    let mut g = gpu().compile_graph(&b.build(&[("y", y), ("z", z)]).unwrap()).unwrap();
    let tx = g.create_tensor(d.clone()).unwrap();
    let tw = g.create_tensor(d.clone()).unwrap();
    tw.write(&f32_tensor(&[4], &[1.0, 2.0, 3.0, 4.0]).bytes).unwrap();
    let sets: Vec<_> = (0..6)
        .map(|_| (g.create_tensor(d.clone()).unwrap(), g.create_tensor(d.clone()).unwrap()))
        .collect();
    let floats = |bytes: Vec<u8>| -> Vec<f32> {
        bytes.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    };
    let made = |g: &webnn_wgpu::WgpuGraph| webnn_core::Executable::stats(g).bind_groups.unwrap();
    let run = |g: &mut webnn_wgpu::WgpuGraph, n: usize, round: usize| {
        for (k, (ty, tz)) in sets[..n].iter().enumerate() {
            let v = (10 * round + k) as f32;
            tx.write(&f32_tensor(&[4], &[v; 4]).bytes).unwrap();
            // Named in another order than the graph's: found by name.
            g.dispatch_tensors(&[("w", &tw), ("x", &tx)], &[("z", tz), ("y", ty)]).unwrap();
            let want: Vec<f32> = [1.0, 2.0, 3.0, 4.0].iter().map(|w| v - w).collect();
            assert_eq!(floats(ty.read().unwrap()), want, "y, round {round}, set {k}");
            let neg: Vec<f32> = want.iter().map(|v| -v).collect();
            assert_eq!(floats(tz.read().unwrap()), neg, "z, round {round}, set {k}");
        }
    };
    run(&mut g, 3, 0);
    let after_first = made(&g);
    run(&mut g, 3, 1);
    run(&mut g, 3, 2);
    assert_eq!(made(&g), after_first, "three sets met before make no bind group");
    for round in 3..6 {
        run(&mut g, 6, round);
    }
    assert!(made(&g) > after_first, "six sets cycling outgrow the kept plans");
    // A plan found after its steps' own kept groups moved on: sets 0-3 fill both, set 0's
    // plan is found (its steps' groups are not refreshed), set 4 evicts set 0's groups from
    // the steps but not its plan, which set 0 then finds and must still bind rightly.
    for (round, k) in [0, 1, 2, 3, 0, 4, 0].into_iter().enumerate() {
        let (ty, tz) = &sets[k];
        let v = (100 + round) as f32;
        tx.write(&f32_tensor(&[4], &[v; 4]).bytes).unwrap();
        g.dispatch_tensors(&[("x", &tx), ("w", &tw)], &[("y", ty), ("z", tz)]).unwrap();
        let want: Vec<f32> = [1.0, 2.0, 3.0, 4.0].iter().map(|w| v - w).collect();
        assert_eq!(floats(ty.read().unwrap()), want, "y, step {round}, set {k}");
        assert_eq!(floats(tz.read().unwrap()).iter().map(|v| -v).collect::<Vec<_>>(), want, "z, step {round}, set {k}");
    }
}
