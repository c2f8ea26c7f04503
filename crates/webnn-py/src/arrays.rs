//! NumPy arrays in and out. Data goes in through `numpy.ascontiguousarray(..., dtype)` and
//! `tobytes()`, whose bytes the facade reads in place (one copy: the stable ABI this package
//! targets, CPython 3.9, has no buffer protocol), and comes out as a writable array over a
//! copy of the bytes read. float16 is numpy's float16; int4/uint4 travel packed two to a
//! byte as a uint8 array, as WebNN lays them out.

use crate::errors::{type_error, Raise};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList};
use serde_json::{json, Value};
use webnn_core::{DataType, Dim, OperandDescriptor};

/// NumPy's dtype for a WebNN data type (little-endian, as WebNN's bytes are).
pub fn np_dtype(t: DataType) -> &'static str {
    // int4/uint4 travel packed, two to a byte.
    t.numpy_descr().unwrap_or("|u1")
}

/// The WebNN data type of a NumPy dtype, for arrays given without one.
pub fn data_type_of(array: &Bound<'_, PyAny>) -> PyResult<DataType> {
    let name: String = array.getattr("dtype")?.getattr("name")?.extract()?;
    let t = match name.as_str() {
        // Python floats are float64, which WebNN lacks: float32 is what such data means.
        "float32" | "float64" => DataType::Float32,
        "float16" => DataType::Float16,
        "int32" => DataType::Int32,
        "uint32" => DataType::Uint32,
        "int64" => DataType::Int64,
        "uint64" => DataType::Uint64,
        "int8" => DataType::Int8,
        "uint8" => DataType::Uint8,
        "bool" => DataType::Uint8,
        other => return Err(type_error(format!("numpy dtype {other} has no WebNN data type"))),
    };
    Ok(t)
}

pub fn data_type(name: &str) -> PyResult<DataType> {
    DataType::from_name(name).ok_or_else(|| type_error(format!("'{name}' is not a valid value for enumeration MLOperandDataType")))
}

fn numpy(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("numpy")
}

/// `value` as a C-contiguous NumPy array of `t`'s dtype. Casts within a kind and from
/// integers to floats are made (Python's floats are float64); others are a TypeError.
pub fn as_array<'py>(value: &Bound<'py, PyAny>, t: DataType) -> PyResult<Bound<'py, PyAny>> {
    let np = numpy(value.py())?;
    let a = np.call_method1("asarray", (value,))?;
    let kw = PyDict::new(value.py());
    kw.set_item("casting", "same_kind")?;
    kw.set_item("copy", false)?;
    let cast = a
        .call_method("astype", (np_dtype(t),), Some(&kw))
        .map_err(|e| type_error(format!("the data cannot be {}: {e}", t.name())))?;
    np.call_method1("ascontiguousarray", (cast,))
}

/// The bytes of `value` as WebNN lays out `desc`, checked against its byte length: a
/// Python `bytes` object (NumPy's `tobytes()`), read in place by the callers.
pub fn bytes_for<'py>(value: &Bound<'py, PyAny>, desc: &OperandDescriptor, what: &str) -> PyResult<Bound<'py, PyBytes>> {
    let a = as_array(value, desc.data_type)?;
    let bytes = a.call_method0("tobytes")?.cast_into::<PyBytes>()?;
    let want = desc.max_byte_length().unwrap_or(u64::MAX);
    let len = bytes.as_bytes().len();
    if len as u64 != want {
        return Err(type_error(format!("{what}: the data holds {len} bytes, {desc} takes {want}")));
    }
    Ok(bytes)
}

/// The static shape of an array.
pub fn shape_of(array: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let shape: Vec<u64> = array.getattr("shape")?.extract()?;
    shape
        .into_iter()
        .map(|n| u32::try_from(n).map_err(|_| type_error(format!("a dimension of {n} is past WebNN's unsigned long"))))
        .collect()
}

/// A descriptor from Python's `shape` (ints, or `{'name', 'max_size'}` for a bounded
/// dynamic dimension) and data type name, checked by WebIDL's rules.
pub fn descriptor(shape: &Bound<'_, PyAny>, data_type: &str) -> PyResult<OperandDescriptor> {
    let shape = crate::values::to_json(shape)?;
    webnn_idl::args::descriptor(&json!({"dataType": data_type, "shape": shape})).raise()
}

/// A shape for Python: ints, and `{'name', 'max_size'}` for dynamic dimensions.
pub fn shape_py<'py>(py: Python<'py>, desc: &OperandDescriptor) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for d in &desc.shape {
        match d {
            Dim::Static(n) => l.append(*n)?,
            Dim::Dynamic { name, max_size } => {
                let dict = PyDict::new(py);
                dict.set_item("name", &**name)?;
                dict.set_item("max_size", *max_size)?;
                l.append(dict)?
            }
        }
    }
    Ok(l)
}

/// `bytes` as a writable NumPy array of `desc`'s (static) shape; int4/uint4 as packed bytes.
pub fn to_array<'py>(py: Python<'py>, bytes: &[u8], desc: &OperandDescriptor) -> PyResult<Bound<'py, PyAny>> {
    let np = numpy(py)?;
    let buf = PyByteArray::new(py, bytes);
    let a = np.call_method1("frombuffer", (buf, np_dtype(desc.data_type)))?;
    if matches!(desc.data_type, DataType::Int4 | DataType::Uint4) {
        return Ok(a);
    }
    let shape: Vec<u32> = desc.shape.iter().map(|d| d.as_static().unwrap_or(0)).collect();
    a.call_method1("reshape", (shape,))
}

/// A descriptor as JSON for error messages and reprs.
pub fn describe(desc: &OperandDescriptor) -> String {
    let dims: Vec<Value> = desc
        .shape
        .iter()
        .map(|d| match d {
            Dim::Static(n) => json!(n),
            Dim::Dynamic { name, max_size } => json!(format!("{name}<={max_size}")),
        })
        .collect();
    format!("{}{}", desc.data_type.name(), Value::Array(dims))
}
