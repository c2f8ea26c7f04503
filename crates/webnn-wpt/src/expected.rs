//! Expected failures (`expected/<backend>.txt`) and the verdict of a run.
//!
//! Format: one case per line, `<suite>/<file>/<case name> # <reason>`; blank lines and lines
//! starting with `#` are ignored. Every entry needs a reason. A run succeeds only when every
//! selected case that is not listed passes (or is skipped) and every listed case fails, so the
//! list can only shrink: a listed case that passes is an "unexpected pass".

use crate::report::{CaseResult, Status};
use std::collections::{HashMap, HashSet};

/// One listed case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub reason: String,
    /// 1-based line number in the file.
    pub line: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expectations {
    pub entries: Vec<Entry>,
}

impl Expectations {
    /// Parses the file; errors name the line (missing reason, duplicate entry).
    pub fn parse(text: &str) -> Result<Expectations, String> {
        let mut entries = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let n = i + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            // Case names contain no " # "; reasons may contain '#'.
            let (key, reason) = match line.split_once(" # ") {
                Some((k, r)) => (k.trim(), r.trim()),
                None => (line.trim_end_matches('#').trim(), ""),
            };
            if reason.is_empty() {
                return Err(format!("line {n}: '{key}' has no reason (write '<case> # <reason>')"));
            }
            if key.split('/').count() < 3 {
                return Err(format!("line {n}: '{key}' is not '<suite>/<file>/<case name>'"));
            }
            if let Some(first) = seen.insert(key.to_owned(), n) {
                return Err(format!("line {n}: '{key}' is already listed on line {first}"));
            }
            entries.push(Entry { key: key.to_owned(), reason: reason.to_owned(), line: n });
        }
        Ok(Expectations { entries })
    }

    pub fn reason(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|e| e.key == key).map(|e| e.reason.as_str())
    }
}

/// The verdict of a run against the expected failures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub passed: usize,
    /// fail + error.
    pub failed: usize,
    pub skipped: usize,
    /// Listed cases that failed, as expected.
    pub expected_failures: usize,
    /// Indices (into the results) of failures that are not listed.
    pub unexpected_failures: Vec<usize>,
    /// Indices of listed cases that passed.
    pub unexpected_passes: Vec<usize>,
    /// Indices of listed cases that were skipped.
    pub listed_skips: Vec<usize>,
    /// Listed keys that the run selected but produced no result for (stale entries).
    pub stale: Vec<String>,
}

impl Outcome {
    pub fn success(&self) -> bool {
        self.unexpected_failures.is_empty()
            && self.unexpected_passes.is_empty()
            && self.listed_skips.is_empty()
            && self.stale.is_empty()
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary_line(&self) -> String {
        format!("{} passed, {} failed, {} skipped", self.passed, self.failed, self.skipped)
    }

    /// The same counts worded for a test log, where a bare `N failed` line would read as a
    /// failing test runner although every failure is an expected one.
    pub fn expectation_line(&self) -> String {
        format!(
            "{} passed, {} expected failures, {} unexpected failures, {} unexpected passes, {} skipped",
            self.passed,
            self.expected_failures,
            self.unexpected_failures.len(),
            self.unexpected_passes.len(),
            self.skipped
        )
    }
}

/// Judges `results` against `exp`. `selected(key)` tells whether the run covered a key
/// (suite and filter); listed keys it did not cover are ignored.
pub fn evaluate(results: &[CaseResult], exp: &Expectations, selected: &dyn Fn(&str) -> bool) -> Outcome {
    let listed: HashSet<&str> = exp.entries.iter().map(|e| e.key.as_str()).collect();
    let mut out = Outcome::default();
    let mut keys = HashSet::new();
    for (i, r) in results.iter().enumerate() {
        let key = r.key();
        let is_listed = listed.contains(key.as_str());
        match r.status {
            Status::Pass => {
                out.passed += 1;
                if is_listed {
                    out.unexpected_passes.push(i);
                }
            }
            Status::Fail | Status::Error => {
                out.failed += 1;
                if is_listed {
                    out.expected_failures += 1;
                } else {
                    out.unexpected_failures.push(i);
                }
            }
            Status::Skip => {
                out.skipped += 1;
                if is_listed {
                    out.listed_skips.push(i);
                }
            }
        }
        keys.insert(key);
    }
    out.stale =
        exp.entries.iter().filter(|e| selected(&e.key) && !keys.contains(&e.key)).map(|e| e.key.clone()).collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Suite;

    fn result(name: &str, status: Status) -> CaseResult {
        CaseResult { suite: Suite::Conformance, file: "add".into(), name: name.into(), status, message: String::new() }
    }

    #[test]
    fn parse_rules() {
        let text = "# header\n\nconformance/add/a # not written yet\nvalidation/x/b/with/slashes # r # with hash\n";
        let e = Expectations::parse(text).unwrap_or_default();
        assert_eq!(e.entries.len(), 2);
        assert_eq!(e.reason("validation/x/b/with/slashes"), Some("r # with hash"));
        assert_eq!(e.entries[0].line, 3);
        assert!(Expectations::parse("conformance/add/a\n").is_err());
        assert!(Expectations::parse("conformance/add/a #   \n").is_err());
        assert!(Expectations::parse("add/a # r\n").is_err());
        assert!(Expectations::parse("conformance/add/a # r\nconformance/add/a # r\n").is_err());
    }

    #[test]
    fn the_list_can_only_shrink() {
        let exp = Expectations::parse("conformance/add/b # r\nconformance/add/c # r\nconformance/add/gone # r\n")
            .unwrap_or_default();
        let results = vec![
            result("a", Status::Pass),
            result("b", Status::Fail),
            result("c", Status::Pass),
            result("d", Status::Error),
            result("e", Status::Skip),
        ];
        let all = |_: &str| true;
        let o = evaluate(&results, &exp, &all);
        assert_eq!((o.passed, o.failed, o.skipped, o.expected_failures), (2, 2, 1, 1));
        assert_eq!(o.unexpected_failures, vec![3]);
        assert_eq!(o.unexpected_passes, vec![2]);
        assert_eq!(o.stale, vec!["conformance/add/gone".to_owned()]);
        assert!(!o.success());
        assert_eq!(o.summary_line(), "2 passed, 2 failed, 1 skipped");
        // With a filter, listed cases outside the selection are ignored.
        let only_b = |k: &str| k.ends_with("/b");
        let o = evaluate(&results[1..2], &exp, &only_b);
        assert!(o.success());
    }
}
