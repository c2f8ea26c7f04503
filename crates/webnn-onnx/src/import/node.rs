//! One ONNX node as the lowering code reads it: inputs by position (absent ones empty),
//! typed attribute access with ONNX's defaults, and errors that name the node.

use super::host::{decode, Host};
use super::{Cx, Value};
use crate::proto::{AttributeProto, NodeProto};
use webnn_core::{DataType, Error, Operand, Result};

pub(crate) struct OnnxNode<'a> {
    pub op_type: String,
    pub domain: String,
    pub name: String,
    pub index: usize,
    pub opset: i64,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    attrs: &'a [AttributeProto],
}

impl<'a> OnnxNode<'a> {
    pub fn new(n: &'a NodeProto, index: usize, opset: i64) -> OnnxNode<'a> {
        OnnxNode {
            op_type: n.op_type.clone().unwrap_or_default(),
            domain: n.domain.clone().unwrap_or_default(),
            name: n.name.clone().unwrap_or_default(),
            index,
            opset,
            inputs: n.input.clone(),
            outputs: n.output.clone(),
            attrs: &n.attribute,
        }
    }

    /// `com.microsoft.MatMulNBits`, or the bare type for the default domain.
    pub fn qualified_type(&self) -> String {
        match self.domain.as_str() {
            "" | "ai.onnx" => self.op_type.clone(),
            d => format!("{d}.{}", self.op_type),
        }
    }

    /// The WebNN label of the ops this node becomes: its name, else its first output's.
    pub fn label(&self) -> String {
        if !self.name.is_empty() {
            return self.name.clone();
        }
        self.outputs.first().cloned().unwrap_or_else(|| format!("node {}", self.index))
    }

    /// Prefixes an error with the node, keeping its kind (a WebNN validation failure stays
    /// the TypeError the builder raised).
    pub fn error(&self, mut e: Error) -> Error {
        e.rule = format!("ONNX node '{}' ({}, opset {}): {}", self.label(), self.qualified_type(), self.opset, e.rule);
        e
    }

    fn attr(&self, name: &str) -> Option<&AttributeProto> {
        self.attrs.iter().find(|a| a.name.as_deref() == Some(name))
    }

    pub fn has(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    pub fn i(&self, name: &str, default: i64) -> i64 {
        self.attr(name).and_then(|a| a.i).unwrap_or(default)
    }

    pub fn f(&self, name: &str, default: f32) -> f32 {
        self.attr(name).and_then(|a| a.f).unwrap_or(default)
    }

    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        self.attr(name).map(|a| a.ints.clone())
    }

    pub fn floats(&self, name: &str) -> Option<Vec<f32>> {
        self.attr(name).map(|a| a.floats.clone())
    }

    pub fn strings(&self, name: &str) -> Option<Vec<String>> {
        self.attr(name).map(|a| a.strings.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect())
    }

    pub fn s(&self, name: &str, default: &str) -> String {
        self.attr(name)
            .and_then(|a| a.s.as_ref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_else(|| default.to_owned())
    }

    pub fn tensor(&self, name: &str) -> Result<Option<Host>> {
        match self.attr(name).and_then(|a| a.t.as_ref()) {
            Some(t) => decode(t, None).map(Some),
            None => Ok(None),
        }
    }

    /// An attribute value the importer cannot express.
    pub fn unsupported(&self, what: impl std::fmt::Display) -> Error {
        Error::not_supported(format!("{what} is not supported"))
    }
}

/// A node's input values by position.
pub(crate) struct Args {
    values: Vec<Option<Value>>,
}

impl Args {
    pub fn new(_n: &OnnxNode, values: Vec<Option<Value>>) -> Args {
        Args { values }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Input `i`, absent when out of range or named "".
    pub fn get(&self, i: usize) -> Option<&Value> {
        self.values.get(i).and_then(Option::as_ref)
    }

    pub fn req(&self, i: usize) -> Result<&Value> {
        self.get(i).ok_or_else(|| Error::type_error(format!("input {i} is required")))
    }

    /// Input `i` as an operand.
    pub fn op(&self, cx: &mut Cx, i: usize) -> Result<Operand> {
        let v = self.req(i)?.clone();
        cx.operand(&v)
    }

    pub fn opt_op(&self, cx: &mut Cx, i: usize) -> Result<Option<Operand>> {
        match self.get(i).cloned() {
            Some(v) => cx.operand(&v).map(Some),
            None => Ok(None),
        }
    }

    /// Input `i` as a tensor known at import (shapes, axes, pads...).
    pub fn host(&self, i: usize, what: &str) -> Result<Option<&Host>> {
        match self.get(i) {
            None => Ok(None),
            Some(Value::Host(h)) => Ok(Some(h)),
            Some(Value::Op(_)) => Err(Error::not_supported(format!(
                "{what} (input {i}) is computed at run time; WebNN takes it as an argument, so it must be a constant or shape arithmetic the importer folds"
            ))),
        }
    }

    pub fn ints(&self, i: usize, what: &str) -> Result<Option<Vec<i64>>> {
        Ok(self.host(i, what)?.map(Host::ints))
    }

    pub fn dt(&self, cx: &Cx, i: usize) -> Result<DataType> {
        cx.dt(self.req(i)?)
    }
}
