//! End to end: the image-classification page (EfficientNet-Lite0 built through the polyfill's
//! MLGraphBuilder) on the chelsea sample: in headless Chromium on the CPU and on WebGPU, and in
//! headless Firefox on the CPU in both layouts (it finds no WebGPU adapter without a GPU);
//! checks the reference probabilities and saves a screenshot to `out/classification.png`.
//! Needs the built polyfill (`scripts/build-web.sh`) and the model files (`scripts/models.sh`).

use serde_json::Value;
use std::time::Duration;
use webnn_www::{workspace_root, Browser, Engine, Mount, Server};

#[test]
fn classification_page_finds_the_tiger_cat() {
    run(Engine::Chromium, &[("cpu", "nhwc"), ("gpu", "nchw")]);
}

#[test]
fn classification_page_finds_the_tiger_cat_in_firefox() {
    run(Engine::Firefox, &[("cpu", "nhwc"), ("cpu", "nchw")]);
}

fn run(engine: Engine, runs: &[(&str, &str)]) {
    let root = workspace_root();
    for needed in ["pkg-js/dist/webnn-polyfill.js", "www/models/efficientnet-lite0/manifest.json"] {
        assert!(root.join(needed).is_file(), "{needed} is missing: run scripts/build-web.sh and scripts/models.sh");
    }
    let server = Server::start(vec![Mount::new("/pkg/", root.join("pkg-js/dist")), Mount::new("/", root.join("www"))], 0)
        .expect("serve");
    let browser = Browser::start_engine(engine).unwrap_or_else(|e| panic!("{}: {e}", engine.name()));
    for &(device, layout) in runs {
        browser
            .goto(&server.url(&format!("/image-classification/?auto&sample=chelsea&device={device}&layout={layout}")))
            .expect("page");
        let r = browser.wait_for("window.demoResult", Duration::from_secs(600)).expect("result");
        assert!(r.get("error").is_none(), "the page failed: {r}");
        let top: Vec<(String, f64)> = r["top5"]
            .as_array()
            .expect("top5")
            .iter()
            .map(|t| (t["label"].as_str().unwrap_or("").to_owned(), t["probability"].as_f64().unwrap_or(0.0)))
            .collect();
        println!("{} {device} {layout}: {top:?}, build {} ms, inference {} ms", engine.name(), r["buildMs"], r["inferenceMs"]);
        assert_eq!(r["backend"], Value::from(if device == "gpu" { "webgpu" } else { "cpu" }));
        let p = |label: &str| top.iter().find(|(l, _)| l.starts_with(label)).map(|(_, p)| *p).unwrap_or(0.0);
        assert!((p("tiger cat") - 0.38).abs() < 0.03, "tiger cat {}", p("tiger cat"));
        assert!((p("Egyptian cat") - 0.37).abs() < 0.03, "Egyptian cat {}", p("Egyptian cat"));
        assert!((p("tabby") - 0.16).abs() < 0.03, "tabby {}", p("tabby"));
    }
    if engine != Engine::Chromium {
        return;
    }
    let png = browser.screenshot().expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let out = root.join("out");
    std::fs::create_dir_all(&out).expect("out/");
    std::fs::write(out.join("classification.png"), png).expect("write the screenshot");
}
