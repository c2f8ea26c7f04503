//! Case results and the JSON report.

use serde_json::{json, Value};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suite {
    Conformance,
    Validation,
}

impl Suite {
    pub fn name(self) -> &'static str {
        match self {
            Suite::Conformance => "conformance",
            Suite::Validation => "validation",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Pass,
    /// Wrong result (conformance) or wrong build outcome (validation).
    Fail,
    /// The case could not run: build, compile or dispatch error, malformed data, panic.
    Error,
    /// Not run on this backend (a data type its `opSupportLimits()` lacks, or a form the
    /// Rust API cannot express).
    Skip,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
            Status::Skip => "skip",
        }
    }
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Error)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    pub suite: Suite,
    /// The WPT file name without extension (`add`, `conv2d`...).
    pub file: String,
    pub name: String,
    pub status: Status,
    pub message: String,
}

impl CaseResult {
    /// `<suite>/<file>/<case name>`: what filters and the expected-failures file match.
    pub fn key(&self) -> String {
        case_key(self.suite, &self.file, &self.name)
    }
}

pub fn case_key(suite: Suite, file: &str, name: &str) -> String {
    format!("{}/{file}/{name}", suite.name())
}

/// `{"backend": ..., "results": [{suite, file, name, status, message}]}`.
pub fn to_json(backend: &str, results: &[CaseResult]) -> String {
    let results: Vec<Value> = results
        .iter()
        .map(|r| {
            json!({
                "suite": r.suite.name(),
                "file": r.file,
                "name": r.name,
                "status": r.status.name(),
                "message": r.message,
            })
        })
        .collect();
    let v = json!({ "backend": backend, "results": results });
    serde_json::to_string_pretty(&v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The inverse of `to_json`: the backend name and the results.
pub fn from_json(text: &str) -> Result<(String, Vec<CaseResult>), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("report: {e}"))?;
    let backend = v.get("backend").and_then(Value::as_str).unwrap_or("").to_owned();
    let items = v.get("results").and_then(Value::as_array).ok_or("report: no results array")?;
    let field = |r: &Value, k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let results = items
        .iter()
        .map(|r| {
            let suite = match field(r, "suite").as_str() {
                "conformance" => Suite::Conformance,
                "validation" => Suite::Validation,
                other => return Err(format!("report: unknown suite '{other}'")),
            };
            let status = [Status::Pass, Status::Fail, Status::Error, Status::Skip]
                .into_iter()
                .find(|s| s.name() == field(r, "status"))
                .ok_or_else(|| format!("report: unknown status in {r}"))?;
            Ok(CaseResult { suite, file: field(r, "file"), name: field(r, "name"), status, message: field(r, "message") })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((backend, results))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_shape() {
        let r = CaseResult {
            suite: Suite::Validation,
            file: "concat".into(),
            name: "a \"quoted\" name".into(),
            status: Status::Fail,
            message: "m".into(),
        };
        assert_eq!(r.key(), "validation/concat/a \"quoted\" name");
        let text = to_json("cpu", &[r]);
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert_eq!(v["backend"], "cpu");
        assert_eq!(v["results"][0]["status"], "fail");
        assert_eq!(v["results"][0]["name"], "a \"quoted\" name");
    }
}
