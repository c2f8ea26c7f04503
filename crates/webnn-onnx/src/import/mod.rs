//! ONNX in: a `ModelProto` becomes a WebNN graph built through `GraphBuilder`, so the spec's
//! validation applies to every imported node. Initializers become constants; shape arithmetic
//! (`Shape`, `Gather`, `Concat`, `Unsqueeze`... feeding `Reshape`, `Expand`, `Slice`) is
//! evaluated at import, since WebNN takes shapes as arguments, not tensors. A `dim_param` is
//! fixed to a size, or made a bounded dynamic dimension, by the caller ([`ImportOptions::dims`]).
//! Anything the importer cannot express is an error naming the node, its op type, the opset
//! and what is missing.

mod attention;
mod contrib;
mod fold;
mod host;
mod inspect;
mod math;
mod nn;
mod node;
mod rnn;
mod tensor;

pub use host::Host;
pub use inspect::{inspect, Summary};

use crate::proto::{tensor_shape_proto::dimension, type_proto, ModelProto, ValueInfoProto};
use node::OnnxNode;
use prost::Message;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use webnn_core::ops::OpOptions;
use webnn_core::{DataType, Dim, Error, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

/// The oldest and newest opsets of the default domain the importer reads.
pub const MIN_OPSET: i64 = 7;
pub const MAX_OPSET: i64 = 22;

/// What a `dim_param` becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimSpec {
    /// A fixed size: the graph is static in it.
    Fixed(u32),
    /// A dynamic dimension of at most this size (WebNN's flexible inputs).
    Bounded(u32),
}

/// Choices the caller makes for a model.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Sizes or bounds of the model's `dim_param`s, by name. Shape arithmetic on a bounded
    /// dimension is not folded, so most models want fixed sizes.
    pub dims: HashMap<String, DimSpec>,
    /// Whole shapes for inputs, by input name: for inputs whose axes have no names, or to
    /// override the declared shape.
    pub shapes: HashMap<String, Vec<u32>>,
    /// The directory external data files are read from (the model's own, for files).
    pub dir: Option<PathBuf>,
    /// Inputs given a value at import, by name: they become constants, so what the model
    /// computes from them (an `If` on a sample rate, a shape) is folded. The graph no longer
    /// has these inputs.
    pub values: HashMap<String, Host>,
}

impl ImportOptions {
    /// Gives the input `name` the value `v` at import (an int64 scalar, say a sample rate).
    pub fn with_value(mut self, name: &str, v: Host) -> ImportOptions {
        self.values.insert(name.to_owned(), v);
        self
    }

    /// Parses `name=size` (a dim_param fixed), `name<=size` (bounded) and `input=1x3x224x224`
    /// (an input's whole shape), comma separated.
    pub fn with_dims(mut self, spec: &str) -> Result<ImportOptions> {
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some((name, dims)) = part.split_once('=').filter(|(_, v)| v.contains('x')) {
                let shape = dims
                    .split('x')
                    .map(|d| d.trim().parse::<u32>().ok().filter(|&d| d > 0))
                    .collect::<Option<Vec<u32>>>()
                    .ok_or_else(|| Error::type_error(format!("'{part}': a shape is positive sizes joined by 'x'")))?;
                self.shapes.insert(name.trim().to_owned(), shape);
                continue;
            }
            let (name, value, bounded) = match part.split_once("<=") {
                Some((n, v)) => (n, v, true),
                None => match part.split_once('=') {
                    Some((n, v)) => (n, v, false),
                    None => return Err(Error::type_error(format!("'{part}' is not name=size or name<=size"))),
                },
            };
            let size: u32 = value
                .trim()
                .parse()
                .ok()
                .filter(|&s| s > 0)
                .ok_or_else(|| Error::type_error(format!("'{part}': the size must be a positive integer")))?;
            let spec = if bounded { DimSpec::Bounded(size) } else { DimSpec::Fixed(size) };
            self.dims.insert(name.trim().to_owned(), spec);
        }
        Ok(self)
    }
}

/// An imported model: the graph, named as the model names its inputs and outputs.
#[derive(Debug)]
pub struct Imported {
    pub graph: Graph,
    /// The default domain's opset the model declares.
    pub opset: i64,
}

/// Reads a model file, its external data from the same directory.
pub fn import_file(path: &Path, options: &ImportOptions) -> Result<Imported> {
    let bytes = std::fs::read(path).map_err(|e| Error::data_error(format!("reading {}: {e}", path.display())))?;
    let mut options = options.clone();
    if options.dir.is_none() {
        options.dir = Some(path.parent().unwrap_or(Path::new(".")).to_path_buf());
    }
    import(&bytes, &options)
}

/// Decodes a serialized `ModelProto`.
pub fn decode_model(bytes: &[u8]) -> Result<ModelProto> {
    ModelProto::decode(bytes).map_err(|e| Error::data_error(format!("not an ONNX model: {e}")))
}

