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
//!
//! `webnn-www ort-webnn [--device cpu|gpu|npu] [--runs N]`: runs `www/ort-webnn/` in headless Chromium
//! (or Firefox, with `WEBNN_BROWSER=firefox`, as every command here):
//! ONNX Runtime Web's WebNN execution provider on the polyfill, for MobileNetV2 and a
//! BERT-style encoder exported by webnn-onnx, against its wasm execution provider; fails
//! unless the outputs agree and every compute node ran on WebNN.
//!
//! `webnn-www onnx [--threads 1,2] [--runs N]`: `www/onnx/`, ONNX files through `loadOnnx`
//! against ONNX Runtime Web (see `onnx_page.rs`).
//!
//! `webnn-www chat [--device cpu|gpu|npu] [--cache f32|f16] [--prompt TEXT] [--tokens N] [--threads N] [--build B]`:
//! runs the chat page
//! (`www/chat/`, SmolLM2 built through the polyfill's MLGraphBuilder) on that prompt in
//! headless Chromium, then the native decoder (webnn-llm on the fast cpu backend, with the
//! same caches' type) on the same one, and fails unless the greedy tokens are the same;
//! prints both speeds.

mod onnx_page;

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
    // The ONNX files of packages (scripts/onnx-setup.sh) for the loadOnnx page.
    let onnx = std::env::var_os("WEBNN_ONNX_DIR").map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/webnn-rs/onnx"))
    });
    if let Some(dir) = onnx.filter(|d| d.is_dir()) {
        mounts.push(Mount::new("/onnx-models/", dir));
    }
    // The language model for the chat page (scripts/llm-setup.sh installs it).
    if let Some(dir) = webnn_llm::smollm2_path().parent() {
        mounts.push(Mount::new("/llm/", dir));
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
        Some("chat") => chat(
            port,
            &arg(&args, "--device").unwrap_or_else(|| "cpu".into()),
            &arg(&args, "--cache").unwrap_or_else(|| "f32".into()),
            &arg(&args, "--prompt").unwrap_or_else(|| "What is the capital of France?".into()),
            arg(&args, "--tokens").and_then(|r| r.parse().ok()).unwrap_or(24),
            arg(&args, "--threads").and_then(|r| r.parse().ok()),
            arg(&args, "--build"),
        ),
        Some("ort-webnn") => ort_webnn(
            port,
            &arg(&args, "--device").unwrap_or_else(|| "cpu".into()),
            arg(&args, "--runs").and_then(|r| r.parse().ok()).unwrap_or(10),
        ),
        Some("onnx") => onnx_page::run(
            port,
            &arg(&args, "--threads").unwrap_or_else(|| "1,2".into()),
            arg(&args, "--runs").and_then(|r| r.parse().ok()).unwrap_or(20),
        ),
        _ => Err("usage: webnn-www serve|demo|bench|chat|ort-webnn|onnx [--port N] [--screenshot FILE] [--threads 1,2] [--runs N] [--device cpu|gpu|npu] [--cache f32|f16] [--prompt TEXT] [--tokens N] [--build B]".into()),
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

/// Opens `page` on the server and waits (up to `minutes`) for the page's result in
/// `window.{var}`. A timeout's error carries the page's status line; a result with an
/// `error` member fails, naming `what` and the page's unhandled rejections if it lists any.
pub(crate) fn page_result(browser: &Browser, server: &Server, page: &str, var: &str, what: &str, minutes: u64) -> Result<Value, String> {
    browser.goto(&server.url(page))?;
    let r = browser.wait_for(&format!("window.{var}"), Duration::from_secs(60 * minutes)).map_err(|e| {
        let status = browser.eval("return document.getElementById('status')?.textContent ?? ''", Value::Null);
        format!("{e}; the page's status: {}", status.unwrap_or_default())
    })?;
    if let Some(e) = r.get("error").and_then(Value::as_str) {
        return Err(match r.get("unhandled") {
            Some(u) => format!("{what} failed: {e} (unhandled: {u})"),
            None => format!("{what} failed: {e}"),
        });
    }
    Ok(r)
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
        let page = format!("/image-classification/?auto&device={device}&sample={sample}&layout=nchw");
        let r = page_result(&browser, &server, &page, "demoResult", &format!("the demo page ({device}, {sample})"), 10)?;
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
        let page = format!("/bench/?threads={t}&runs={runs}&auto");
        let r = page_result(&browser, &server, &page, "benchResult", &format!("the benchmark page ({t} threads)"), 20)?;
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
    println!("\nMobileNetV2-1.0-224 float32 in headless {}, median of {runs} runs each, in alternating blocks:\n", browser.engine().name());
    println!("| threads | webnn-rs (CPU context) | ONNX Runtime Web (wasm) | ratio | max |Δ logits| | cross-origin isolated |");
    println!("|---|---|---|---|---|---|");
    rows.iter().for_each(|r| println!("{r}"));
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// Runs `www/ort-webnn/`: ONNX Runtime Web's WebNN execution provider on the polyfill, for a
/// CNN and a transformer encoder. Fails unless every model's outputs equal the wasm execution
/// provider's (within 1e-4 of the largest output; the same top class), ONNX Runtime built one
/// WebNN graph per model holding at least the source graph's compute ops (so no node fell
/// back to its CPU), and nothing was left as an unhandled rejection.
fn ort_webnn(port: u16, device: &str, runs: u32) -> Result<(), String> {
    let server = start(port)?;
    let browser = Browser::start()?;
    let r = page_result(&browser, &server, &format!("/ort-webnn/?device={device}&runs={runs}&auto"), "ortWebnnResult", "the ONNX Runtime Web page", 10)?;
    let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    println!(
        "onnxruntime-web {} with executionProviders [{{name: 'webnn', deviceType: '{device}'}}] on the polyfill's {} context, in {}:\n",
        r["ortVersion"].as_str().unwrap_or("?"),
        r["backend"].as_str().unwrap_or("?"),
        browser.engine().name()
    );
    println!("| model | WebNN graphs | WebNN ops | session webnn / wasm | first run webnn / wasm | run (median) webnn / wasm | max |Δ| / max |output| |");
    println!("|---|---|---|---|---|---|---|");
    let mut failures: Vec<String> = r["unhandled"].as_array().into_iter().flatten().map(|u| format!("unhandled rejection: {u}")).collect();
    for m in r["results"].as_array().into_iter().flatten() {
        let name = m["model"].as_str().unwrap_or("?");
        let built = m["webnn"]["ops"].as_object().cloned().unwrap_or_default();
        let count = |o: &serde_json::Map<String, Value>| o.values().filter_map(Value::as_u64).sum::<u64>();
        // Shape-only ops (reshape, transpose...) may be folded away by ONNX Runtime's optimizer
        // or added by its builders; the compute ops must all be there.
        // ONNX Runtime turns a 2-D MatMul + Add into one Gemm: the two count as one class.
        let classes: [&[&str]; 7] = [&["conv2d"], &["gemm", "matmul"], &["softmax"], &["layerNormalization"], &["gelu"], &["gather"], &["tanh"]];
        for class in classes {
            let sum = |o: &Value| class.iter().map(|op| o[*op].as_u64().unwrap_or(0)).sum::<u64>();
            let (want, got) = (sum(&m["expectedOps"]), sum(&m["webnn"]["ops"]));
            if got < want {
                failures.push(format!(
                    "{name}: ONNX Runtime built {got} {} ops on WebNN, the model has {want} (nodes fell back to its CPU?); built: {}",
                    class.join("/"),
                    m["webnn"]["ops"]
                ));
            }
        }
        let builds = m["webnn"]["builds"].as_u64().unwrap_or(0);
        if builds != 1 {
            failures.push(format!("{name}: {builds} WebNN graphs built, expected one partition"));
        }
        let mut diffs = Vec::new();
        for (out, d) in m["maxAbsDiff"].as_object().into_iter().flatten() {
            let d = d.as_f64().unwrap_or(f64::NAN);
            let scale = f(&m["maxAbs"], out).max(1.0);
            if d.is_nan() || d > 1e-4 * scale {
                failures.push(format!("{name}: output {out} differs from the wasm execution provider by {d:e} (largest output {scale})"));
            }
            diffs.push(format!("{out} {d:.1e} / {scale:.1}"));
        }
        for pair in m["top1"].as_array().into_iter().flatten() {
            if pair[0] != pair[1] {
                failures.push(format!("{name}: top-1 {} on WebNN, {} on wasm", pair[0], pair[1]));
            }
        }
        println!(
            "| {name} | {builds} | {} | {:.0} ({:.0} builder calls, {:.0} build) / {:.0} ms | {:.1} / {:.1} ms | {:.2} / {:.2} ms ({:.2}x) | {} |",
            count(&built),
            f(&m["webnn"], "createMs"),
            f(&m["webnn"], "builderMs"),
            f(&m["webnn"], "buildMs"),
            f(&m["wasm"], "createMs"),
            f(&m["webnn"], "runMs"),
            f(&m["wasm"], "runMs"),
            f(&m["webnn"], "steadyMs"),
            f(&m["wasm"], "steadyMs"),
            f(&m["webnn"], "steadyMs") / f(&m["wasm"], "steadyMs"),
            diffs.join(", ")
        );
    }
    println!("\none-op graph, writeTensor + dispatch + readTensor: {:.1} us per iteration (median of 10 blocks of 100)", f(&r, "dispatchUs"));
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// The page's configuration (www/chat/main.js): cache rows and prompt chunk.
const CHAT_CAPACITY: u32 = 512;
const CHAT_MAX_SEQ: u32 = 64;
/// Decode steps dispatched ahead of the token read (www/chat/main.js's LAG).
const CHAT_LAG: usize = 4;

#[allow(clippy::too_many_arguments)]
fn chat(port: u16, device: &str, cache: &str, prompt: &str, tokens: usize, threads: Option<u32>, build: Option<String>) -> Result<(), String> {
    let cache_type = webnn_llm::model::CacheType::parse(cache).ok_or_else(|| format!("--cache takes f32 or f16, not {cache}"))?;
    let server = start(port)?;
    let browser = Browser::start()?;
    let query: String = prompt
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let mut page = format!("/chat/?auto&device={device}&cache={cache}&tokens={tokens}&prompt={query}");
    if let Some(t) = threads {
        page += &format!("&threads={t}");
    }
    if let Some(b) = build {
        page += &format!("&build={b}");
    }
    let r = page_result(&browser, &server, &page, "chatResult", "the chat page", 20)?;
    let ids = |v: &Value| -> Vec<u32> {
        v.as_array().into_iter().flatten().filter_map(Value::as_u64).map(|x| x as u32).collect()
    };
    let f = |k: &str| r.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    let page = ids(&r["tokens"]);
    println!(
        "page ({}, {} caches): {:?}\n  graph built in {:.1} s, first token after {:.0} ms ({} prompt tokens), {} tokens at {:.1} tokens/s",
        r["device"].as_str().unwrap_or("?"),
        r["cache"].as_str().unwrap_or("?"),
        r["text"].as_str().unwrap_or(""),
        f("buildMs") / 1e3,
        f("ttftMs"),
        ids(&r["prompt"]).len(),
        page.len(),
        f("tokensPerSecond")
    );
    let native = native_answer(&ids(&r["prompt"]), tokens, cache_type)?;
    if native.tokens != page {
        return Err(format!("the page's tokens {page:?} differ from the native decoder's {:?}", native.tokens));
    }
    println!(
        "native ({}): the same {} tokens; first token after {:.0} ms, {:.1} tokens/s",
        native.device,
        native.tokens.len(),
        native.ttft_ms,
        native.tokens_per_second
    );
    Ok(())
}

struct Native {
    device: String,
    tokens: Vec<u32>,
    ttft_ms: f64,
    tokens_per_second: f64,
}

/// Greedy decoding of `prompt` by webnn-llm on the fast cpu backend, as the page decodes.
fn native_answer(prompt: &[u32], limit: usize, cache: webnn_llm::model::CacheType) -> Result<Native, String> {
    use webnn_llm::{gguf::Gguf, model::Config, session::Session, tokenizer::Tokenizer};
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let gguf = Gguf::read(&webnn_llm::smollm2_path()).map_err(|x| e(&x))?;
    let eos = Tokenizer::from_gguf(&gguf).map_err(|x| e(&x))?.eos;
    let config = Config { cache, ..Config::from_gguf(&gguf, CHAT_CAPACITY, CHAT_MAX_SEQ).map_err(|x| e(&x))? };
    let ctx = webnn::Context::fast(webnn_fast::FastBackend::default());
    let device = ctx.device_name();
    let mut s = pollster::block_on(Session::new(ctx, &gguf, config)).map_err(|x| e(&x))?;
    // As the page does: the tokens stay on the device, read a few steps late.
    let t0 = std::time::Instant::now();
    s.prefill(prompt).map_err(|x| e(&x))?;
    pollster::block_on(s.peek_token()).map_err(|x| e(&x))?;
    let ttft_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = std::time::Instant::now();
    let tokens = pollster::block_on(s.decode(limit, CHAT_LAG, Some(eos))).map_err(|x| e(&x))?;
    let tokens_per_second = tokens.len().saturating_sub(1) as f64 / t1.elapsed().as_secs_f64();
    Ok(Native { device, tokens, ttft_ms, tokens_per_second })
}
