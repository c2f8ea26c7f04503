//! `webnn-www serve [--port N]`: serves the demo pages (`www/`) and the built polyfill
//! (`pkg-js/dist` at `/pkg/`) on localhost until stopped.
//!
//! `webnn-www demo [--port N] [--screenshot FILE]`: serves them, prints the address, and runs
//! the image-classification demo in headless Chromium on each backend, printing the top-5
//! classes and the timings and saving a screenshot; it keeps serving afterwards when a
//! display is there for a person to open the address, and exits otherwise.
//!
//! `webnn-www bench [--threads 1,2] [--runs N]`: runs the CPU benchmark page (`www/bench/`,
//! MobileNetV2 on the polyfill's CPU context against ONNX Runtime Web's wasm backend) in
//! headless Chromium once per thread count and prints a table. It fails when the two
//! disagree on the outputs (top class, or logits beyond 1e-3); speed is reported, not judged.

use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use webnn_www::{workspace_root, Browser, Mount, Server};

fn mounts() -> Vec<Mount> {
    let root = workspace_root();
    let mut mounts = vec![Mount::new("/pkg/", root.join("pkg-js/dist"))];
    // ONNX Runtime Web for the benchmark page, from the npm tools folder (setup.sh).
    if let Some(tools) = std::env::var_os("WEBNN_TOOLS") {
        mounts.push(Mount::new(
            "/ort/",
            PathBuf::from(tools).join("node_modules/onnxruntime-web/dist"),
        ));
    }
    mounts.push(Mount::new("/", root.join("www")));
    mounts
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port = arg(&args, "--port")
        .and_then(|p| p.parse().ok())
        .unwrap_or(8080);
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(port),
        Some("demo") => demo(port, arg(&args, "--screenshot").map(PathBuf::from)),
        Some("bench") => bench(
            port,
            &arg(&args, "--threads").unwrap_or_else(|| "1,2".into()),
            arg(&args, "--runs").and_then(|r| r.parse().ok()).unwrap_or(30),
        ),
        _ => Err("usage: webnn-www serve|demo|bench [--port N] [--screenshot FILE] [--threads 1,2] [--runs N]".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("webnn-www: {e}");
            ExitCode::FAILURE
        }
    }
}

fn start(port: u16) -> Result<Server, String> {
    if !workspace_root()
        .join("pkg-js/dist/webnn-polyfill.js")
        .is_file()
    {
        return Err("pkg-js/dist is empty: run scripts/build-web.sh".into());
    }
    // A busy port (another server) falls back to any free one.
    let server = Server::start(mounts(), port)
        .or_else(|_| Server::start(mounts(), 0))
        .map_err(|e| e.to_string())?;
    println!("serving the demos at {}", server.url("/"));
    Ok(server)
}

fn serve(port: u16) -> Result<(), String> {
    let _server = start(port)?;
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn demo(port: u16, screenshot: Option<PathBuf>) -> Result<(), String> {
    let server = start(port)?;
    let browser = Browser::start()?;
    let mut shot = None;
    for (device, sample) in [("cpu", "chelsea"), ("gpu", "chelsea"), ("cpu", "coffee")] {
        let url = server.url(&format!(
            "/image-classification/?auto&device={device}&sample={sample}&layout=nchw"
        ));
        browser.goto(&url)?;
        let r = browser.wait_for("window.demoResult", Duration::from_secs(600))?;
        if let Some(e) = r.get("error").and_then(Value::as_str) {
            return Err(format!("the demo page failed ({device}, {sample}): {e}"));
        }
        print_result(sample, &r);
        if shot.is_none() {
            shot = Some(browser.screenshot()?);
        }
    }
    let path = screenshot.unwrap_or_else(|| workspace_root().join("out/demo.png"));
    if let (Some(png), Some(dir)) = (shot, path.parent()) {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        std::fs::write(&path, png).map_err(|e| e.to_string())?;
        println!("screenshot: {}", path.display());
    }
    drop(browser);
    if std::env::var_os("DISPLAY").is_some() && std::env::var_os("CI").is_none() {
        println!(
            "open {} in a browser; Ctrl-C stops the server",
            server.url("/")
        );
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    Ok(())
}

fn print_result(sample: &str, r: &Value) {
    let f = |k: &str| r.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    println!(
        "{sample} on {} [{}] ({}, accelerated {}): build {:.0} ms, inference {:.1} ms (median of {} runs; first {:.0} ms)",
        r["backend"].as_str().unwrap_or("?"),
        r["deviceName"].as_str().unwrap_or("?"),
        r["layout"].as_str().unwrap_or("?"),
        r["accelerated"],
        f("buildMs"),
        f("inferenceMs"),
        f("runs") - 1.0,
        f("firstRunMs")
    );
    for t in r["top5"].as_array().into_iter().flatten() {
        println!(
            "  {:<28} {:.3}",
            t["label"].as_str().unwrap_or("?"),
            t["probability"].as_f64().unwrap_or(0.0)
        );
    }
}

fn bench(port: u16, threads: &str, runs: u32) -> Result<(), String> {
    let server = start(port)?;
    let browser = Browser::start()?;
    let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for t in threads.split(',') {
        let t: u32 = t
            .trim()
            .parse()
            .map_err(|_| format!("--threads: {threads:?} is not a list of numbers"))?;
        browser.goto(&server.url(&format!("/bench/?threads={t}&runs={runs}&auto")))?;
        let r = browser.wait_for("window.benchResult", Duration::from_secs(1200))?;
        if let Some(e) = r.get("error").and_then(Value::as_str) {
            return Err(format!("the benchmark page failed ({t} threads): {e}"));
        }
        let runners = r["runners"].as_array().cloned().unwrap_or_default();
        for x in &runners {
            println!(
                "{t} thread(s), {}: {} (build {:.0} ms)",
                x["name"].as_str().unwrap_or("?"),
                x["device"].as_str().unwrap_or("?"),
                f(x, "buildMs")
            );
        }
        println!("{t} thread(s): polyfill CPU workers {}", r["cpuWorkers"]);
        let ms = |i: usize| runners.get(i).map_or(f64::NAN, |x| f(x, "medianMs"));
        let diff = f(&r, "logitsMaxDiff");
        let top1 = r["top1"].as_array().cloned().unwrap_or_default();
        if diff.is_nan() || diff > 1e-3 || top1.first() != top1.get(1) {
            failures.push(format!(
                "{t} threads: outputs differ (max |logits diff| {diff:e}, top-1 {top1:?})"
            ));
        }
        rows.push(format!(
            "| {t} | {:.2} ms | {:.2} ms | {:.3} | {diff:.1e} | {} |",
            ms(0),
            ms(1),
            f(&r, "ratio"),
            r["crossOriginIsolated"]
        ));
    }
    println!("\nMobileNetV2-1.0-224 float32 in headless Chromium, median of {runs} runs each, in alternating blocks:\n");
    println!("| threads | webnn-rs (CPU context) | ONNX Runtime Web (wasm) | ratio | max |Δ logits| | cross-origin isolated |");
    println!("|---|---|---|---|---|---|");
    rows.iter().for_each(|r| println!("{r}"));
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}
