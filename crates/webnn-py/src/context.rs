//! `ML`, `MLContext`, `MLGraph` and `MLTensor` over the facade's objects.

use crate::arrays::{self, describe, shape_py};
use crate::errors::{to_py, type_error, Raise};
use crate::Owned;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use webnn::{BackendKind, ContextOptions, DeviceType, PowerPreference, TensorDescriptor};
use webnn_core::{Error, OperandDescriptor};

/// `navigator.ml`.
#[pyclass(name = "ML", module = "webnn", frozen)]
pub struct Ml;

fn enum_arg<T: Copy>(value: &str, table: &[(&str, T)], what: &str) -> PyResult<T> {
    let key = value.replace('_', "-");
    table
        .iter()
        .find(|(n, _)| *n == key)
        .map(|(_, t)| *t)
        .ok_or_else(|| type_error(format!("createContext: '{value}' is not a valid {what}")))
}

#[pymethods]
impl Ml {
    #[new]
    fn new() -> Self {
        Ml
    }

    /// `createContext(options)`. `device_type` is the hint the spec dropped and frameworks
    /// still pass ('gpu' asks for a hardware adapter; a software one gives the CPU);
    /// `backend` names one outright: 'cpu' (the fast CPU backend), 'reference', 'wgpu',
    /// 'ort' (ONNX Runtime, when the package is built with it), 'coreml'.
    #[pyo3(signature = (device_type = None, power_preference = "default", accelerated = true, backend = None))]
    fn create_context(
        &self,
        py: Python<'_>,
        device_type: Option<&str>,
        power_preference: &str,
        accelerated: bool,
        backend: Option<&str>,
    ) -> PyResult<MlContext> {
        let device_type = device_type
            .map(|d| enum_arg(d, &[("cpu", DeviceType::Cpu), ("gpu", DeviceType::Gpu), ("npu", DeviceType::Gpu)], "device type"))
            .transpose()?;
        let preference = enum_arg(
            power_preference,
            &[
                ("default", PowerPreference::Default),
                ("high-performance", PowerPreference::HighPerformance),
                ("low-power", PowerPreference::LowPower),
            ],
            "power preference",
        )?;
        let backend = backend
            .map(|b| {
                enum_arg(
                    b,
                    &[
                        ("cpu", BackendKind::Cpu),
                        ("fast", BackendKind::Cpu),
                        ("reference", BackendKind::Reference),
                        ("wgpu", BackendKind::Wgpu),
                        ("webgpu", BackendKind::Wgpu),
                        ("ort", BackendKind::Ort),
                        ("onnxruntime", BackendKind::Ort),
                        ("coreml", BackendKind::CoreMl),
                    ],
                    "backend",
                )
            })
            .transpose()?;
        let options = ContextOptions { power_preference: preference, accelerated, device_type, backend };
        let ctx = crate::detached(py, move || pollster::block_on(webnn::Ml.create_context(options)));
        let mut ctx = MlContext::new(ctx.raise()?);
        ctx.power_preference = power_preference.replace('_', "-");
        Ok(ctx)
    }

    fn __repr__(&self) -> &'static str {
        "ML()"
    }
}

/// `MLContext`.
#[pyclass(name = "MLContext", module = "webnn", frozen)]
pub struct MlContext {
    pub(crate) inner: Owned<webnn::Context>,
    /// The `power_preference` the context was created with (pywebnn reads it back).
    power_preference: String,
}

impl MlContext {
    pub fn new(ctx: webnn::Context) -> MlContext {
        MlContext { inner: Owned::new("MLContext", ctx), power_preference: "default".to_owned() }
    }

    fn read<'py>(&self, py: Python<'py>, t: &webnn::Tensor) -> PyResult<Bound<'py, PyAny>> {
        let read = self.inner.get()?.read_tensor(t);
        let bytes = crate::detached(py, move || pollster::block_on(read)).raise()?;
        arrays::to_array(py, bytes, t.desc())
    }
}

