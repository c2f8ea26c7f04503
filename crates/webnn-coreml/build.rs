//! Generates the CoreML protobuf types from Apple's `.proto` files (coremltools 9.0,
//! `mlmodel/format`, vendored unmodified in `proto/`) with a pure-Rust protobuf compiler, so
//! no `protoc` is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let files = protox::compile(["proto/Model.proto"], ["proto"])?;
    prost_build::Config::new().compile_fds(files)?;
    Ok(())
}
