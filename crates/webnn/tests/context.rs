//! The object model's rules on the CPU backend: backend choice, dispatch binding checks,
//! tensor flags, destroy.

use webnn::{
    choose, BackendKind, Context, ContextOptions, DataType, DeviceType, ErrorKind, GraphBuilder, OperandDescriptor,
    PowerPreference, TensorDescriptor,
};
use webnn_core::ops::OpOptions;

#[test]
fn backend_choice() {
    let default = ContextOptions::default();
    assert_eq!(choose(&default, Some(false), false), BackendKind::Wgpu, "a hardware adapter");
    assert_eq!(choose(&default, Some(true), false), BackendKind::Cpu, "a software adapter is slower than the CPU");
    assert_eq!(choose(&default, Some(true), true), BackendKind::Ort, "ONNX Runtime on the CPU when built in");
    assert_eq!(choose(&default, None, false), BackendKind::Cpu, "no adapter");
    let gpu = ContextOptions { device_type: Some(DeviceType::Gpu), ..default };
    assert_eq!(choose(&gpu, Some(false), false), BackendKind::Wgpu, "deviceType gpu on a hardware adapter");
    assert_eq!(choose(&gpu, Some(true), false), BackendKind::Cpu, "deviceType gpu is a hint: never a software adapter");
    let low_gpu = ContextOptions { power_preference: PowerPreference::LowPower, ..gpu };
    assert_eq!(choose(&low_gpu, Some(false), false), BackendKind::Wgpu, "deviceType gpu overrides powerPreference");
    let forced = ContextOptions { backend: Some(BackendKind::Wgpu), ..default };
    assert_eq!(choose(&forced, Some(true), false), BackendKind::Wgpu, "a named backend runs on a software adapter");
    let low = ContextOptions { power_preference: PowerPreference::LowPower, ..default };
    assert_eq!(choose(&low, Some(false), false), BackendKind::Cpu);
    let off = ContextOptions { accelerated: false, ..default };
    assert_eq!(choose(&off, Some(false), false), BackendKind::Cpu);
    let named = ContextOptions { backend: Some(BackendKind::Cpu), ..gpu };
    assert_eq!(choose(&named, Some(false), true), BackendKind::Cpu, "a named backend wins");
}

fn graph() -> webnn_core::Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[2])).unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    b.build(&[("y", y)]).unwrap()
}

#[test]
fn dispatch_rules_and_destroy() {
    let ctx = Context::cpu();
    let other = Context::cpu();
    let g = pollster::block_on(ctx.compile(&graph())).unwrap();
    let desc = OperandDescriptor::new(DataType::Float32, &[2]);
    let input = ctx.create_tensor(TensorDescriptor::new(desc.clone(), false, true)).unwrap();
    let output = ctx.create_tensor(TensorDescriptor::new(desc.clone(), true, false)).unwrap();
    let foreign = other.create_tensor(TensorDescriptor::new(desc.clone(), true, true)).unwrap();
    let kind = |r: webnn::Result<()>| r.unwrap_err().kind;
    ctx.write_tensor(&input, &[0, 0, 128, 191, 0, 0, 0, 64]).unwrap(); // -1.0, 2.0
    ctx.dispatch(&g, &[("x", &input)], &[("y", &output)]).unwrap();
    let y = pollster::block_on(ctx.read_tensor(&output)).unwrap();
    assert_eq!(y, [0, 0, 0, 0, 0, 0, 0, 64]);
    assert_eq!(kind(ctx.dispatch(&g, &[("x", &input)], &[("y", &input)])), ErrorKind::TypeError, "bound twice");
    assert_eq!(kind(ctx.dispatch(&g, &[("x", &foreign)], &[("y", &output)])), ErrorKind::TypeError, "another context");
    assert_eq!(kind(ctx.dispatch(&g, &[("z", &input)], &[("y", &output)])), ErrorKind::TypeError, "wrong name");
    assert_eq!(kind(ctx.write_tensor(&output, &[0; 8])), ErrorKind::TypeError, "not writable");
    assert_eq!(pollster::block_on(ctx.read_tensor(&input)).unwrap_err().kind, ErrorKind::TypeError, "not readable");
    g.destroy();
    assert_eq!(kind(ctx.dispatch(&g, &[("x", &input)], &[("y", &output)])), ErrorKind::InvalidStateError);
    ctx.destroy();
    assert!(input.is_destroyed() && output.is_destroyed(), "destroying the context destroys its tensors");
    assert_eq!(ctx.create_tensor(TensorDescriptor::new(desc, true, true)).err().map(|e| e.kind), Some(ErrorKind::InvalidStateError));
}

