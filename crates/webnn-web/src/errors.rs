//! `webnn_core::Error` as the JavaScript exception the spec names.

use wasm_bindgen::prelude::*;
use webnn_core::{Error, ErrorKind};

/// A `TypeError`, or a `DOMException` with the spec's name; the message keeps the op, the
/// label and the rule (`conv2d [label]: rule`).
pub fn to_js(e: Error) -> JsValue {
    let message = e.to_string();
    let message = message.strip_prefix(&format!("{}: ", e.kind.name())).unwrap_or(&message).to_owned();
    match e.kind {
        ErrorKind::TypeError => js_sys::TypeError::new(&message).into(),
        kind => dom_exception(&message, kind.name()),
    }
}

pub fn dom_exception(message: &str, name: &str) -> JsValue {
    let ctor = js_sys::Reflect::get(&js_sys::global(), &"DOMException".into())
        .ok()
        .and_then(|c| c.dyn_into::<js_sys::Function>().ok());
    let args = js_sys::Array::of2(&message.into(), &name.into());
    match ctor.and_then(|c| js_sys::Reflect::construct(&c, &args).ok()) {
        Some(e) => e,
        None => js_sys::Error::new(&format!("{name}: {message}")).into(),
    }
}

pub type JsResult<T> = Result<T, JsValue>;

pub trait IntoJs<T> {
    fn js(self) -> JsResult<T>;
}

impl<T> IntoJs<T> for webnn_core::Result<T> {
    fn js(self) -> JsResult<T> {
        self.map_err(to_js)
    }
}

/// Parses the JSON the JavaScript layer made of an argument.
pub fn parse(json: &str, what: &str) -> JsResult<serde_json::Value> {
    serde_json::from_str(json).map_err(|e| to_js(Error::type_error(format!("{what}: {e}"))))
}
