#![cfg(target_arch = "wasm32")]
use wasm_bindgen_test::*;
wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn rig_runs_in_chromium() {
    assert_eq!(1 + 1, 2);
}
