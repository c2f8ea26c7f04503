//! float16 on the device's shader-f16 path against packed-word decoding:
//! `cargo run --release -p webnn-wgpu --example f16 [runs]`. Prints the median dispatch time
//! of a few float16 graphs both ways and their ratio.

use std::time::Instant;
use webnn_core::ops::{OpOptions, ReduceOptions};
use webnn_core::{Backend, DataType, Graph, GraphBuilder, HostTensor, OperandDescriptor};

fn f16_input(shape: &[u32]) -> HostTensor {
    let n: u32 = shape.iter().product();
    let bytes = (0..n)
        .flat_map(|k| half::f16::from_f32((k % 97) as f32 / 97.0 - 0.5).to_le_bytes())
        .collect();
    HostTensor {
        desc: OperandDescriptor::new(DataType::Float16, shape),
        bytes,
    }
}

fn median_ms(
    backend: &dyn Backend,
    graph: &Graph,
    feeds: &[(&str, &HostTensor)],
    runs: usize,
) -> f64 {
    let mut exe = backend.compile(graph).expect("compile");
    exe.dispatch(feeds).expect("dispatch");
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            exe.dispatch(feeds).expect("dispatch");
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// A named graph with its input tensors.
type Bench = (&'static str, Graph, Vec<(&'static str, HostTensor)>);

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10)
        .max(1);
    let native = webnn_wgpu::WgpuBackend::new().expect("a WebGPU adapter");
    if !native.gpu().shader_f16 {
        println!(
            "{}: no shader-f16, nothing to compare",
            native.gpu().info.name
        );
        return;
    }
    let packed = webnn_wgpu::WgpuBackend::with_gpu(native.gpu().clone()).with_packed_f16();
    let o = OpOptions::default;
    let d = |s: &[u32]| OperandDescriptor::new(DataType::Float16, s);
    let mut graphs: Vec<Bench> = Vec::new();

    let mut b = GraphBuilder::new();
    let x = b.input("x", d(&[1 << 21])).unwrap();
    let y = b.input("y", d(&[1 << 21])).unwrap();
    let s = b.add(x, y, o()).unwrap();
    let m = b.mul(s, x, o()).unwrap();
    let e = b.exp(m, o()).unwrap();
    graphs.push((
        "add, mul, exp on 2M elements",
        b.build(&[("e", e)]).unwrap(),
        vec![("x", f16_input(&[1 << 21])), ("y", f16_input(&[1 << 21]))],
    ));

    let mut b = GraphBuilder::new();
    let x = b.input("x", d(&[256, 256])).unwrap();
    let w = b.input("w", d(&[256, 256])).unwrap();
    let y = b.matmul(x, w, o()).unwrap();
    graphs.push((
        "matmul 256x256x256",
        b.build(&[("y", y)]).unwrap(),
        vec![("x", f16_input(&[256, 256])), ("w", f16_input(&[256, 256]))],
    ));

    let mut b = GraphBuilder::new();
    let x = b.input("x", d(&[512, 2048])).unwrap();
    let r = b
        .reduce_sum(
            x,
            ReduceOptions {
                axes: Some(vec![1]),
                ..Default::default()
            },
        )
        .unwrap();
    graphs.push((
        "reduceSum 512 rows of 2048",
        b.build(&[("r", r)]).unwrap(),
        vec![("x", f16_input(&[512, 2048]))],
    ));

    println!(
        "adapter: {}; median of {runs} dispatches (ms)",
        native.gpu().info.name
    );
    println!("| graph | packed words | shader-f16 | packed / native |");
    println!("|---|---|---|---|");
    for (name, graph, feeds) in &graphs {
        let feeds: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (*n, t)).collect();
        let p = median_ms(&packed, graph, &feeds, runs);
        let n = median_ms(&native, graph, &feeds, runs);
        println!("| {name} | {p:.2} | {n:.2} | {:.2}x |", p / n);
    }
}
