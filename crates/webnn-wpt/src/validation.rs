//! The validation suite: each row of each table is one builder call whose descriptors become
//! `builder.input()` operands. Rows with `output`/`outputs` must build with exactly those
//! descriptors; rows without must throw a TypeError (whose message contains `[label]` when
//! the row gives `options.label`). A row run for several ops (files whose `builderMethods` is
//! empty use `operatorLists`) is one result that passes only if every op passes.

use crate::args::{descriptor, is_descriptor, string};
use crate::ops_json::CallError;
use crate::report::{case_key, CaseResult, Status, Suite};
use crate::session::{NativeSession, Session};
use serde_json::{Map, Value};
use std::collections::HashMap;
use webnn_core::{Backend, DataType, Error, ErrorKind, OpKind, OperandDescriptor, ViewType};

/// Files whose rows only expect success when the input data types are in
/// `opSupportLimits()` for the op (otherwise they expect a TypeError).
const SUPPORT_GATED: &[&str] = &[
    "conv2d",
    "convTranspose2d",
    "gatherND",
    "gru",
    "gruCell",
    "lstm",
    "lstmCell",
    "instanceNormalization",
    "layerNormalization",
    "where",
];

/// Row fields that are not call arguments.
const NOT_ARGUMENTS: &[&str] = &["name", "testName", "output", "outputs", "options"];

/// What a table's rows call.
enum Calls {
    Methods(Vec<String>),
    Input,
    Constant,
}

/// What a row expects.
enum Expect {
    /// Descriptors of the outputs; `None` data type = not checked (argMinMax rows give only a shape).
    Success(Vec<(Option<DataType>, Vec<u64>)>),
    TypeError,
}

/// Runs the selected rows of one validation file (see `conformance::run_file`).
pub fn run_file(
    backend: &dyn Backend,
    file: &str,
    json: &str,
    selected: &dyn Fn(&str) -> bool,
    on_result: &mut dyn FnMut(CaseResult),
) {
    run_file_in(&mut NativeSession::new(backend), file, json, selected, on_result)
}

/// `run_file` on any session (builder calls are synchronous in every one).
pub fn run_file_in<S: Session>(
    session: &mut S,
    file: &str,
    json: &str,
    selected: &dyn Fn(&str) -> bool,
    on_result: &mut dyn FnMut(CaseResult),
) {
    let suite = Suite::Validation;
    let Some((root, tables)) = crate::conformance::load_file(suite, file, json, "tables", selected, on_result) else {
        return;
    };
    for table in &tables {
        let calls = table_calls(file, &root, table);
        let rows = table.get("cases").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        for (i, row) in rows.iter().enumerate() {
            let name = row
                .get("testName")
                .or_else(|| row.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| format!("(row {i})"));
            if !selected(&case_key(suite, file, &name)) {
                continue;
            }
            let (status, message) = crate::guarded(|| match row.as_object() {
                None => (Status::Error, "harness: the row is not an object".into()),
                Some(row) => run_row(session, file, &calls, row),
            });
            on_result(CaseResult { suite, file: file.to_owned(), name, status, message });
        }
    }
}

fn table_calls(file: &str, root: &Value, table: &Value) -> Calls {
    let names = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let methods = names(table.get("builderMethods"));
    if !methods.is_empty() {
        return Calls::Methods(methods);
    }
    let from_lists: Vec<String> = root
        .get("operatorLists")
        .and_then(Value::as_object)
        .map(|m| m.values().flat_map(|v| names(Some(v))).collect())
        .unwrap_or_default();
    match file {
        "input" => Calls::Input,
        "constant" => Calls::Constant,
        _ => Calls::Methods(from_lists),
    }
}

fn expectation(row: &Map<String, Value>) -> Result<Expect, String> {
    let one = |v: &Value| -> Result<(Option<DataType>, Vec<u64>), String> {
        let data_type = match v.get("dataType") {
            None => None,
            Some(t) => Some(t.as_str().and_then(DataType::from_name).ok_or(format!("output dataType {t}"))?),
        };
        let shape = v
            .get("shape")
            .and_then(Value::as_array)
            .and_then(|s| s.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>())
            .ok_or(format!("output shape in {v}"))?;
        Ok((data_type, shape))
    };
    if let Some(v) = row.get("output") {
        return Ok(Expect::Success(vec![one(v)?]));
    }
    if let Some(v) = row.get("outputs") {
        let list = v.as_array().ok_or("'outputs' is not an array")?;
        return Ok(Expect::Success(list.iter().map(one).collect::<Result<_, _>>()?));
    }
    Ok(Expect::TypeError)
}

