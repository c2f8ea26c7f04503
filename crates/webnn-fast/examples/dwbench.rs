use webnn_core::ops::*;
use webnn_core::*;
use std::collections::HashMap;
fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (h, c, s, threads) = (args[0], args[1], args[2], args[3]);
    let f = DataType::Float32;
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(f, &[1, h as u32, h as u32, c as u32])).unwrap();
    let mut y = x;
    for i in 0..8 {
        let w = b.constant(OperandDescriptor::new(f, &[c as u32, 1, 3, 3]), (0..c * 9).flat_map(|k| (((k * 7 + i) % 13) as f32 / 40.0 - 0.1).to_le_bytes()).collect()).unwrap();
        let st = if i == 0 { s as u32 } else { 1 };
        y = b.conv2d(y, w, Conv2dOptions { groups: c as u32, padding: Some(vec![1; 4]), strides: Some(vec![st, st]), input_layout: InputLayout::Nhwc, ..Default::default() }).unwrap();
        y = b.clamp(y, ClampOptions { min_value: Some(MLNumber::Double(0.0)), max_value: Some(MLNumber::Double(6.0)), ..Default::default() }).unwrap();
    }
    let g = b.build(&[("y", y)]).unwrap();
    let fast = webnn_fast::FastBackend::new(threads);
    let compiled = fast.compile_graph(&g).unwrap();
    let mut inputs = HashMap::new();
    inputs.insert("x".to_string(), webnn_cpu::Tensor::new(vec![1, h, h, c], webnn_cpu::Data::F32((0..h * h * c).map(|k| (k % 17) as f32 / 17.0).collect())));
    for (name, us) in compiled.profile(&inputs, 200).unwrap().iter().take(8) {
        println!("{:8.1} us {name}", us * 1e6);
    }
}
