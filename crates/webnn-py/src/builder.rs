//! `MLGraphBuilder` and `MLOperand`. Every op of the table is one call, `_op(method, args,
//! options)`: positional arguments are named by the spec's IDL signature and converted by
//! `webnn-idl` exactly as the browser binding converts a page's (the Python package makes a
//! snake_case method of each, with options as keyword arguments).

use crate::arrays::{self, describe, shape_py};
use crate::context::{MlContext, MlGraph, MlTensor};
use crate::errors::{type_error, Raise};
use crate::Owned;
use crate::values::{dict_json, to_json};
use webnn_idl::Marked;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use serde_json::Value;
use webnn_core::{GraphBuilder, Operand, OperandDescriptor};
use webnn_idl::{call, Args, CallError, Operands};

/// `MLOperand`: what a builder call returns, with its data type and shape.
#[pyclass(name = "MLOperand", module = "webnn", frozen)]
pub struct MlOperand {
    pub operand: Operand,
    pub desc: OperandDescriptor,
}

#[pymethods]
impl MlOperand {
    #[getter]
    fn data_type(&self) -> &'static str {
        self.desc.data_type.name()
    }

    /// Ints, and `{'name', 'max_size'}` for a bounded dynamic dimension.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        shape_py(py, &self.desc)
    }

    /// pywebnn's spelling.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.desc.data_type.name()
    }

    fn __repr__(&self) -> String {
        format!("MLOperand({})", describe(&self.desc))
    }
}

/// `MLGraphBuilder(context)`.
#[pyclass(name = "MLGraphBuilder", module = "webnn", subclass)]
pub struct MlGraphBuilder {
    state: Owned<State>,
}

struct State {
    ctx: webnn::Context,
    inner: GraphBuilder,
}

impl MlGraphBuilder {
    pub fn for_context(ctx: &webnn::Context) -> PyResult<Self> {
        ctx.check_usable("MLGraphBuilder").raise()?;
        Ok(MlGraphBuilder { state: Owned::new("MLGraphBuilder", State { ctx: ctx.clone(), inner: GraphBuilder::new() }) })
    }

    /// The builder's state, once its context is usable for `what`.
    fn usable(&mut self, what: &str) -> PyResult<&mut State> {
        let s = self.state.get_mut()?;
        s.ctx.check_usable(what).raise()?;
        Ok(s)
    }
}

impl State {
    fn wrap(&self, py: Python<'_>, o: Operand) -> PyResult<Py<MlOperand>> {
        let desc = self.inner.desc(o).raise()?.clone();
        Py::new(py, MlOperand { operand: o, desc })
    }
}

#[pymethods]
impl MlGraphBuilder {
    #[new]
    fn new(context: PyRef<'_, MlContext>) -> PyResult<Self> {
        MlGraphBuilder::for_context(context.inner.get()?)
    }

    /// `input(name, descriptor)`: `shape` holds ints, or `{'name', 'max_size'}` for a bounded
    /// dynamic dimension.
    #[pyo3(signature = (name, shape, data_type = "float32"))]
    fn input(&mut self, py: Python<'_>, name: &str, shape: &Bound<'_, PyAny>, data_type: &str) -> PyResult<Py<MlOperand>> {
        let s = self.usable("input")?;
        let desc = arrays::descriptor(shape, data_type)?;
        let o = s.inner.input(name, desc).raise()?;
        s.wrap(py, o)
    }

