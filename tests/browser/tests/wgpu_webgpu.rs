//! The wgpu backend compiled to wasm32 on the page's WebGPU (Chromium's, on SwiftShader in
//! CI): graphs covering every kernel frame, compiled and dispatched asynchronously, against
//! the cpu backend in the same page.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;
use webnn_core::ops::*;
use webnn_core::{Backend, DataType, Graph, GraphBuilder, HostTensor, Operand, OperandDescriptor};

wasm_bindgen_test_configure!(run_in_browser);

fn tensor(t: DataType, shape: &[u32], seed: u32) -> HostTensor {
    let n: u32 = shape.iter().product();
    let values: Vec<f64> = (0..n).map(|k| ((k * 37 + seed * 11) % 23) as f64 / 4.0 - 2.5).collect();
    webnn_cpu::Tensor::from_f64(t, vec![n as usize], &values).to_host_with(shape)
}

trait WithShape {
    fn to_host_with(&self, shape: &[u32]) -> HostTensor;
}

impl WithShape for webnn_cpu::Tensor {
    fn to_host_with(&self, shape: &[u32]) -> HostTensor {
        HostTensor { desc: OperandDescriptor::new(self.data_type(), shape), bytes: self.to_bytes() }
    }
}

/// One graph touching each frame: element-wise (add, cast, where), scatter (concat), rows
/// (softmax, reduceSum, argMax), gemm (conv2d + relu, matmul), depthwise conv, gemv.
fn graph() -> (Graph, Vec<(&'static str, HostTensor)>) {
    let f = DataType::Float32;
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(f, &[1, 4, 9, 10])).unwrap();
    let w = b.constant(OperandDescriptor::new(f, &[6, 4, 3, 3]), tensor(f, &[6, 4, 3, 3], 1).bytes).unwrap();
    let dw = b.constant(OperandDescriptor::new(f, &[6, 1, 3, 3]), tensor(f, &[6, 1, 3, 3], 2).bytes).unwrap();
    let conv = b.conv2d(x, w, Conv2dOptions { padding: Some(vec![1; 4]), ..Default::default() }).unwrap();
    let conv = b.relu(conv, OpOptions::default()).unwrap();
    let depthwise = b.conv2d(conv, dw, Conv2dOptions { groups: 6, strides: Some(vec![2, 2]), ..Default::default() }).unwrap();
    let flat = b.reshape(depthwise, vec![6.into(), 16.into()], OpOptions::default()).unwrap();
    let m = b.input("m", OperandDescriptor::new(f, &[16, 5])).unwrap();
    let prod = b.matmul(flat, m, OpOptions::default()).unwrap();
    let row = b.input("row", OperandDescriptor::new(f, &[1, 6])).unwrap();
    let gemv = b.matmul(row, prod, OpOptions::default()).unwrap();
    let soft = b.softmax(prod, 1, OpOptions::default()).unwrap();
    let sum = b.reduce_sum(prod, ReduceOptions { axes: Some(vec![0]), ..Default::default() }).unwrap();
    let arg = b.arg_max(prod, 1, ArgMinMaxOptions::default()).unwrap();
    let half = b.cast(prod, DataType::Float16, OpOptions::default()).unwrap();
    let joined = b.concat(&[half, half], 1, OpOptions::default()).unwrap();
    let cond = b.greater(prod, sum, OpOptions::default()).unwrap();
    let chosen = b.where_(cond, prod, soft, OpOptions::default()).unwrap();
    let outputs: [(&str, Operand); 6] =
        [("gemv", gemv), ("soft", soft), ("arg", arg), ("joined", joined), ("chosen", chosen), ("sum", sum)];
    let g = b.build(&outputs).unwrap();
    let feeds = vec![
        ("x", tensor(f, &[1, 4, 9, 10], 3)),
        ("m", tensor(f, &[16, 5], 4)),
        ("row", tensor(f, &[1, 6], 5)),
    ];
    (g, feeds)
}

fn floats(t: &HostTensor) -> Vec<f64> {
    webnn_cpu::Tensor::from_bytes(&t.desc, &t.bytes).expect("tensor").to_f64()
}

#[wasm_bindgen_test]
async fn wgpu_backend_on_the_pages_webgpu_matches_the_cpu_backend() {
    let backend = webnn_wgpu::WgpuBackend::new_async().await.expect("Chromium's WebGPU adapter");
    console_log!("adapter: {} ({:?})", backend.gpu().info.name, backend.gpu().info.backend);
    let (graph, feeds) = graph();
    let feeds: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (*n, t)).collect();
    let mut exe = backend.compile_graph_async(&graph).await.expect("compile");
    let got = exe.dispatch_async(&feeds).await.expect("dispatch");
    let want = webnn_cpu::CpuBackend.compile(&graph).unwrap().dispatch(&feeds).unwrap();
    for ((name, g), (_, w)) in got.iter().zip(&want) {
        assert_eq!(g.desc, w.desc, "{name}");
        for (k, (a, b)) in floats(g).iter().zip(floats(w)).enumerate() {
            assert!((a - b).abs() <= 1e-3 * b.abs().max(1.0), "{name}[{k}]: webgpu {a} vs cpu {b}");
        }
    }
    // Tensors stay on the GPU between dispatches; reading one back is asynchronous too.
    let t = exe.create_tensor(OperandDescriptor::new(DataType::Float32, &[1, 6])).unwrap();
    t.write(&feeds[2].1.bytes).unwrap();
    assert_eq!(t.read_async().await.unwrap(), feeds[2].1.bytes);
}

#[wasm_bindgen_test]
async fn mobilenet_v2_on_the_pages_webgpu() {
    let backend = webnn_wgpu::WgpuBackend::new_async().await.expect("Chromium's WebGPU adapter");
    let graph = webnn_models::mobilenet_v2(7).unwrap();
    let image = webnn_models::sample_image(11);
    let mut exe = backend.compile_graph_async(&graph).await.expect("compile");
    let got = exe.dispatch_async(&[("input", &image)]).await.expect("dispatch");
    let want = webnn_cpu::CpuBackend.compile(&graph).unwrap().dispatch(&[("input", &image)]).unwrap();
    let worst = floats(&got[0].1).iter().zip(floats(&want[0].1)).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    console_log!("MobileNetV2 logits on WebGPU: max |webgpu - cpu| = {worst:e}");
    assert!(worst <= 1e-3, "logits differ by {worst}");
}
