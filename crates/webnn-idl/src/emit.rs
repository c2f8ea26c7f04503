//! The inverse of `calls`: a validated graph written as the `MLGraphBuilder` calls that build
//! it again. A graph made in Rust (the ONNX importer's) then runs on any `MLGraphBuilder`: the
//! polyfill's, a browser's own WebNN, or `calls::call` here ([`replay`]).
//!
//! The program is JSON: `inputs` (`name`, `operand`, `descriptor`), `constants` (`operand`,
//! `descriptor`, `byteOffset`, `byteLength` into one buffer of every constant's bytes),
//! `calls` (`method`, positional `args` in the IDL's order with the options dictionary last,
//! `outputs`: the operand indices the call returns) and `outputs` (`name`, `operand`). Values
//! JSON cannot hold travel as one-member objects: `{"$operand": i}` (operand `i` of the
//! program), `{"$number": "NaN" | "Infinity" | "-Infinity" | "-0"}` and
//! `{"$bigint": "<decimal>"}`. Option members at their spec default are left out, so an
//! implementation that predates a member still accepts the call.

use crate::args::{Args, Operands, BIGINT_KEY};
use crate::calls::{call, CallError};
use crate::options::*;
use crate::signatures::op_signature;
use serde_json::{json, Map, Value};
use webnn_core::ops::*;
use webnn_core::{Dim, Error, Graph, GraphBuilder, Operand, OperandDescriptor, Result, Source};

pub const OPERAND: &str = "$operand";
pub const NUMBER: &str = "$number";
pub const BIGINT: &str = "$bigint";

/// The program of `g` and the buffer its constants' offsets point into.
pub fn program(g: &Graph) -> Result<(Value, Vec<u8>)> {
    let mut inputs = Vec::new();
    let mut constants = Vec::new();
    let mut blob = Vec::new();
    for (i, info) in g.operands.iter().enumerate() {
        match &info.source {
            Source::Input(name) => {
                inputs.push(
                    json!({"name": name, "operand": i, "descriptor": descriptor(&info.desc)}),
                );
            }
            Source::Constant(bytes) => {
                // 16-byte alignment lets a reader view any element type in place.
                blob.resize(blob.len().next_multiple_of(16), 0);
                constants.push(json!({
                    "operand": i, "descriptor": descriptor(&info.desc),
                    "byteOffset": blob.len(), "byteLength": bytes.len(),
                }));
                blob.extend_from_slice(bytes);
            }
            Source::Node { .. } => {}
        }
    }
    let mut calls = Vec::new();
    for node in &g.nodes {
        let (params, options) = node_call(&node.op);
        let method = node.op.name();
        let sig = op_signature(method)
            .ok_or_else(|| Error::not_supported(format!("{method}: no IDL signature")))?;
        let mut args = Vec::new();
        for p in &sig.params {
            if p.name == "options" {
                args.push(Value::Object(options.clone()));
            } else if let Some((_, v)) = params.iter().find(|(n, _)| *n == p.name) {
                args.push(v.clone());
            } else if !p.optional {
                return Err(Error::not_supported(format!(
                    "{method}: no value for '{}'",
                    p.name
                )));
            }
        }
        let outputs: Vec<usize> = node.outputs.iter().map(|o| o.index()).collect();
        calls.push(json!({"method": method, "args": args, "outputs": outputs}));
    }
    let outputs: Vec<Value> = g
        .outputs
        .iter()
        .map(|(n, o)| json!({"name": n, "operand": o.index()}))
        .collect();
    Ok((
        json!({"inputs": inputs, "constants": constants, "calls": calls, "outputs": outputs}),
        blob,
    ))
}

