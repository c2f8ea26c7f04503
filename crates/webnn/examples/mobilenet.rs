//! MobileNetV2 (seeded weights) through the `webnn` object model on every backend this build
//! has: the reference cpu interpreter, the fast cpu backend, wgpu, and ONNX Runtime with
//! `--features ort`.
//!
//!     cargo run --release -p webnn --example mobilenet --features ort,coreml [runs]

use std::time::Instant;
use webnn::{BackendKind, ContextOptions, Ml, TensorDescriptor};

fn main() -> Result<(), webnn::Error> {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let graph = webnn_models::mobilenet_v2(7)?;
    let image = webnn_models::sample_image(7);
    let mut kinds = vec![BackendKind::Reference, BackendKind::Cpu, BackendKind::Wgpu];
    if cfg!(feature = "ort") {
        kinds.push(BackendKind::Ort);
    }
    if cfg!(feature = "coreml") {
        kinds.push(BackendKind::CoreMl);
    }
    let mut reference: Option<Vec<f32>> = None;
    for kind in kinds {
        let options = ContextOptions { backend: Some(kind), ..Default::default() };
        let ctx = match pollster::block_on(Ml.create_context(options)) {
            Ok(c) => c,
            Err(e) => {
                println!("{:<12} unavailable: {e}", kind.name());
                continue;
            }
        };
        let t0 = Instant::now();
        let compiled = match pollster::block_on(ctx.compile(&graph)) {
            Ok(g) => g,
            Err(e) => {
                println!("{:<12} cannot run here: {e}", kind.name());
                continue;
            }
        };
        let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
        let (in_name, in_desc) = compiled.inputs()[0].clone();
        let input = ctx.create_tensor(TensorDescriptor::new(in_desc, false, true))?;
        let outputs = compiled
            .outputs()
            .iter()
            .map(|(n, d)| Ok((n.clone(), ctx.create_tensor(TensorDescriptor::new(d.clone(), true, false))?)))
            .collect::<webnn::Result<Vec<_>>>()?;
        let bound: Vec<(&str, &webnn::Tensor)> = outputs.iter().map(|(n, t)| (n.as_str(), t)).collect();
        ctx.write_tensor(&input, &image.bytes)?;
        let mut times = Vec::new();
        let mut bytes = Vec::new();
        for _ in 0..runs.max(1) {
            let t = Instant::now();
            ctx.dispatch(&compiled, &[(&in_name, &input)], &bound)?;
            bytes = pollster::block_on(ctx.read_tensor(&outputs[0].1))?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let values: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let top = values.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i).unwrap_or(0);
        let diff = reference
            .as_ref()
            .map(|r| r.iter().zip(&values).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max))
            .unwrap_or(0.0);
        println!(
            "{:<12} {:<40} compile {compile_ms:7.1} ms, median {:7.1} ms, top class {top}, max |diff| vs reference {diff:.2e}",
            kind.name(),
            ctx.device_name(),
            times[times.len() / 2]
        );
        reference.get_or_insert(values);
    }
    Ok(())
}
