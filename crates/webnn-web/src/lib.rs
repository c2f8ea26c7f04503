//! webnn-web: the WebNN polyfill's wasm half. `pkg-js/src/webnn.js` defines the interface
//! objects a page sees (`navigator.ml`, `MLContext`, `MLGraphBuilder`, ...) and hands each
//! call's arguments here; this crate converts them (WebIDL rules, through `webnn-idl`) into
//! calls on the `webnn` object model, and its errors into `TypeError`/`DOMException` values.
//! It holds no rule of its own: validation is webnn-core's, lifetimes and dispatch checks are
//! the `webnn` crate's.

mod builder;
mod context;
mod errors;

pub use builder::WebBuilder;
pub use context::{create_context, WebBindings, WebContext, WebGraph, WebTensor};

use wasm_bindgen::prelude::*;

/// The marker key under which the JavaScript layer passes an operand (`[builder, index]`).
pub use webnn_idl::OPERAND_KEY;

#[wasm_bindgen(js_name = operandKey)]
pub fn operand_key() -> String {
    OPERAND_KEY.to_owned()
}

/// The methods `MLGraphBuilder.prototype` gets, with their `length` (required parameters),
/// from the op table and the spec's IDL: `[[name, length, fewest arguments, returns a
/// sequence], ...]` as JSON.
#[wasm_bindgen(js_name = opMethods)]
pub fn op_methods() -> String {
    let list: Vec<serde_json::Value> = webnn_idl::op_signatures()
        .iter()
        .map(|s| serde_json::json!([s.method, s.length(), s.min_args(), s.sequence]))
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// Provokes a Rust panic, so tests can check that the page gets an OperationError and the
/// polyfill recovers.
#[wasm_bindgen(js_name = __panicForTest)]
pub fn panic_for_test() {
    panic!("a panic provoked by a test");
}

/// Sets the number of threads CPU contexts use (the caller and `n - 1` Web Workers the page
/// starts, each calling `cpuWorker`) before the first context; returns the count in force,
/// which is 1 in a build without threads.
#[wasm_bindgen(js_name = cpuThreads)]
pub fn cpu_threads(n: u32) -> u32 {
    webnn::set_cpu_threads(n as usize) as u32
}

/// The body of one CPU worker (a Web Worker sharing this module's memory): serves the CPU
/// contexts' pool and returns only when the module goes away, or at once (false) when the
/// pool has all its workers.
#[wasm_bindgen(js_name = cpuWorker)]
pub fn cpu_worker() -> bool {
    webnn::serve_cpu_worker()
}

/// Whether this build runs CPU contexts on several threads (shared memory and atomics).
#[wasm_bindgen(js_name = threadsBuild)]
pub fn threads_build() -> bool {
    cfg!(target_feature = "atomics")
}

/// CPU workers serving the pool now (they arrive a little after the first context).
#[wasm_bindgen(js_name = cpuWorkersPresent)]
pub fn cpu_workers_present() -> u32 {
    webnn::cpu_workers_present() as u32
}
