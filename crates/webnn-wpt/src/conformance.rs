//! The conformance suite: each case's graph is built through `GraphBuilder`, compiled and
//! dispatched on a backend, and every expected output compared with the case's tolerance.

use crate::args::descriptor;
use crate::compare::{check_output, Tolerance};
use crate::data::{encode, Data};
use crate::ops_json::CallError;
use crate::report::{case_key, CaseResult, Status, Suite};
use crate::session::{NativeSession, Session};
use serde_json::Value;
use std::collections::HashMap;
use webnn_core::builder::check_descriptor;
use webnn_core::{Backend, DataType, DataTypeSet, HostTensor, OpKind, OperandDescriptor};

/// Why a case stopped before passing.
enum Stop {
    Skip(String),
    Error(String),
    Fail(String),
}

type Step<T> = Result<T, Stop>;

fn harness(msg: impl Into<String>) -> Stop {
    Stop::Error(format!("harness: {}", msg.into()))
}

/// Parses one suite file and takes its top-level array `key` (`cases` or `tables`) out of it.
/// A broken file is reported as its `(load)` case (when selected), giving `None`.
pub(crate) fn load_file(
    suite: Suite,
    file: &str,
    json: &str,
    key: &str,
    selected: &dyn Fn(&str) -> bool,
    on_result: &mut dyn FnMut(CaseResult),
) -> Option<(Value, Vec<Value>)> {
    let mut fail = |message: String| -> Option<(Value, Vec<Value>)> {
        if selected(&case_key(suite, file, crate::LOAD_CASE)) {
            let (name, status, message) = (crate::LOAD_CASE.into(), Status::Error, format!("harness: {message}"));
            on_result(CaseResult { suite, file: file.to_owned(), name, status, message });
        }
        None
    };
    let mut root: Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(e) => return fail(format!("invalid JSON: {e}")),
    };
    match root.get_mut(key).and_then(Value::as_array_mut).map(std::mem::take) {
        Some(items) => Some((root, items)),
        None => fail(format!("the file has no '{key}' array")),
    }
}

/// Runs the selected cases of one conformance file (`json` is its text). `selected` gets each
/// case's key (`conformance/<file>/<name>`); results are handed to `on_result` as they finish.
pub fn run_file(
    backend: &dyn Backend,
    file: &str,
    json: &str,
    selected: &dyn Fn(&str) -> bool,
    on_result: &mut dyn FnMut(CaseResult),
) {
    let mut session = NativeSession::new(backend);
    crate::session::ready(run_file_in(&mut session, file, json, selected, on_result));
}

/// `run_file` on any session (the browser's is asynchronous).
pub async fn run_file_in<S: Session>(
    session: &mut S,
    file: &str,
    json: &str,
    selected: &dyn Fn(&str) -> bool,
    on_result: &mut dyn FnMut(CaseResult),
) {
    let suite = Suite::Conformance;
    let Some((_, cases)) = load_file(suite, file, json, "cases", selected, on_result) else { return };
    for (i, case) in cases.iter().enumerate() {
        let name = case.get("name").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| format!("(case {i})"));
        if !selected(&case_key(suite, file, &name)) {
            continue;
        }
        let (status, message) = match crate::guarded_async(run_case(session, case)).await {
            Err(panic) => (Status::Error, panic),
            Ok(Ok(())) => (Status::Pass, String::new()),
            Ok(Err(Stop::Skip(m))) => (Status::Skip, m),
            Ok(Err(Stop::Error(m))) => (Status::Error, m),
            Ok(Err(Stop::Fail(m))) => (Status::Fail, m),
        };
        on_result(CaseResult { suite, file: file.to_owned(), name, status, message });
    }
}

/// A wider type that holds every value of `t`, among `supported` (for `castToSupportedType`).
pub fn compatible_type(t: DataType, supported: DataTypeSet) -> Option<DataType> {
    use DataType::*;
    let wider: &[DataType] = match t {
        Int4 => &[Int8, Int32, Int64, Float16, Float32],
        Uint4 => &[Uint8, Int8, Int32, Uint32, Int64, Uint64, Float16, Float32],
        Int8 => &[Int32, Int64, Float16, Float32],
        Uint8 => &[Int32, Uint32, Int64, Uint64, Float16, Float32],
        Float16 => &[Float32],
        Int32 => &[Int64],
        Uint32 => &[Uint64, Int64],
        Float32 | Int64 | Uint64 => &[],
    };
    wider.iter().copied().find(|w| supported.contains(*w))
}