#[pymethods]
impl MlContext {
    /// The backend the context runs on: 'cpu', 'reference', 'webgpu', 'onnxruntime', 'coreml'.
    #[getter]
    fn backend(&self) -> PyResult<&'static str> {
        Ok(self.inner.get()?.backend().name())
    }

    #[getter]
    fn device_name(&self) -> PyResult<String> {
        Ok(self.inner.get()?.device_name())
    }

    #[getter]
    fn accelerated(&self) -> PyResult<bool> {
        Ok(self.inner.get()?.accelerated())
    }

    #[getter]
    fn destroyed(&self) -> PyResult<bool> {
        Ok(self.inner.get()?.is_destroyed())
    }

    #[getter]
    fn power_preference(&self) -> &str {
        &self.power_preference
    }

    /// pywebnn's `backend_info()`: `{'backend', 'device', 'accelerated'}`.
    fn backend_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.get()?;
        let d = PyDict::new(py);
        d.set_item("backend", c.backend().name())?;
        d.set_item("device", c.device_name())?;
        d.set_item("accelerated", c.accelerated())?;
        Ok(d)
    }

    /// pywebnn's `create_host_tensor(shape, data_type)`: a readable, writable tensor.
    fn create_host_tensor(&self, shape: &Bound<'_, PyAny>, data_type: &str) -> PyResult<MlTensor> {
        self.create_tensor(shape, data_type, true, true)
    }

    /// pywebnn's `create_device_tensor(graph, shape, data_type)`: every tensor of a context
    /// lives where its backend runs (GPU memory on WebGPU), so this is `create_tensor`.
    #[pyo3(signature = (graph, shape, data_type = "float32", device = None))]
    fn create_device_tensor(
        &self,
        graph: PyRef<'_, MlGraph>,
        shape: &Bound<'_, PyAny>,
        data_type: &str,
        device: Option<&str>,
    ) -> PyResult<MlTensor> {
        let _ = (graph, device);
        self.create_tensor(shape, data_type, true, true)
    }

    /// `opSupportLimits()`: the dictionary pages read (`limits['conv2d']['input']['dataTypes']`).
    fn op_support_limits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut v = webnn_idl::limits::to_json(&self.inner.get()?.op_support_limits());
        v["flexibleInputs"] = self.inner.get()?.dynamic_dimensions().into();
        py.import("json")?.call_method1("loads", (v.to_string(),))
    }

    /// `createTensor(descriptor)`. `readable` and `writable` default to true here (the
    /// spec's default is false, a hint for browsers' buffer placement that costs nothing on
    /// this binding's backends), as pywebnn's do, so its examples run unchanged.
    #[pyo3(signature = (shape, data_type = "float32", readable = true, writable = true))]
    fn create_tensor(&self, shape: &Bound<'_, PyAny>, data_type: &str, readable: bool, writable: bool) -> PyResult<MlTensor> {
        let desc = arrays::descriptor(shape, data_type)?;
        let t = self.inner.get()?.create_tensor(TensorDescriptor::new(desc, readable, writable)).raise()?;
        Ok(MlTensor::new(t))
    }

    /// `createConstantTensor(descriptor, data)` from an array (its shape and dtype unless given).
    #[pyo3(signature = (value, shape = None, data_type = None))]
    fn create_constant_tensor(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        shape: Option<&Bound<'_, PyAny>>,
        data_type: Option<&str>,
    ) -> PyResult<MlTensor> {
        let t = match data_type {
            Some(t) => arrays::data_type(t)?,
            None => arrays::data_type_of(&py.import("numpy")?.call_method1("asarray", (value,))?)?,
        };
        let desc = match shape {
            Some(s) => arrays::descriptor(s, t.name())?,
            None => OperandDescriptor::new(t, &arrays::shape_of(&arrays::as_array(value, t)?)?),
        };
        let bytes = arrays::bytes_for(value, &desc, "createConstantTensor")?;
        Ok(MlTensor::new(self.inner.get()?.create_constant_tensor(desc, bytes.as_bytes()).raise()?))
    }

    /// `writeTensor(tensor, data)`.
    fn write_tensor(&self, tensor: PyRef<'_, MlTensor>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let bytes = arrays::bytes_for(value, tensor.inner.get()?.desc(), "writeTensor")?;
        self.inner.get()?.write_tensor(tensor.inner.get()?, bytes.as_bytes()).raise()
    }

    /// `readTensor(tensor)`, waited for: an array of the tensor's shape and dtype.
    fn read_tensor<'py>(&self, py: Python<'py>, tensor: PyRef<'_, MlTensor>) -> PyResult<Bound<'py, PyAny>> {
        self.read(py, tensor.inner.get()?)
    }

    /// `dispatch(graph, inputs, outputs)` with `{name: MLTensor}` dictionaries. An input and
    /// the output that updates it in place may be the same tensor.
    fn dispatch(
        &self,
        py: Python<'_>,
        graph: PyRef<'_, MlGraph>,
        inputs: &Bound<'_, PyDict>,
        outputs: &Bound<'_, PyDict>,
    ) -> PyResult<()> {
        let named = |d: &Bound<'_, PyDict>, what: &str| -> PyResult<Vec<(String, webnn::Tensor)>> {
            d.iter()
                .map(|(k, v)| {
                    let name: String = k.extract().map_err(|_| type_error(format!("dispatch: an {what} name is not a string")))?;
                    let t = v
                        .extract::<PyRef<'_, MlTensor>>()
                        .map_err(|_| type_error(format!("dispatch: {what} '{name}' is not an MLTensor")))?;
                    Ok((name, t.inner.get()?.clone()))
                })
                .collect()
        };
        let (ins, outs) = (named(inputs, "input")?, named(outputs, "output")?);
        let ctx = &self.inner.get()?;
        let g = graph.inner.get()?;
        crate::detached(py, move || {
            let ins: Vec<(&str, &webnn::Tensor)> = ins.iter().map(|(n, t)| (n.as_str(), t)).collect();
            let outs: Vec<(&str, &webnn::Tensor)> = outs.iter().map(|(n, t)| (n.as_str(), t)).collect();
            ctx.dispatch(g, &ins, &outs)
        })
        .raise()
    }

    /// Runs `graph` on `{name: array}` and returns `{name: array}`: tensors made, written,
    /// dispatched, read and destroyed in one call (pywebnn's `compute`).
    /// `outputs`, if given, holds arrays the results are also copied into (pywebnn's form).
    #[pyo3(signature = (graph, inputs, outputs = None))]
    fn compute<'py>(
        &self,
        py: Python<'py>,
        graph: PyRef<'_, MlGraph>,
        inputs: &Bound<'py, PyDict>,
        outputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let g = graph.inner.get()?;
        let mut bound_in: Vec<(String, webnn::Tensor)> = Vec::new();
        for (name, desc) in g.inputs() {
            let value = inputs
                .get_item(name)?
                .ok_or_else(|| type_error(format!("compute: no value for input '{name}'")))?;
            let desc = if desc.is_static() {
                desc.clone()
            } else {
                // A flexible input takes the array's shape; dispatch checks it against the bounds.
                OperandDescriptor::new(desc.data_type, &arrays::shape_of(&arrays::as_array(&value, desc.data_type)?)?)
            };
            let bytes = arrays::bytes_for(&value, &desc, "compute")?;
            let t = self.inner.get()?.create_tensor(TensorDescriptor::new(desc, false, true)).raise()?;
            self.inner.get()?.write_tensor(&t, bytes.as_bytes()).raise()?;
            bound_in.push((name.clone(), t));
        }
        for (k, _) in inputs.iter() {
            let name: String = k.extract().map_err(|_| type_error("compute: an input name is not a string"))?;
            if !g.inputs().iter().any(|(n, _)| *n == name) {
                return Err(type_error(format!("compute: the graph has no input '{name}'")));
            }
        }
        let mut bound_out: Vec<(String, webnn::Tensor)> = Vec::new();
        for (name, desc) in g.outputs() {
            if !desc.is_static() {
                return Err(to_py(Error::not_supported(format!(
                    "compute: output '{name}' has a dynamic shape; bind a tensor of its size with dispatch()"
                ))));
            }
            let t = self.inner.get()?.create_tensor(TensorDescriptor::new(desc.clone(), true, false)).raise()?;
            bound_out.push((name.clone(), t));
        }
        let ins: Vec<(&str, &webnn::Tensor)> = bound_in.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let outs: Vec<(&str, &webnn::Tensor)> = bound_out.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let ctx = &self.inner.get()?;
        crate::detached(py, move || ctx.dispatch(g, &ins, &outs)).raise()?;
        let result = PyDict::new(py);
        for (name, t) in &bound_out {
            let array = self.read(py, t)?;
            if let Some(target) = outputs.map(|o| o.get_item(name)).transpose()?.flatten() {
                py.import("numpy")?.call_method1("copyto", (&target, &array))?;
            }
            result.set_item(name, array)?;
        }
        for (_, t) in bound_in.iter().chain(&bound_out) {
            t.destroy();
        }
        Ok(result)
    }

    /// The graph as an ONNX model (opset 21, WebNN's semantics; constants of 1 KiB and more
    /// in `<path>.data` beside it), from the graph as validated (pywebnn's spelling).
    fn convert_to_onnx(&self, py: Python<'_>, graph: PyRef<'_, MlGraph>, output_path: std::path::PathBuf) -> PyResult<()> {
        self.inner.get()?;
        let built = graph.built.lock().unwrap_or_else(|e| e.into_inner());
        let Some(g) = built.as_ref() else {
            return Err(to_py(Error::not_supported(
                "convert_to_onnx: the graph was imported or destroyed (only graphs built with MLGraphBuilder keep their validated form)",
            )));
        };
        py.detach(|| {
            let model = webnn::onnx_export::convert(g)?;
            model
                .save(&output_path)
                .map_err(|e| Error::data_error(format!("convert_to_onnx: writing {}: {e}", output_path.display())))
        })
        .raise()
    }

    /// A builder for this context (pywebnn's spelling of `MLGraphBuilder(context)`).
    fn create_graph_builder(slf: PyRef<'_, Self>) -> PyResult<crate::builder::MlGraphBuilder> {
        crate::builder::MlGraphBuilder::for_context(slf.inner.get()?)
    }

    /// An ONNX model (a file) imported as a graph of this context: the importer builds it
    /// through the same validating builder. `dims` fixes or bounds the model's named
    /// dimensions and gives whole input shapes: `{'batch': 1, 'seq': '<=64', 'x': '1x3x48x192'}`
    /// or the command line's `'batch=1,seq<=64,x=1x3x48x192'`.
    #[pyo3(signature = (path, dims = None))]
    fn load_onnx(&self, py: Python<'_>, path: std::path::PathBuf, dims: Option<&Bound<'_, PyAny>>) -> PyResult<MlGraph> {
        let spec = match dims {
            None => String::new(),
            Some(d) => match d.cast::<PyDict>() {
                Ok(d) => d
                    .iter()
                    .map(|(k, v)| {
                        let v = v.str()?.to_string();
                        let sep = if v.starts_with("<=") { "" } else { "=" };
                        Ok(format!("{}{sep}{v}", k.str()?))
                    })
                    .collect::<PyResult<Vec<_>>>()?
                    .join(","),
                Err(_) => d.extract::<String>().map_err(|_| type_error("load_onnx: dims is neither a dict nor a string"))?,
            },
        };
        let options = webnn::onnx::ImportOptions::default().with_dims(&spec).raise()?;
        let ctx = &self.inner.get()?;
        let (graph, built) = crate::detached(py, move || -> webnn_core::Result<(webnn::Graph, webnn_core::Graph)> {
            let imported = webnn::onnx::import_file(&path, &options)?;
            Ok((pollster::block_on(ctx.compile(&imported.graph))?, imported.graph))
        })
        .raise()?;
        Ok(MlGraph::new(graph, &built))
    }

    /// `destroy()`: every graph and tensor of the context with it.
    fn destroy(&self) -> PyResult<()> {
        self.inner.get()?.destroy();
        Ok(())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("MLContext(backend='{}', device='{}')", self.inner.get()?.backend().name(), self.inner.get()?.device_name()))
    }
}