/// Builds `program` again on `b` (constants read from `blob`) and returns its graph.
pub fn replay(
    b: &mut GraphBuilder,
    program: &Value,
    blob: &[u8],
) -> std::result::Result<Graph, CallError> {
    let bad = |what: &str| CallError::Harness(format!("program: {what}"));
    let list = |key: &str| {
        program
            .get(key)
            .and_then(Value::as_array)
            .ok_or_else(|| bad(key))
    };
    let index = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_u64)
            .map(|i| i as usize)
            .ok_or_else(|| bad(key))
    };
    // Declarations and calls in operand order, as they were first made, so the graph comes
    // back numbered as it was.
    let mut steps: Vec<(usize, Step)> = Vec::new();
    for v in list("inputs")? {
        steps.push((index(v, "operand")?, Step::Input(v)));
    }
    for v in list("constants")? {
        steps.push((index(v, "operand")?, Step::Constant(v)));
    }
    for c in list("calls")? {
        let first = c
            .get("outputs")
            .and_then(Value::as_array)
            .and_then(|o| o.first())
            .and_then(Value::as_u64);
        steps.push((first.ok_or_else(|| bad("outputs"))? as usize, Step::Call(c)));
    }
    steps.sort_by_key(|(i, _)| *i);
    let mut ops = Table(Vec::new());
    for (i, step) in steps {
        match step {
            Step::Input(v) => {
                let name = v
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("input name"))?;
                let desc =
                    crate::args::descriptor(v.get("descriptor").ok_or_else(|| bad("descriptor"))?)?;
                ops.set(i, b.input(name, desc)?);
            }
            Step::Constant(v) => {
                let desc =
                    crate::args::descriptor(v.get("descriptor").ok_or_else(|| bad("descriptor"))?)?;
                let (at, len) = (index(v, "byteOffset")?, index(v, "byteLength")?);
                let bytes = blob
                    .get(at..at.saturating_add(len))
                    .ok_or_else(|| bad("a constant outside the buffer"))?;
                ops.set(i, b.constant(desc, bytes.to_vec())?);
            }
            Step::Call(c) => {
                let method = c
                    .get("method")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("method"))?;
                let sig = op_signature(method).ok_or_else(|| bad(method))?;
                let args = c
                    .get("args")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad("args"))?;
                let args: Vec<Value> = args.iter().map(decode).collect();
                let mut params = Vec::new();
                let mut options = None;
                for (p, v) in sig.params.iter().zip(&args) {
                    if p.name == "options" {
                        options = Some(v);
                    } else {
                        params.push((p.name.as_str(), v));
                    }
                }
                let made = call(b, method, &Args::new(params, options, &ops, false))?;
                let outs = c
                    .get("outputs")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad("outputs"))?;
                for (o, i) in made.into_iter().zip(outs) {
                    ops.set(i.as_u64().ok_or_else(|| bad("outputs"))? as usize, o);
                }
            }
        }
    }
    let mut named = Vec::new();
    for v in list("outputs")? {
        let name = v
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("output name"))?;
        let o = ops
            .0
            .get(index(v, "operand")?)
            .copied()
            .flatten()
            .ok_or_else(|| bad("an output no call made"))?;
        named.push((name, o));
    }
    Ok(b.build(&named)?)
}

enum Step<'a> {
    Input(&'a Value),
    Constant(&'a Value),
    Call(&'a Value),
}

/// The replayed operands by program index.
struct Table(Vec<Option<Operand>>);

impl Table {
    fn set(&mut self, i: usize, o: Operand) {
        if self.0.len() <= i {
            self.0.resize(i + 1, None);
        }
        self.0[i] = Some(o);
    }
}

impl Operands for Table {
    fn resolve(&self, v: &Value) -> Option<Operand> {
        let i = v.as_object()?.get(OPERAND)?.as_u64()?;
        self.0.get(usize::try_from(i).ok()?).copied().flatten()
    }
}

/// The transport markers as `webnn-idl`'s readers take them (special numbers as strings,
/// BigInts under `BIGINT_KEY`); operand markers stay for `Table`.
fn decode(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(decode).collect()),
        Value::Object(o) => match (o.get(NUMBER), o.get(BIGINT)) {
            (Some(s), _) => s.clone(),
            (_, Some(d)) => json!({ BIGINT_KEY: d }),
            _ => Value::Object(o.iter().map(|(k, v)| (k.clone(), decode(v))).collect()),
        },
        other => other.clone(),
    }
}

fn operand(o: Operand) -> Value {
    json!({ OPERAND: o.index() })
}

fn number(x: f64) -> Value {
    let special = if x.is_nan() {
        "NaN"
    } else if x == f64::INFINITY {
        "Infinity"
    } else if x == f64::NEG_INFINITY {
        "-Infinity"
    } else if x == 0.0 && x.is_sign_negative() {
        "-0"
    } else {
        return json!(x);
    };
    json!({ NUMBER: special })
}

fn ml_number(n: MLNumber) -> Value {
    match n {
        MLNumber::Double(x) => number(x),
        MLNumber::BigInt(i) => json!({ BIGINT: i.to_string() }),
    }
}

