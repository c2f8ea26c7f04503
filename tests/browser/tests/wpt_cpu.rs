//! The WPT suites on the cpu backend compiled to wasm32, inside headless Chromium: the same
//! harness and expected-failures list as the native run, so the two cannot drift apart.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;
use webnn_wpt::{embedded, evaluate, run, Expectations, Selection};

wasm_bindgen_test_configure!(run_in_browser);

fn check(label: &str, selection: Selection) {
    let expectations = match Expectations::parse(embedded::expected("cpu").unwrap_or("")) {
        Ok(e) => e,
        Err(e) => panic!("expected/cpu.txt: {e}"),
    };
    let start = js_sys_now();
    let results = run(&webnn_cpu::CpuBackend, &embedded::sources(), &selection, &mut |_| {});
    let outcome = evaluate(&results, &expectations, &|k| selection.selects(k));
    for &i in &outcome.unexpected_failures {
        let r = &results[i];
        console_log!("{} {}: {}", r.status.name().to_uppercase(), r.key(), r.message);
    }
    for &i in &outcome.unexpected_passes {
        console_log!("UNEXPECTED PASS {}", results[i].key());
    }
    console_log!("wall time {:.2} s", (js_sys_now() - start) / 1000.0);
    console_log!("WPT {}: {}", label, outcome.expectation_line());
    assert!(outcome.success(), "the WPT run in Chromium does not match expected/cpu.txt");
}

/// `performance.now()` without pulling in web-sys.
fn js_sys_now() -> f64 {
    #[wasm_bindgen::prelude::wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = performance, js_name = now)]
        fn now() -> f64;
    }
    now()
}

#[wasm_bindgen_test]
fn wpt_conformance_on_cpu_in_chromium() {
    check("conformance, cpu backend in Chromium", Selection { conformance: true, validation: false, filter: None });
}

#[wasm_bindgen_test]
fn wpt_validation_in_chromium() {
    check("validation in Chromium", Selection { conformance: false, validation: true, filter: None });
}