/// Imports a serialized model.
pub fn import(bytes: &[u8], options: &ImportOptions) -> Result<Imported> {
    import_model(&decode_model(bytes)?, options)
}

/// The default domain's opset, checked against the range the importer reads.
fn default_opset(model: &ModelProto) -> Result<i64> {
    let opset = model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
        .and_then(|o| o.version)
        .unwrap_or(1);
    if !(MIN_OPSET..=MAX_OPSET).contains(&opset) {
        return Err(Error::not_supported(format!(
            "the model uses opset {opset} of the default domain; the importer reads {MIN_OPSET} to {MAX_OPSET}"
        )));
    }
    Ok(opset)
}

/// Imports a decoded model.
pub fn import_model(model: &ModelProto, options: &ImportOptions) -> Result<Imported> {
    let opset = default_opset(model)?;
    let graph = model.graph.as_ref().ok_or_else(|| Error::data_error("the model has no graph"))?;
    let mut cx = Cx::new(options.dir.clone());
    for vi in graph.output.iter().chain(&graph.value_info) {
        if let Some(shape) = declared_shape(vi, options) {
            cx.declared.insert(vi.name.clone().unwrap_or_default(), shape);
        }
    }
    for t in &graph.initializer {
        let name = t.name.clone().unwrap_or_default();
        let host = host::decode(t, options.dir.as_deref())?;
        cx.values.insert(name, Value::Host(host));
    }
    for vi in &graph.input {
        let name = vi.name.clone().unwrap_or_default();
        // Inputs with an initializer of the same name are constants with a default (IR < 4).
        if cx.values.contains_key(&name) {
            continue;
        }
        if let Some(v) = options.values.get(&name) {
            // The declared type must match; its dim_params need no value.
            let declared = input_descriptor(vi, &ImportOptions::default()).ok();
            if declared.as_ref().is_some_and(|d| d.data_type != v.dt || d.is_static() && d.static_shape() != Some(v.dims_u32())) {
                return Err(Error::type_error(format!(
                    "the value given for input '{name}' is {} {:?}, the model declares {}",
                    v.dt,
                    v.shape,
                    declared.map(|d| d.to_string()).unwrap_or_default()
                )));
            }
            cx.values.insert(name, Value::Host(v.clone()));
            continue;
        }
        let desc = input_descriptor(vi, options)?;
        let o = cx.b.input(&name, desc)?;
        cx.values.insert(name, Value::Op(o));
    }
    cx.nodes(&graph.node, opset)?;
    let mut outputs = Vec::new();
    for vi in &graph.output {
        let name = vi.name.clone().unwrap_or_default();
        let v = cx.values.get(&name).cloned().ok_or_else(|| Error::data_error(format!("output '{name}' is never computed")))?;
        let o = match v {
            Value::Op(o) if !cx.is_source(o) => o,
            // WebNN outputs are op results: a constant or passed-through input is copied.
            other => {
                let o = cx.operand(&other)?;
                cx.b.identity(o, OpOptions { label: name.clone() })?
            }
        };
        outputs.push((name, o));
    }
    let named: Vec<(&str, Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    let graph = cx.b.build(&named)?;
    Ok(Imported { graph, opset })
}

/// A value's declared shape: sizes, and dim_params the options fix; `None` for the others.
fn declared_shape(vi: &ValueInfoProto, options: &ImportOptions) -> Option<Vec<Option<u32>>> {
    let Some(type_proto::Value::TensorType(t)) = vi.r#type.as_ref()?.value.as_ref() else { return None };
    let dims = t.shape.as_ref()?.dim.iter().map(|d| match &d.value {
        Some(dimension::Value::DimValue(v)) => u32::try_from(*v).ok().filter(|&v| v > 0),
        Some(dimension::Value::DimParam(p)) => match options.dims.get(p) {
            Some(DimSpec::Fixed(n)) => Some(*n),
            _ => None,
        },
        None => None,
    });
    Some(dims.collect())
}

/// A graph input's descriptor, its `dim_param`s resolved by the options.
fn input_descriptor(vi: &ValueInfoProto, options: &ImportOptions) -> Result<OperandDescriptor> {
    let name = vi.name.as_deref().unwrap_or("");
    let Some(type_proto::Value::TensorType(t)) = vi.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
        return Err(Error::not_supported(format!("input '{name}' is not a tensor (sequences and maps have no WebNN form)")));
    };
    let dt = host::webnn_type(t.elem_type.unwrap_or(0) as i64).map_err(|e| Error::not_supported(format!("input '{name}': {}", e.rule)))?;
    if let Some(shape) = options.shapes.get(name) {
        return Ok(OperandDescriptor::new(dt, shape));
    }
    let shape = t
        .shape
        .as_ref()
        .ok_or_else(|| Error::not_supported(format!("input '{name}' declares no shape; WebNN inputs need one")))?;
    let mut dims = Vec::new();
    for (axis, d) in shape.dim.iter().enumerate() {
        let dim = match &d.value {
            Some(dimension::Value::DimValue(v)) if *v > 0 => Dim::Static(*v as u32),
            Some(dimension::Value::DimParam(p)) => match options.dims.get(p) {
                Some(DimSpec::Fixed(n)) => Dim::Static(*n),
                Some(DimSpec::Bounded(max)) => Dim::Dynamic { name: p.as_str().into(), max_size: *max },
                None => {
                    return Err(Error::type_error(format!(
                        "input '{name}' axis {axis} is the dim_param '{p}': give it a size ('{p}=N') or a bound ('{p}<=N')"
                    )))
                }
            },
            _ => {
                return Err(Error::type_error(format!(
                    "input '{name}' axis {axis} has no size and no name; give the input's shape"
                )))
            }
        };
        dims.push(dim);
    }
    Ok(OperandDescriptor::with_dims(dt, dims))
}