/// `MLGraph`.
#[pyclass(name = "MLGraph", module = "webnn", frozen)]
pub struct MlGraph {
    pub(crate) inner: Owned<webnn::Graph>,
    /// Operands and operations of the validated graph (pywebnn's `operand_count`,
    /// `operation_count`).
    counts: (usize, usize),
    /// The validated graph, for `convert_to_onnx`, where it was built here (an imported or
    /// a language model's graph is not kept: its weights would be held twice).
    built: std::sync::Mutex<Option<webnn_core::Graph>>,
}

impl MlGraph {
    /// `g` compiled from `built`.
    pub fn new(g: webnn::Graph, built: &webnn_core::Graph) -> MlGraph {
        let counts = (built.operands.len(), built.nodes.len());
        MlGraph { inner: Owned::new("MLGraph", g), counts, built: std::sync::Mutex::new(None) }
    }

    /// `new`, keeping the validated graph for `convert_to_onnx`.
    pub fn keeping(g: webnn::Graph, built: webnn_core::Graph) -> MlGraph {
        let graph = MlGraph::new(g, &built);
        *graph.built.lock().unwrap_or_else(|e| e.into_inner()) = Some(built);
        graph
    }
}

impl MlTensor {
    pub fn new(t: webnn::Tensor) -> MlTensor {
        MlTensor { inner: Owned::new("MLTensor", t) }
    }
}

