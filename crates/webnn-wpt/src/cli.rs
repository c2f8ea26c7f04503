//! The command line: argument parsing, the backend registry, output and exit status.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use webnn_core::Backend;
use webnn_wpt::native::{default_expected_path, default_wpt_dir, load_dir, read_expectations};
use webnn_wpt::coverage::{case_types, Coverage, Recording};
use webnn_wpt::{evaluate, run, to_json, Selection, Status};

const USAGE: &str = "usage: webnn-wpt --backend cpu|fast|wgpu|ort|browser-cpu|browser-webgpu [--json FILE] [--filter SUBSTR] \
[--suite conformance|validation] [--wpt DIR] [--expected FILE] [--verbose] [--list-failing] [--coverage]";

struct Cli {
    backend: String,
    json: Option<PathBuf>,
    wpt: Option<PathBuf>,
    expected: Option<PathBuf>,
    selection: Selection,
    verbose: bool,
    list_failing: bool,
    /// Print which conformance cases ran every step on the backend's own kernels.
    coverage: bool,
}

fn parse_args() -> Result<Cli, String> {
    let mut cli = Cli {
        backend: String::new(),
        json: None,
        wpt: None,
        expected: None,
        selection: Selection::default(),
        verbose: false,
        list_failing: false,
        coverage: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
        match a.as_str() {
            "--backend" => cli.backend = value("--backend")?,
            "--json" => cli.json = Some(value("--json")?.into()),
            "--wpt" => cli.wpt = Some(value("--wpt")?.into()),
            "--expected" => cli.expected = Some(value("--expected")?.into()),
            "--filter" => cli.selection.filter = Some(value("--filter")?),
            "--suite" => match value("--suite")?.as_str() {
                "conformance" => cli.selection.validation = false,
                "validation" => cli.selection.conformance = false,
                other => return Err(format!("unknown suite '{other}' (conformance or validation)")),
            },
            "--verbose" | "-v" => cli.verbose = true,
            "--list-failing" => cli.list_failing = true,
            "--coverage" => cli.coverage = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    if cli.backend.is_empty() {
        return Err(format!("--backend is required\n{USAGE}"));
    }
    Ok(cli)
}

/// The backends this binary can drive; `fast`, `wgpu`, `ort` and `browser` get arms here.
fn make_backend(name: &str) -> Result<Box<dyn Backend>, String> {
    match name {
        "cpu" => Ok(Box::new(webnn_cpu::CpuBackend)),
        "fast" => Ok(Box::new(webnn_fast::FastBackend::default())),
        "wgpu" => webnn_wgpu::WgpuBackend::new()
            .map(|b| Box::new(b) as Box<dyn Backend>)
            .map_err(|e| format!("the wgpu backend cannot start: {e}")),
        "ort" => webnn_ort::OrtBackend::new()
            .map(|b| Box::new(b) as Box<dyn Backend>)
            .map_err(|e| format!("the ort backend cannot start: {e}")),
        other => Err(format!("unknown backend '{other}' (available: cpu, fast, wgpu, ort)")),
    }
}

pub fn main() -> ExitCode {
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("webnn-wpt: {e}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<bool, String> {
    let cli = parse_args()?;
    let in_browser = webnn_wpt::browser::context_options(&cli.backend).is_some();
    let mut backend = if in_browser { None } else { Some(make_backend(&cli.backend)?) };
    let recording = match cli.coverage {
        true => Some(Recording::new(backend.take().ok_or("--coverage needs a native backend")?)),
        false => None,
    };
    let native: Option<&dyn Backend> = recording.as_ref().map(|r| r as &dyn Backend).or(backend.as_deref());
    let wpt = cli.wpt.clone().unwrap_or_else(default_wpt_dir);
    let expected_path = cli.expected.clone().unwrap_or_else(|| default_expected_path(&cli.backend));
    let expectations = read_expectations(&expected_path)?;
    let files = load_dir(&wpt)?;
    let types = if cli.coverage { case_types(&files.as_sources().conformance) } else { Default::default() };
    let mut coverage = Coverage::default();

    let start = Instant::now();
    let mut on_result = |r: &webnn_wpt::CaseResult| {
        if let Some(rec) = &recording {
            let steps = rec.take();
            if let (true, Some((_, reference @ 1..))) = (cli.verbose, steps) {
                println!("REFERENCE {} ({reference} steps on the reference interpreter)", r.key());
            }
            coverage.add(r, steps, &types);
        }
        if cli.verbose {
            let reason = expectations.reason(&r.key()).map(|why| format!(" [expected: {why}]")).unwrap_or_default();
            println!("{:5} {}{reason}{}", r.status.name().to_uppercase(), r.key(), message_suffix(&r.message));
        }
    };
    let results = match native {
        Some(b) => run(b, &files.as_sources(), &cli.selection, &mut on_result),
        None => {
            let results = webnn_wpt::browser::run(&cli.backend, &wpt, &files.as_sources(), &cli.selection)?;
            results.iter().for_each(&mut on_result);
            results
        }
    };
    let elapsed = start.elapsed();

    let selection = cli.selection.clone();
    let outcome = evaluate(&results, &expectations, &|k| selection.selects(k));
    if !cli.verbose {
        // Every failing case, the listed ones marked with their reason.
        for r in results.iter().filter(|r| r.status.is_failure()) {
            let listed = expectations.reason(&r.key()).map(|why| format!(" [expected: {why}]")).unwrap_or_default();
            println!("{:5} {}{listed}{}", r.status.name().to_uppercase(), r.key(), message_suffix(&r.message));
        }
    }
    for r in outcome.unexpected_passes.iter().filter_map(|&i| results.get(i)) {
        println!("UNEXPECTED PASS {} (listed in {})", r.key(), expected_path.display());
    }
    for r in outcome.listed_skips.iter().filter_map(|&i| results.get(i)) {
        println!("LISTED BUT SKIPPED {}: {}", r.key(), r.message);
    }
    for key in &outcome.stale {
        println!("STALE EXPECTATION {key} (no such case in this run)");
    }
    if cli.list_failing {
        for r in results.iter().filter(|r| r.status.is_failure()) {
            let reason = expectations.reason(&r.key()).map(str::to_owned).unwrap_or_else(|| draft_reason(&r.message));
            println!("{} # {reason}", r.key());
        }
    }
    if let Some(path) = &cli.json {
        std::fs::write(path, to_json(&cli.backend, &results))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if cli.coverage {
        println!("kernel coverage on {}:\n\n{}", cli.backend, coverage.table());
    }
    let errors = results.iter().filter(|r| r.status == Status::Error).count();
    println!(
        "backend {}: {} cases ({} expected failures, {} of the failures are errors), {}",
        cli.backend,
        results.len(),
        outcome.expected_failures,
        errors,
        if outcome.success() { "run succeeded" } else { "run FAILED" }
    );
    println!("wall time {:.2} s", elapsed.as_secs_f64());
    println!("{}", outcome.summary_line());
    Ok(outcome.success())
}

fn message_suffix(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

/// A one-line reason drafted from a failure message (for `--list-failing`).
fn draft_reason(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    let line = if line.is_empty() { "fails" } else { line };
    let mut s: String = line.chars().take(160).collect();
    // " # " separates key and reason; keep the draft on one unambiguous line.
    s = s.replace(" # ", " - ");
    s
}
