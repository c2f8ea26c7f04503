//! What a model holds, before or without importing it: the op histogram, the inputs with
//! their `dim_param`s, the initializers' size, and whether the import succeeds.

use super::{decode_model, default_opset, import_model, ImportOptions};
use crate::proto::{tensor_shape_proto::dimension, type_proto, ValueInfoProto};
use std::collections::BTreeMap;
use std::fmt;

/// A model's outline.
#[derive(Clone, Debug)]
pub struct Summary {
    pub producer: String,
    pub opsets: Vec<(String, i64)>,
    /// Node count per op type (`domain.Type` outside the default domain).
    pub ops: BTreeMap<String, usize>,
    /// `name: type[dims]` per graph input, dim_params by name.
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    /// The dim_params of the inputs, in order of appearance.
    pub dim_params: Vec<String>,
    pub initializers: usize,
    pub initializer_bytes: usize,
    /// The import's outcome with the options given: the graph's node count, or the error.
    pub import: Result<usize, String>,
}

fn describe(vi: &ValueInfoProto, dim_params: &mut Vec<String>) -> String {
    let name = vi.name.as_deref().unwrap_or("");
    let Some(type_proto::Value::TensorType(t)) = vi.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
        return format!("{name}: (not a tensor)");
    };
    let ty = crate::proto::tensor_proto::DataType::try_from(t.elem_type.unwrap_or(0))
        .map(|d| d.as_str_name().to_lowercase())
        .unwrap_or_else(|_| "?".into());
    let dims: Vec<String> = t
        .shape
        .iter()
        .flat_map(|s| s.dim.iter())
        .map(|d| match &d.value {
            Some(dimension::Value::DimValue(v)) => v.to_string(),
            Some(dimension::Value::DimParam(p)) => {
                if !dim_params.contains(p) {
                    dim_params.push(p.clone());
                }
                p.clone()
            }
            None => "?".into(),
        })
        .collect();
    format!("{name}: {ty}[{}]", dims.join(", "))
}

/// Outlines a serialized model and tries its import with `options`.
pub fn inspect(bytes: &[u8], options: &ImportOptions) -> Result<Summary, webnn_core::Error> {
    let model = decode_model(bytes)?;
    let mut s = Summary {
        producer: format!(
            "{} {}",
            model.producer_name.as_deref().unwrap_or(""),
            model.producer_version.as_deref().unwrap_or("")
        )
        .trim()
        .to_owned(),
        opsets: model
            .opset_import
            .iter()
            .map(|o| (o.domain.clone().unwrap_or_default(), o.version.unwrap_or(0)))
            .collect(),
        ops: BTreeMap::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        dim_params: Vec::new(),
        initializers: 0,
        initializer_bytes: 0,
        import: Ok(0),
    };
    if let Some(g) = &model.graph {
        for n in &g.node {
            let ty = n.op_type.clone().unwrap_or_default();
            let key = match n.domain.as_deref() {
                None | Some("") | Some("ai.onnx") => ty,
                Some(d) => format!("{d}.{ty}"),
            };
            *s.ops.entry(key).or_default() += 1;
        }
        let init: std::collections::HashSet<&str> = g.initializer.iter().filter_map(|t| t.name.as_deref()).collect();
        let mut params = Vec::new();
        s.inputs = g
            .input
            .iter()
            .filter(|vi| !init.contains(vi.name.as_deref().unwrap_or("")))
            .map(|vi| describe(vi, &mut params))
            .collect();
        s.outputs = g.output.iter().map(|vi| describe(vi, &mut Vec::new())).collect();
        s.dim_params = params;
        s.initializers = g.initializer.len();
        s.initializer_bytes = g
            .initializer
            .iter()
            .map(|t| t.raw_data.as_ref().map_or(0, Vec::len) + t.float_data.len() * 4 + t.int64_data.len() * 8 + t.int32_data.len() * 4)
            .sum();
    }
    s.import = default_opset(&model)
        .and_then(|_| import_model(&model, options))
        .map(|m| m.graph.nodes.len())
        .map_err(|e| e.to_string());
    Ok(s)
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opsets: Vec<String> = self
            .opsets
            .iter()
            .map(|(d, v)| format!("{}:{v}", if d.is_empty() { "ai.onnx" } else { d }))
            .collect();
        writeln!(f, "producer: {}", self.producer)?;
        writeln!(f, "opsets: {}", opsets.join(", "))?;
        for i in &self.inputs {
            writeln!(f, "input  {i}")?;
        }
        for o in &self.outputs {
            writeln!(f, "output {o}")?;
        }
        if !self.dim_params.is_empty() {
            writeln!(f, "dim_params: {} (give each a size: name=N, or a bound: name<=N)", self.dim_params.join(", "))?;
        }
        writeln!(f, "initializers: {} ({:.1} MB inline)", self.initializers, self.initializer_bytes as f64 / 1e6)?;
        let total: usize = self.ops.values().sum();
        writeln!(f, "nodes: {total}")?;
        for (op, n) in &self.ops {
            writeln!(f, "  {n:6}  {op}")?;
        }
        match &self.import {
            Ok(n) => writeln!(f, "import: ok, {n} WebNN ops"),
            Err(e) => writeln!(f, "import: {e}"),
        }
    }
}
