//! Both WPT suites on the wgpu backend (Mesa's lavapipe in CI), checked against
//! `expected/wgpu.txt`. No case may be skipped: every op runs on the GPU.
#![cfg(not(target_arch = "wasm32"))]

mod support;

#[test]
fn wpt_suites_on_wgpu() {
    let backend = webnn_wgpu::WgpuBackend::new().unwrap_or_else(|e| {
        panic!("this test needs a WebGPU adapter (on Linux: apt install mesa-vulkan-drivers): {e}")
    });
    support::check_backend(&backend);
}
