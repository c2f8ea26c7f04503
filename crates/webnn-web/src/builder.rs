//! `MLGraphBuilder` calls: positional JavaScript arguments named by the IDL signature and
//! converted by `webnn-idl`, exactly as the WPT harness converts its JSON.

use crate::context::{WebContext, WebGraph, WebTensor};
use crate::errors::{parse, to_js, IntoJs, JsResult};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use webnn_core::{Dim, Error, GraphBuilder, Operand, OperandDescriptor};
use webnn_idl::args::{data_type, descriptor, ml_number};
use webnn_idl::{call, Args, CallError, Marked, Operands};


/// `[builder, index, dataType, shape]` for each operand, as the JavaScript layer wraps them.
fn describe(b: &GraphBuilder, operands: &[Operand]) -> JsResult<String> {
    let mut out = Vec::new();
    for o in operands {
        let d = b.desc(*o).map_err(to_js)?;
        let (builder, index) = o.to_raw();
        out.push(json!([builder, index, d.data_type.name(), shape_json(d)]));
    }
    Ok(Value::Array(out).to_string())
}

/// Static sizes as numbers, bounded dynamic ones as `{name, maxSize}`.
pub(crate) fn shape_json(d: &OperandDescriptor) -> Value {
    Value::Array(
        d.shape
            .iter()
            .map(|dim| match dim {
                Dim::Static(n) => json!(n),
                Dim::Dynamic { name, max_size } => json!({"name": &**name, "maxSize": max_size}),
            })
            .collect(),
    )
}

#[wasm_bindgen]
pub struct WebBuilder {
    ctx: webnn::Context,
    inner: GraphBuilder,
}

#[wasm_bindgen]
impl WebBuilder {
    /// `new MLGraphBuilder(context)`.
    #[wasm_bindgen(constructor)]
    pub fn new(ctx: &WebContext) -> JsResult<WebBuilder> {
        ctx.inner.check_usable("MLGraphBuilder").js()?;
        Ok(WebBuilder { ctx: ctx.inner.clone(), inner: GraphBuilder::new() })
    }

    fn usable(&self, what: &str) -> JsResult<()> {
        self.ctx.check_usable(what).js()
    }

    /// `input(name, descriptor)`.
    pub fn input(&mut self, name: &str, desc: &str) -> JsResult<String> {
        self.usable("input")?;
        let desc = descriptor(&parse(desc, "input: descriptor")?).js()?;
        let o = self.inner.input(name, desc).js()?;
        describe(&self.inner, &[o])
    }

    /// `constant(descriptor, buffer)`; `view` is the buffer's constructor name.
    pub fn constant(&mut self, desc: &str, bytes: Vec<u8>, view: &str) -> JsResult<String> {
        self.usable("constant")?;
        let desc = descriptor(&parse(desc, "constant: descriptor")?).js()?;
        crate::context::check_buffer(&desc, bytes.len(), view).js()?;
        let o = self.inner.constant(desc, bytes).js()?;
        describe(&self.inner, &[o])
    }

    /// `constant(dataType, value)`.
    #[wasm_bindgen(js_name = constantScalar)]
    pub fn constant_scalar(&mut self, data_type_json: &str, value_json: &str) -> JsResult<String> {
        self.usable("constant")?;
        let t = data_type(&parse(data_type_json, "constant: type")?, "constant: type").js()?;
        let v = ml_number(&parse(value_json, "constant: value")?, "constant: value").js()?;
        let o = self.inner.constant_scalar(t, v).js()?;
        describe(&self.inner, &[o])
    }

    /// `constant(tensor)`: the contents of a constant tensor of the same context.
    #[wasm_bindgen(js_name = constantTensor)]
    pub fn constant_tensor(&mut self, tensor: &WebTensor) -> JsResult<String> {
        self.usable("constant")?;
        let (desc, data) = self.ctx.constant_contents(&tensor.inner).js()?;
        let o = self.inner.constant_shared(desc, data).js()?;
        describe(&self.inner, &[o])
    }

    /// Any op of the table: `args` is `[[position, value], ...]` for the arguments given.
    pub fn op(&mut self, method: &str, args: &str) -> JsResult<String> {
        let sig = webnn_idl::op_signature(method)
            .ok_or_else(|| to_js(Error::type_error(format!("'{method}' is not an MLGraphBuilder operation"))))?;
        self.usable(method)?;
        let given = parse(args, method)?;
        let mut params: Vec<(&str, &Value)> = Vec::new();
        let mut options = None;
        for pair in given.as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let (Some(k), Some(v)) = (pair.get(0).and_then(Value::as_u64), pair.get(1)) else { continue };
            match sig.params.get(k as usize) {
                Some(p) if p.name == "options" => options = Some(v),
                Some(p) => params.push((p.name.as_str(), v)),
                None => {}
            }
        }
        let a = Args::new(params, options, &Marked, false);
        let outs = call(&mut self.inner, method, &a).map_err(|e| match e {
            CallError::Api(e) => to_js(e),
            CallError::Harness(m) => to_js(Error::type_error(m)),
        })?;
        describe(&self.inner, &outs)
    }

    /// `build(outputs)`: validation now, compilation in the returned promise.
    pub fn build(&mut self, outputs: &str) -> js_sys::Promise {
        let built = self.build_graph(outputs);
        wasm_bindgen_futures::future_to_promise(async move { Ok(built.await?.into()) })
    }
}

impl WebBuilder {
    /// `build` for Rust callers (the promise above wraps it).
    pub fn build_graph(&mut self, outputs: &str) -> impl std::future::Future<Output = JsResult<WebGraph>> {
        let graph = self.usable("build").and_then(|()| {
            let outputs = parse(outputs, "build: outputs")?;
            let map = outputs
                .as_object()
                .ok_or_else(|| to_js(Error::type_error("build: outputs is not a record of MLOperands")))?;
            let mut named: Vec<(&str, Operand)> = Vec::new();
            for (name, v) in map {
                let o = Marked.resolve(v).ok_or_else(|| {
                    to_js(Error::type_error(format!("build: output '{name}' is not an MLOperand")))
                })?;
                named.push((name, o));
            }
            self.inner.build(&named).js()
        });
        let ctx = self.ctx.clone();
        async move { Ok(WebGraph { inner: ctx.compile(&graph?).await.js()? }) }
    }
}
