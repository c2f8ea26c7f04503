//! Every WPT conformance graph converted to a CoreML program and loaded back by coremltools'
//! MIL protobuf loader (`check_programs.py`), whose type inference must succeed and give each
//! output WebNN's shape and data type, converted as it is, for running
//! (`Options::multiarray_io`) and computing float32 in float16 (`Options::float16`). The graph with its inputs made constants is converted too: the
//! values coremltools folds its outputs to must agree with the cpu backend's. Cases that do
//! not get there are listed in
//! `expected/wpt.txt` with a reason; the test fails on an unlisted failure and on a listed
//! case that passes, so the list only shrinks.
//!
//! Needs coremltools: `bash scripts/coreml-setup.sh` installs it into
//! `$HOME/.cache/webnn-rs/coreml/site` (or `$WEBNN_COREML_DIR/site`).
//! `WEBNN_COREML_LIST=<file>` writes the failing cases there in the list's format.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use webnn_core::{Backend, Capabilities, DataType, Error, Executable, Graph, HostTensor, Result, Source};
use webnn_coreml::Options;
use webnn_wpt::native::{default_wpt_dir, load_dir};
use webnn_wpt::{run, Expectations, Selection};

/// What one conversion produced: a written package and its expected outputs, or why not.
type Record = std::result::Result<(PathBuf, Vec<Value>), String>;

/// The conversions of the case being run: of the graph as built, and of the same graph with
/// its inputs made constants (whose outputs coremltools can fold, giving values to compare
/// with the cpu backend's).
#[derive(Default)]
struct State {
    structural: Vec<Record>,
    /// The graph as built, converted for running (`Options::multiarray_io`).
    device: Vec<Record>,
    /// The graph as built, float32 computed in float16 (`Options::float16`).
    half: Vec<Record>,
    folded: Vec<Record>,
    count: usize,
}

