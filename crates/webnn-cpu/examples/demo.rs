//! Builds a small classifier with the WebNN builder (conv2d -> relu -> global average pool ->
//! gemm -> softmax) from fixed weights and runs it on the CPU backend.

use webnn_core::ops::{Conv2dOptions, GemmOptions, OpOptions, Pool2dOptions};
use webnn_core::{Backend, DataType, GraphBuilder, HostTensor, OperandDescriptor, Result};
use webnn_cpu::CpuBackend;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Deterministic pseudo-random weights in [-0.5, 0.5).
fn weights(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        })
        .collect()
}

fn main() -> Result<()> {
    let mut b = GraphBuilder::new();
    let image = b.input("image", OperandDescriptor::new(DataType::Float32, &[1, 3, 8, 8]))?;
    let filter = b.constant(OperandDescriptor::new(DataType::Float32, &[4, 3, 3, 3]), f32_bytes(&weights(108, 1)))?;
    let conv = b.conv2d(image, filter, Conv2dOptions { padding: Some(vec![1, 1, 1, 1]), ..Default::default() })?;
    let relu = b.relu(conv, OpOptions::default())?;
    let pooled = b.average_pool2d(relu, Pool2dOptions::default())?;
    let flat = b.reshape(pooled, vec![1.into(), 4.into()], OpOptions::default())?;
    let fc = b.constant(OperandDescriptor::new(DataType::Float32, &[4, 3]), f32_bytes(&weights(12, 2)))?;
    let logits = b.gemm(flat, fc, GemmOptions::default())?;
    let probs = b.softmax(logits, 1, OpOptions { label: "probabilities".into() })?;
    let graph = b.build(&[("probs", probs)])?;

    let pixels: Vec<f32> = (0..3 * 8 * 8).map(|i| ((i * 7) % 17) as f32 / 17.0).collect();
    let input = HostTensor { desc: OperandDescriptor::new(DataType::Float32, &[1, 3, 8, 8]), bytes: f32_bytes(&pixels) };
    let mut exe = CpuBackend.compile(&graph)?;
    let outputs = exe.dispatch(&[("image", &input)])?;
    for (name, t) in outputs {
        let values: Vec<f32> =
            t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        println!("{name} {}: {values:?}", t.desc);
        let best = values.iter().enumerate().fold(0, |best, (i, v)| if *v > values[best] { i } else { best });
        println!("class {best} with probability {:.4}", values[best]);
    }
    Ok(())
}