/// How one call ended, judged against the row's expectation.
enum Verdict {
    /// With what was thrown, when the row expected a TypeError.
    Pass(String),
    Fail(String),
    Error(String),
}

fn judge(got: Result<Vec<OperandDescriptor>, CallError>, expect: &Expect, label: Option<&str>) -> Verdict {
    let shape_of = |d: &OperandDescriptor| d.shape.iter().map(|x| x.max_size() as u64).collect::<Vec<u64>>();
    match (got, expect) {
        (Err(CallError::Harness(m)), _) => Verdict::Error(format!("harness: {m}")),
        (Ok(descs), Expect::Success(want)) => {
            if descs.len() != want.len() {
                return Verdict::Fail(format!("built {} outputs, expected {}", descs.len(), want.len()));
            }
            for (i, (d, (t, s))) in descs.iter().zip(want).enumerate() {
                if t.is_some_and(|t| t != d.data_type) || shape_of(d) != *s || !d.is_static() {
                    let t = t.map(|t| t.name()).unwrap_or("any type");
                    return Verdict::Fail(format!("output {i} is {d}, expected {t} {s:?}"));
                }
            }
            Verdict::Pass(String::new())
        }
        (Err(CallError::Api(e)), Expect::Success(_)) => Verdict::Fail(format!("expected success, got {e}")),
        (Ok(descs), Expect::TypeError) => {
            let d: Vec<String> = descs.iter().map(|d| d.to_string()).collect();
            Verdict::Fail(format!("expected a TypeError, but building succeeded with [{}]", d.join(", ")))
        }
        (Err(CallError::Api(e)), Expect::TypeError) => {
            if e.kind != ErrorKind::TypeError {
                Verdict::Fail(format!("expected a TypeError, got {e}"))
            } else if let Some(l) = label.filter(|l| !e.to_string().contains(&format!("[{l}]"))) {
                Verdict::Fail(format!("the TypeError does not name the label [{l}]: {e}"))
            } else {
                Verdict::Pass(format!("threw {e}"))
            }
        }
    }
}

fn run_row<S: Session>(session: &mut S, file: &str, calls: &Calls, row: &Map<String, Value>) -> (Status, String) {
    let expect = match expectation(row) {
        Ok(e) => e,
        Err(m) => return (Status::Error, format!("harness: {m}")),
    };
    let label = row.get("options").and_then(|o| o.get("label")).and_then(Value::as_str);
    let verdicts: Vec<(String, Verdict)> = match calls {
        Calls::Input => {
            let got = (|| {
                session.new_builder()?;
                let name = string(row.get("name").unwrap_or(&Value::Null))?;
                let o = session.input(&name, &descriptor(row.get("descriptor").unwrap_or(&Value::Null))?)?;
                Ok(vec![session.desc(&o)?])
            })();
            vec![(String::new(), judge(got.map_err(CallError::Api), &expect, label))]
        }
        Calls::Constant => {
            let len = row.get("buffer").and_then(|b| b.get("byteLength")).and_then(Value::as_u64);
            // The rows need a few bytes; a bound keeps odd data from allocating gigabytes.
            let Some(len) = len.filter(|&n| n <= 1 << 28) else {
                return (Status::Error, "harness: buffer.byteLength is missing or too large".into());
            };
            let got = (|| -> Result<Vec<OperandDescriptor>, CallError> {
                session.new_builder()?;
                let desc = descriptor(row.get("descriptor").unwrap_or(&Value::Null))?;
                // WPT passes the data as the typed array the row names; rows marked
                // `viewTestOnly` exist only to check its element type.
                let view = row.get("buffer").and_then(|b| b.get("type")).and_then(Value::as_str);
                let view = view
                    .map(|v| ViewType::from_name(v).ok_or_else(|| CallError::Harness(format!("unknown buffer type {v}"))))
                    .transpose()?;
                let o = session.constant(&desc, vec![0; len as usize], view)?;
                Ok(vec![session.desc(&o)?])
            })();
            vec![(String::new(), judge(got, &expect, label))]
        }
        Calls::Methods(methods) if methods.is_empty() => {
            return (Status::Error, "harness: the table names no builder method".into());
        }
        Calls::Methods(methods) => methods
            .iter()
            .map(|m| {
                let gated = SUPPORT_GATED.contains(&file);
                (m.clone(), call_row(session, m, row, &expect, gated, label))
            })
            .collect(),
    };
    let several = verdicts.len() > 1;
    let prefix = |m: &str, msg: &str| if several { format!("{m}: {msg}") } else { msg.to_owned() };
    let mut errors = Vec::new();
    let mut fails = Vec::new();
    let mut notes = Vec::new();
    for (m, v) in &verdicts {
        match v {
            Verdict::Pass(note) if !note.is_empty() => notes.push(prefix(m, note)),
            Verdict::Pass(_) => {}
            Verdict::Fail(msg) => fails.push(prefix(m, msg)),
            Verdict::Error(msg) => errors.push(prefix(m, msg)),
        }
    }
    if !errors.is_empty() {
        errors.extend(fails);
        (Status::Error, errors.join("; "))
    } else if !fails.is_empty() {
        (Status::Fail, fails.join("; "))
    } else {
        (Status::Pass, notes.join("; "))
    }
}