fn descriptors<'py>(py: Python<'py>, named: &[(String, OperandDescriptor)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, desc) in named {
        let entry = PyDict::new(py);
        entry.set_item("shape", shape_py(py, desc)?)?;
        entry.set_item("data_type", desc.data_type.name())?;
        d.set_item(name, entry)?;
    }
    Ok(d)
}

#[pymethods]
impl MlGraph {
    /// `{name: {'shape', 'data_type'}}` of the graph's inputs.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        descriptors(py, self.inner.get()?.inputs())
    }

    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        descriptors(py, self.inner.get()?.outputs())
    }

    #[getter]
    fn destroyed(&self) -> PyResult<bool> {
        Ok(self.inner.get()?.is_destroyed())
    }

    #[getter]
    fn operand_count(&self) -> usize {
        self.counts.0
    }

    #[getter]
    fn operation_count(&self) -> usize {
        self.counts.1
    }

    /// The input names (pywebnn's spelling).
    fn get_input_names(&self) -> PyResult<Vec<String>> {
        Ok(self.inner.get()?.inputs().iter().map(|(n, _)| n.clone()).collect())
    }

    /// The output names (pywebnn's spelling).
    fn get_output_names(&self) -> PyResult<Vec<String>> {
        Ok(self.inner.get()?.outputs().iter().map(|(n, _)| n.clone()).collect())
    }

    /// Kernel dispatches one run records, on backends that count them (WebGPU), else None.
    #[getter]
    fn dispatch_count(&self) -> PyResult<Option<usize>> {
        Ok(self.inner.get()?.dispatch_count())
    }

    fn destroy(&self) -> PyResult<()> {
        self.inner.get()?.destroy();
        self.built.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(())
    }

    fn __repr__(&self) -> PyResult<String> {
        let side = |named: &[(String, OperandDescriptor)]| -> String {
            named.iter().map(|(n, d)| format!("{n}: {}", describe(d))).collect::<Vec<_>>().join(", ")
        };
        let g = self.inner.get()?;
        Ok(format!("MLGraph(inputs={{{}}}, outputs={{{}}})", side(g.inputs()), side(g.outputs())))
    }
}

