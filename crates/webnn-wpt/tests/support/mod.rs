//! Runs both WPT suites on a backend and checks the run against `expected/<backend>.txt`:
//! every case not listed must pass, every listed case must fail, and none may be skipped.

use std::time::Instant;
use webnn_core::Backend;
use webnn_wpt::native::{default_expected_path, default_wpt_dir, load_dir, read_expectations};
use webnn_wpt::{evaluate, run, Selection};

pub fn check_backend(backend: &dyn Backend) {
    let files = match load_dir(&default_wpt_dir()) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    let expected_path = default_expected_path(backend.name());
    let expectations = match read_expectations(&expected_path) {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    let selection = Selection::default();
    let start = Instant::now();
    let results = run(backend, &files.as_sources(), &selection, &mut |_| {});
    let elapsed = start.elapsed();
    let outcome = evaluate(&results, &expectations, &|k| selection.selects(k));

    for r in outcome.unexpected_failures.iter().filter_map(|&i| results.get(i)) {
        println!("{} {}: {}", r.status.name().to_uppercase(), r.key(), r.message);
    }
    for r in outcome.unexpected_passes.iter().filter_map(|&i| results.get(i)) {
        println!("UNEXPECTED PASS {} (remove it from {})", r.key(), expected_path.display());
    }
    for r in outcome.listed_skips.iter().filter_map(|&i| results.get(i)) {
        println!("LISTED BUT SKIPPED {}", r.key());
    }
    for key in &outcome.stale {
        println!("STALE EXPECTATION {key}");
    }
    println!("{}: wall time {:.2} s", backend.name(), elapsed.as_secs_f64());
    println!("{}", outcome.expectation_line());
    assert_eq!(results.len(), 1734 + 507, "every conformance case and validation row gives one result");
    let skipped: Vec<String> =
        results.iter().filter(|r| r.status == webnn_wpt::Status::Skip).map(|r| r.key()).collect();
    assert!(skipped.is_empty(), "skipped cases: {skipped:?}");
    assert!(outcome.success(), "the WPT run does not match {}", expected_path.display());
}
