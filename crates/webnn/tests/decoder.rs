//! The toy decoder (flexible inputs, KV caches updated in place) on WebGPU against the
//! reference cpu backend, token by token.

#[path = "shared/decoder.rs"]
mod decoder;

use decoder::Decoder;
use webnn::{Context, ErrorKind};
use webnn_models::DecoderConfig;
use webnn_wgpu::WgpuBackend;

const PROMPT: [i32; 5] = [3, 14, 15, 92, 65];

#[test]
fn decoder_64_steps_on_wgpu_match_cpu_token_by_token() {
    let config = DecoderConfig::TOY;
    let mut cpu = Decoder::new(Context::reference(), config, 7).unwrap();
    let mut gpu = Decoder::new(Context::wgpu(WgpuBackend::new().unwrap()), config, 7).unwrap();
    let (want, want_logits) = cpu.generate(&PROMPT, 64).unwrap();
    let (got, got_logits) = gpu.generate(&PROMPT, 64).unwrap();
    let mut worst = 0f32;
    for (a, b) in want_logits.iter().zip(&got_logits) {
        for (x, y) in a.iter().zip(b) {
            worst = worst.max((x - y).abs());
        }
    }
    eprintln!("decoder: 64 tokens, logits max |cpu - wgpu| = {worst:e}");
    assert_eq!(got, want, "greedy tokens");
    assert!(worst < 1e-3, "logits differ by {worst}");
    // The prompt (5 tokens) ran on the tiled products chosen at the bounds, the decode steps
    // on one more set of steps (gemv); a second prompt and its decode steps switch between
    // the two and build or create nothing.
    let pipelines = gpu.ctx.pipelines().unwrap();
    assert_eq!(gpu.graph.shapes_built(), Some(2), "one set of steps for the prompt, one for decode steps");
    let (again, _) = gpu.generate(&PROMPT, 4).unwrap();
    assert_eq!(again, want[..4], "greedy tokens of a second prompt");
    assert_eq!(gpu.ctx.pipelines().unwrap(), pipelines, "pipelines created for sizes met before");
    assert_eq!(gpu.graph.shapes_built(), Some(2), "steps rebuilt for sizes met before");
    assert_eq!(gpu.graph.copied_bytes(), Some(0), "the caches are updated in place, nothing copied");
    assert!(want.iter().collect::<std::collections::HashSet<_>>().len() > 4, "a decoder that repeats one token tests little");
}

#[test]
fn in_place_binding_rules() {
    let config = DecoderConfig { capacity: 32, layers: 1, ..DecoderConfig::TOY };
    for ctx in [Context::cpu(), Context::wgpu(WgpuBackend::new().unwrap())] {
        let d = Decoder::new(ctx.clone(), config, 1).unwrap();
        let pairs = d.graph.in_place_pairs().to_vec();
        assert_eq!(pairs, [("k0".to_owned(), "k0_out".to_owned()), ("v0".to_owned(), "v0_out".to_owned())]);
        // Each cache may be its own update's output; no other sharing is allowed.
        let mut d = d;
        d.step(&[1, 2], 0).unwrap();
        let k = &d.graph.inputs().iter().find(|(n, _)| n == "k0").unwrap().1;
        let desc = webnn::TensorDescriptor::new(k.clone(), true, true);
        let (a, b) = (ctx.create_tensor(desc.clone()).unwrap(), ctx.create_tensor(desc).unwrap());
        let io = |k_out: &webnn::Tensor, v_out: &webnn::Tensor| {
            let s = webnn_models::StepInputs::new(&[4], 2);
            let mk = |dt, shape: &[u32], bytes: &[u8]| {
                let t = ctx
                    .create_tensor(webnn::TensorDescriptor::new(webnn::OperandDescriptor::new(dt, shape), true, true))
                    .unwrap();
                ctx.write_tensor(&t, bytes).unwrap();
                t
            };
            let tok = mk(webnn::DataType::Int32, &[1], &s.tokens);
            let pos = mk(webnn::DataType::Int32, &[1, 1], &s.positions);
            let mask = mk(webnn::DataType::Uint8, &[1, 3], &s.mask);
            let logits = mk(webnn::DataType::Float32, &[1, config.vocab], &vec![0; 4 * config.vocab as usize]);
            let r = ctx.dispatch(
                &d.graph,
                &[("tokens", &tok), ("positions", &pos), ("mask", &mask), ("k0", &a), ("v0", &b)],
                &[("logits", &logits), ("k0_out", k_out), ("v0_out", v_out)],
            );
            r.err().map(|e| e.kind)
        };
        assert_eq!(io(&a, &b), None, "each cache in place");
        assert_eq!(io(&b, &a), Some(ErrorKind::TypeError), "the caches crossed");
        assert_eq!(io(&a, &a), Some(ErrorKind::TypeError), "one tensor for two outputs");
        let c = ctx.create_tensor(webnn::TensorDescriptor::new(k.clone(), true, true)).unwrap();
        assert_eq!(io(&c, &b), None, "a fresh output and one in place");
    }
}

/// ONNX Runtime runs the same graph (dynamic dimensions as ONNX dim params, the dynamic
/// slices reading their sizes from the inputs' shapes) and decodes the same tokens.
#[cfg(feature = "ort")]
#[test]
fn decoder_on_onnx_runtime_matches_cpu() {
    let config = DecoderConfig { capacity: 128, ..DecoderConfig::TOY };
    let options = webnn::ContextOptions { backend: Some(webnn::BackendKind::Ort), ..Default::default() };
    let ort = pollster::block_on(webnn::Ml.create_context(options)).unwrap();
    let mut cpu = Decoder::new(Context::reference(), config, 11).unwrap();
    let mut ort = Decoder::new(ort, config, 11).unwrap();
    let (want, want_logits) = cpu.generate(&PROMPT, 24).unwrap();
    let (got, got_logits) = ort.generate(&PROMPT, 24).unwrap();
    let worst = want_logits.iter().flatten().zip(got_logits.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    eprintln!("decoder on ONNX Runtime: 24 tokens, logits max |cpu - ort| = {worst:e}");
    assert_eq!(got, want);
    assert!(worst < 1e-3, "logits differ by {worst}");
}
