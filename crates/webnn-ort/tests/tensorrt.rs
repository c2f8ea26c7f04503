//! ONNX Runtime's TensorRT execution provider (feature `tensorrt`): MobileNetV2 against the
//! cpu backend. It needs an NVIDIA GPU and an ONNX Runtime build with the provider (the PyPI
//! `onnxruntime-gpu` wheel with TensorRT's libraries); elsewhere it prints why it skips.

#[cfg(feature = "tensorrt")]
mod common;

#[cfg(not(feature = "tensorrt"))]
#[test]
fn tensorrt_mobilenet() {
    println!("skipped: built without the `tensorrt` feature");
}

#[cfg(feature = "tensorrt")]
#[test]
fn tensorrt_mobilenet() {
    use webnn_core::Backend;
    use webnn_ort::{OrtBackend, Provider};
    if !std::path::Path::new("/dev/nvidia0").exists() {
        println!("skipped: no NVIDIA GPU (/dev/nvidia0 is absent)");
        return;
    }
    let backend = OrtBackend::with_provider(Provider::TensorRt).expect("ONNX Runtime loads");
    let graph = webnn_models::mobilenet_v2(7).expect("mobilenet");
    let mut exe = match backend.compile(&graph) {
        Ok(e) => e,
        Err(e) if e.kind == webnn_core::ErrorKind::NotSupportedError => {
            println!("skipped: this ONNX Runtime has no usable TensorRT provider: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let image = webnn_models::sample_image(11);
    let got = exe.dispatch(&[("input", &image)]).expect("dispatch");
    let want = webnn_cpu::CpuBackend
        .compile(&graph)
        .unwrap()
        .dispatch(&[("input", &image)])
        .unwrap();
    let f = |b: &[u8]| {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<_>>()
    };
    let worst = f(&got[0].1.bytes)
        .iter()
        .zip(f(&want[0].1.bytes))
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    // TensorRT may pick TF32 kernels.
    assert!(worst < 1e-2, "logits differ by {worst}");
}