/// An entry of `graph.inputs` or `graph.expectedOutputs`.
struct Tensor<'a> {
    name: &'a str,
    desc: OperandDescriptor,
    data: Data,
    constant: bool,
}

fn tensors<'a>(obj: Option<&'a Value>, what: &str) -> Step<Vec<Tensor<'a>>> {
    let obj = obj.and_then(Value::as_object).ok_or_else(|| harness(format!("graph.{what} is not an object")))?;
    obj.iter()
        .map(|(name, t)| {
            let desc = descriptor(t.get("descriptor").unwrap_or(&Value::Null))
                .map_err(|e| harness(format!("{what}.{name}.descriptor: {}", e.rule)))?;
            let data = Data::from_json(t.get("data").unwrap_or(&Value::Null))
                .map_err(|e| harness(format!("{what}.{name}: {e}")))?;
            let constant = t.get("constant").is_some_and(crate::args::boolean);
            Ok(Tensor { name: name.as_str(), desc, data, constant })
        })
        .collect()
}

/// The descriptor's element count, once the builder's own limits have been checked.
fn elements(desc: &OperandDescriptor) -> Step<usize> {
    check_descriptor(desc).map_err(|e| Stop::Error(format!("descriptor {desc}: {e}")))?;
    usize::try_from(desc.max_elements()).map_err(|_| harness("tensor too large"))
}

fn api_error(what: &str, e: impl std::fmt::Display) -> Stop {
    Stop::Error(format!("{what}: {e}"))
}

