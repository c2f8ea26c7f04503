//! Errors as values carrying the DOMException name the spec requires.

use std::fmt;

/// The exception kinds WebNN algorithms throw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    TypeError,
    DataError,
    OperationError,
    NotSupportedError,
    InvalidStateError,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::TypeError => "TypeError",
            ErrorKind::DataError => "DataError",
            ErrorKind::OperationError => "OperationError",
            ErrorKind::NotSupportedError => "NotSupportedError",
            ErrorKind::InvalidStateError => "InvalidStateError",
        }
    }
}

/// A failure the user can cause: the exception kind, the op (if any), the operator/operand
/// label, and the rule that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub op: Option<&'static str>,
    pub label: String,
    pub rule: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, rule: impl Into<String>) -> Error {
        Error { kind, op: None, label: String::new(), rule: rule.into() }
    }
    pub fn type_error(rule: impl Into<String>) -> Error {
        Error::new(ErrorKind::TypeError, rule)
    }
    pub fn data_error(rule: impl Into<String>) -> Error {
        Error::new(ErrorKind::DataError, rule)
    }
    pub fn operation_error(rule: impl Into<String>) -> Error {
        Error::new(ErrorKind::OperationError, rule)
    }
    pub fn not_supported(rule: impl Into<String>) -> Error {
        Error::new(ErrorKind::NotSupportedError, rule)
    }
    pub fn invalid_state(rule: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidStateError, rule)
    }
    /// Attaches the op name and label (keeps ones already set).
    pub fn at(mut self, op: &'static str, label: &str) -> Error {
        if self.op.is_none() {
            self.op = Some(op);
        }
        if self.label.is_empty() {
            self.label = label.to_owned();
        }
        self
    }
}

impl fmt::Display for Error {
    /// `TypeError: conv2d [label]: rule` — WPT looks for the `[label]` substring; without a
    /// label `TypeError: conv2d: rule`, without either `TypeError: rule`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.kind.name())?;
        match (self.op, self.label.is_empty()) {
            (Some(op), true) => write!(f, "{op}: ")?,
            (Some(op), false) => write!(f, "{op} [{}]: ", self.label)?,
            (None, false) => write!(f, "[{}]: ", self.label)?,
            (None, true) => {}
        }
        f.write_str(&self.rule)
    }
}

impl std::error::Error for Error {}