/// `MLTensor`.
#[pyclass(name = "MLTensor", module = "webnn", frozen)]
pub struct MlTensor {
    pub(crate) inner: Owned<webnn::Tensor>,
}

#[pymethods]
impl MlTensor {
    #[getter]
    fn data_type(&self) -> PyResult<&'static str> {
        Ok(self.inner.get()?.desc().data_type.name())
    }

    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        shape_py(py, self.inner.get()?.desc())
    }

    #[getter]
    fn readable(&self) -> PyResult<bool> {
        Ok(self.inner.get()?.descriptor().readable)
    }

    #[getter]
    fn writable(&self) -> PyResult<bool> {
        Ok(self.inner.get()?.descriptor().writable)
    }

    #[getter]
    fn constant(&self) -> PyResult<bool> {
        Ok(self.inner.get()?.descriptor().constant)
    }

    #[getter]
    fn byte_length(&self) -> PyResult<usize> {
        Ok(self.inner.get()?.byte_length())
    }

    /// The element count (pywebnn's).
    #[getter]
    fn size(&self) -> PyResult<u64> {
        Ok(self.inner.get()?.desc().max_elements())
    }

    #[getter]
    fn destroyed(&self) -> PyResult<bool> {
        Ok(self.inner.get()?.is_destroyed())
    }

    fn destroy(&self) -> PyResult<()> {
        self.inner.get()?.destroy();
        Ok(())
    }

    fn __repr__(&self) -> PyResult<String> {
        let d = self.inner.get()?.descriptor();
        let flags: Vec<&str> = [(d.readable, "readable"), (d.writable, "writable"), (d.constant, "constant")]
            .into_iter()
            .filter_map(|(on, n)| on.then_some(n))
            .collect();
        Ok(format!("MLTensor({}{}{})", describe(&d.desc), if flags.is_empty() { "" } else { ", " }, flags.join(", ")))
    }
}
