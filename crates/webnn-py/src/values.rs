//! Python argument values as the JSON values `webnn-idl` converts (the WebIDL rules the
//! browser binding and the WPT harness share): numbers, strings, sequences, dictionaries with
//! snake_case keys read as the spec's camelCase members, operands marked by [`OPERAND_KEY`].

use crate::builder::MlOperand;
use crate::errors::type_error;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{json, Map, Value};
use webnn_idl::args::BIGINT_KEY;
use webnn_idl::OPERAND_KEY;


/// `input_layout` -> `inputLayout`; a camelCase key stays as it is.
pub fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// One Python value as JSON. NumPy arrays and scalars go through `tolist()`; floats JSON
/// cannot hold become the strings `webnn-idl` reads as them; integers past 64 bits become
/// marked BigInts (a TypeError wherever a number is expected, as in JavaScript).
pub fn to_json(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(o) = v.extract::<PyRef<'_, MlOperand>>() {
        let (b, i) = o.operand.to_raw();
        return Ok(json!({ OPERAND_KEY: [b, i] }));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(n) = v.extract::<i64>() {
            return Ok(Value::from(n));
        }
        if let Ok(n) = v.extract::<u64>() {
            return Ok(Value::from(n));
        }
        return Ok(json!({ BIGINT_KEY: v.str()?.to_string() }));
    }
    if v.is_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        return Ok(match serde_json::Number::from_f64(x) {
            Some(n) => Value::Number(n),
            None if x.is_nan() => Value::from("NaN"),
            None if x > 0.0 => Value::from("Infinity"),
            None => Value::from("-Infinity"),
        });
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(l) = v.cast::<PyList>() {
        return l.iter().map(|x| to_json(&x)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        return t.iter().map(|x| to_json(&x)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return dict_json(d).map(Value::Object);
    }
    // NumPy arrays and scalars (and anything else list-like that says how).
    if v.hasattr("tolist")? {
        return to_json(&v.call_method0("tolist")?);
    }
    Err(type_error(format!("{} is not a value a WebNN argument takes", v.get_type().name()?)))
}

/// A dictionary's members with their keys in the spec's camelCase.
pub fn dict_json(d: &Bound<'_, PyDict>) -> PyResult<Map<String, Value>> {
    let mut m = Map::new();
    for (k, v) in d.iter() {
        let key: String = k.extract().map_err(|_| type_error("a dictionary key is not a string"))?;
        m.insert(camel(&key), to_json(&v)?);
    }
    Ok(m)
}
