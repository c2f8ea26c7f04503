//! Both WPT suites on the cpu backend, checked against `expected/cpu.txt`.
#![cfg(not(target_arch = "wasm32"))]

mod support;

#[test]
fn wpt_suites_on_cpu() {
    support::check_backend(&webnn_cpu::CpuBackend);
}
