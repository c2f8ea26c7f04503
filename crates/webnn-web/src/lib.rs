//! webnn-web: the WebNN polyfill's wasm half. `pkg-js/src/webnn.js` defines the interface
//! objects a page sees (`navigator.ml`, `MLContext`, `MLGraphBuilder`, ...) and hands each
//! call's arguments here; this crate converts them (WebIDL rules, through `webnn-idl`) into
//! calls on the `webnn` object model, and its errors into `TypeError`/`DOMException` values.
//! It holds no rule of its own: validation is webnn-core's, lifetimes and dispatch checks are
//! the `webnn` crate's.

mod builder;
mod context;
mod errors;
mod limits;

pub use builder::WebBuilder;
pub use context::{create_context, WebBindings, WebContext, WebGraph, WebTensor};

use wasm_bindgen::prelude::*;

/// The marker key under which the JavaScript layer passes an operand (`[builder, index]`).
/// It can never be a dictionary member, so dropping it from user objects loses nothing.
pub const OPERAND_KEY: &str = "\u{0}operand";

#[wasm_bindgen(js_name = operandKey)]
pub fn operand_key() -> String {
    OPERAND_KEY.to_owned()
}

/// The methods `MLGraphBuilder.prototype` gets, with their `length` (required parameters),
/// from the op table and the spec's IDL: `[[name, length, fewest arguments, returns a
/// sequence], ...]` as JSON.
#[wasm_bindgen(js_name = opMethods)]
pub fn op_methods() -> String {
    let list: Vec<serde_json::Value> =
        webnn_idl::op_signatures().iter().map(|s| serde_json::json!([s.method, s.length(), s.min_args(), s.sequence])).collect();
    serde_json::Value::Array(list).to_string()
}

/// Provokes a Rust panic, so tests can check that the page gets an OperationError and the
/// polyfill recovers.
#[wasm_bindgen(js_name = __panicForTest)]
pub fn panic_for_test() {
    panic!("a panic provoked by a test");
}