/// A row's call arguments with descriptors replaced by the names of the input operands made
/// for them.
struct Prepared<O> {
    params: Vec<(String, Value)>,
    options: Option<Value>,
    operands: HashMap<String, O>,
}

fn prepare<S: Session>(b: &mut S, row: &Map<String, Value>) -> Result<Prepared<S::Operand>, Error> {
    let mut operands = HashMap::new();
    let mut make = |b: &mut S, name: String, v: &Value| -> Result<Value, Error> {
        let o = b.input(&name, &descriptor(v)?)?;
        operands.insert(name.clone(), o);
        Ok(Value::String(name))
    };
    let mut params = Vec::new();
    for (k, v) in row {
        if NOT_ARGUMENTS.contains(&k.as_str()) {
            continue;
        }
        match v {
            v if is_descriptor(v) => params.push((k.clone(), make(b, k.clone(), v)?)),
            // concat's `inputs`: a sequence of descriptors.
            Value::Array(items) if items.first().is_some_and(is_descriptor) => {
                let mut names = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    names.push(make(b, format!("{k}{i}"), item)?);
                }
                params.push((k.clone(), Value::Array(names)));
            }
            // matmul's `inputs`: {a, b}.
            Value::Object(m) if !m.is_empty() && m.values().all(is_descriptor) => {
                for (kk, vv) in m {
                    params.push((kk.clone(), make(b, kk.clone(), vv)?));
                }
            }
            _ => params.push((k.clone(), v.clone())),
        }
    }
    let options = match row.get("options") {
        Some(Value::Object(m)) => {
            let mut out = Map::new();
            for (k, v) in m {
                let v = if is_descriptor(v) { make(b, format!("options.{k}"), v)? } else { v.clone() };
                out.insert(k.clone(), v);
            }
            Some(Value::Object(out))
        }
        other => other.cloned(),
    };
    Ok(Prepared { params, options, operands })
}

/// Builds the row's operands on a fresh builder, calls `method` and judges the outcome.
fn call_row<S: Session>(
    b: &mut S,
    method: &str,
    row: &Map<String, Value>,
    expect: &Expect,
    gated: bool,
    label: Option<&str>,
) -> Verdict {
    if let Err(e) = b.new_builder() {
        return Verdict::Error(format!("harness: MLGraphBuilder: {e}"));
    }
    let p = match prepare(b, row) {
        Ok(p) => p,
        // Creating an operand threw (e.g. an invalid descriptor): that is the row's outcome.
        Err(e) => return judge(Err(CallError::Api(e)), expect, label),
    };
    let mut expect_here = expect;
    if gated && matches!(expect, Expect::Success(_)) && !supported(b, method, &p.params, &p.operands) {
        expect_here = &Expect::TypeError;
    }
    let params: Vec<(&str, &Value)> = p.params.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let got = b.call(method, &params, p.options.as_ref(), true, &p.operands).and_then(|outs| {
        outs.iter().map(|o| b.desc(o).map_err(CallError::Api)).collect::<Result<Vec<_>, _>>()
    });
    judge(got, expect_here, label)
}

/// Whether every operand argument's data type is in `opSupportLimits()` for its slot.
fn supported<S: Session>(
    b: &S,
    method: &str,
    params: &[(String, Value)],
    operands: &HashMap<String, S::Operand>,
) -> bool {
    let limits = b.limits();
    let Some(kind) = OpKind::from_name(method) else { return true };
    params.iter().all(|(slot, v)| {
        let t = v.as_str().and_then(|n| operands.get(n)).and_then(|o| b.desc(o).ok()).map(|d| d.data_type);
        match t {
            Some(t) if kind.slots().iter().any(|s| s.name == slot) => limits.supports(kind, slot, t),
            _ => true,
        }
    })
}
