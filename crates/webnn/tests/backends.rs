//! The facade's rules hold on every backend behind the one interface: reads are ordered
//! with the calls around them, destroy rejects reads in flight, a backend the facade has
//! never heard of plugs in through `Context::with_backend`.

use webnn::{BackendKind, Context, DataType, ErrorKind, GraphBuilder, OperandDescriptor, Tensor, TensorDescriptor};
use webnn_core::ops::OpOptions;
use webnn_core::{Backend, Capabilities, DeviceInfo, Executable};
use webnn_wgpu::WgpuBackend;

/// y = x + x on two floats.
fn doubling() -> webnn_core::Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[2])).unwrap();
    let y = b.add(x, x, OpOptions::default()).unwrap();
    b.build(&[("y", y)]).unwrap()
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A host backend this crate does not know: the reference interpreter under another name,
/// with the facade's default tensors and dispatch.
struct Renamed;

impl Backend for Renamed {
    fn name(&self) -> &'static str {
        "renamed"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities { max_tensor_byte_length: 1024, ..Capabilities::default() }
    }
    fn compile(&self, graph: &webnn_core::Graph) -> webnn::Result<Box<dyn Executable>> {
        webnn_cpu::CpuBackend.compile(graph)
    }
    fn device(&self) -> DeviceInfo {
        DeviceInfo { name: "a backend plugged in by a test".into(), accelerated: false }
    }
}

fn contexts() -> Vec<Context> {
    let mut all = vec![
        Context::cpu(),
        Context::reference(),
        Context::with_backend(BackendKind::Reference, Box::new(Renamed)),
    ];
    match WgpuBackend::new() {
        Ok(b) => all.push(Context::wgpu(b)),
        // The test command installs lavapipe; a machine without any adapter still checks the rest.
        Err(e) => eprintln!("no WebGPU adapter ({e}): the wgpu context is not checked"),
    }
    all
}

fn tensors(ctx: &Context) -> (Tensor, Tensor) {
    let desc = OperandDescriptor::new(DataType::Float32, &[2]);
    (
        ctx.create_tensor(TensorDescriptor::new(desc.clone(), false, true)).unwrap(),
        ctx.create_tensor(TensorDescriptor::new(desc, true, false)).unwrap(),
    )
}

/// A read returns the contents as of its call, whatever is written or dispatched after it
/// before the read is awaited (the browser awaits in a later microtask).
#[test]
fn reads_are_ordered_with_later_calls() {
    for ctx in contexts() {
        let g = pollster::block_on(ctx.compile(&doubling())).unwrap();
        let (x, y) = tensors(&ctx);
        ctx.write_tensor(&x, &floats(&[1.0, 10.0])).unwrap();
        ctx.dispatch(&g, &[("x", &x)], &[("y", &y)]).unwrap();
        let first = ctx.read_tensor(&y);
        ctx.write_tensor(&x, &floats(&[2.0, 20.0])).unwrap();
        ctx.dispatch(&g, &[("x", &x)], &[("y", &y)]).unwrap();
        let second = ctx.read_tensor(&y);
        ctx.write_tensor(&x, &floats(&[3.0, 30.0])).unwrap();
        ctx.dispatch(&g, &[("x", &x)], &[("y", &y)]).unwrap();
        let name = ctx.device_name();
        assert_eq!(pollster::block_on(second).unwrap(), floats(&[4.0, 40.0]), "{name}: the second read");
        assert_eq!(pollster::block_on(first).unwrap(), floats(&[2.0, 20.0]), "{name}: the first read");
        assert_eq!(pollster::block_on(ctx.read_tensor(&y)).unwrap(), floats(&[6.0, 60.0]), "{name}");
    }
}

/// `MLTensor.destroy()` rejects the reads still pending with an InvalidStateError; so does
/// destroying the context.
#[test]
fn destroy_rejects_pending_reads() {
    for ctx in contexts() {
        let g = pollster::block_on(ctx.compile(&doubling())).unwrap();
        let (x, y) = tensors(&ctx);
        ctx.dispatch(&g, &[("x", &x)], &[("y", &y)]).unwrap();
        let (a, b) = (ctx.read_tensor(&y), ctx.read_tensor(&y));
        y.destroy();
        let name = ctx.device_name();
        for read in [a, b] {
            assert_eq!(pollster::block_on(read).unwrap_err().kind, ErrorKind::InvalidStateError, "{name}");
        }
        let err = pollster::block_on(ctx.read_tensor(&y)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TypeError, "{name}: reading a destroyed tensor");
        let (_, z) = tensors(&ctx);
        let read = ctx.read_tensor(&z);
        ctx.destroy();
        assert_eq!(pollster::block_on(read).unwrap_err().kind, ErrorKind::InvalidStateError, "{name}: context destroyed");
    }
}

/// A backend written outside this crate runs through the same rules.
#[test]
fn a_new_backend_plugs_in() {
    let ctx = Context::with_backend(BackendKind::Reference, Box::new(Renamed));
    assert_eq!(ctx.device_name(), "a backend plugged in by a test");
    assert!(!ctx.accelerated());
    let g = pollster::block_on(ctx.compile(&doubling())).unwrap();
    assert_eq!(g.stats(), webnn_core::GraphStats::default(), "a host backend keeps no device counters");
    let (x, y) = tensors(&ctx);
    ctx.write_tensor(&x, &floats(&[-1.5, 0.25])).unwrap();
    ctx.dispatch(&g, &[("x", &x)], &[("y", &y)]).unwrap();
    assert_eq!(pollster::block_on(ctx.read_tensor(&y)).unwrap(), floats(&[-3.0, 0.5]));
    let other = Context::cpu();
    let (foreign, _) = tensors(&other);
    let err = ctx.dispatch(&g, &[("x", &foreign)], &[("y", &y)]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeError, "a tensor of another context: {err}");
    // The backend's maxTensorByteLength (1,024 bytes here) bounds createTensor: a TypeError.
    let big = TensorDescriptor::new(OperandDescriptor::new(DataType::Float32, &[512]), true, true);
    let err = ctx.create_tensor(big).err().map(|e| e.kind);
    assert_eq!(err, Some(ErrorKind::TypeError), "past maxTensorByteLength");
    assert_eq!(ctx.op_support_limits().max_tensor_byte_length, 1024);
}
