//! Conversions between the harness's values and the page's JavaScript values.

use js_sys::{Array, Function, Object, Reflect, Uint8Array};
use serde_json::Value;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use webnn_core::{DataType, Dim, Error, ErrorKind, OperandDescriptor, ViewType};

pub fn get(target: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(target, &key.into())
}

pub fn global(name: &str) -> Result<JsValue, JsValue> {
    get(&js_sys::global(), name)
}

/// Calls `target[method](...args)`.
pub fn invoke(target: &JsValue, method: &str, args: &Array) -> Result<JsValue, JsValue> {
    let f: Function = get(target, method)?.dyn_into().map_err(|_| JsValue::from(format!("{method} is not a function")))?;
    Reflect::apply(&f, target, args)
}

/// What the page threw, as the harness's error: the exception's name picks the kind.
pub fn to_error(e: JsValue) -> Error {
    let name = get(&e, "name").ok().and_then(|n| n.as_string()).unwrap_or_default();
    let message = get(&e, "message").ok().and_then(|m| m.as_string()).unwrap_or_else(|| format!("{e:?}"));
    let kind = match name.as_str() {
        "TypeError" => ErrorKind::TypeError,
        "DataError" => ErrorKind::DataError,
        "NotSupportedError" => ErrorKind::NotSupportedError,
        "InvalidStateError" => ErrorKind::InvalidStateError,
        _ => ErrorKind::OperationError,
    };
    Error::new(kind, format!("({name}) {message}"))
}

/// A JSON value as the JavaScript argument WPT passes; strings that name an operand are it.
pub fn to_js(v: &Value, operands: &HashMap<String, JsValue>) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN).into(),
        Value::String(s) => operands.get(s).cloned().unwrap_or_else(|| special(s)),
        Value::Array(items) => items.iter().map(|x| to_js(x, operands)).collect::<Array>().into(),
        Value::Object(m) => {
            let o = Object::new();
            for (k, x) in m {
                let _ = Reflect::set(&o, &k.into(), &to_js(x, operands));
            }
            o.into()
        }
    }
}

/// The extract writes NaN, the infinities and -0 as strings, and BigInts as decimal strings
/// (which stay strings: WebIDL converts them as `MLNumber` does).
fn special(s: &str) -> JsValue {
    match s {
        "NaN" => f64::NAN.into(),
        "Infinity" => f64::INFINITY.into(),
        "-Infinity" => f64::NEG_INFINITY.into(),
        "-0" => (-0.0f64).into(),
        _ => s.into(),
    }
}

/// `{dataType, shape}` (plus extra members).
pub fn descriptor(desc: &OperandDescriptor, extra: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    let _ = Reflect::set(&o, &"dataType".into(), &desc.data_type.name().into());
    let shape: Array = desc.max_shape().iter().map(|&d| JsValue::from(d)).collect();
    let _ = Reflect::set(&o, &"shape".into(), &shape);
    for (k, v) in extra {
        let _ = Reflect::set(&o, &(*k).into(), v);
    }
    o.into()
}

/// An `MLOperand`'s or `MLTensor`'s descriptor.
pub fn read_descriptor(o: &JsValue) -> Result<OperandDescriptor, Error> {
    let bad = |what: &str| Error::operation_error(format!("the object's {what} is unreadable"));
    let t = get(o, "dataType").ok().and_then(|t| t.as_string()).ok_or_else(|| bad("dataType"))?;
    let t = DataType::from_name(&t).ok_or_else(|| bad("dataType"))?;
    let shape: Array = get(o, "shape").ok().and_then(|s| s.dyn_into().ok()).ok_or_else(|| bad("shape"))?;
    let dims = shape.iter().map(|d| d.as_f64().map(|n| Dim::Static(n as u32)).ok_or_else(|| bad("shape"))).collect::<Result<_, _>>()?;
    Ok(OperandDescriptor::with_dims(t, dims))
}

/// The constructor name of the typed array WPT passes for `data_type` data.
pub fn natural_view(data_type: DataType) -> ViewType {
    match data_type {
        DataType::Float32 => ViewType::Float32,
        DataType::Float16 => ViewType::Float16,
        DataType::Int32 => ViewType::Int32,
        DataType::Uint32 => ViewType::Uint32,
        DataType::Int64 => ViewType::BigInt64,
        DataType::Uint64 => ViewType::BigUint64,
        DataType::Int8 => ViewType::Int8,
        DataType::Uint8 | DataType::Int4 | DataType::Uint4 => ViewType::Uint8,
    }
}

fn view_name(v: ViewType) -> (&'static str, u32) {
    match v {
        ViewType::Int8 => ("Int8Array", 1),
        ViewType::Uint8 => ("Uint8Array", 1),
        ViewType::Uint8Clamped => ("Uint8ClampedArray", 1),
        ViewType::Int16 => ("Int16Array", 2),
        ViewType::Uint16 => ("Uint16Array", 2),
        ViewType::Int32 => ("Int32Array", 4),
        ViewType::Uint32 => ("Uint32Array", 4),
        ViewType::Float16 => ("Float16Array", 2),
        ViewType::Float32 => ("Float32Array", 4),
        ViewType::Float64 => ("Float64Array", 8),
        ViewType::BigInt64 => ("BigInt64Array", 8),
        ViewType::BigUint64 => ("BigUint64Array", 8),
        ViewType::DataView => ("DataView", 1),
    }
}

/// `bytes` in a new buffer, viewed as `view` (over whole elements, as WPT sizes its arrays).
/// Float16 data goes in a `Uint16Array` where the page has no `Float16Array`.
pub fn typed_array(bytes: &[u8], view: ViewType) -> Result<JsValue, JsValue> {
    let (mut name, size) = view_name(view);
    if name == "Float16Array" && global(name)?.is_undefined() {
        name = "Uint16Array";
    }
    let copy = Uint8Array::from(bytes);
    let ctor: Function = global(name)?.dyn_into()?;
    let args = Array::of3(&copy.buffer(), &0.into(), &((bytes.len() as u32 / size).into()));
    if view == ViewType::DataView {
        return Reflect::construct(&ctor, &Array::of1(&copy.buffer()));
    }
    Reflect::construct(&ctor, &args)
}

/// The bytes of an `ArrayBuffer`.
pub fn bytes(buffer: &JsValue) -> Vec<u8> {
    Uint8Array::new(buffer).to_vec()
}