/// A backend whose `compile` converts and writes the program and whose `dispatch` does the
/// same with the inputs as constants, with the cpu backend's outputs as reference; neither
/// runs anything, so every case stops there.
struct Recorder {
    dir: PathBuf,
    state: Rc<RefCell<State>>,
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

/// Converts `graph` and writes its package; with `reference`, each output's expected bytes
/// too.
fn record(
    dir: &Path,
    state: &RefCell<State>,
    graph: &Graph,
    options: &Options,
    reference: Option<&[(String, HostTensor)]>,
) -> Record {
    let model = webnn_coreml::convert_with(graph, options).map_err(|e| e.to_string())?;
    let n = {
        let mut s = state.borrow_mut();
        s.count += 1;
        s.count
    };
    let dir = dir.join(format!("p{n}.mlpackage"));
    model.write_package(&dir).map_err(|e| e.to_string())?;
    let mut outputs = Vec::new();
    for (i, b) in model.outputs.iter().enumerate() {
        let mut shape: Vec<u32> = b.desc.max_shape();
        let mut dtype = mil_dtype(b.desc.data_type);
        // What an MLMultiArray holds (specification 9): no uint8 or int8, no 0-D.
        if options.multiarray_io {
            dtype = if dtype == "uint8" || dtype == "int8" { "int32" } else { dtype };
            shape = if shape.is_empty() { vec![1] } else { shape };
        }
        let mut out = json!({"name": b.mil_name, "dtype": dtype, "shape": shape});
        if let Some(tensor) = reference.and_then(|r| r.get(i)) {
            let path = dir.join(format!("reference{i}.bin"));
            std::fs::write(&path, &tensor.1.bytes).map_err(|e| e.to_string())?;
            out["reference"] = json!(path);
        }
        outputs.push(out);
    }
    Ok((dir, outputs))
}

impl Backend for Recorder {
    fn name(&self) -> &'static str {
        "coreml-convert"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn compile(&self, graph: &Graph) -> Result<Box<dyn Executable>> {
        let r = record(&self.dir, &self.state, graph, &Options::default(), None);
        self.state.borrow_mut().structural.push(r);
        let r = record(&self.dir, &self.state, graph, &Options { multiarray_io: true, ..Options::default() }, None);
        self.state.borrow_mut().device.push(r);
        let r = record(&self.dir, &self.state, graph, &Options { float16: true, ..Options::default() }, None);
        self.state.borrow_mut().half.push(r);
        Ok(Box::new(Folder { dir: self.dir.clone(), state: self.state.clone(), graph: graph.clone() }))
    }
}

struct Folder {
    dir: PathBuf,
    state: Rc<RefCell<State>>,
    graph: Graph,
}

impl Executable for Folder {
    fn dispatch(&mut self, inputs: &[(&str, &HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
        let reference = webnn_cpu::CpuBackend.compile(&self.graph)?.dispatch(inputs)?;
        let mut folded = self.graph.clone();
        for (name, t) in inputs {
            if let Some(&(_, o)) = folded.inputs.iter().find(|(n, _)| n == name) {
                folded.operands[o.index()].source = Source::Constant(t.bytes.clone().into());
            }
        }
        folded.inputs.clear();
        let r = record(&self.dir, &self.state, &folded, &Options::default(), Some(&reference));
        self.state.borrow_mut().folded.push(r);
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
    // One directory per run: test runs may share the target directory.
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("webnn-coreml-wpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let recorder = Recorder { dir: work.clone(), state: Rc::default() };
    let selection = Selection { conformance: true, validation: false, filter: std::env::var("WEBNN_COREML_FILTER").ok() };

    // Each case's conversions, in order; a case with none failed before (in the builder).
    let mut cases: Vec<(String, State, String)> = Vec::new();
    let results = run(&recorder, &files.as_sources(), &selection, &mut |r| {
        let state = std::mem::take(&mut *recorder.state.borrow_mut());
        recorder.state.borrow_mut().count = state.count;
        cases.push((r.key(), state, r.message.clone()));
    });
    assert_eq!(results.len(), cases.len());

    let mut manifest = Vec::new();
    for (key, state, _) in &cases {
        let variants = [("s", &state.structural), ("d", &state.device), ("h", &state.half), ("v", &state.folded)];
        for (tag, records) in variants {
            for (i, rec) in records.iter().enumerate() {
                if let Ok((dir, outputs)) = rec {
                    manifest.push(json!({"key": format!("{key}#{tag}{i}"), "package": dir, "outputs": outputs}));
                }
            }
        }
    }
    let checked = check_with_coremltools(&manifest, &work);
    let result = |key: &str, tag: &str, i: usize| -> &str {
        checked.get(&format!("{key}#{tag}{i}")).map(String::as_str).unwrap_or("no result")
    };

    let (mut converted, mut loaded, mut matching, mut device, mut half) = (0, 0, 0, 0, 0);
    let (mut folded, mut agreeing) = (0, 0);
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    for (key, state, message) in &cases {
        if state.structural.is_empty() {
            failures.insert(key.clone(), format!("not built: {message}"));
            continue;
        }
        let mut why: Option<String> = None;
        let (mut all_converted, mut all_loaded) = (true, true);
        for (i, rec) in state.structural.iter().enumerate() {
            let r = match rec {
                Err(e) => {
                    all_converted = false;
                    format!("not converted: {e}")
                }
                Ok(_) => result(key, "s", i).to_owned(),
            };
            all_loaded &= !r.starts_with("load:") && r != "no result";
            if r != "ok" {
                why.get_or_insert(r);
            }
        }
        converted += all_converted as usize;
        loaded += (all_converted && all_loaded) as usize;
        matching += why.is_none() as usize;
        // The same graph converted for running must load as well, with its boundary widened.
        let mut device_ok = !state.device.is_empty();
        for (i, rec) in state.device.iter().enumerate() {
            let r = match rec {
                Err(e) => format!("not converted: {e}"),
                Ok(_) => result(key, "d", i).to_owned(),
            };
            if r != "ok" {
                device_ok = false;
                why.get_or_insert(format!("converted for running: {r}"));
            }
        }
        device += device_ok as usize;
        let mut half_ok = !state.half.is_empty();
        for (i, rec) in state.half.iter().enumerate() {
            let r = match rec {
                Err(e) => format!("not converted: {e}"),
                Ok(_) => result(key, "h", i).to_owned(),
            };
            if r != "ok" {
                half_ok = false;
                why.get_or_insert(format!("computed in float16: {r}"));
            }
        }
        half += half_ok as usize;
        // The folded programs: values where coremltools folds every output, else nothing to
        // compare (not a failure); a folded program that does not load is one.
        let mut all_folded = !state.folded.is_empty();
        let mut all_agree = true;
        for (i, rec) in state.folded.iter().enumerate() {
            let r = match rec {
                Err(e) => format!("unfolded: not converted with constant inputs: {e}"),
                Ok(_) => result(key, "v", i).to_owned(),
            };
            if r.starts_with("unfolded") {
                all_folded = false;
            } else if r != "ok" {
                all_agree = false;
                why.get_or_insert(r);
            }
        }
        folded += all_folded as usize;
        agreeing += (all_folded && all_agree) as usize;
        if let Some(w) = why {
            failures.insert(key.clone(), w);
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
        "coreml: {} conformance cases: {converted} converted, {loaded} loaded by coremltools, \
         {matching} with WebNN's output shapes and types, {device} also with multi-array inputs and \
         outputs, {half} also computing float32 in float16; with constant inputs, {folded} folded \
         by coremltools, {agreeing} to the cpu backend's values; {} listed",
        cases.len(),
        failures.len()
    );
    assert!(
        problems.is_empty(),
        "the coremltools check does not match {} (programs kept in {})",
        expected_path.display(),
        work.display()
    );
    std::fs::remove_dir_all(&work).unwrap();
}