/// A value of the ONNX graph: a WebNN operand, or a tensor known at import.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    Op(Operand),
    Host(Host),
}

/// The state of one import.
pub(crate) struct Cx {
    pub b: GraphBuilder,
    values: HashMap<String, Value>,
    /// Host tensors already made constants, by the address of their data (shared by clones).
    constants: HashMap<(usize, usize, DataType), Operand>,
    /// Where external data lives (for subgraphs' initializers).
    dir: Option<PathBuf>,
    /// The current node's label, given to every WebNN op it becomes.
    pub label: String,
    /// The shapes the model declares for graph outputs and `value_info`, by name, with the
    /// dim_params the caller fixed resolved (`None`: unknown or not fixed).
    declared: HashMap<String, Vec<Option<u32>>>,
}

impl Cx {
    fn new(dir: Option<PathBuf>) -> Cx {
        Cx {
            dir,
            b: GraphBuilder::new(),
            values: HashMap::new(),
            constants: HashMap::new(),
            label: String::new(),
            declared: HashMap::new(),
        }
    }

    /// The shape the model declares for the value `name`, if it declares one.
    pub fn declared(&self, name: &str) -> Option<&[Option<u32>]> {
        self.declared.get(name).map(Vec::as_slice)
    }

    /// Options carrying the current node's label.
    pub fn o(&self) -> OpOptions {
        OpOptions { label: self.label.clone() }
    }

    /// The value named `name`; an error when nothing produced it.
    pub fn value(&self, name: &str) -> Result<Value> {
        self.values.get(name).cloned().ok_or_else(|| Error::data_error(format!("value '{name}' is used before any node produces it")))
    }

    fn is_source(&self, o: Operand) -> bool {
        !matches!(self.b.graph().info(o).source, webnn_core::Source::Node { .. })
    }

    /// A value as an operand: host tensors become constants (once each).
    pub fn operand(&mut self, v: &Value) -> Result<Operand> {
        match v {
            Value::Op(o) => Ok(*o),
            Value::Host(h) => {
                let key = (h.data.as_ptr() as usize, h.data.len(), h.dt);
                if let Some(o) = self.constants.get(&key) {
                    if self.b.desc(*o)?.shape == h.shape.iter().map(|&d| Dim::Static(d as u32)).collect::<Vec<_>>() {
                        return Ok(*o);
                    }
                }
                let desc = OperandDescriptor::new(h.dt, &h.dims_u32());
                let o = self.b.constant_shared(desc, h.data.clone())?;
                self.constants.insert(key, o);
                Ok(o)
            }
        }
    }

    pub fn desc(&self, v: &Value) -> Result<OperandDescriptor> {
        match v {
            Value::Op(o) => Ok(self.b.desc(*o)?.clone()),
            Value::Host(h) => Ok(OperandDescriptor::new(h.dt, &h.dims_u32())),
        }
    }

    /// The static shape of a value; an error for dynamic dimensions.
    pub fn shape(&self, v: &Value) -> Result<Vec<u32>> {
        let d = self.desc(v)?;
        d.static_shape().ok_or_else(|| {
            Error::not_supported(format!(
                "this node needs the static shape of an operand shaped {}; fix the dim_param to a size",
                d.shape_string()
            ))
        })
    }

    pub fn rank(&self, v: &Value) -> Result<usize> {
        Ok(self.desc(v)?.rank())
    }

    pub fn dt(&self, v: &Value) -> Result<DataType> {
        Ok(self.desc(v)?.data_type)
    }

    /// A 0-D constant of `dt`.
    pub fn scalar(&mut self, dt: DataType, v: f64) -> Result<Operand> {
        self.operand(&Value::Host(Host::from_floats(dt, vec![], &[v])))
    }

