//! The polyfill's Rust half (webnn-web) called directly in the page: argument conversion
//! through webnn-idl, errors as real `TypeError`/`DOMException` objects, dispatch and read
//! on the CPU and on the page's WebGPU. The JavaScript layer on top is tested by
//! `cargo test -p webnn-www` (tests/browser/pages/polyfill-tests.js).
#![cfg(target_arch = "wasm32")]

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use webnn_web::{create_context, WebBindings, WebBuilder, WebContext, WebGraph};

wasm_bindgen_test_configure!(run_in_browser);

fn name(e: &JsValue) -> String {
    Reflect::get(e, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_default()
}

async fn context(options: &str) -> WebContext {
    WebContext::create(options).await.expect("createContext")
}

async fn relu_graph(ctx: &WebContext) -> WebGraph {
    let mut b = WebBuilder::new(ctx).expect("builder");
    let x = b.input("x", r#"{"dataType":"float32","shape":[4]}"#).expect("input");
    let marker = webnn_web::OPERAND_KEY;
    let info: serde_json::Value = serde_json::from_str(&x).unwrap();
    let operand = serde_json::json!({ marker: [info[0][0], info[0][1]] });
    let y = b.op("relu", &serde_json::json!([[0, operand]]).to_string()).expect("relu");
    let y: serde_json::Value = serde_json::from_str(&y).unwrap();
    let outputs = serde_json::json!({ "y": { marker: [y[0][0], y[0][1]] } });
    b.build_graph(&outputs.to_string()).await.expect("build")
}

async fn run_on(options: &str, backend: &str) {
    let ctx = context(options).await;
    assert_eq!(ctx.backend(), backend);
    let graph = relu_graph(&ctx).await;
    let input = ctx.create_tensor(r#"{"dataType":"float32","shape":[4],"writable":true}"#).expect("input tensor");
    let output = ctx.create_tensor(r#"{"dataType":"float32","shape":[4],"readable":true}"#).expect("output tensor");
    let data: Vec<u8> = [-1.0f32, 2.0, -3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    ctx.write_tensor(&input, data, "Float32Array").expect("write");
    let mut b = WebBindings::new();
    b.input("x".into(), &input);
    b.output("y".into(), &output);
    ctx.dispatch(&graph, &b).expect("dispatch");
    let bytes: Uint8Array = JsFuture::from(ctx.read_tensor(&output)).await.expect("read").dyn_into().unwrap();
    let got: Vec<f32> = bytes.to_vec().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(got, [0.0, 2.0, 0.0, 4.0]);
    // The same tensor as input and output is the spec's TypeError.
    let mut twice = WebBindings::new();
    twice.input("x".into(), &input);
    twice.output("y".into(), &input);
    let e = ctx.dispatch(&graph, &twice).unwrap_err();
    assert!(e.is_instance_of::<js_sys::TypeError>(), "a real TypeError");
    ctx.destroy();
    let e = WebBuilder::new(&ctx).err().expect("a destroyed context");
    assert_eq!(name(&e), "InvalidStateError");
    assert!(e.is_instance_of::<js_sys::Error>() || Reflect::has(&e, &"code".into()).unwrap_or(false), "a DOMException");
}

#[wasm_bindgen_test]
async fn cpu_context() {
    run_on(r#"{"deviceType":"cpu"}"#, "cpu").await;
}

#[wasm_bindgen_test]
async fn webgpu_context() {
    run_on(r#"{"backend":"webgpu"}"#, "webgpu").await;
}

#[wasm_bindgen_test]
async fn create_context_resolves_a_promise() {
    let v = JsFuture::from(create_context(r#"{"deviceType":"cpu"}"#)).await.expect("createContext");
    assert!(Reflect::has(&v, &"backend".into()).unwrap_or(false), "a WebContext wrapper");
    let e = JsFuture::from(create_context(r#"{"powerPreference":"fastest"}"#)).await.unwrap_err();
    assert!(e.is_instance_of::<js_sys::TypeError>(), "an unknown enum value rejects with a TypeError");
}

#[wasm_bindgen_test]
async fn conversion_errors_name_the_op_the_label_and_the_rule() {
    let ctx = context("{}").await;
    let mut b = WebBuilder::new(&ctx).expect("builder");
    let e = b.input("x", r#"{"dataType":"float64","shape":[1]}"#).unwrap_err();
    assert!(e.is_instance_of::<js_sys::TypeError>());
    let x = b.input("x", r#"{"dataType":"float32","shape":[2,3]}"#).unwrap();
    let info: serde_json::Value = serde_json::from_str(&x).unwrap();
    let operand = serde_json::json!({ webnn_web::OPERAND_KEY: [info[0][0], info[0][1]] });
    let args = serde_json::json!([[0, operand], [1, 7], [2, {"label": "sm"}]]);
    let e = b.op("softmax", &args.to_string()).unwrap_err();
    let message = Reflect::get(&e, &"message".into()).unwrap().as_string().unwrap();
    assert!(message.contains("softmax") && message.contains("[sm]"), "{message}");
    let e = b.op("frobnicate", "[]").unwrap_err();
    assert!(e.is_instance_of::<js_sys::TypeError>());
    let methods: serde_json::Value = serde_json::from_str(&webnn_web::op_methods()).unwrap();
    assert_eq!(methods.as_array().map(Vec::len), Some(95));
}
