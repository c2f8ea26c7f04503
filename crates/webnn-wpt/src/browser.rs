//! `--backend browser-cpu` / `browser-webgpu`: the suites run in headless Chromium (or
//! Firefox, with `WEBNN_BROWSER=firefox`) through
//! the polyfill's JavaScript objects. The page (`tests/browser/pages/wpt.html`) loads the
//! polyfill as any page would and the harness compiled to wasm (`webnn-wpt-js`), which drives
//! `navigator.ml`; this side serves the files, starts the run, shows progress and reads the
//! report back. Build both first with `scripts/build-web.sh --harness`.
//!
//! The page is cross-origin isolated, so by default the polyfill loads its threads build;
//! `WEBNN_WPT_BUILD=relaxed-simd|simd128` makes it load another of its wasm builds.

use crate::report::{from_json, CaseResult};
use crate::{Selection, Sources};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use webnn_www::{Browser, Mount, Server};

/// The `MLContextOptions` each browser backend asks for: the polyfill's `backend` member names
/// WebGPU outright, since on a software adapter (CI's SwiftShader) `accelerated` and the
/// `deviceType` hint both choose the CPU.
pub fn context_options(backend: &str) -> Option<serde_json::Value> {
    match backend {
        "browser-cpu" => Some(json!({"deviceType": "cpu"})),
        "browser-webgpu" => Some(json!({"backend": "webgpu"})),
        _ => None,
    }
}

/// Where `scripts/build-web.sh --harness` puts the harness's wasm.
pub fn harness_dir() -> std::path::PathBuf {
    let target = std::env::var("CARGO_TARGET_DIR").map(Into::into).unwrap_or_else(|_| webnn_www::workspace_root().join("target"));
    Path::new(&target).join("webnn-wpt-js")
}

pub fn run(backend: &str, wpt: &Path, sources: &Sources, selection: &Selection) -> Result<Vec<CaseResult>, String> {
    let options = context_options(backend).ok_or_else(|| format!("unknown browser backend '{backend}'"))?;
    let root = webnn_www::workspace_root();
    let harness = harness_dir();
    for needed in [root.join("pkg-js/dist/webnn-polyfill.js"), harness.join("webnn_wpt_js.js")] {
        if !needed.is_file() {
            return Err(format!("{} is missing: run scripts/build-web.sh --harness", needed.display()));
        }
    }
    let server = Server::start(
        vec![
            Mount::new("/pkg/", root.join("pkg-js/dist")),
            Mount::new("/harness/", harness),
            Mount::new("/wpt-data/", wpt),
            Mount::new("/", root.join("tests/browser/pages")),
        ],
        0,
    )
    .map_err(|e| format!("cannot serve the harness: {e}"))?;
    let browser = Browser::start()?;
    let build = std::env::var("WEBNN_WPT_BUILD").unwrap_or_else(|_| "auto".into());
    if !build.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(format!("WEBNN_WPT_BUILD: '{build}' is not a build name"));
    }
    browser.goto(&server.url(&format!("/wpt.html?build={build}")))?;
    browser.wait_for("window.harnessReady !== undefined", Duration::from_secs(60))?;
    if browser.eval("return window.harnessReady;", json!([]))? != json!(true) {
        return Err("the polyfill did not install itself in the page".into());
    }
    let names = |files: &[(&str, &str)]| files.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>();
    let mut list = json!({"conformance": [], "validation": []});
    if selection.conformance {
        list["conformance"] = json!(names(&sources.conformance));
    }
    if selection.validation {
        list["validation"] = json!(names(&sources.validation));
    }
    browser.eval(
        "startWpt(arguments[0], arguments[1], arguments[2]);",
        json!([options, list, selection.filter]),
    )?;
    let start = Instant::now();
    let mut last = (0, Instant::now());
    loop {
        let state = browser.eval("return [wpt.done, wpt.cases, wpt.report !== null, wpt.error];", json!([]))?;
        if let Some(e) = state[3].as_str() {
            return Err(format!("the page's harness failed: {e}"));
        }
        if state[2] == json!(true) {
            break;
        }
        let done = state[0].as_u64().unwrap_or(0);
        if done != last.0 && last.1.elapsed() > Duration::from_secs(10) {
            eprintln!("  {done} files, {} cases, {:.0} s", state[1], start.elapsed().as_secs_f64());
            last = (done, Instant::now());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let report = browser.eval("return wpt.report;", json!([]))?;
    let device = browser.eval(
        "return navigator.ml.createContext(arguments[0]).then((c) => `${c.backend}: ${c.deviceName}`, String);",
        json!([options]),
    );
    if let Ok(d) = device {
        eprintln!("the page's context, in {}: {}", browser.engine().name(), d.as_str().unwrap_or("?"));
    }
    let (ran_on, results) = from_json(report.as_str().ok_or("the report is not a string")?)?;
    // The hint picks the backend; a context that fell back elsewhere would test the wrong one.
    if ran_on != backend {
        return Err(format!("asked for {backend}, the page's context ran on {ran_on}"));
    }
    Ok(results)
}
