//! The wasm half of `loadOnnx` (`pkg-js/src/onnx.mjs`): an ONNX model imported by
//! `webnn-onnx` (so the spec's validation runs here, with errors naming the node) and written
//! as the `MLGraphBuilder` calls that build it (`webnn_idl::emit`). The page's own
//! `navigator.ml` then builds and runs the graph: this polyfill's, or a browser's WebNN. The
//! module holds no backend, so it stays small and loads only where a page imports it.

use js_sys::{Object, Reflect, Uint8Array};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use webnn_onnx::import::{import, DimSpec, ImportOptions};

fn set(o: &Object, key: &str, value: &JsValue) -> Result<(), JsError> {
    Reflect::set(o, &key.into(), value).map(|_| ()).map_err(|_| JsError::new("Reflect.set"))
}

/// `loadOnnx`'s options as JSON: `dims` (`{name: size}` fixes a `dim_param`, `{name: {maxSize}}`
/// bounds it, or the importer's text form `"batch=1,seq<=128"`) and `shapes` (`{input: [1, 3,
/// 224, 224]}`: an input's whole shape).
fn options(json: &str) -> Result<ImportOptions, String> {
    let v: Value = if json.trim().is_empty() { Value::Null } else { serde_json::from_str(json).map_err(|e| e.to_string())? };
    let mut o = ImportOptions::default();
    let size = |v: &Value, what: &str| {
        v.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|&n| n > 0).ok_or_else(|| format!("{what}: {v} is not a positive size"))
    };
    match v.get("dims") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => o = o.with_dims(s).map_err(|e| e.to_string())?,
        Some(Value::Object(m)) => {
            for (name, d) in m {
                let spec = match d.get("maxSize") {
                    Some(max) => DimSpec::Bounded(size(max, &format!("dims.{name}.maxSize"))?),
                    None => DimSpec::Fixed(size(d, &format!("dims.{name}"))?),
                };
                o.dims.insert(name.clone(), spec);
            }
        }
        Some(other) => return Err(format!("dims: {other} is neither an object nor a string")),
    }
    if let Some(shapes) = v.get("shapes").filter(|s| !s.is_null()) {
        let m = shapes.as_object().ok_or("shapes: not an object of input names")?;
        for (name, s) in m {
            let list = s.as_array().ok_or_else(|| format!("shapes.{name}: not a sequence"))?;
            let shape = list.iter().map(|d| size(d, &format!("shapes.{name}"))).collect::<Result<Vec<u32>, String>>()?;
            o.shapes.insert(name.clone(), shape);
        }
    }
    Ok(o)
}

/// Imports a serialized ONNX model. Returns `{program, constants, opset}`: `program` the
/// JSON of `webnn_idl::emit::program`, `constants` the bytes its constants point into.
/// Errors carry the importer's message (node, op type, opset, what is missing) and the
/// DOMException name the spec would use (`name` of the thrown error).
#[wasm_bindgen(js_name = importOnnx)]
pub fn import_onnx(bytes: &[u8], options_json: &str) -> Result<Object, JsValue> {
    let fail = |name: &str, message: String| -> JsValue {
        let e = js_sys::Error::new(&message);
        e.set_name(name);
        e.into()
    };
    let options = options(options_json).map_err(|m| fail("TypeError", format!("loadOnnx options: {m}")))?;
    let imported = import(bytes, &options).map_err(|e| fail(e.kind.name(), e.to_string()))?;
    let (program, blob) = webnn_idl::emit::program(&imported.graph).map_err(|e| fail(e.kind.name(), e.to_string()))?;
    let out = Object::new();
    let js = |r: Result<(), JsError>| r.map_err(JsValue::from);
    js(set(&out, "program", &program.to_string().into()))?;
    js(set(&out, "constants", &Uint8Array::from(&blob[..])))?;
    js(set(&out, "opset", &JsValue::from_f64(imported.opset as f64)))?;
    Ok(out)
}
