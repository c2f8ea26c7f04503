//! `webnn_core::Error` as the Python exception named after the spec's: `TypeError` as Python's
//! own, the DOMException kinds as subclasses of `webnn.WebNNError`. Each carries the op, the
//! label and the rule as attributes, and the message says all three.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use webnn_core::{Error, ErrorKind};

create_exception!(webnn, WebNNError, PyException, "A WebNN failure of a kind the spec names (a DOMException in a browser).");
create_exception!(webnn, DataError, WebNNError, "The spec's DataError.");
create_exception!(webnn, OperationError, WebNNError, "The spec's OperationError: the device could not run the work.");
create_exception!(webnn, NotSupportedError, WebNNError, "The spec's NotSupportedError.");
create_exception!(webnn, InvalidStateError, WebNNError, "The spec's InvalidStateError: a destroyed object, or one used where its state forbids.");

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("WebNNError", py.get_type::<WebNNError>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add("OperationError", py.get_type::<OperationError>())?;
    m.add("NotSupportedError", py.get_type::<NotSupportedError>())?;
    m.add("InvalidStateError", py.get_type::<InvalidStateError>())?;
    Ok(())
}

/// The Python exception for `e`, with `op`, `label` and `rule` set on it.
pub fn to_py(e: Error) -> PyErr {
    let message = e.to_string();
    let message = message.strip_prefix(&format!("{}: ", e.kind.name())).unwrap_or(&message).to_owned();
    let err = match e.kind {
        ErrorKind::TypeError => PyTypeError::new_err(message),
        ErrorKind::DataError => DataError::new_err(message),
        ErrorKind::OperationError => OperationError::new_err(message),
        ErrorKind::NotSupportedError => NotSupportedError::new_err(message),
        ErrorKind::InvalidStateError => InvalidStateError::new_err(message),
    };
    Python::attach(|py| {
        let v = err.value(py);
        // Attributes on a built-in TypeError instance are allowed (it has a __dict__).
        let _ = v.setattr("op", e.op);
        let _ = v.setattr("label", e.label.as_str());
        let _ = v.setattr("rule", e.rule.as_str());
    });
    err
}

/// `webnn_core::Result` into `PyResult`.
pub trait Raise<T> {
    fn raise(self) -> PyResult<T>;
}

impl<T> Raise<T> for webnn_core::Result<T> {
    fn raise(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A TypeError for an argument Python handed over that no WebNN value can be made of.
pub fn type_error(msg: impl Into<String>) -> PyErr {
    to_py(Error::type_error(msg))
}