    /// Lowers a graph's nodes in order (ONNX lists them topologically).
    fn nodes(&mut self, nodes: &[crate::proto::NodeProto], opset: i64) -> Result<()> {
        for (index, n) in nodes.iter().enumerate() {
            let node = OnnxNode::new(n, index, opset);
            self.label = node.label();
            let outputs = match node.op_type.as_str() {
                "If" if node.domain.is_empty() => self.inline_if(&node, n),
                _ => self.lower(&node),
            };
            let outputs = outputs.map_err(|e| node.error(e))?;
            for (name, v) in node.outputs.iter().zip(outputs) {
                if !name.is_empty() {
                    self.values.insert(name.clone(), v);
                }
            }
        }
        Ok(())
    }

    /// `If` on a condition known at import (exports branch on shapes and on sizes fixed at
    /// import): the chosen branch's nodes join the graph; its outer-scope names resolve as
    /// the main graph's do.
    fn inline_if(&mut self, node: &OnnxNode, n: &crate::proto::NodeProto) -> Result<Vec<Value>> {
        let cond = match self.value(node.inputs.first().map(String::as_str).unwrap_or(""))? {
            Value::Host(h) => h.ints().first().copied().unwrap_or(0) != 0,
            Value::Op(_) => {
                return Err(Error::not_supported(
                    "the condition is computed at run time; WebNN graphs have no control flow, so it must be known at import",
                ))
            }
        };
        let branch = if cond { "then_branch" } else { "else_branch" };
        let g = n
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some(branch))
            .and_then(|a| a.g.as_ref())
            .ok_or_else(|| Error::type_error(format!("the {branch} graph is missing")))?;
        for t in &g.initializer {
            let host = host::decode(t, self.dir.as_deref())?;
            self.values.insert(t.name.clone().unwrap_or_default(), Value::Host(host));
        }
        self.nodes(&g.node, node.opset)?;
        g.output.iter().map(|o| self.value(o.name.as_deref().unwrap_or(""))).collect()
    }

    fn lower(&mut self, n: &OnnxNode) -> Result<Vec<Value>> {
        let inputs: Vec<Option<Value>> = n
            .inputs
            .iter()
            .map(|name| if name.is_empty() { Ok(None) } else { self.value(name).map(Some) })
            .collect::<Result<_>>()?;
        if let Some(folded) = fold::fold(self, n, &inputs)? {
            return Ok(folded.into_iter().map(Value::Host).collect());
        }
        let args = node::Args::new(n, inputs);
        if let Some(v) = contrib::lower(self, n, &args)? {
            return Ok(v);
        }
        match n.domain.as_str() {
            "" | "ai.onnx" => {}
            "com.microsoft" => {
                return Err(Error::not_supported(format!(
                    "{} is not imported (of ONNX Runtime's contrib operators: MatMulNBits, SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization, RotaryEmbedding, GroupQueryAttention)",
                    n.qualified_type()
                )));
            }
            other => {
                return Err(Error::not_supported(format!("operators of the domain '{other}' are not imported")));
            }
        }
        if let Some(v) = tensor::lower(self, n, &args)? {
            return Ok(v);
        }
        if let Some(v) = nn::lower(self, n, &args)? {
            return Ok(v);
        }
        if let Some(v) = math::lower(self, n, &args)? {
            return Ok(v);
        }
        if let Some(v) = rnn::lower(self, n, &args)? {
            return Ok(v);
        }
        Err(Error::not_supported(format!("the op type {} has no WebNN lowering", n.op_type)))
    }
}

/// One op result as the node's single output.
pub(crate) fn one(o: Operand) -> Result<Option<Vec<Value>>> {
    Ok(Some(vec![Value::Op(o)]))
}

/// A serialized `TensorProto` (the `.pb` files of ONNX's test data) as a host tensor.
pub fn read_tensor_pb(bytes: &[u8]) -> Result<Host> {
    let t = crate::proto::TensorProto::decode(bytes).map_err(|e| Error::data_error(format!("not an ONNX tensor: {e}")))?;
    host::decode(&t, None)
}

/// The original model with the imported graph's boundaries, for running it unchanged on
/// another runtime (ONNX Runtime, as the reference of the importer's tests). Inputs and
/// outputs keep their ONNX names.
pub fn reference_model(model: &ModelProto, imported: &Graph) -> crate::OnnxModel {
    let boundary = |(name, o): &(String, Operand)| crate::Boundary {
        name: name.clone(),
        onnx_name: name.clone(),
        desc: imported.desc(*o).clone(),
    };
    crate::OnnxModel {
        model: model.clone(),
        inputs: imported.inputs.iter().map(boundary).collect(),
        outputs: imported.outputs.iter().map(boundary).collect(),
        external_data: Vec::new(),
    }
}