fn dims(d: &[Dim]) -> Value {
    Value::Array(
        d.iter()
            .map(|d| match d {
                Dim::Static(n) => json!(n),
                Dim::Dynamic { name, max_size } => json!({"name": &**name, "maxSize": max_size}),
            })
            .collect(),
    )
}

fn descriptor(d: &OperandDescriptor) -> Value {
    json!({"dataType": d.data_type.name(), "shape": dims(&d.shape)})
}

/// An enum value's IDL string, from the table the reader converts with.
fn name<T: Copy + PartialEq>(table: &[(&'static str, T)], v: T) -> Value {
    json!(table.iter().find(|(_, t)| *t == v).map_or("", |(n, _)| *n))
}

/// An options dictionary: members in `(name, value, default)` form, defaults left out.
struct Dict(Map<String, Value>);

impl Dict {
    fn new(label: &str) -> Dict {
        let mut m = Map::new();
        if !label.is_empty() {
            m.insert("label".into(), json!(label));
        }
        Dict(m)
    }
    fn set<T: PartialEq>(mut self, key: &str, v: &T, default: &T, f: impl Fn(&T) -> Value) -> Dict {
        if v != default {
            self.0.insert(key.into(), f(v));
        }
        self
    }
    fn opt<T>(mut self, key: &str, v: &Option<T>, f: impl Fn(&T) -> Value) -> Dict {
        if let Some(v) = v {
            self.0.insert(key.into(), f(v));
        }
        self
    }
}

fn list(v: &Vec<u32>) -> Value {
    json!(v)
}

fn enum_list<T: Copy + PartialEq>(
    table: &'static [(&'static str, T)],
) -> impl Fn(&Vec<T>) -> Value {
    move |v| Value::Array(v.iter().map(|x| name(table, *x)).collect())
}

