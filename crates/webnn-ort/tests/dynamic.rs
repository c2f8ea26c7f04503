//! Bounded dynamic dimensions (flexible inputs): one compiled graph runs at every size
//! within the bounds and gives what a graph built with those sizes statically gives.

mod common;

use common::{ort, tensor_of};
use webnn_core::ops::{
    GatherOptions, OpOptions, ReduceOptions, TransposeOptions, TriangularOptions,
};
use webnn_core::{
    Backend, DataType, Dim, ErrorKind, Graph, GraphBuilder, HostTensor, OperandDescriptor,
};

/// x [n, 4] (n dynamic up to 8, or static), w [4, 3]: elementwise, matmul, reshape with the
/// dynamic size, softmax, transpose, gather along the dynamic axis, reductions over it.
fn graph(n: Dim) -> Graph {
    let mut b = GraphBuilder::new();
    let o = OpOptions::default;
    let f = |dims: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, dims);
    let x = b.input("x", f(vec![n.clone(), 4.into()])).unwrap();
    let y = b.input("y", f(vec![4.into()])).unwrap();
    let w: Vec<u8> = (0..12)
        .flat_map(|i| (i as f32 * 0.25 - 1.0).to_le_bytes())
        .collect();
    let w = b
        .constant(OperandDescriptor::new(DataType::Float32, &[4, 3]), w)
        .unwrap();
    let s = b.add(x, y, o()).unwrap();
    let r = b.relu(s, o()).unwrap();
    let m = b.matmul(r, w, o()).unwrap();
    let sm = b.softmax(m, 1, o()).unwrap();
    let rs = b
        .reshape(s, vec![n.clone(), 2.into(), 2.into()], o())
        .unwrap();
    let t = b.transpose(rs, TransposeOptions::default()).unwrap();
    let idx = b
        .constant(
            OperandDescriptor::new(DataType::Int32, &[2]),
            [0i32, -1].iter().flat_map(|v| v.to_le_bytes()).collect(),
        )
        .unwrap();
    let g = b.gather(s, idx, GatherOptions::default()).unwrap();
    let red = ReduceOptions {
        axes: Some(vec![0]),
        ..Default::default()
    };
    let mean = b.reduce_mean(s, red.clone()).unwrap();
    let ints = b.cast(s, DataType::Int32, o()).unwrap();
    let imax = b.reduce_max(ints, red.clone()).unwrap();
    // 64-bit integer reductions fold pairwise: over a dynamic axis, padded to its bound.
    let wide = b.cast(s, DataType::Int64, o()).unwrap();
    let lsum = b.reduce_sum(wide, red.clone()).unwrap();
    let lmax = b.reduce_max(wide, red).unwrap();
    let tri = b
        .triangular(
            s,
            TriangularOptions {
                upper: false,
                diagonal: 1,
                ..Default::default()
            },
        )
        .unwrap();
    b.build(&[
        ("sm", sm),
        ("t", t),
        ("g", g),
        ("mean", mean),
        ("imax", imax),
        ("lsum", lsum),
        ("lmax", lmax),
        ("tri", tri),
    ])
    .unwrap()
}

fn floats(n: usize, seed: f32) -> Vec<u8> {
    (0..n)
        .flat_map(|i| ((i as f32 * 0.37 + seed).sin() * 3.0).to_le_bytes())
        .collect()
}

#[test]
fn one_graph_serves_every_size_within_the_bounds() {
    assert!(ort().dynamic_dimensions());
    let n = Dim::Dynamic {
        name: "n".into(),
        max_size: 8,
    };
    let mut dynamic = ort().compile(&graph(n.clone())).unwrap();
    let mut cpu = webnn_cpu::CpuBackend.compile(&graph(n)).unwrap();
    for rows in [1u32, 3, 8, 2] {
        let x = tensor_of(
            DataType::Float32,
            &[rows, 4],
            floats(rows as usize * 4, rows as f32),
        );
        let y = tensor_of(DataType::Float32, &[4], floats(4, 0.5));
        let feeds: [(&str, &HostTensor); 2] = [("x", &x), ("y", &y)];
        let got = dynamic.dispatch(&feeds).unwrap();
        let want = ort()
            .compile(&graph(Dim::Static(rows)))
            .unwrap()
            .dispatch(&feeds)
            .unwrap();
        assert_eq!(got, want, "n = {rows}");
        for ((name, g), (_, c)) in got.iter().zip(cpu.dispatch(&feeds).unwrap()) {
            assert_eq!(
                common::mismatch(g, &c, 0),
                None,
                "{name} at n = {rows} against the cpu backend"
            );
        }
        assert_eq!(
            got[1].1.desc,
            OperandDescriptor::new(DataType::Float32, &[2, 2, rows])
        );
    }
}

