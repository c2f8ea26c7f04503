//! Generates the ONNX protobuf types from the vendored `proto/onnx.proto` (ONNX 1.23, IR
//! version 14) with a pure-Rust protobuf compiler, so no `protoc` is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    let files = protox::compile(["proto/onnx.proto"], ["proto"])?;
    prost_build::Config::new().compile_fds(files)?;
    Ok(())
}