    /// `constant(descriptor, buffer)` from an array (its shape unless `shape` is given, its
    /// dtype unless `data_type` is); `constant(type, value)` for a Python scalar with a
    /// `data_type`; `constant(tensor)` for a constant `MLTensor` of the same context.
    #[pyo3(signature = (value, shape = None, data_type = None))]
    fn constant(
        &mut self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        shape: Option<&Bound<'_, PyAny>>,
        data_type: Option<&str>,
    ) -> PyResult<Py<MlOperand>> {
        let s = self.usable("constant")?;
        if let Ok(t) = value.extract::<PyRef<'_, MlTensor>>() {
            let (desc, data) = s.ctx.constant_contents(t.inner.get()?).raise()?;
            let o = s.inner.constant_shared(desc, data).raise()?;
            return s.wrap(py, o);
        }
        let scalar = value.is_instance_of::<pyo3::types::PyInt>() || value.is_instance_of::<pyo3::types::PyFloat>();
        if scalar && shape.is_none() {
            if let Some(t) = data_type {
                let t = arrays::data_type(t)?;
                let v = webnn_idl::args::ml_number(&to_json(value)?, "constant: value").raise()?;
                let o = s.inner.constant_scalar(t, v).raise()?;
                return s.wrap(py, o);
            }
        }
        let t = match data_type {
            Some(t) => arrays::data_type(t)?,
            None => arrays::data_type_of(&py.import("numpy")?.call_method1("asarray", (value,))?)?,
        };
        let desc = match shape {
            Some(s) => arrays::descriptor(s, t.name())?,
            None => OperandDescriptor::new(t, &arrays::shape_of(&arrays::as_array(value, t)?)?),
        };
        let bytes = arrays::bytes_for(value, &desc, "constant")?;
        let o = s.inner.constant(desc, bytes.as_bytes().to_vec()).raise()?;
        s.wrap(py, o)
    }

    /// Any op of the table: `args` are its positional arguments in IDL order (the options
    /// dictionary may be the last), `options` the dictionary's members.
    #[pyo3(signature = (method, args, options = None))]
    fn _op<'py>(
        &mut self,
        py: Python<'py>,
        method: &str,
        args: &Bound<'py, PyTuple>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sig = webnn_idl::op_signature(method)
            .ok_or_else(|| type_error(format!("'{method}' is not an MLGraphBuilder operation")))?;
        let s = self.usable(method)?;
        let mut values: Vec<(&str, Value)> = Vec::new();
        let mut opts = serde_json::Map::new();
        for (k, a) in args.iter().enumerate() {
            let Some(p) = sig.params.get(k) else {
                return Err(type_error(format!("{method}: takes {} arguments, {} given", sig.params.len(), args.len())));
            };
            let v = to_json(&a)?;
            match (p.name.as_str(), v) {
                ("options", Value::Object(m)) => opts.extend(m),
                ("options", Value::Null) => {}
                ("options", other) => return Err(type_error(format!("{method}: options {other} is not a dictionary"))),
                (name, v) => values.push((name, v)),
            }
        }
        if let Some(d) = options {
            for (key, v) in dict_json(d)? {
                // pywebnn's spellings: `x` for the input operand, `pads` for `padding`.
                let key = match key.as_str() {
                    "x" if sig.params.iter().any(|p| p.name == "input") => "input".to_owned(),
                    "pads" => "padding".to_owned(),
                    _ => key,
                };
                // A keyword naming a positional parameter is that parameter.
                match sig.params.iter().find(|p| p.name != "options" && p.name == key) {
                    Some(p) if values.iter().any(|(n, _)| *n == p.name) => {
                        return Err(type_error(format!("{method}: '{}' given twice", p.name)))
                    }
                    Some(p) => values.push((p.name.as_str(), v)),
                    None => {
                        opts.insert(key, v);
                    }
                }
            }
        }
        let options = Value::Object(opts);
        let params: Vec<(&str, &Value)> = values.iter().map(|(n, v)| (*n, v)).collect();
        let a = Args::new(params, Some(&options), &Marked, false);
        let outs = call(&mut s.inner, method, &a).map_err(|e| match e {
            CallError::Api(e) => crate::errors::to_py(e),
            CallError::Harness(m) => type_error(m),
        })?;
        // WebIDL drops dictionary members it does not know, and so does the call; a Python
        // caller still hears of them (a typo would otherwise pass unnoticed).
        let unused = a.unused();
        if !unused.is_empty() {
            let names: Vec<&str> = unused.iter().map(|u| u.strip_prefix("options.").unwrap_or(u)).collect();
            let message = std::ffi::CString::new(format!("{method}: unknown arguments ignored: {}", names.join(", ")))
                .map_err(|_| type_error(format!("{method}: an argument name holds a NUL character")))?;
            PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &message, 1)?;
        }
        let wrapped = outs.into_iter().map(|o| s.wrap(py, o)).collect::<PyResult<Vec<_>>>()?;
        if sig.sequence {
            Ok(PyList::new(py, wrapped)?.into_any())
        } else {
            Ok(wrapped.into_iter().next().ok_or_else(|| type_error(format!("{method}: no output")))?.into_bound(py).into_any())
        }
    }

    /// `build({name: operand})`: validates, then compiles for the context with the GIL
    /// released.
    fn build(&mut self, py: Python<'_>, outputs: &Bound<'_, PyDict>) -> PyResult<MlGraph> {
        let s = self.usable("build")?;
        let mut named: Vec<(String, Operand)> = Vec::new();
        for (k, v) in outputs.iter() {
            let name: String = k.extract().map_err(|_| type_error("build: an output name is not a string"))?;
            let o = Marked
                .resolve(&to_json(&v)?)
                .ok_or_else(|| type_error(format!("build: output '{name}' is not an MLOperand")))?;
            named.push((name, o));
        }
        let refs: Vec<(&str, Operand)> = named.iter().map(|(n, o)| (n.as_str(), *o)).collect();
        let graph = s.inner.build(&refs).raise()?;
        let ctx = s.ctx.clone();
        let (compiled, graph) = crate::detached(py, move || (pollster::block_on(ctx.compile(&graph)), graph));
        Ok(MlGraph::keeping(compiled.raise()?, graph))
    }

    fn __repr__(&self) -> String {
        match self.state.get() {
            Ok(s) => format!("MLGraphBuilder(context on {})", s.ctx.backend().name()),
            Err(_) => "MLGraphBuilder(of another thread)".to_owned(),
        }
    }

    /// `builder.conv2d(input, filter, strides=[2, 2])`: the op methods, for builders made
    /// here (`create_graph_builder`); the Python class `webnn.MLGraphBuilder` also has them
    /// as real methods, with docstrings.
    fn __getattr__<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let Some(method) = op_named(name) else {
            return Err(pyo3::exceptions::PyAttributeError::new_err(format!("'MLGraphBuilder' has no attribute '{name}'")));
        };
        let py = slf.py();
        py.import("functools")?.call_method1("partial", (slf.getattr("_call")?, method))
    }

    /// `_op` with keyword arguments: `options=dict` and keywords merged into the options
    /// (a keyword naming a positional parameter is that parameter).
    #[pyo3(signature = (method, *args, options = None, **kwargs))]
    fn _call<'py>(
        &mut self,
        py: Python<'py>,
        method: &str,
        args: &Bound<'py, PyTuple>,
        options: Option<&Bound<'py, PyDict>>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let merged = PyDict::new(py);
        for d in [options, kwargs].into_iter().flatten() {
            merged.update(d.as_mapping())?;
        }
        self._op(py, method, args, Some(&merged))
    }
}