#[test]
fn sizes_outside_the_bounds_or_disagreeing_are_type_errors() {
    let mut b = GraphBuilder::new();
    let n = || Dim::Dynamic {
        name: "n".into(),
        max_size: 4,
    };
    let d = |dims: Vec<Dim>| OperandDescriptor::with_dims(DataType::Float32, dims);
    let x = b.input("x", d(vec![n(), 2.into()])).unwrap();
    let y = b.input("y", d(vec![n(), 2.into()])).unwrap();
    let z = b.add(x, y, OpOptions::default()).unwrap();
    let mut exe = ort().compile(&b.build(&[("z", z)]).unwrap()).unwrap();
    let t = |rows: u32| {
        tensor_of(
            DataType::Float32,
            &[rows, 2],
            floats(rows as usize * 2, 0.0),
        )
    };
    let kind = |r: webnn_core::Result<Vec<(String, HostTensor)>>| r.unwrap_err().kind;
    assert_eq!(
        kind(exe.dispatch(&[("x", &t(5)), ("y", &t(5))])),
        ErrorKind::TypeError,
        "above maxSize"
    );
    assert_eq!(
        kind(exe.dispatch(&[("x", &t(2)), ("y", &t(3))])),
        ErrorKind::TypeError,
        "names agree"
    );
    let wrong = tensor_of(DataType::Float32, &[2, 3], floats(6, 0.0));
    assert_eq!(
        kind(exe.dispatch(&[("x", &wrong), ("y", &t(2))])),
        ErrorKind::TypeError,
        "static size"
    );
    let ok = exe.dispatch(&[("x", &t(3)), ("y", &t(3))]).unwrap();
    assert_eq!(
        ok[0].1.desc,
        OperandDescriptor::new(DataType::Float32, &[3, 2])
    );
}

/// `graph` rebuilt with the first dimension of every input of rank >= 1 dynamic (bounded by
/// its size, named by it so equal sizes still broadcast), shapes inferred again; None where
/// validation rejects a dynamic size there.
fn with_dynamic_inputs(graph: &Graph) -> Option<Graph> {
    use webnn_core::{Operand, Source};
    let mut b = GraphBuilder::new();
    let mut map: Vec<Option<Operand>> = vec![None; graph.operands.len()];
    for (i, info) in graph.operands.iter().enumerate() {
        map[i] = match &info.source {
            Source::Input(name) => {
                let mut desc = info.desc.clone();
                if let Some(Dim::Static(n)) = desc.shape.first().cloned() {
                    desc.shape[0] = Dim::Dynamic {
                        name: format!("n{n}").into(),
                        max_size: n,
                    };
                }
                Some(b.input(name, desc).ok()?)
            }
            Source::Constant(data) => {
                Some(b.constant_shared(info.desc.clone(), data.clone()).ok()?)
            }
            Source::Node { .. } => None,
        };
    }
    for node in &graph.nodes {
        let mut op = node.op.clone();
        let lookup = |o: Operand| map[o.index()].unwrap_or(o);
        op.remap_operands(&lookup);
        let outs = b.add_op(op).ok()?;
        for (o, n) in node.outputs.iter().zip(outs) {
            map[o.index()] = Some(n);
        }
    }
    let outputs: Vec<(&str, Operand)> = graph
        .outputs
        .iter()
        .map(|(n, o)| (n.as_str(), map[o.index()].unwrap()))
        .collect();
    b.build(&outputs).ok()
}

/// The shared per-op cases with dynamic leading input dimensions: every case that converts
/// gives what its static graph gives; the rest fail with NotSupportedError (an op needing a
/// static size there), never otherwise.
#[test]
fn every_op_case_with_dynamic_inputs_matches_its_static_graph() {
    let (mut ran, mut unsupported, mut rejected) = (0, 0, 0);
    let mut failures = Vec::new();
    for &kind in webnn_core::OpKind::ALL {
        for t in kind.slots()[0].data_types.iter() {
            for case in common::cases::cases(kind, t) {
                let Some(dynamic) = with_dynamic_inputs(&case.graph) else {
                    rejected += 1;
                    continue;
                };
                let feeds: Vec<(&str, &HostTensor)> =
                    case.feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
                let exe = ort().compile(&dynamic);
                let mut exe = match exe {
                    Ok(e) => e,
                    Err(e) if e.kind == ErrorKind::NotSupportedError => {
                        if std::env::var_os("SHOW_UNSUPPORTED").is_some() {
                            println!("{}: {e}", case.name);
                        }
                        unsupported += 1;
                        continue;
                    }
                    Err(e) => {
                        failures.push(format!("{}: compile: {e}", case.name));
                        continue;
                    }
                };
                let got = exe.dispatch(&feeds);
                let want = ort()
                    .compile(&case.graph)
                    .and_then(|mut e| e.dispatch(&feeds));
                match (got, want) {
                    (Ok(got), Ok(want)) if got == want => ran += 1,
                    (got, want) => failures.push(format!("{}: {got:?} vs {want:?}", case.name)),
                }
            }
        }
    }
    println!("{ran} cases ran with dynamic inputs, {unsupported} need static sizes, {rejected} rejected by validation");
    assert!(ran > 580, "only {ran} cases ran");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