#[test]
fn flexible_inputs_on_the_cpu_context() {
    use webnn::Dim;
    let seq = Dim::Dynamic { name: "seq".into(), max_size: 8 };
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::with_dims(DataType::Float32, vec![seq, Dim::Static(2)])).unwrap();
    let y = b.relu(x, OpOptions::default()).unwrap();
    let graph = b.build(&[("y", y)]).unwrap();
    let ctx = Context::cpu();
    let g = pollster::block_on(ctx.compile(&graph)).unwrap();
    let tensors = |rows: u32| {
        let d = OperandDescriptor::new(DataType::Float32, &[rows, 2]);
        (
            ctx.create_tensor(TensorDescriptor::new(d.clone(), false, true)).unwrap(),
            ctx.create_tensor(TensorDescriptor::new(d, true, false)).unwrap(),
        )
    };
    for rows in [1u32, 3, 8] {
        let (input, output) = tensors(rows);
        let data: Vec<u8> = (0..rows * 2).flat_map(|k| (k as f32 - 2.0).to_le_bytes()).collect();
        ctx.write_tensor(&input, &data).unwrap();
        ctx.dispatch(&g, &[("x", &input)], &[("y", &output)]).unwrap();
        let got = pollster::block_on(ctx.read_tensor(&output)).unwrap();
        let want: Vec<u8> = (0..rows * 2).flat_map(|k| (k as f32 - 2.0).max(0.0).to_le_bytes()).collect();
        assert_eq!(got, want, "{rows} rows");
    }
    let (three, _) = tensors(3);
    let (_, five) = tensors(5);
    let err = ctx.dispatch(&g, &[("x", &three)], &[("y", &five)]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError, "an output of the wrong size: {err}");
    let (nine, nine_out) = tensors(8);
    let big = ctx.create_tensor(TensorDescriptor::new(OperandDescriptor::new(DataType::Float32, &[9, 2]), false, true)).unwrap();
    let err = ctx.dispatch(&g, &[("x", &big)], &[("y", &nine_out)]).unwrap_err();
    assert!(err.kind == ErrorKind::TypeError && err.rule.contains("'seq'"), "above the bound: {err}");
    drop(nine);
}

/// CPU contexts run the fast backend, which must agree with the reference interpreter (still
/// reachable by name) on a network of its accelerated ops.
#[test]
fn cpu_context_runs_the_fast_backend() {
    let ctx = Context::cpu();
    assert_eq!(ctx.backend(), BackendKind::Cpu);
    assert!(ctx.device_name().starts_with("fast cpu ("), "{}", ctx.device_name());
    let named = ContextOptions { backend: Some(BackendKind::Reference), ..ContextOptions::default() };
    let reference = pollster::block_on(webnn::Ml.create_context(named)).unwrap();
    assert_eq!((reference.backend().name(), reference.device_name().as_str()), ("reference", "reference cpu interpreter"));
    let graph = webnn_models::mobilenet_v2(3).unwrap();
    let image = webnn_models::sample_image(3);
    let run = |ctx: &Context| -> Vec<f32> {
        let g = pollster::block_on(ctx.compile(&graph)).unwrap();
        let (name, desc) = g.inputs()[0].clone();
        let input = ctx.create_tensor(TensorDescriptor::new(desc, false, true)).unwrap();
        let outputs: Vec<_> = g
            .outputs()
            .iter()
            .map(|(n, d)| (n.as_str(), ctx.create_tensor(TensorDescriptor::new(d.clone(), true, false)).unwrap()))
            .collect();
        let bound: Vec<(&str, &webnn::Tensor)> = outputs.iter().map(|(n, t)| (*n, t)).collect();
        ctx.write_tensor(&input, &image.bytes).unwrap();
        ctx.dispatch(&g, &[(&name, &input)], &bound).unwrap();
        let bytes = pollster::block_on(ctx.read_tensor(&outputs[0].1)).unwrap();
        bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    };
    let (fast, want) = (run(&ctx), run(&reference));
    let worst = fast.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(worst < 1e-4, "MobileNetV2 outputs differ from the reference by {worst}");
}

/// ONNX Runtime's quantizer gives a bias's scale the shape [1] and its zero point []; the
/// builder reshapes such a zero point to the scale's shape, and every CPU backend computes
/// (x - zeroPoint) * scale with it.
#[test]
fn dequantize_with_a_scalar_zero_point_beside_a_one_element_scale() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Int8, &[4])).unwrap();
    let scale = b.constant(OperandDescriptor::new(DataType::Float32, &[1]), 0.5f32.to_le_bytes().to_vec()).unwrap();
    let zero = b.constant(OperandDescriptor::new(DataType::Int8, &[]), vec![2]).unwrap();
    let y = b.dequantize_linear(x, scale, zero, OpOptions::default()).unwrap();
    assert_eq!(b.desc(y).unwrap(), &OperandDescriptor::new(DataType::Float32, &[4]));
    let graph = b.build(&[("y", y)]).unwrap();
    for ctx in [Context::cpu(), Context::reference()] {
        let g = pollster::block_on(ctx.compile(&graph)).unwrap();
        let input = ctx.create_tensor(TensorDescriptor::new(OperandDescriptor::new(DataType::Int8, &[4]), false, true)).unwrap();
        let output = ctx.create_tensor(TensorDescriptor::new(OperandDescriptor::new(DataType::Float32, &[4]), true, false)).unwrap();
        ctx.write_tensor(&input, &[2u8, 4, 0, (-6i8) as u8]).unwrap();
        ctx.dispatch(&g, &[("x", &input)], &[("y", &output)]).unwrap();
        let bytes = pollster::block_on(ctx.read_tensor(&output)).unwrap();
        let got: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, [0.0, 1.0, -1.0, -4.0], "on {}", ctx.backend().name());
    }
}
