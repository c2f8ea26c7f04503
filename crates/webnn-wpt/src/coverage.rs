//! Kernel coverage (`webnn-wpt --backend fast --suite conformance --coverage`): for every
//! conformance case, whether each step of its compiled graph ran on the backend's own kernels
//! or fell back to the reference interpreter, gathered per op (the WPT file) and data type.
//! The conformance vectors exercise every op with every data type WPT tests, so the table is
//! the op × data type coverage of the fast CPU.

use crate::report::{CaseResult, Suite};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use webnn_core::{Backend, Capabilities, DeviceInfo, Executable, Graph, Result};

/// A backend that notes the kernel step counts of each graph it compiles.
pub struct Recording {
    inner: Box<dyn Backend>,
    log: Rc<RefCell<Option<(usize, usize)>>>,
}

impl Recording {
    pub fn new(inner: Box<dyn Backend>) -> Recording {
        Recording { inner, log: Rc::default() }
    }

    /// The step counts (own kernels, reference) of the last graph compiled since the last
    /// call, if it compiled and the backend reports them.
    pub fn take(&self) -> Option<(usize, usize)> {
        self.log.borrow_mut().take()
    }
}

impl Backend for Recording {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let exe = self.inner.compile(graph)?;
        *self.log.borrow_mut() = exe.stats().kernel_steps;
        Ok(exe)
    }
    fn dynamic_dimensions(&self) -> bool {
        self.inner.dynamic_dimensions()
    }
    fn device(&self) -> DeviceInfo {
        self.inner.device()
    }
}

/// Each conformance case's data type: the first data type its name gives (WPT names cases
/// `<op> <type> ...`), else its first expected output's.
pub fn case_types(conformance: &[(&str, &str)]) -> HashMap<(String, String), String> {
    const TYPES: [&str; 10] = ["float32", "float16", "int64", "uint64", "int32", "uint32", "int8", "uint8", "int4", "uint4"];
    let mut types = HashMap::new();
    for (file, json) in conformance {
        let Ok(root) = serde_json::from_str::<Value>(json) else { continue };
        for case in root["cases"].as_array().into_iter().flatten() {
            let Some(name) = case["name"].as_str() else { continue };
            let named = name.split(|c: char| !c.is_ascii_alphanumeric()).find(|w| TYPES.contains(w));
            let output = || {
                let outputs = case["graph"]["expectedOutputs"].as_object()?;
                outputs.values().next()?["descriptor"]["dataType"].as_str()
            };
            let t = named.or_else(output).unwrap_or("?");
            types.insert((file.to_string(), name.to_owned()), t.to_owned());
        }
    }
    types
}

/// Cases per (file, data type): how many compiled, and how many of those had no step on the
/// reference interpreter.
#[derive(Default)]
pub struct Coverage {
    cells: BTreeMap<(String, String), (usize, usize)>,
    /// Steps in all, on own kernels and on the reference.
    steps: (usize, usize),
}

impl Coverage {
    /// Counts one conformance result with the step counts its graph compiled to.
    pub fn add(&mut self, r: &CaseResult, steps: Option<(usize, usize)>, types: &HashMap<(String, String), String>) {
        let Some((fast, reference)) = steps.filter(|_| r.suite == Suite::Conformance) else { return };
        let t = types.get(&(r.file.clone(), r.name.clone())).cloned().unwrap_or_else(|| "?".into());
        let cell = self.cells.entry((r.file.clone(), t)).or_default();
        cell.0 += 1;
        cell.1 += usize::from(reference == 0);
        self.steps.0 += fast;
        self.steps.1 += reference;
    }

    /// A markdown table: one row per op, each data type as `type all/cases`, the partly
    /// covered ones first; then the totals.
    pub fn table(&self) -> String {
        let mut rows: BTreeMap<&str, Vec<(&str, usize, usize)>> = BTreeMap::new();
        for ((file, t), &(cases, fast)) in &self.cells {
            rows.entry(file).or_default().push((t, cases, fast));
        }
        let mut out = String::from("| op (WPT file) | data type: cases with every step on fast kernels / cases compiled |\n|---|---|\n");
        let full = |v: &Vec<(&str, usize, usize)>| v.iter().all(|&(_, c, f)| c == f);
        let mut ordered: Vec<_> = rows.iter().collect();
        ordered.sort_by_key(|(file, v)| (full(v), **file));
        for (file, v) in ordered {
            let cells: Vec<String> = v.iter().map(|(t, c, f)| format!("{t} {f}/{c}")).collect();
            out += &format!("| {file} | {} |\n", cells.join(", "));
        }
        let pairs = self.cells.len();
        let full_pairs = self.cells.values().filter(|(c, f)| c == f).count();
        let cases: usize = self.cells.values().map(|c| c.0).sum();
        let fast_cases: usize = self.cells.values().map(|c| c.1).sum();
        let (fs, rs) = self.steps;
        out += &format!(
            "\n(op, data type) pairs with every case on fast kernels: {full_pairs} of {pairs} ({:.0}%); \
             cases: {fast_cases} of {cases} ({:.0}%); steps: {fs} of {} on fast kernels ({:.0}%)\n",
            100.0 * full_pairs as f64 / pairs.max(1) as f64,
            100.0 * fast_cases as f64 / cases.max(1) as f64,
            fs + rs,
            100.0 * fs as f64 / (fs + rs).max(1) as f64,
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    fn result(file: &str, name: &str) -> CaseResult {
        CaseResult { suite: Suite::Conformance, file: file.into(), name: name.into(), status: Status::Pass, message: String::new() }
    }

    #[test]
    fn cases_are_counted_per_op_and_type() {
        let json = r#"{"cases": [
            {"name": "add float16 1D tensors", "graph": {}},
            {"name": "add 0D scalar", "graph": {"expectedOutputs": {"y": {"descriptor": {"dataType": "int32"}}}}}
        ]}"#;
        let types = case_types(&[("add", json)]);
        assert_eq!(types[&("add".into(), "add float16 1D tensors".into())], "float16");
        assert_eq!(types[&("add".into(), "add 0D scalar".into())], "int32");
        let mut c = Coverage::default();
        c.add(&result("add", "add float16 1D tensors"), Some((3, 0)), &types);
        c.add(&result("add", "add 0D scalar"), Some((1, 1)), &types);
        // A case that did not compile counts nowhere.
        c.add(&result("add", "add 0D scalar"), None, &types);
        let table = c.table();
        assert!(table.contains("| add | float16 1/1, int32 0/1 |"), "{table}");
        assert!(table.contains("1 of 2 (50%); cases: 1 of 2 (50%); steps: 4 of 5"), "{table}");
    }
}
