//! Times compile and dispatch of an element-wise chain on the wgpu and cpu backends:
//! `cargo run --release -p webnn-wgpu --example bench [elements]`.

use std::time::Instant;
use webnn_core::ops::OpOptions;
use webnn_core::{Backend, DataType, GraphBuilder, HostTensor, OperandDescriptor};

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 22);
    let mut b = GraphBuilder::new();
    let desc = OperandDescriptor::new(DataType::Float32, &[n]);
    let x = b.input("x", desc.clone()).expect("input");
    let y = b.input("y", desc.clone()).expect("input");
    let o = OpOptions::default;
    let s = b.add(x, y, o()).expect("add");
    let e = b.exp(s, o()).expect("exp");
    let g = b.gelu(e, o()).expect("gelu");
    let m = b.mul(g, x, o()).expect("mul");
    let graph = b.build(&[("m", m)]).expect("build");
    let bytes: Vec<u8> = (0..n)
        .flat_map(|k| ((k % 1000) as f32 * 1e-3).to_le_bytes())
        .collect();
    let t = HostTensor { desc, bytes };
    let wgpu = webnn_wgpu::WgpuBackend::new().expect("a WebGPU adapter");
    let gpu = wgpu.gpu();
    println!(
        "adapter: {} ({:?}), shader-f16 {}, timestamp-query {}, max binding {} bytes",
        gpu.info.name,
        gpu.info.device_type,
        gpu.shader_f16,
        gpu.timestamps,
        gpu.max_binding()
    );
    let backends: [(&str, &dyn Backend); 2] = [("wgpu", &wgpu), ("cpu", &webnn_cpu::CpuBackend)];
    for (name, backend) in backends {
        let start = Instant::now();
        let mut exe = backend.compile(&graph).expect("compile");
        let compiled = start.elapsed();
        let mut best = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            exe.dispatch(&[("x", &t), ("y", &t)]).expect("dispatch");
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{name}: {n} elements, 4 ops: compile {:.1} ms, dispatch {:.1} ms (best of 5)",
            compiled.as_secs_f64() * 1e3,
            best * 1e3
        );
    }
}