/// WPT's pre-check for cases without `castToSupportedType`: an operand whose data type the
/// backend's `opSupportLimits()` lacks for that op's slot means the case does not apply.
fn check_support<S: Session>(
    session: &S,
    operands: &HashMap<String, S::Operand>,
    method: &str,
    args: &[(&str, &Value)],
) -> Step<()> {
    let limits = session.limits();
    let Some(kind) = OpKind::from_name(method) else { return Ok(()) };
    for (slot, v) in args {
        if !kind.slots().iter().any(|s| s.name == *slot) {
            continue;
        }
        let names: Vec<&str> = match v {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        for n in names {
            let Some(t) = operands.get(n).and_then(|o| session.desc(o).ok()).map(|d| d.data_type) else { continue };
            if !limits.supports(kind, slot, t) {
                return Err(Stop::Skip(format!(
                    "{method}.{slot}: data type {t} is not in this backend's opSupportLimits()"
                )));
            }
        }
    }
    Ok(())
}

async fn run_case<S: Session>(session: &mut S, case: &Value) -> Step<()> {
    let limits = session.limits().clone();
    let graph = case.get("graph").ok_or_else(|| harness("the case has no graph"))?;
    let tol = Tolerance::from_json(case.get("tolerance").unwrap_or(&Value::Null)).map_err(harness)?;
    let cast = case.get("castToSupportedType").is_some_and(crate::args::boolean);
    let inputs = tensors(graph.get("inputs"), "inputs")?;
    let expected = tensors(graph.get("expectedOutputs"), "expectedOutputs")?;
    let operators = graph.get("operators").and_then(Value::as_array).ok_or_else(|| harness("no graph.operators"))?;

    session.new_builder().map_err(|e| api_error("MLGraphBuilder", e))?;
    let mut operands: HashMap<String, S::Operand> = HashMap::new();
    let mut feeds: Vec<(&str, HostTensor)> = Vec::new();
    for t in &inputs {
        let supported = if t.constant { limits.constant.data_types } else { limits.input.data_types };
        let original = t.desc.data_type;
        let mut data_type = original;
        if !supported.contains(original) {
            let lacks = format!("input '{}' is {original}, which this backend does not support", t.name);
            if !cast {
                return Err(Stop::Skip(lacks));
            }
            data_type = compatible_type(original, supported).ok_or(Stop::Skip(lacks))?;
        }
        let desc = t.desc.with_type(data_type);
        let n = elements(&desc)?;
        let bytes = encode(data_type, &t.data, n).map_err(|e| harness(format!("input '{}': {e}", t.name)))?;
        let mut o = if t.constant {
            session.constant(&desc, bytes, None).map_err(|e| api_error("constant", e))?
        } else {
            let o = session.input(t.name, &desc).map_err(|e| api_error("input", e))?;
            feeds.push((t.name, HostTensor { desc, bytes }));
            o
        };
        if data_type != original {
            o = cast_to(session, o, original)?;
        }
        operands.insert(t.name.to_owned(), o);
    }

    for (k, op) in operators.iter().enumerate() {
        let method =
            op.get("name").and_then(Value::as_str).ok_or_else(|| harness(format!("operator {k} has no name")))?;
        let mut params: Vec<(&str, &Value)> = Vec::new();
        let mut options: Option<&Value> = None;
        for arg in op.get("arguments").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            // A null entry is an array hole in the source; WPT skips it.
            let Some(obj) = arg.as_object() else {
                if arg.is_null() {
                    continue;
                }
                return Err(harness(format!("{method}: argument {arg} is not an object")));
            };
            for (key, v) in obj {
                if key == "options" {
                    options = Some(v);
                } else {
                    params.push((key.as_str(), v));
                }
            }
        }
        if !cast {
            let mut all = params.clone();
            if let Some(Value::Object(m)) = options {
                all.extend(m.iter().map(|(k, v)| (k.as_str(), v)));
            }
            check_support(session, &operands, method, &all)?;
        }
        let outs = session.call(method, &params, options, false, &operands).map_err(|e| match e {
            CallError::Api(e) => Stop::Error(e.to_string()),
            CallError::Harness(m) => harness(m),
        })?;
        name_outputs(method, op.get("outputs"), &outs, &mut operands)?;
    }

    let mut named: Vec<(&str, S::Operand, DataType)> = Vec::new();
    for t in &expected {
        let mut o = operands
            .get(t.name)
            .cloned()
            .ok_or_else(|| harness(format!("expected output '{}' is not produced by any operator", t.name)))?;
        let mut data_type = t.desc.data_type;
        if !limits.output.data_types.contains(data_type) {
            let lacks = format!("output '{}' is {data_type}, which this backend does not support", t.name);
            if !cast {
                return Err(Stop::Skip(lacks));
            }
            data_type = compatible_type(data_type, limits.output.data_types).ok_or(Stop::Skip(lacks))?;
            o = cast_to(session, o, data_type)?;
        }
        named.push((t.name, o, data_type));
    }
    let outputs: Vec<(&str, S::Operand)> = named.iter().map(|(n, o, _)| (*n, o.clone())).collect();
    let results = session.compute(&outputs, &feeds).await.map_err(|(stage, e)| api_error(&stage, e))?;

    let mut failures = Vec::new();
    for (t, (_, _, data_type)) in expected.iter().zip(&named) {
        let Some((_, actual)) = results.iter().find(|(n, _)| n == t.name) else {
            failures.push(format!("output '{}' was not returned", t.name));
            continue;
        };
        let want = t.desc.with_type(*data_type);
        if actual.desc != want {
            failures.push(format!("output '{}' is {}, expected {want}", t.name, actual.desc));
            continue;
        }
        let n = elements(&want)?;
        if let Err(m) = check_output(t.name, *data_type, &actual.bytes, n, &t.data, &tol) {
            failures.push(m);
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Stop::Fail(failures.join("; ")))
    }
}

/// `cast(o, data_type)` through the session (for `castToSupportedType`).
fn cast_to<S: Session>(session: &mut S, o: S::Operand, data_type: DataType) -> Step<S::Operand> {
    let name = "\u{0}cast";
    let operands = HashMap::from([(name.to_owned(), o)]);
    let (input, t) = (Value::String(name.into()), Value::String(data_type.name().into()));
    let outs = session.call("cast", &[("input", &input), ("dataType", &t)], None, false, &operands);
    match outs {
        Ok(mut v) if v.len() == 1 => Ok(v.remove(0)),
        Ok(_) => Err(harness("cast returned no single operand")),
        Err(e) => Err(api_error("cast", e)),
    }
}

/// Records an operator's results under the names its `outputs` gives.
fn name_outputs<O: Clone>(
    method: &str,
    names: Option<&Value>,
    outs: &[O],
    operands: &mut HashMap<String, O>,
) -> Step<()> {
    let names: Vec<&str> = match names {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().ok_or_else(|| harness(format!("{method}: output name {v}"))))
            .collect::<Step<_>>()?,
        _ => return Err(harness(format!("{method}: 'outputs' is neither a string nor an array"))),
    };
    if names.len() != outs.len() {
        return Err(harness(format!("{method} returned {} operands but the case names {}", outs.len(), names.len())));
    }
    for (n, o) in names.iter().zip(outs) {
        operands.insert((*n).to_owned(), o.clone());
    }
    Ok(())
}
