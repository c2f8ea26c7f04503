//! `Session` over the page's WebNN objects.

use crate::js::{bytes, descriptor, get, global, invoke, natural_view, read_descriptor, to_error, to_js, typed_array};
use js_sys::{Array, Object, Promise, Reflect};
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use webnn_core::limits::TensorLimits;
use webnn_core::ops::InputLayout;
use webnn_core::{DataType, DataTypeSet, Error, HostTensor, OpKind, OpSupportLimits, OperandDescriptor, ViewType};
use webnn_wpt::ops_json::CallError;
use webnn_wpt::session::{Computed, Session};

pub struct JsSession {
    context: JsValue,
    builder: JsValue,
    limits: OpSupportLimits,
}

async fn wait(p: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(Promise::from(p)).await
}

impl JsSession {
    /// `navigator.ml.createContext(options)`.
    pub async fn open(options: &JsValue) -> Result<JsSession, JsValue> {
        let ml = get(&global("navigator")?, "ml")?;
        if ml.is_undefined() {
            return Err("the page has no navigator.ml".into());
        }
        let context = wait(invoke(&ml, "createContext", &Array::of1(options))?).await?;
        let limits = invoke(&context, "opSupportLimits", &Array::new())?;
        let limits = parse_limits(&limits).map_err(|e| JsValue::from(format!("opSupportLimits(): {e}")))?;
        Ok(JsSession { context, builder: JsValue::UNDEFINED, limits })
    }

    /// The backend the context reports (the polyfill's `backend` extension) for the report.
    pub fn backend_name(&self) -> String {
        let b = get(&self.context, "backend").ok().and_then(|b| b.as_string()).unwrap_or_else(|| "native".into());
        format!("browser-{b}")
    }

    pub fn close(&self) {
        let _ = invoke(&self.context, "destroy", &Array::new());
    }

    async fn compute_js(&mut self, outputs: &[(&str, JsValue)], feeds: &[(&str, HostTensor)]) -> Computed {
        let step = |stage: &str| {
            let stage = stage.to_owned();
            move |e: JsValue| (stage.clone(), to_error(e))
        };
        let named = Object::new();
        for (n, o) in outputs {
            let _ = Reflect::set(&named, &(*n).into(), o);
        }
        let graph = wait(invoke(&self.builder, "build", &Array::of1(&named)).map_err(step("build"))?)
            .await
            .map_err(step("build"))?;
        let ctx = self.context.clone();
        let tensor = |desc: &OperandDescriptor, flag: &str| {
            let d = descriptor(desc, &[(flag, JsValue::TRUE)]);
            invoke(&ctx, "createTensor", &Array::of1(&d))
        };
        let mut made = Vec::new();
        let inputs = Object::new();
        for (name, t) in feeds {
            let x = wait(tensor(&t.desc, "writable").map_err(step("createTensor"))?).await.map_err(step("createTensor"))?;
            let data = typed_array(&t.bytes, ViewType::Uint8).map_err(step("writeTensor"))?;
            invoke(&ctx, "writeTensor", &Array::of2(&x, &data)).map_err(step("writeTensor"))?;
            let _ = Reflect::set(&inputs, &(*name).into(), &x);
            made.push(x);
        }
        let outs = Object::new();
        let mut reads = Vec::new();
        for (name, o) in outputs {
            let desc = read_descriptor(o).map_err(|e| ("build".to_owned(), e))?;
            let x = wait(tensor(&desc, "readable").map_err(step("createTensor"))?).await.map_err(step("createTensor"))?;
            let _ = Reflect::set(&outs, &(*name).into(), &x);
            reads.push((name.to_string(), desc, x.clone()));
            made.push(x);
        }
        invoke(&ctx, "dispatch", &Array::of3(&graph, &inputs, &outs)).map_err(step("dispatch"))?;
        let mut results = Vec::new();
        for (name, desc, x) in reads {
            let buffer = wait(invoke(&ctx, "readTensor", &Array::of1(&x)).map_err(step("readTensor"))?)
                .await
                .map_err(step("readTensor"))?;
            results.push((name, HostTensor { desc, bytes: bytes(&buffer) }));
        }
        // Free as a careful page would, so thousands of cases do not pile up memory.
        for x in made.iter().chain(std::iter::once(&graph)) {
            let _ = invoke(x, "destroy", &Array::new());
        }
        Ok(results)
    }
}

