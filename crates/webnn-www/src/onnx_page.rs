//! `webnn-www onnx [--threads 1,2] [--runs N]`: runs `www/onnx/` (ONNX files imported by
//! `loadOnnx` and built on the polyfill's CPU context, against ONNX Runtime Web's wasm
//! execution provider on the same files) once per thread count, prints the bytes, time to
//! first result and steady-state latency of each, and fails unless every model's outputs
//! agree (within 1e-4 of the largest output, 1e-2 for float16 outputs), bytes that are not a model reject with a
//! DataError, and nothing was left as an unhandled rejection.

use serde_json::Value;
use webnn_www::Browser;

pub fn run(port: u16, threads: &str, runs: u32) -> Result<(), String> {
    let server = crate::start(port)?;
    let browser = Browser::start()?;
    let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    let mut about = String::new();
    let mut files: Vec<String> = Vec::new();
    for t in threads.split(',') {
        let t: u32 = t.trim().parse().map_err(|_| format!("--threads: {threads:?} is not a list of numbers"))?;
        let page = format!("/onnx/?threads={t}&runs={runs}&auto");
        let r = crate::page_result(&browser, &server, &page, "onnxResult", &format!("the ONNX page ({t} threads)"), 20)?;
        let refused = r["refused"].as_str().unwrap_or("?");
        if !refused.starts_with("DOMException DataError: ") {
            failures.push(format!("{t} threads: bytes that are not a model gave '{refused}', not a DataError"));
        }
        failures.extend(r["unhandled"].as_array().into_iter().flatten().map(|u| format!("{t} threads: unhandled rejection: {u}")));
        about = format!(
            "loadOnnx on the polyfill's {} context against onnxruntime-web {} (wasm), in headless {}, cross-origin isolated {}, median of {runs} runs in alternating blocks",
            r["backend"].as_str().unwrap_or("?"),
            r["ortVersion"].as_str().unwrap_or("?"),
            browser.engine().name(),
            r["crossOriginIsolated"]
        );
        if t == 1 || files.is_empty() {
            files = r["files"].as_object().into_iter().flatten().map(|(p, n)| format!("{p} {:.2} MB", n.as_f64().unwrap_or(0.0) / 1e6)).collect();
        }
        for m in r["rows"].as_array().into_iter().flatten() {
            let name = m["model"].as_str().unwrap_or("?");
            let (w, o) = (&m["webnn"], &m["ort"]);
            let (diff, scale) = (f(m, "maxDiff"), f(m, "maxAbs").max(1.0));
            let tolerance = m["tolerance"].as_f64().unwrap_or(1e-4);
            if diff.is_nan() || diff > tolerance * scale {
                failures.push(format!("{name}, {t} threads: outputs differ from ONNX Runtime's by {diff:e} (largest output {scale})"));
            }
            let mb = |v: &Value, k: &str| f(v, k) / 1e6;
            lines.push(format!(
                "| {name} | {t} | {:.2} + {:.2} / {:.2} + {:.2} MB | {:.0} / {:.0} ms | {:.2} / {:.2} ms | {:.3} | {diff:.1e} |",
                mb(w, "runtimeBytes"), mb(w, "modelBytes"), mb(o, "runtimeBytes"), mb(o, "modelBytes"),
                f(w, "firstMs"), f(o, "firstMs"), f(w, "medianMs"), f(o, "medianMs"),
                f(w, "medianMs") / f(o, "medianMs"),
            ));
        }
    }
    println!("\n{about}:\n");
    println!("| model | threads | downloaded: runtime + model, loadOnnx / ORT Web | first result loadOnnx / ORT Web | steady loadOnnx / ORT Web | ratio | max abs diff |");
    println!("|---|---|---|---|---|---|---|");
    lines.iter().for_each(|l| println!("{l}"));
    println!("\nRuntime files fetched: {}", files.join(", "));
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}