/// The Python name of an op: `reduceMean` -> `reduce_mean`, `gatherND` -> `gather_nd`,
/// `isNaN` -> `is_nan`, `l2Pool2d` -> `l2_pool2d`.
#[pyfunction]
pub fn snake_case(method: &str) -> String {
    let chars: Vec<char> = method.replace("NaN", "Nan").chars().collect();
    let mut out = String::with_capacity(chars.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase() || prev.is_ascii_digit() || (prev.is_ascii_uppercase() && next_lower) {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// One IDL parameter: its name, its type as the IDL writes it, whether it is optional.
type ParamInfo = (String, String, bool);

/// Every op of the table as `[(method, python_name, [(parameter, idl_type, optional)...],
/// returns_a_sequence)]`, from the spec's IDL: what the Python package makes its builder
/// methods (and their type stubs) of.
#[pyfunction]
pub fn op_signatures() -> Vec<(String, String, Vec<ParamInfo>, bool)> {
    webnn_idl::op_signatures()
        .iter()
        .map(|s| {
            let params = s.params.iter().map(|p| (p.name.clone(), p.ty.clone(), p.optional)).collect();
            (s.method.clone(), snake_case(&s.method), params, s.sequence)
        })
        .collect()
}

/// The op an attribute name stands for, in either spelling.
fn op_named(name: &str) -> Option<&'static str> {
    webnn_idl::op_signatures()
        .iter()
        .find(|s| s.method == name || snake_case(&s.method) == name)
        .map(|s| s.method.as_str())
}