/// `opSupportLimits()` read back into the harness's type (the data types per slot decide
/// which cases apply).
fn parse_limits(v: &JsValue) -> Result<OpSupportLimits, String> {
    let text = js_sys::JSON::stringify(v).map_err(|_| "not serialisable")?.as_string().unwrap_or_default();
    let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let tensor = |t: Option<&Value>| -> TensorLimits {
        let mut set = DataTypeSet(0);
        for name in t.and_then(|t| t.get("dataTypes")).and_then(Value::as_array).into_iter().flatten() {
            if let Some(d) = name.as_str().and_then(DataType::from_name) {
                set = DataTypeSet(set.0 | d.set().0);
            }
        }
        let rank = |k: &str| t.and_then(|t| t.get("rankRange")).and_then(|r| r.get(k)).and_then(Value::as_u64);
        TensorLimits { data_types: set, min_rank: rank("min").unwrap_or(0) as u32, max_rank: rank("max").unwrap_or(0) as u32 }
    };
    let ops = OpKind::ALL
        .iter()
        .map(|k| {
            let entry = v.get(k.name());
            let slots = k.slots().iter().map(|s| (s.name, tensor(entry.and_then(|e| e.get(s.name))))).collect();
            (*k, slots)
        })
        .collect();
    Ok(OpSupportLimits {
        preferred_input_layout: match v.get("preferredInputLayout").and_then(Value::as_str) {
            Some("nhwc") => InputLayout::Nhwc,
            _ => InputLayout::Nchw,
        },
        max_tensor_byte_length: v.get("maxTensorByteLength").and_then(Value::as_u64).unwrap_or(0),
        input: tensor(v.get("input")),
        constant: tensor(v.get("constant")),
        output: tensor(v.get("output")),
        ops,
    })
}

impl Session for JsSession {
    type Operand = JsValue;

    fn limits(&self) -> &OpSupportLimits {
        &self.limits
    }

    fn new_builder(&mut self) -> Result<(), Error> {
        let ctor: js_sys::Function = global("MLGraphBuilder").and_then(|c| c.dyn_into()).map_err(to_error)?;
        self.builder = Reflect::construct(&ctor, &Array::of1(&self.context)).map_err(to_error)?;
        Ok(())
    }

    fn input(&mut self, name: &str, desc: &OperandDescriptor) -> Result<JsValue, Error> {
        invoke(&self.builder, "input", &Array::of2(&name.into(), &descriptor(desc, &[]))).map_err(to_error)
    }

    fn constant(&mut self, desc: &OperandDescriptor, data: Vec<u8>, view: Option<ViewType>) -> Result<JsValue, Error> {
        let array = typed_array(&data, view.unwrap_or(natural_view(desc.data_type))).map_err(to_error)?;
        invoke(&self.builder, "constant", &Array::of2(&descriptor(desc, &[]), &array)).map_err(to_error)
    }

    fn call(
        &mut self,
        method: &str,
        params: &[(&str, &Value)],
        options: Option<&Value>,
        fallback: bool,
        operands: &HashMap<String, JsValue>,
    ) -> Result<Vec<JsValue>, CallError> {
        let sig = webnn_idl::op_signature(method)
            .ok_or_else(|| CallError::Harness(format!("'{method}' is not an MLGraphBuilder operation")))?;
        // Option members written among the parameters (validation rows) join the options.
        let mut merged = options.cloned();
        if fallback {
            for (name, v) in params {
                if !sig.params.iter().any(|p| p.name == *name) {
                    let m = merged.get_or_insert_with(|| Value::Object(Default::default()));
                    if let Some(m) = m.as_object_mut() {
                        m.entry(name.to_string()).or_insert((*v).clone());
                    }
                }
            }
        }
        // Parameters by the IDL's names; a parameter the data names otherwise (cast's
        // `dataType` is `type` there, logicalNot's `a` is `input`) takes the next unclaimed one.
        let named: Vec<Option<usize>> =
            sig.params.iter().map(|p| params.iter().position(|(n, _)| *n == p.name)).collect();
        let mut spare = params.iter().enumerate().filter(|(k, (n, _))| {
            !named.contains(&Some(*k)) && (!fallback || sig.params.iter().any(|p| p.name == *n))
        });
        let args = Array::new();
        let mut last = 0;
        for (i, p) in sig.params.iter().enumerate() {
            let v = match (p.name.as_str(), named[i]) {
                ("options", _) => merged.as_ref(),
                (_, Some(k)) => Some(params[k].1),
                (_, None) => spare.next().map(|(_, (_, v))| *v),
            };
            args.push(&v.map(|v| to_js(v, operands)).unwrap_or(JsValue::UNDEFINED));
            if v.is_some() {
                last = i + 1;
            }
        }
        args.set_length(last as u32);
        let out = invoke(&self.builder, method, &args).map_err(|e| CallError::Api(to_error(e)))?;
        Ok(if Array::is_array(&out) { Array::from(&out).to_vec() } else { vec![out] })
    }

    fn desc(&self, o: &JsValue) -> Result<OperandDescriptor, Error> {
        read_descriptor(o)
    }

    fn compute<'a>(
        &'a mut self,
        outputs: &'a [(&'a str, JsValue)],
        feeds: &'a [(&'a str, HostTensor)],
    ) -> Pin<Box<dyn Future<Output = Computed> + 'a>> {
        Box::pin(self.compute_js(outputs, feeds))
    }
}
