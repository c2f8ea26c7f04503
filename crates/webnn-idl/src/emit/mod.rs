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

mod node;

use node::{descriptor, node_call};

use crate::args::{Args, Operands, BIGINT_KEY};
use crate::calls::{call, CallError};
use crate::signatures::op_signature;
use serde_json::{json, Value};
use webnn_core::{Error, Graph, GraphBuilder, Operand, Result, Source};

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
