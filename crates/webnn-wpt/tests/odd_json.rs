//! The harness must turn malformed or odd JSON into results, never into a panic: every value
//! of some real cases and rows is replaced in turn by values of other kinds.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use webnn_wpt::native::{default_wpt_dir, load_dir};
use webnn_wpt::{conformance, validation, CaseResult, Status};

/// Paths (object keys / array indices) to every node of `v`, at most `limit` of them.
fn paths(v: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>, limit: usize) {
    if out.len() >= limit {
        return;
    }
    out.push(prefix.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                prefix.push(json!(k));
                paths(c, prefix, out, limit);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            // Long data arrays: their first elements are enough.
            for (i, c) in a.iter().enumerate().take(3) {
                prefix.push(json!(i));
                paths(c, prefix, out, limit);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn replace(v: &mut Value, path: &[Value], with: &Value) {
    let mut node = v;
    for p in path {
        let next = match p {
            Value::String(k) => node.get_mut(k.as_str()),
            _ => node.get_mut(p.as_u64().unwrap_or(0) as usize),
        };
        match next {
            Some(n) => node = n,
            None => return,
        }
    }
    *node = with.clone();
}

const REPLACEMENTS: &[&str] =
    &["null", "\"x\"", "-1", "0", "3", "4294967296", "1e300", "[]", "{}", "true", "\"NaN\"", "[[1]]"];

type RunFile = fn(&dyn webnn_core::Backend, &str, &str, &dyn Fn(&str) -> bool, &mut dyn FnMut(CaseResult));

fn mutate_all(run_file: RunFile, file: &str, doc: &Value, items: &[Value], wrap: &dyn Fn(Value) -> Value) -> usize {
    let _ = doc;
    let mut runs = 0;
    for item in items {
        let mut ps = Vec::new();
        paths(item, &mut Vec::new(), &mut ps, 80);
        for p in ps.iter().skip(1) {
            for r in REPLACEMENTS {
                let with: Value = serde_json::from_str(r).unwrap_or(Value::Null);
                let mut m = item.clone();
                replace(&mut m, p, &with);
                let text = wrap(m).to_string();
                let mut results = Vec::new();
                run_file(&webnn_cpu::CpuBackend, file, &text, &|_| true, &mut |r| results.push(r));
                for r in &results {
                    assert!(
                        !(r.status == Status::Error && r.message.starts_with("panicked")),
                        "{file}: replacing {p:?} by {r:?} panicked: {}",
                        r.message
                    );
                }
                runs += 1;
            }
        }
    }
    runs
}

#[test]
fn odd_values_never_panic() {
    let files = match load_dir(&default_wpt_dir()) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    let find = |list: &[(String, String)], name: &str| -> Value {
        let text = list.iter().find(|(n, _)| n == name).map(|(_, t)| t.as_str()).unwrap_or("{}");
        serde_json::from_str(text).unwrap_or(Value::Null)
    };
    let mut runs = 0;
    // Every file's first case, so every op's validation and kernel meet odd values.
    for (name, _) in &files.conformance {
        let name = name.as_str();
        let doc = find(&files.conformance, name);
        let cases: Vec<Value> =
            doc["cases"].as_array().map(|c| c.iter().take(1).cloned().collect()).unwrap_or_default();
        runs += mutate_all(conformance::run_file, name, &doc, &cases, &|c| json!({ "cases": [c] }));
    }
    for (name, _) in &files.validation {
        let name = name.as_str();
        let doc = find(&files.validation, name);
        let table = &doc["tables"][0];
        let rows: Vec<Value> =
            table["cases"].as_array().map(|c| c.iter().take(3).cloned().collect()).unwrap_or_default();
        let lists = doc["operatorLists"].clone();
        let wrap = |row: Value| {
            let mut t = table.clone();
            t["cases"] = json!([row]);
            json!({ "operatorLists": lists, "tables": [t] })
        };
        runs += mutate_all(validation::run_file, name, &doc, &rows, &wrap);
    }
    assert!(runs > 1000, "only {runs} mutations ran");
}

#[test]
fn broken_files_give_one_error_result() {
    for text in ["", "{", "[]", "{\"cases\": 3}", "{\"tables\": {}}", "null"] {
        let mut results = Vec::new();
        conformance::run_file(&webnn_cpu::CpuBackend, "f", text, &|_| true, &mut |r| results.push(r));
        validation::run_file(&webnn_cpu::CpuBackend, "f", text, &|_| true, &mut |r| results.push(r));
        assert_eq!(results.len(), 2, "{text:?}: {results:?}");
        assert!(results.iter().all(|r| r.status == Status::Error && r.name == webnn_wpt::LOAD_CASE));
    }
}
