//! Both WPT suites on the ort backend (ONNX Runtime's CPU execution provider), checked
//! against `expected/ort.txt`. No case may be skipped: every op and data type converts.
#![cfg(not(target_arch = "wasm32"))]

mod support;

#[test]
fn wpt_suites_on_ort() {
    let backend = webnn_ort::OrtBackend::new().unwrap_or_else(|e| {
        panic!("this test needs ONNX Runtime (bash scripts/setup.sh all, then source scripts/env.sh): {e}")
    });
    support::check_backend(&backend);
}
