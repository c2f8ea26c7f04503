//! `ML.createContext`, `MLContext`, `MLGraph`, `MLTensor`: thin wrappers over the `webnn`
//! object model; the JavaScript layer turns their results into promises and interface objects.

use crate::errors::{parse, IntoJs, JsResult};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use webnn::{BackendKind, ContextOptions, DeviceType, PowerPreference, TensorDescriptor};
use webnn_core::{check_view_type, Error, OperandDescriptor, ViewType};
use webnn_idl::args::{boolean, descriptor, enum_value};

/// The spec's "validate buffer with descriptor": the view's element type must fit the data
/// type (`DataView` and `ArrayBuffer` fit any) and the byte length must match.
pub(crate) fn check_buffer(desc: &OperandDescriptor, len: usize, view: &str) -> webnn_core::Result<()> {
    if let Some(v) = ViewType::from_name(view) {
        check_view_type(desc.data_type, v)?;
    } else if view != "ArrayBuffer" && view != "SharedArrayBuffer" {
        return Err(Error::type_error(format!("a {view} is not an AllowSharedBufferSource")));
    }
    let want = desc.max_byte_length().unwrap_or(0);
    if len as u64 != want {
        return Err(Error::type_error(format!("{desc} needs {want} bytes, the buffer has {len}")));
    }
    Ok(())
}

const POWER: &[(&str, PowerPreference)] = &[
    ("default", PowerPreference::Default),
    ("high-performance", PowerPreference::HighPerformance),
    ("low-power", PowerPreference::LowPower),
];
const DEVICE: &[(&str, DeviceType)] = &[("cpu", DeviceType::Cpu), ("gpu", DeviceType::Gpu), ("npu", DeviceType::Gpu)];
/// The names `MLContext.backend` reports.
const BACKEND: &[(&str, BackendKind)] =
    &[("cpu", BackendKind::Cpu), ("reference", BackendKind::Reference), ("webgpu", BackendKind::Wgpu)];

/// `MLContextOptions` (plus the `deviceType` hint) from the JavaScript layer's JSON, and the
/// polyfill's own `backend` member: a backend named outright, the one way to get WebGPU on a
/// software adapter (tests, and demos that show the WGSL path there).
fn context_options(v: &Value) -> webnn_core::Result<ContextOptions> {
    let mut o = ContextOptions::default();
    let Some(m) = v.as_object() else { return Ok(o) };
    if let Some(p) = m.get("powerPreference") {
        o.power_preference = enum_value(p, POWER, "powerPreference")?;
    }
    if let Some(a) = m.get("accelerated") {
        o.accelerated = boolean(a);
    }
    if let Some(d) = m.get("deviceType") {
        o.device_type = Some(enum_value(d, DEVICE, "deviceType")?);
    }
    if let Some(b) = m.get("backend") {
        o.backend = Some(enum_value(b, BACKEND, "backend")?);
    }
    Ok(o)
}

/// `ML.createContext(options)`.
#[wasm_bindgen(js_name = createContext)]
pub fn create_context(options: &str) -> js_sys::Promise {
    let created = WebContext::create(options);
    wasm_bindgen_futures::future_to_promise(async move { Ok(created.await?.into()) })
}

impl WebContext {
    /// `createContext` for Rust callers (the promise above wraps it).
    pub fn create(options: &str) -> impl std::future::Future<Output = JsResult<WebContext>> {
        let options = parse(options, "createContext").and_then(|v| context_options(&v).js());
        async move { Ok(WebContext { inner: webnn::Ml.create_context(options?).await.js()? }) }
    }
}

#[wasm_bindgen]
pub struct WebContext {
    pub(crate) inner: webnn::Context,
}

#[wasm_bindgen]
impl WebContext {
    pub fn accelerated(&self) -> bool {
        self.inner.accelerated()
    }

    /// `"cpu"` or `"webgpu"`: the backend the context runs on.
    pub fn backend(&self) -> String {
        self.inner.backend().name().to_owned()
    }

    #[wasm_bindgen(js_name = deviceName)]
    pub fn device_name(&self) -> String {
        self.inner.device_name()
    }

    /// `opSupportLimits()` as JSON in the shape of `MLOpSupportLimits`.
    #[wasm_bindgen(js_name = opSupportLimits)]
    pub fn op_support_limits(&self) -> String {
        let mut v = webnn_idl::limits::to_json(&self.inner.op_support_limits());
        // Extension: bounded dynamic dimensions ({name, maxSize} in a descriptor's shape).
        v["flexibleInputs"] = self.inner.dynamic_dimensions().into();
        v.to_string()
    }

    #[wasm_bindgen(js_name = createTensor)]
    pub fn create_tensor(&self, desc: &str) -> JsResult<WebTensor> {
        let v = parse(desc, "createTensor")?;
        let d = descriptor(&v).js()?;
        // The 2024 spec's `usage` flags (READ = 2, WRITE = 4), which pages written for
        // Chromium still pass, stand in for `readable`/`writable` when those are absent.
        let usage = v.get("usage").and_then(Value::as_f64).unwrap_or(0.0) as u32;
        let flag = |k: &str, bit: u32| v.get(k).map_or(usage & bit != 0, boolean);
        let t = self.inner.create_tensor(TensorDescriptor::new(d, flag("readable", 2), flag("writable", 4))).js()?;
        Ok(WebTensor { inner: t })
    }

