//! Every WPT conformance graph converted to a CoreML program and loaded back by coremltools'
//! MIL protobuf loader (`check_programs.py`), whose type inference must succeed and give each
//! output WebNN's shape and data type. Cases that do not get there are listed in
//! `expected/wpt.txt` with a reason; the test fails on an unlisted failure and on a listed
//! case that passes, so the list only shrinks.
//!
//! Needs coremltools: `bash scripts/coreml-setup.sh` installs it into
//! `$HOME/.cache/webnn-rs/coreml/site` (or `$WEBNN_COREML_DIR/site`).
//! `WEBNN_COREML_LIST=<file>` writes the failing cases there in the list's format.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use webnn_core::{Backend, Capabilities, DataType, Error, Executable, Graph, Result};
use webnn_wpt::native::{default_wpt_dir, load_dir};
use webnn_wpt::{run, Expectations, Selection};

/// What one compile produced: a written package and its expected outputs, or why not.
type Record = std::result::Result<(PathBuf, Vec<Value>), String>;

/// A backend whose `compile` converts and writes the program, then stops the case.
struct Recorder {
    dir: PathBuf,
    records: RefCell<Vec<Record>>,
    count: RefCell<usize>,
}

/// coremltools' name of a WebNN data type.
fn mil_dtype(dt: DataType) -> &'static str {
    match dt {
        DataType::Float32 => "fp32",
        DataType::Float16 => "fp16",
        DataType::Int32 => "int32",
        DataType::Uint32 => "uint32",
        DataType::Int64 => "int64",
        DataType::Uint64 => "uint64",
        DataType::Int8 => "int8",
        DataType::Uint8 => "uint8",
        DataType::Int4 => "int4",
        DataType::Uint4 => "uint4",
    }
}

impl Backend for Recorder {
    fn name(&self) -> &'static str {
        "coreml-convert"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let record = match webnn_coreml::convert(graph) {
            Err(e) => Err(e.to_string()),
            Ok(model) => {
                let mut n = self.count.borrow_mut();
                *n += 1;
                let dir = self.dir.join(format!("p{n}.mlpackage"));
                model.write_package(&dir).map_err(|e| Error::operation_error(e.to_string()))?;
                let outputs = model
                    .outputs
                    .iter()
                    .map(|b| {
                        let shape: Vec<u32> = b.desc.max_shape();
                        json!({"name": b.mil_name, "dtype": mil_dtype(b.desc.data_type), "shape": shape})
                    })
                    .collect();
                Ok((dir, outputs))
            }
        };
        self.records.borrow_mut().push(record);
        Err(Error::not_supported("recorded for the coremltools check"))
    }
}

fn python_site() -> PathBuf {
    let dir = std::env::var_os("WEBNN_COREML_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/webnn-rs/coreml")
    });
    dir.join("site")
}

fn check_with_coremltools(manifest: &[Value], work: &Path) -> BTreeMap<String, String> {
    let site = python_site();
    assert!(
        site.join("coremltools").is_dir(),
        "this test needs coremltools in {} (bash scripts/coreml-setup.sh)",
        site.display()
    );
    let manifest_path = work.join("manifest.json");
    let results_path = work.join("results.json");
    std::fs::write(&manifest_path, serde_json::to_vec(manifest).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_programs.py");
    let status = Command::new("python3")
        .env("PYTHONPATH", &site)
        .arg(&script)
        .arg(&manifest_path)
        .arg(&results_path)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "check_programs.py failed");
    serde_json::from_slice(&std::fs::read(&results_path).unwrap()).unwrap()
}

#[test]
fn wpt_graphs_load_in_coremltools() {
    let files = load_dir(&default_wpt_dir()).unwrap_or_else(|e| panic!("{e}"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("webnn-coreml-wpt");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let recorder = Recorder { dir: work.clone(), records: RefCell::new(Vec::new()), count: RefCell::new(0) };
    let selection = Selection { conformance: true, validation: false, filter: std::env::var("WEBNN_COREML_FILTER").ok() };

    // Each case's compiles, in order; a case that never compiled failed before (in the builder).
    let mut cases: Vec<(String, Vec<Record>, String)> = Vec::new();
    let results = run(&recorder, &files.as_sources(), &selection, &mut |r| {
        let records = std::mem::take(&mut *recorder.records.borrow_mut());
        cases.push((r.key(), records, r.message.clone()));
    });
    assert_eq!(results.len(), cases.len());

    let mut manifest = Vec::new();
    for (key, records, _) in &cases {
        for (i, rec) in records.iter().enumerate() {
            if let Ok((dir, outputs)) = rec {
                manifest.push(json!({"key": format!("{key}#{i}"), "package": dir, "outputs": outputs}));
            }
        }
    }
    let loaded = check_with_coremltools(&manifest, &work);

    let (mut converted, mut loaded_ok, mut matching) = (0, 0, 0);
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    for (key, records, message) in &cases {
        if records.is_empty() {
            failures.insert(key.clone(), format!("not built: {message}"));
            continue;
        }
        let mut why = None;
        let (mut all_converted, mut all_loaded) = (true, true);
        for (i, rec) in records.iter().enumerate() {
            match rec {
                Err(e) => {
                    all_converted = false;
                    why.get_or_insert_with(|| format!("not converted: {e}"));
                }
                Ok(_) => {
                    let r = loaded.get(&format!("{key}#{i}")).map(String::as_str).unwrap_or("no result");
                    if r.starts_with("load:") || r == "no result" {
                        all_loaded = false;
                    }
                    if r != "ok" {
                        why.get_or_insert_with(|| r.to_owned());
                    }
                }
            }
        }
        converted += all_converted as usize;
        loaded_ok += (all_converted && all_loaded) as usize;
        match why {
            None => matching += 1,
            Some(w) => {
                failures.insert(key.clone(), w);
            }
        }
    }

    if let Ok(path) = std::env::var("WEBNN_COREML_LIST") {
        let text: String = failures.iter().map(|(k, w)| format!("{k} # {w}\n")).collect();
        std::fs::write(path, text).unwrap();
    }
    let expected_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("expected/wpt.txt");
    let expected = Expectations::parse(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
    let selected = |k: &str| selection.selects(k);
    let mut problems = Vec::new();
    for (k, w) in &failures {
        if expected.reason(k).is_none() {
            problems.push(format!("UNLISTED FAILURE {k}: {w}"));
        }
    }
    let keys: Vec<&String> = cases.iter().map(|c| &c.0).collect();
    for e in expected.entries.iter().filter(|e| selected(&e.key)) {
        if !keys.contains(&&e.key) {
            problems.push(format!("STALE ENTRY {} (no such case)", e.key));
        } else if !failures.contains_key(&e.key) {
            problems.push(format!("UNEXPECTED PASS {} (remove it from {})", e.key, expected_path.display()));
        }
    }
    for p in &problems {
        println!("{p}");
    }
    println!(
        "coreml: {} conformance cases: {converted} converted, {loaded_ok} loaded by coremltools, \
         {matching} with WebNN's output shapes and types; {} listed",
        cases.len(),
        failures.len()
    );
    assert!(problems.is_empty(), "the coremltools check does not match {}", expected_path.display());
}
