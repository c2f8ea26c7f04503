//! NumPy arrays in and out without copies of their own. The stable ABI this package targets
//! (CPython 3.9) has no buffer protocol, so both directions go through NumPy's
//! `__array_interface__`, which is plain Python attributes:
//! - in: `numpy.ascontiguousarray(..., dtype)` (no copy when the array already is one), whose
//!   memory the facade reads in place through the interface's data address ([`Data`]);
//! - out: the bytes the facade read become the array's memory: a [`HostBytes`] owns them and
//!   describes them by the interface, and the array NumPy makes over it keeps it alive.
//!
//! float16 is numpy's float16; int4/uint4 travel packed two to a byte as a uint8 array, as
//! WebNN lays them out.

use crate::errors::{type_error, Raise};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList, PyTuple};
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

/// A C-contiguous NumPy array whose memory is read in place. The array is held, so the
/// memory stays; NumPy refuses to resize an array others reference. Read only while the GIL
/// is held (every caller does), so no Python thread writes it meanwhile.
pub struct Data<'py> {
    _array: Bound<'py, PyAny>,
    ptr: *const u8,
    len: usize,
}

impl Data<'_> {
    pub fn as_bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `ptr` is the data address of the held, C-contiguous array of `len` bytes
        // (checked in `bytes_for`); see the type's comment for why nothing moves or writes it.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The bytes of `value` as WebNN lays out `desc`, checked against its byte length.
pub fn bytes_for<'py>(value: &Bound<'py, PyAny>, desc: &OperandDescriptor, what: &str) -> PyResult<Data<'py>> {
    let a = as_array(value, desc.data_type)?;
    let len: usize = a.getattr("nbytes")?.extract()?;
    let want = desc.max_byte_length().unwrap_or(u64::MAX);
    if len as u64 != want {
        return Err(type_error(format!("{what}: the data holds {len} bytes, {desc} takes {want}")));
    }
    let data = a.getattr("__array_interface__")?.get_item("data")?;
    let address: usize = data.get_item(0)?.extract()?;
    Ok(Data { _array: a, ptr: address as *const u8, len })
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

/// Bytes read from a tensor, owned here and lent to the NumPy array made over them, which
/// holds this object as its `base`. The bytes are held as raw parts, not a `Vec`, because
/// NumPy writes them through the pointer while this object is shared.
#[pyclass(module = "webnn", frozen)]
pub struct HostBytes {
    ptr: *mut u8,
    len: usize,
    capacity: usize,
    typestr: &'static str,
    shape: Vec<u64>,
}

// SAFETY: the pointer is owned by this object alone; Rust never reads or writes through it
// after construction (only NumPy does, under the GIL), and it is freed once, in `drop`.
unsafe impl Send for HostBytes {}
unsafe impl Sync for HostBytes {}

impl Drop for HostBytes {
    fn drop(&mut self) {
        // SAFETY: the parts of the `Vec` taken apart in `to_array`, rebuilt once.
        drop(unsafe { Vec::from_raw_parts(self.ptr, self.len, self.capacity) })
    }
}

#[pymethods]
impl HostBytes {
    /// NumPy's array interface (version 3): the bytes as a writable array of the tensor's shape.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", PyTuple::new(py, &self.shape)?)?;
        d.set_item("typestr", self.typestr)?;
        d.set_item("data", (self.ptr as usize, false))?;
        Ok(d)
    }
}

/// `bytes` as a writable NumPy array of `desc`'s (static) shape; int4/uint4 as packed bytes.
/// The array's memory is `bytes` itself where its address suits the dtype's alignment
/// (allocators give 16 bytes in practice); otherwise, and when empty, a copy.
pub fn to_array<'py>(py: Python<'py>, bytes: Vec<u8>, desc: &OperandDescriptor) -> PyResult<Bound<'py, PyAny>> {
    let np = numpy(py)?;
    let typestr = np_dtype(desc.data_type);
    let shape: Vec<u64> = if matches!(desc.data_type, DataType::Int4 | DataType::Uint4) {
        vec![bytes.len() as u64]
    } else {
        desc.shape.iter().map(|d| u64::from(d.as_static().unwrap_or(0))).collect()
    };
    let item = (desc.data_type.bits() as usize / 8).max(1);
    if bytes.is_empty() || !(bytes.as_ptr() as usize).is_multiple_of(item) {
        let a = np.call_method1("frombuffer", (PyByteArray::new(py, &bytes), typestr))?;
        return a.call_method1("reshape", (shape,));
    }
    let mut bytes = std::mem::ManuallyDrop::new(bytes);
    let owner = HostBytes { ptr: bytes.as_mut_ptr(), len: bytes.len(), capacity: bytes.capacity(), typestr, shape };
    np.call_method1("asarray", (Bound::new(py, owner)?,))
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
