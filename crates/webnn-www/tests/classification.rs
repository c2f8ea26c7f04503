//! End to end: the image-classification page (EfficientNet-Lite0 built through the polyfill's
//! MLGraphBuilder) in headless Chromium on the chelsea sample, on the CPU and on WebGPU; checks
//! the reference probabilities and saves a screenshot to `out/classification.png`. Needs the
//! built polyfill (`scripts/build-web.sh`) and the model files (`scripts/models.sh`).

use serde_json::Value;
use std::time::Duration;
use webnn_www::{workspace_root, Browser, Mount, Server};

#[test]
fn classification_page_finds_the_tiger_cat() {
    let root = workspace_root();
    for needed in ["pkg-js/dist/webnn-polyfill.js", "www/models/efficientnet-lite0/manifest.json"] {
        assert!(root.join(needed).is_file(), "{needed} is missing: run scripts/build-web.sh and scripts/models.sh");
    }
    let server = Server::start(vec![Mount::new("/pkg/", root.join("pkg-js/dist")), Mount::new("/", root.join("www"))], 0)
        .expect("serve");
    let browser = Browser::start().expect("chromium");
    for (device, layout) in [("cpu", "nhwc"), ("gpu", "nchw")] {
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
        println!("{device} {layout}: {top:?}, build {} ms, inference {} ms", r["buildMs"], r["inferenceMs"]);
        assert_eq!(r["backend"], Value::from(if device == "gpu" { "webgpu" } else { "cpu" }));
        let p = |label: &str| top.iter().find(|(l, _)| l.starts_with(label)).map(|(_, p)| *p).unwrap_or(0.0);
        assert!((p("tiger cat") - 0.38).abs() < 0.03, "tiger cat {}", p("tiger cat"));
        assert!((p("Egyptian cat") - 0.37).abs() < 0.03, "Egyptian cat {}", p("Egyptian cat"));
        assert!((p("tabby") - 0.16).abs() < 0.03, "tabby {}", p("tabby"));
    }
    let png = browser.screenshot().expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let out = root.join("out");
    std::fs::create_dir_all(&out).expect("out/");
    std::fs::write(out.join("classification.png"), png).expect("write the screenshot");
}
