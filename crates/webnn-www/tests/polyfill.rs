//! The polyfill's own tests (`tests/browser/pages/polyfill-tests.js`) in headless Chromium and
//! Firefox: the IDL surface checked against `webidl/webnn.idl`, WebIDL conversion, error
//! paths on both contexts, typed arrays, panic recovery, memory over 200 cycles, a Worker.
//! Needs the built polyfill (`scripts/build-web.sh`), Chromium and Firefox ESR with
//! geckodriver (`scripts/setup.sh all`). A test that needs what a browser lacks (WebGPU, the
//! threads build) reports a skip with the reason; in Chromium, which has both, a skip fails.

use serde_json::{json, Map, Value};
use std::time::Duration;
use webnn_idl::signatures::{idl, interfaces, parse_attributes, parse_dictionaries, parse_interface};
use webnn_www::{workspace_root, Browser, Engine, Mount, Server};

/// From the IDL: `{interfaces: {name: {ops: [[name, length, promise, [[param, type]...]]],
/// attrs: [[name, readonly]]}}, dictionaries: {name: {parent, members: [[name, default]]}}}`.
fn idl_surface() -> Value {
    let mut out = Map::new();
    for name in interfaces(idl()) {
        let ops: Vec<Value> = parse_interface(idl(), &name)
            .iter()
            .map(|s| {
                let params: Vec<Value> = s.params.iter().map(|p| json!([p.name, p.ty])).collect();
                json!([s.method, s.length(), s.promise, params])
            })
            .collect();
        let attrs: Vec<Value> = parse_attributes(idl(), &name).iter().map(|a| json!([a.name, a.readonly])).collect();
        out.insert(name, json!({"ops": ops, "attrs": attrs}));
    }
    let dicts: Map<String, Value> = parse_dictionaries(idl())
        .into_iter()
        .map(|(n, d)| (n, json!({"parent": d.parent, "members": d.members})))
        .collect();
    json!({"interfaces": out, "dictionaries": dicts})
}

#[test]
fn polyfill_in_headless_chromium() {
    run(Engine::Chromium);
}

#[test]
fn polyfill_in_headless_firefox() {
    run(Engine::Firefox);
}

fn run(engine: Engine) {
    let root = workspace_root();
    assert!(
        root.join("pkg-js/dist/webnn-polyfill.js").is_file(),
        "pkg-js/dist is empty: run scripts/build-web.sh first"
    );
    let surface = idl_surface();
    assert!(surface["interfaces"]["MLGraphBuilder"]["ops"].as_array().is_some_and(|o| o.len() > 95), "the IDL parsed");
    let server = Server::start(
        vec![Mount::new("/pkg/", root.join("pkg-js/dist")), Mount::new("/", root.join("tests/browser/pages"))],
        0,
    )
    .expect("serve");
    let browser = Browser::start_engine(engine).unwrap_or_else(|e| panic!("{}: {e}", engine.name()));
    // Next to a native WebNN the polyfill stays out of the way, unless told to install.
    browser.goto(&server.url("/install.html")).expect("install page");
    browser.wait_for("window.installDone", Duration::from_secs(60)).expect("install page ran");
    let install = browser.eval("return [window.kept, window.forced];", json!([])).expect("install results");
    assert_eq!(install, json!([true, true]), "[left a native navigator.ml alone, installed with data-force]");
    browser.goto(&server.url("/polyfill.html")).expect("page");
    browser.wait_for("window.testsReady", Duration::from_secs(60)).expect("tests loaded");
    browser.eval("runPolyfillTests(arguments[0]);", json!([surface])).expect("start");
    let results = browser.wait_for("window.polyfillResults", Duration::from_secs(900)).expect("results");
    let mut failed = Vec::new();
    for r in results.as_array().expect("array") {
        if let Some(why) = r["skipped"].as_str() {
            println!("skip {}: {why}", r["name"].as_str().unwrap_or("?"));
            if engine == Engine::Chromium {
                failed.push(format!("{} (skipped in Chromium: {why})", r["name"].as_str().unwrap_or("?")));
            }
            continue;
        }
        let ok = r["ok"] == json!(true);
        println!("{} {} ({:.0} ms)", if ok { "ok  " } else { "FAIL" }, r["name"].as_str().unwrap_or("?"), r["ms"].as_f64().unwrap_or(0.0));
        if !ok {
            println!("     {}", r["message"].as_str().unwrap_or(""));
            failed.push(r["name"].as_str().unwrap_or("?").to_owned());
        }
    }
    let memory = browser.eval("return window.memoryFigures || null;", json!([])).unwrap_or(Value::Null);
    println!("wasm memory before and after 200 cycles: {memory}");
    assert!(failed.is_empty(), "{}: failed: {failed:?}", engine.name());
}