    #[wasm_bindgen(js_name = createConstantTensor)]
    pub fn create_constant_tensor(&self, desc: &str, bytes: Vec<u8>, view: &str) -> JsResult<WebTensor> {
        let d = descriptor(&parse(desc, "createConstantTensor")?).js()?;
        check_buffer(&d, bytes.len(), view).js()?;
        let t = self.inner.create_constant_tensor(d, &bytes).js()?;
        Ok(WebTensor { inner: t })
    }

    /// `writeTensor`; `view` is the buffer's constructor name (its element type must fit).
    #[wasm_bindgen(js_name = writeTensor)]
    pub fn write_tensor(&self, tensor: &WebTensor, bytes: Vec<u8>, view: &str) -> JsResult<()> {
        tensor.check_buffer(bytes.len(), view)?;
        self.inner.write_tensor(&tensor.inner, &bytes).js()
    }

    /// Resolves to a `Uint8Array` of the tensor's bytes.
    #[wasm_bindgen(js_name = readTensor)]
    pub fn read_tensor(&self, tensor: &WebTensor) -> js_sys::Promise {
        // Started here, in the page's task: a write or dispatch the page makes next must not
        // change what this read returns.
        let read = self.inner.read_tensor(&tensor.inner);
        wasm_bindgen_futures::future_to_promise(async move {
            let bytes = read.await.js()?;
            Ok(js_sys::Uint8Array::from(bytes.as_slice()).into())
        })
    }

    pub fn dispatch(&self, graph: &WebGraph, bindings: &WebBindings) -> JsResult<()> {
        let named = |v: &[(String, webnn::Tensor)]| -> Vec<(String, webnn::Tensor)> { v.to_vec() };
        let (ins, outs) = (named(&bindings.inputs), named(&bindings.outputs));
        let ins: Vec<(&str, &webnn::Tensor)> = ins.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let outs: Vec<(&str, &webnn::Tensor)> = outs.iter().map(|(n, t)| (n.as_str(), t)).collect();
        self.inner.dispatch(&graph.inner, &ins, &outs).js()
    }

    pub fn destroy(&self) {
        self.inner.destroy();
    }

    #[wasm_bindgen(js_name = isDestroyed)]
    pub fn is_destroyed(&self) -> bool {
        self.inner.is_destroyed()
    }

    /// Whether `other` is this context (`MLGraphBuilder` and tensors check their context).
    pub fn same(&self, other: &WebContext) -> bool {
        self.inner.same(&other.inner)
    }
}

/// The named tensors of one `dispatch` call, collected one by one from the JavaScript records.
#[wasm_bindgen]
#[derive(Default)]
pub struct WebBindings {
    inputs: Vec<(String, webnn::Tensor)>,
    outputs: Vec<(String, webnn::Tensor)>,
}

#[wasm_bindgen]
impl WebBindings {
    #[wasm_bindgen(constructor)]
    pub fn new() -> WebBindings {
        WebBindings::default()
    }
    pub fn input(&mut self, name: String, t: &WebTensor) {
        self.inputs.push((name, t.inner.clone()));
    }
    pub fn output(&mut self, name: String, t: &WebTensor) {
        self.outputs.push((name, t.inner.clone()));
    }
}

#[wasm_bindgen]
pub struct WebGraph {
    pub(crate) inner: webnn::Graph,
}

#[wasm_bindgen]
impl WebGraph {
    pub fn destroy(&self) {
        self.inner.destroy();
    }
}

#[wasm_bindgen]
pub struct WebTensor {
    pub(crate) inner: webnn::Tensor,
}

#[wasm_bindgen]
impl WebTensor {
    #[wasm_bindgen(js_name = dataType)]
    pub fn data_type(&self) -> String {
        self.inner.desc().data_type.name().to_owned()
    }
    /// The shape as JSON (static sizes as numbers).
    pub fn shape(&self) -> String {
        crate::builder::shape_json(self.inner.desc()).to_string()
    }
    pub fn readable(&self) -> bool {
        self.inner.descriptor().readable
    }
    pub fn writable(&self) -> bool {
        self.inner.descriptor().writable
    }
    pub fn constant(&self) -> bool {
        self.inner.descriptor().constant
    }
    #[wasm_bindgen(js_name = byteLength)]
    pub fn byte_length(&self) -> usize {
        self.inner.byte_length()
    }
    /// "Validate buffer with descriptor" for a buffer of `len` bytes viewed as `view`
    /// (`writeTensor`, `readTensor(tensor, outputData)`): a TypeError when it does not fit.
    #[wasm_bindgen(js_name = checkBuffer)]
    pub fn check_buffer(&self, len: usize, view: &str) -> JsResult<()> {
        check_buffer(self.inner.desc(), len, view).js()
    }
    pub fn destroy(&self) {
        self.inner.destroy();
    }
}