/// The named positional arguments and the options dictionary of one op.
fn node_call(op: &Op) -> (Vec<(&'static str, Value)>, Map<String, Value>) {
    let (params, dict): (Vec<(&'static str, Value)>, Dict) = match op {
        Op::IsNaN(a) | Op::IsInfinite(a) | Op::LogicalNot(a) => {
            (vec![("a", operand(a.input))], Dict::new(a.label()))
        }
        Op::Abs(a)
        | Op::Ceil(a)
        | Op::Cos(a)
        | Op::Erf(a)
        | Op::Exp(a)
        | Op::Floor(a)
        | Op::Identity(a)
        | Op::Log(a)
        | Op::Neg(a)
        | Op::Reciprocal(a)
        | Op::RoundEven(a)
        | Op::Sin(a)
        | Op::Sign(a)
        | Op::Sqrt(a)
        | Op::Tan(a)
        | Op::Gelu(a)
        | Op::HardSwish(a)
        | Op::Relu(a)
        | Op::Sigmoid(a)
        | Op::Softplus(a)
        | Op::Softsign(a)
        | Op::Tanh(a) => (vec![("input", operand(a.input))], Dict::new(a.label())),
        Op::Add(a)
        | Op::Sub(a)
        | Op::Mul(a)
        | Op::Div(a)
        | Op::Max(a)
        | Op::Min(a)
        | Op::Pow(a)
        | Op::Equal(a)
        | Op::NotEqual(a)
        | Op::Greater(a)
        | Op::GreaterOrEqual(a)
        | Op::Lesser(a)
        | Op::LesserOrEqual(a)
        | Op::LogicalAnd(a)
        | Op::LogicalOr(a)
        | Op::LogicalXor(a)
        | Op::Matmul(a) => (
            vec![("a", operand(a.a)), ("b", operand(a.b))],
            Dict::new(a.label()),
        ),
        Op::Cast(a) => (
            vec![
                ("input", operand(a.input)),
                ("dataType", json!(a.data_type.name())),
            ],
            Dict::new(a.label()),
        ),
        Op::Clamp(a) => {
            let o = &a.options;
            let d = Dict::new(&o.label)
                .opt("minValue", &o.min_value, |n| ml_number(*n))
                .opt("maxValue", &o.max_value, |n| ml_number(*n));
            (vec![("input", operand(a.input))], d)
        }
        Op::Elu(a) => (
            vec![("input", operand(a.input))],
            Dict::new(a.label()).set(
                "alpha",
                &a.options.alpha,
                &EluOptions::default().alpha,
                |x| number(*x),
            ),
        ),
        Op::HardSigmoid(a) => {
            let def = HardSigmoidOptions::default();
            let d = Dict::new(a.label())
                .set("alpha", &a.options.alpha, &def.alpha, |x| number(*x))
                .set("beta", &a.options.beta, &def.beta, |x| number(*x));
            (vec![("input", operand(a.input))], d)
        }
        Op::LeakyRelu(a) => {
            let d = Dict::new(a.label()).set(
                "alpha",
                &a.options.alpha,
                &LeakyReluOptions::default().alpha,
                |x| number(*x),
            );
            (vec![("input", operand(a.input))], d)
        }
        Op::Linear(a) => {
            let def = LinearOptions::default();
            let d = Dict::new(a.label())
                .set("alpha", &a.options.alpha, &def.alpha, |x| number(*x))
                .set("beta", &a.options.beta, &def.beta, |x| number(*x));
            (vec![("input", operand(a.input))], d)
        }
        Op::Prelu(a) => (
            vec![("input", operand(a.input)), ("slope", operand(a.slope))],
            Dict::new(a.label()),
        ),
        Op::Softmax(a) => (
            vec![("input", operand(a.input)), ("axis", json!(a.axis))],
            Dict::new(a.label()),
        ),
        Op::ArgMin(a) | Op::ArgMax(a) => {
            let (o, def) = (&a.options, ArgMinMaxOptions::default());
            let d = Dict::new(&o.label)
                .set(
                    "keepDimensions",
                    &o.keep_dimensions,
                    &def.keep_dimensions,
                    |b| json!(b),
                )
                .set(
                    "outputDataType",
                    &o.output_data_type,
                    &def.output_data_type,
                    |t| json!(t.name()),
                );
            (
                vec![("input", operand(a.input)), ("axis", json!(a.axis))],
                d,
            )
        }
        Op::CumulativeSum(a) => {
            let (o, def) = (&a.options, CumulativeSumOptions::default());
            let d = Dict::new(&o.label)
                .set("exclusive", &o.exclusive, &def.exclusive, |b| json!(b))
                .set("reversed", &o.reversed, &def.reversed, |b| json!(b));
            (
                vec![("input", operand(a.input)), ("axis", json!(a.axis))],
                d,
            )
        }
        Op::ReduceL1(a)
        | Op::ReduceL2(a)
        | Op::ReduceLogSum(a)
        | Op::ReduceLogSumExp(a)
        | Op::ReduceMax(a)
        | Op::ReduceMean(a)
        | Op::ReduceMin(a)
        | Op::ReduceProduct(a)
        | Op::ReduceSum(a)
        | Op::ReduceSumSquare(a) => {
            let o = &a.options;
            let d = Dict::new(&o.label).opt("axes", &o.axes, list).set(
                "keepDimensions",
                &o.keep_dimensions,
                &false,
                |b| json!(b),
            );
            (vec![("input", operand(a.input))], d)
        }
        Op::Conv2d(a) => {
            let (o, def) = (&a.options, Conv2dOptions::default());
            let d = Dict::new(&o.label)
                .opt("padding", &o.padding, list)
                .opt("strides", &o.strides, list)
                .opt("dilations", &o.dilations, list)
                .set("groups", &o.groups, &def.groups, |g| json!(g))
                .set("inputLayout", &o.input_layout, &def.input_layout, |l| {
                    name(INPUT_LAYOUT, *l)
                })
                .set("filterLayout", &o.filter_layout, &def.filter_layout, |l| {
                    name(CONV2D_FILTER_LAYOUT, *l)
                })
                .opt("bias", &o.bias, |b| operand(*b));
            (
                vec![("input", operand(a.input)), ("filter", operand(a.filter))],
                d,
            )
        }
        Op::ConvTranspose2d(a) => {
            let (o, def) = (&a.options, ConvTranspose2dOptions::default());
            let d = Dict::new(&o.label)
                .opt("padding", &o.padding, list)
                .opt("strides", &o.strides, list)
                .opt("dilations", &o.dilations, list)
                .opt("outputPadding", &o.output_padding, list)
                .opt("outputSizes", &o.output_sizes, list)
                .set("groups", &o.groups, &def.groups, |g| json!(g))
                .set("inputLayout", &o.input_layout, &def.input_layout, |l| {
                    name(INPUT_LAYOUT, *l)
                })
                .set("filterLayout", &o.filter_layout, &def.filter_layout, |l| {
                    name(CONV_TRANSPOSE2D_FILTER_LAYOUT, *l)
                })
                .opt("bias", &o.bias, |b| operand(*b));
            (
                vec![("input", operand(a.input)), ("filter", operand(a.filter))],
                d,
            )
        }
        Op::AveragePool2d(a) | Op::L2Pool2d(a) | Op::MaxPool2d(a) => {
            let (o, def) = (&a.options, Pool2dOptions::default());
            let d = Dict::new(&o.label)
                .opt("windowDimensions", &o.window_dimensions, list)
                .opt("padding", &o.padding, list)
                .opt("strides", &o.strides, list)
                .opt("dilations", &o.dilations, list)
                .set("layout", &o.layout, &def.layout, |l| name(INPUT_LAYOUT, *l))
                .set(
                    "outputShapeRounding",
                    &o.output_shape_rounding,
                    &def.output_shape_rounding,
                    |r| name(ROUNDING, *r),
                )
                .opt("outputSizes", &o.output_sizes, list);
            (vec![("input", operand(a.input))], d)
        }
        Op::Resample2d(a) => {
            let (o, def) = (&a.options, Resample2dOptions::default());
            let d = Dict::new(&o.label)
                .set("mode", &o.mode, &def.mode, |m| name(INTERPOLATION, *m))
                .opt("scales", &o.scales, |s| {
                    Value::Array(s.iter().map(|x| number(f64::from(*x))).collect())
                })
                .opt("sizes", &o.sizes, list)
                .opt("axes", &o.axes, list);
            (vec![("input", operand(a.input))], d)
        }
        Op::BatchNormalization(a) => {
            let (o, def) = (&a.options, BatchNormalizationOptions::default());
            let d = Dict::new(&o.label)
                .opt("scale", &o.scale, |x| operand(*x))
                .opt("bias", &o.bias, |x| operand(*x))
                .set("axis", &o.axis, &def.axis, |x| json!(x))
                .set("epsilon", &o.epsilon, &def.epsilon, |x| number(*x));
            (
                vec![
                    ("input", operand(a.input)),
                    ("mean", operand(a.mean)),
                    ("variance", operand(a.variance)),
                ],
                d,
            )
        }
        Op::InstanceNormalization(a) => {
            let (o, def) = (&a.options, InstanceNormalizationOptions::default());
            let d = Dict::new(&o.label)
                .opt("scale", &o.scale, |x| operand(*x))
                .opt("bias", &o.bias, |x| operand(*x))
                .set("epsilon", &o.epsilon, &def.epsilon, |x| number(*x))
                .set("layout", &o.layout, &def.layout, |l| name(INPUT_LAYOUT, *l));
            (vec![("input", operand(a.input))], d)
        }
        Op::LayerNormalization(a) => {
            let (o, def) = (&a.options, LayerNormalizationOptions::default());
            let d = Dict::new(&o.label)
                .opt("scale", &o.scale, |x| operand(*x))
                .opt("bias", &o.bias, |x| operand(*x))
                .opt("axes", &o.axes, list)
                .set("epsilon", &o.epsilon, &def.epsilon, |x| number(*x));
            (vec![("input", operand(a.input))], d)
        }
        Op::Gemm(a) => {
            let (o, def) = (&a.options, GemmOptions::default());
            let d = Dict::new(&o.label)
                .opt("c", &o.c, |x| operand(*x))
                .set("alpha", &o.alpha, &def.alpha, |x| number(*x))
                .set("beta", &o.beta, &def.beta, |x| number(*x))
                .set("aTranspose", &o.a_transpose, &false, |b| json!(b))
                .set("bTranspose", &o.b_transpose, &false, |b| json!(b));
            (vec![("a", operand(a.a)), ("b", operand(a.b))], d)
        }
        Op::Gru(a) => {
            let (o, def) = (&a.options, GruOptions::default());
            let d = Dict::new(&o.label)
                .opt("bias", &o.bias, |x| operand(*x))
                .opt("recurrentBias", &o.recurrent_bias, |x| operand(*x))
                .opt("initialHiddenState", &o.initial_hidden_state, |x| {
                    operand(*x)
                })
                .set("resetAfter", &o.reset_after, &def.reset_after, |b| json!(b))
                .set(
                    "returnSequence",
                    &o.return_sequence,
                    &def.return_sequence,
                    |b| json!(b),
                )
                .set("direction", &o.direction, &def.direction, |x| {
                    name(DIRECTION, *x)
                })
                .set("layout", &o.layout, &def.layout, |x| name(GRU_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("steps", json!(a.steps)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::GruCell(a) => {
            let (o, def) = (&a.options, GruCellOptions::default());
            let d = Dict::new(&o.label)
                .opt("bias", &o.bias, |x| operand(*x))
                .opt("recurrentBias", &o.recurrent_bias, |x| operand(*x))
                .set("resetAfter", &o.reset_after, &def.reset_after, |b| json!(b))
                .set("layout", &o.layout, &def.layout, |x| name(GRU_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("hiddenState", operand(a.hidden_state)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::Lstm(a) => {
            let (o, def) = (&a.options, LstmOptions::default());
            let d = Dict::new(&o.label)
                .opt("bias", &o.bias, |x| operand(*x))
                .opt("recurrentBias", &o.recurrent_bias, |x| operand(*x))
                .opt("peepholeWeight", &o.peephole_weight, |x| operand(*x))
                .opt("initialHiddenState", &o.initial_hidden_state, |x| {
                    operand(*x)
                })
                .opt("initialCellState", &o.initial_cell_state, |x| operand(*x))
                .set(
                    "returnSequence",
                    &o.return_sequence,
                    &def.return_sequence,
                    |b| json!(b),
                )
                .set("direction", &o.direction, &def.direction, |x| {
                    name(DIRECTION, *x)
                })
                .set("layout", &o.layout, &def.layout, |x| name(LSTM_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("steps", json!(a.steps)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::LstmCell(a) => {
            let (o, def) = (&a.options, LstmCellOptions::default());
            let d = Dict::new(&o.label)
                .opt("bias", &o.bias, |x| operand(*x))
                .opt("recurrentBias", &o.recurrent_bias, |x| operand(*x))
                .opt("peepholeWeight", &o.peephole_weight, |x| operand(*x))
                .set("layout", &o.layout, &def.layout, |x| name(LSTM_LAYOUT, *x))
                .opt("activations", &o.activations, enum_list(ACTIVATION));
            let p = vec![
                ("input", operand(a.input)),
                ("weight", operand(a.weight)),
                ("recurrentWeight", operand(a.recurrent_weight)),
                ("hiddenState", operand(a.hidden_state)),
                ("cellState", operand(a.cell_state)),
                ("hiddenSize", json!(a.hidden_size)),
            ];
            (p, d)
        }
        Op::Gather(a) | Op::GatherElements(a) => {
            let d = Dict::new(a.label()).set("axis", &a.options.axis, &0, |x| json!(x));
            (
                vec![("input", operand(a.input)), ("indices", operand(a.indices))],
                d,
            )
        }
        Op::GatherNd(a) => (
            vec![("input", operand(a.input)), ("indices", operand(a.indices))],
            Dict::new(a.label()),
        ),
        Op::ScatterElements(a) => {
            let d = Dict::new(a.label()).set("axis", &a.options.axis, &0, |x| json!(x));
            (
                vec![
                    ("input", operand(a.input)),
                    ("indices", operand(a.indices)),
                    ("updates", operand(a.updates)),
                ],
                d,
            )
        }
        Op::ScatterNd(a) => (
            vec![
                ("input", operand(a.input)),
                ("indices", operand(a.indices)),
                ("updates", operand(a.updates)),
            ],
            Dict::new(a.label()),
        ),
        Op::Concat(a) => {
            let inputs = Value::Array(a.inputs.iter().map(|o| operand(*o)).collect());
            (
                vec![("inputs", inputs), ("axis", json!(a.axis))],
                Dict::new(&a.options.label),
            )
        }
        Op::Expand(a) => (
            vec![
                ("input", operand(a.input)),
                ("newShape", dims(&a.new_shape)),
            ],
            Dict::new(a.label()),
        ),
        Op::Reshape(a) => (
            vec![
                ("input", operand(a.input)),
                ("newShape", dims(&a.new_shape)),
            ],
            Dict::new(a.label()),
        ),
        Op::Pad(a) => {
            let (o, def) = (&a.options, PadOptions::default());
            let d = Dict::new(&o.label)
                .set("mode", &o.mode, &def.mode, |m| name(PADDING_MODE, *m))
                .set("value", &o.value, &def.value, |n| ml_number(*n));
            let p = vec![
                ("input", operand(a.input)),
                ("beginningPadding", json!(a.beginning_padding)),
                ("endingPadding", json!(a.ending_padding)),
            ];
            (p, d)
        }
        Op::Reverse(a) => (
            vec![("input", operand(a.input))],
            Dict::new(a.label()).opt("axes", &a.options.axes, list),
        ),
        Op::Slice(a) => {
            let d = Dict::new(a.label()).opt("strides", &a.options.strides, list);
            (
                vec![
                    ("input", operand(a.input)),
                    ("starts", json!(a.starts)),
                    ("sizes", dims(&a.sizes)),
                ],
                d,
            )
        }
        Op::Split(a) => {
            let splits = match &a.splits {
                Splits::Count(n) => json!(n),
                Splits::Sizes(s) => json!(s),
            };
            let d = Dict::new(a.label()).set("axis", &a.options.axis, &0, |x| json!(x));
            (vec![("input", operand(a.input)), ("splits", splits)], d)
        }
        Op::Tile(a) => (
            vec![
                ("input", operand(a.input)),
                ("repetitions", json!(a.repetitions)),
            ],
            Dict::new(a.label()),
        ),
        Op::Transpose(a) => (
            vec![("input", operand(a.input))],
            Dict::new(a.label()).opt("permutation", &a.options.permutation, list),
        ),
        Op::Triangular(a) => {
            let (o, def) = (&a.options, TriangularOptions::default());
            let d = Dict::new(&o.label)
                .set("upper", &o.upper, &def.upper, |b| json!(b))
                .set("diagonal", &o.diagonal, &def.diagonal, |x| json!(x));
            (vec![("input", operand(a.input))], d)
        }
        Op::Where(a) => {
            let p = vec![
                ("condition", operand(a.condition)),
                ("trueValue", operand(a.true_value)),
                ("falseValue", operand(a.false_value)),
            ];
            (p, Dict::new(a.label()))
        }
        Op::QuantizeLinear(a) | Op::DequantizeLinear(a) => (
            vec![
                ("input", operand(a.input)),
                ("scale", operand(a.scale)),
                ("zeroPoint", operand(a.zero_point)),
            ],
            Dict::new(a.label()),
        ),
    };
    (params, dict.0)
}

/// Writes `g` as a program, replays it on a new builder and checks that the same graph comes
/// back. Returns the replayed graph. The tests' check that every graph they build survives
/// the trip. The program is replayed as a value, not through JSON text: serde_json's default
/// float parser can be one ulp off, while the text it writes is the shortest that reads back
/// exactly with a correctly rounded parser, such as a page's `JSON.parse`.
pub fn round_trip(g: &Graph) -> std::result::Result<Graph, String> {
    let (p, blob) = program(g).map_err(|e| e.to_string())?;
    let again = replay(&mut GraphBuilder::new(), &p, &blob).map_err(|e| format!("replaying {p}: {e}"))?;
    let (a, b) = (normalised(&again), normalised(g));
    if a != b {
        let first = |x: &[String], y: &[String]| x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()));
        let show = |v: &Graph| -> (Vec<String>, Vec<String>) {
            (v.operands.iter().map(|o| format!("{:?} {:?}", o.desc, o.source)).collect(), v.nodes.iter().map(|n| format!("{n:?}")).collect())
        };
        let ((oa, na), (ob, nb)) = (show(&a), show(&b));
        let (i, k) = (first(&oa, &ob), first(&na, &nb));
        return Err(format!(
            "the replayed graph differs: {} / {} operands, first different {i}: {:?} against {:?}; {} / {} nodes, first different {k}: {:?} against {:?}; inputs {:?} / {:?}",
            oa.len(), ob.len(), oa.get(i), ob.get(i), na.len(), nb.len(), na.get(k), nb.get(k), a.inputs, b.inputs
        ));
    }
    Ok(again)
}

/// The graph with every operand named by index alone (two builders' ids differ).
fn normalised(g: &Graph) -> Graph {
    let mut g = g.clone();
    let zero = |o: Operand| Operand::from_raw(0, o.index() as u32);
    for n in &mut g.nodes {
        n.op.remap_operands(&zero);
        n.outputs.iter_mut().for_each(|o| *o = zero(*o));
    }
    g.inputs.iter_mut().chain(g.outputs.iter_mut()).for_each(|(_, o)| *o = zero(*o));
    g
}
