//! The short fixed-seed pass of the fuzzer (fast on every seed, wgpu and ONNX Runtime on every
//! 20th; the long runs: `cargo run -p webnn-fuzz --release -- --help`), the corpus (every
//! failure found so far, minimised, as a regression test) and graphs too large to run.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use webnn_fuzz::case::Case;
use webnn_fuzz::diff::{check, Reference, Target};
use webnn_fuzz::gen::Config;
use webnn_fuzz::Run;

/// wgpu and ONNX Runtime where the machine has them: the test command sets up lavapipe and
/// ONNX Runtime's library; a bare `cargo test` still checks the CPU backends and says so.
fn slow_targets() -> Vec<Target> {
    [Target::wgpu(), Target::ort()]
        .into_iter()
        .filter_map(|t| t.map_err(|e| eprintln!("{e}: not compared")).ok())
        .collect()
}

#[test]
fn short_pass_finds_nothing() {
    webnn_fuzz::case::quiet_panics();
    let cases: u64 = std::env::var("WEBNN_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let run = Run {
        first_seed: 1,
        cases,
        config: Config::default(),
        targets: vec![Target { name: "fast", backend: Box::new(webnn_fast::FastBackend::new(2)) }],
        slow: slow_targets().into_iter().map(|t| (t, 20)).collect(),
        minimise: true,
    };
    let mut failures = Vec::new();
    let stats = run.go(&mut |r| {
        if r.explained.is_some() {
            return;
        }
        failures.push(format!(
            "seed {}: {} {:?}: {}\n{}\n{}",
            r.seed,
            r.finding.backend,
            r.finding.kind,
            r.finding.detail,
            serde_json::to_string(&r.json).unwrap(),
            r.javascript
        ))
    });
    println!("{}", stats.summary());
    assert!(stats.graphs > cases / 3, "too few graphs ran: the generator drifted\n{}", stats.summary());
    assert!(failures.is_empty(), "{} findings:\n{}", failures.len(), failures.join("\n\n"));
}

/// Every case in `corpus/`: the reference gives its recorded outputs and every backend agrees.
#[test]
fn corpus_cases_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut targets = vec![Target { name: "fast", backend: Box::new(webnn_fast::FastBackend::new(2)) }];
    targets.extend(slow_targets());
    let targets: Vec<&Target> = targets.iter().collect();
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "json")) {
        let text = std::fs::read_to_string(f).unwrap();
        let root: serde_json::Value = serde_json::from_str(&text).unwrap();
        for v in root["cases"].as_array().unwrap() {
            count += 1;
            let name = v["name"].as_str().unwrap_or("?");
            let case = Case::from_json(v).unwrap_or_else(|e| panic!("{}: {name}: {e}", f.display()));
            // `differs`: backends whose answer differs for a reason the case gives.
            let differs = |t: &&&Target| v.get("differs").and_then(|d| d.get(t.name)).is_none();
            let targets: Vec<&Target> = targets.iter().filter(differs).copied().collect();
            let (reference, findings) = check(&case, &webnn_cpu::CpuBackend, &targets);
            match reference {
                Some(Reference::Ran(out)) => {
                    let recorded = case.to_json(name, Some(&out));
                    if recorded["graph"]["expectedOutputs"] != v["graph"]["expectedOutputs"] {
                        failures.push(format!("{name}: the reference's outputs changed: {}", recorded["graph"]["expectedOutputs"]));
                    }
                }
                Some(Reference::Rejected(why)) => failures.push(format!("{name}: the reference rejects it: {why}")),
                None => failures.push(format!("{name}: the reference did not run it")),
            }
            for x in findings {
                failures.push(format!("{name}: {} {:?}: {}", x.backend, x.kind, x.detail));
            }
        }
    }
    println!("{count} corpus cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Valid graphs too large for any machine (a thousand 2 GiB results) fail at compile with a
/// NotSupportedError naming the op, on both host backends, instead of aborting on an
/// allocation mid-run.
#[test]
fn graphs_too_large_for_the_machine_fail_at_compile() {
    use webnn_core::{Backend, DataType, Dim, ErrorKind, GraphBuilder, OperandDescriptor};
    let mut b = GraphBuilder::new();
    let x = b.input("x", OperandDescriptor::new(DataType::Float32, &[1, 1])).unwrap();
    let mut outputs = Vec::new();
    for k in 0..1024 {
        let big = b.expand(x, vec![Dim::Static(1 << 14), Dim::Static((1 << 15) - 1 - k)], Default::default()).unwrap();
        outputs.push((format!("y{k}"), big));
    }
    let named: Vec<(&str, webnn_core::Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    let graph = b.build(&named).unwrap();
    let backends: [&dyn Backend; 2] = [&webnn_cpu::CpuBackend, &webnn_fast::FastBackend::new(1)];
    for backend in backends {
        let e = backend.compile(&graph).err().expect("a 2 TB graph must not compile");
        assert_eq!(e.kind, ErrorKind::NotSupportedError, "{}: {e}", backend.name());
        assert_eq!(e.op, Some("expand"), "{}: {e}", backend.name());
    }
}
