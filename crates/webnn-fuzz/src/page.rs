//! The generator driving the polyfill in a page (`--page cpu|webgpu`): each valid case is
//! built natively, written as `MLGraphBuilder` calls (`webnn_idl::emit`), and sent to
//! `www/fuzz/` in headless Chromium (or Firefox, `WEBNN_BROWSER=firefox`), which builds it
//! through `navigator.ml` and runs it as a storm: write A, dispatch, read (not awaited),
//! write B, dispatch, read, and on every fourth case a destroy of an output tensor while its
//! reads may be pending. Each read must give what the dispatch before it computed (the
//! reference interpreter's answer, or the native fast backend's: the CPU context runs the
//! same kernels compiled to wasm), a read of the destroyed tensor that answer or an
//! InvalidStateError; a page error where the native build succeeded, or an unhandled
//! rejection, is a failure.

use crate::case::{quiet_panics, Case, Outputs};
use crate::diff::compare;
use crate::gen::{generate, Config};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use webnn_core::{Backend, DataType, Graph, HostTensor};
use webnn_www::{workspace_root, Browser, Mount, Server};

/// The page's context and the polyfill build it loads.
pub struct PageOptions {
    /// `cpu` or `webgpu`.
    pub device: String,
    /// `auto`, `threads`, `relaxed-simd`, `simd128`.
    pub build: String,
    /// Cases sent per WebDriver call.
    pub batch: usize,
}

/// What a page run found.
#[derive(Default)]
pub struct PageStats {
    pub generated: u64,
    /// Cases the page built and ran (valid natively, with a reference answer).
    pub ran: u64,
    /// Reads compared with an answer.
    pub reads: u64,
    pub destroyed_reads: u64,
    pub failures: Vec<String>,
    /// Cases whose differences go once values of 65504 and more are replaced by 1 (the
    /// native fuzzer's `Extreme`: the order of a sum of such values decides its overflow).
    pub extreme: u64,
    /// The polyfill's wasm memory (bytes) after the first batch and after the last.
    pub memory: Option<(f64, f64)>,
    pub seconds: f64,
    pub context: String,
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn to_b64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn from_b64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut n, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|&c| c != b'=') {
        n = n << 6 | B64.iter().position(|&x| x == c)? as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((n >> bits) as u8);
        }
    }
    Some(out)
}

/// The second input set: each tensor's elements in reverse order (4-bit ones as they are).
fn reversed(t: &HostTensor) -> HostTensor {
    let bytes = match t.desc.data_type {
        DataType::Int4 | DataType::Uint4 => t.bytes.clone(),
        dt => {
            let w = (dt.bits() / 8) as usize;
            t.bytes.chunks(w).rev().flatten().copied().collect()
        }
    };
    HostTensor { desc: t.desc.clone(), bytes }
}

fn run(backend: &dyn Backend, g: &Graph, feeds: &[(String, HostTensor)]) -> Option<Outputs> {
    let refs: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
    crate::case::catch(|| backend.compile(g).ok()?.dispatch(&refs).ok()).ok().flatten()
}

/// One case ready for the page, and the answers its reads are checked against.
struct Sent {
    seed: u64,
    case: Case,
    page: Value,
    /// Per input set (A, B): the interpreter's outputs and the fast backend's.
    answers: [(Outputs, Option<Outputs>); 2],
}

fn prepare(seed: u64, case: Case, fast: &dyn Backend) -> Option<Sent> {
    let (graph, feeds) = case.build(None).ok()?;
    // Inputs no output depends on are not the graph's (build prunes them).
    let feeds_a: Vec<(String, HostTensor)> = feeds.into_iter().filter(|(n, _)| graph.inputs.iter().any(|(i, _)| i == n)).collect();
    let feeds_b: Vec<(String, HostTensor)> = feeds_a.iter().map(|(n, t)| (n.clone(), reversed(t))).collect();
    let reference = webnn_cpu::CpuBackend;
    let answers = [
        (run(&reference, &graph, &feeds_a)?, run(fast, &graph, &feeds_a)),
        (run(&reference, &graph, &feeds_b)?, run(fast, &graph, &feeds_b)),
    ];
    let (program, blob) = webnn_idl::emit::program(&graph).ok()?;
    let feeds: Vec<Value> = feeds_a
        .iter()
        .zip(&feeds_b)
        .map(|((name, a), (_, b))| {
            json!({
                "name": name, "dataType": a.desc.data_type.name(), "shape": a.desc.max_shape(),
                "a": to_b64(&a.bytes), "b": to_b64(&b.bytes),
            })
        })
        .collect();
    let page = json!({ "program": program, "constants": to_b64(&blob), "feeds": feeds });
    Some(Sent { seed, case, page, answers })
}

/// Checks one read against the set's answers.
fn check_read(name: &str, got: &[u8], (reference, fast): &(Outputs, Option<Outputs>)) -> Result<(), String> {
    let want = reference.iter().find(|(n, _)| n == name).map(|(_, t)| t).ok_or("an output the reference lacks")?;
    let tensor = HostTensor { desc: want.desc.clone(), bytes: got.to_vec() };
    let Some(diff) = compare(name, want, &tensor) else { return Ok(()) };
    let fast_agrees = fast.as_ref().and_then(|f| f.iter().find(|(n, _)| n == name)).is_some_and(|(_, t)| compare(name, t, &tensor).is_none());
    if fast_agrees {
        Ok(())
    } else {
        Err(diff)
    }
}

fn check_result(s: &Sent, r: &Value, stats: &mut PageStats) -> Vec<String> {
    let mut bad = Vec::new();
    if let Some(e) = r.get("error").and_then(Value::as_str) {
        // The native build and both native runs succeeded, so the page must too.
        return vec![format!("{} in the page ({}): {e}", r["stage"].as_str().unwrap_or("?"), s.page["program"]["calls"].as_array().map_or(0, Vec::len))];
    }
    let destroyed = r["destroyed"].as_str();
    for (key, answers) in ["a", "b"].iter().zip(&s.answers) {
        for (name, read) in r[*key].as_object().into_iter().flatten() {
            stats.reads += 1;
            if let Some(e) = read.get("error").and_then(Value::as_str) {
                if destroyed == Some(name.as_str()) && e.starts_with("InvalidStateError") {
                    stats.destroyed_reads += 1;
                    continue;
                }
                bad.push(format!("read {key} of {name}: {e}"));
                continue;
            }
            match read.as_str().and_then(from_b64) {
                Some(bytes) => {
                    if let Err(e) = check_read(name, &bytes, answers) {
                        bad.push(format!("read {key}: {e}"));
                    }
                }
                None => bad.push(format!("read {key} of {name}: {read} is not data")),
            }
        }
    }
    bad
}

/// Sends `batch` to the page (its first case numbered `first`, which picks the destroys);
/// returns each case's result and the rejections nobody handled meanwhile.
fn send(browser: &Browser, batch: &[Sent], first: u64) -> Result<(Vec<Value>, Vec<Value>, Option<f64>), String> {
    let pages: Vec<&Value> = batch.iter().map(|s| &s.page).collect();
    browser.eval(
        "window.fuzzDone = null; window.fuzzBatch(arguments[0], arguments[1]).then((r) => (window.fuzzDone = r), (e) => (window.fuzzDone = { error: String(e.stack ?? e) }));",
        json!([pages, first]),
    )?;
    let done = browser.wait_for("window.fuzzDone", Duration::from_secs(600))?;
    if let Some(e) = done.get("error").and_then(Value::as_str) {
        return Err(format!("the page's batch from seed {} failed: {e}", batch.first().map_or(0, |s| s.seed)));
    }
    let list = |k: &str| done[k].as_array().cloned().unwrap_or_default();
    Ok((list("results"), list("unhandled"), done["memory"].as_f64()))
}

impl PageStats {
    fn unhandled(&mut self, rejections: &[Value], seed: u64) {
        for u in rejections {
            self.failures.push(format!("an unhandled rejection in the page (batch from seed {seed}): {u}"));
        }
    }
}

/// Runs `cases` seeds from `seed` through the page.
pub fn run_page(seed: u64, cases: u64, config: &Config, options: &PageOptions) -> Result<PageStats, String> {
    quiet_panics();
    let start = Instant::now();
    let root = workspace_root();
    let mounts = vec![Mount::new("/pkg/", root.join("pkg-js/dist")), Mount::new("/", root.join("www"))];
    let server = Server::start(mounts, 0).map_err(|e| format!("serving the page: {e}"))?;
    let browser = Browser::start()?;
    browser.goto(&server.url(&format!("/fuzz/?device={}&build={}", options.device, options.build)))?;
    let ready = browser.wait_for("window.fuzzReady", Duration::from_secs(300))?;
    if let Some(e) = ready.get("error").and_then(Value::as_str) {
        return Err(format!("the fuzz page did not start: {e}"));
    }
    let mut stats = PageStats {
        context: format!("{} ({}) in headless {}", ready["backend"].as_str().unwrap_or("?"), ready["deviceName"].as_str().unwrap_or("?"), browser.engine().name()),
        ..PageStats::default()
    };
    let fast = webnn_fast::FastBackend::new(1);
    let mut next = seed;
    while next < seed + cases {
        let mut batch = Vec::new();
        while batch.len() < options.batch.max(1) && next < seed + cases {
            stats.generated += 1;
            if let Some(s) = prepare(next, generate(next, config).case, &fast) {
                batch.push(s);
            }
            next += 1;
        }
        if batch.is_empty() {
            continue;
        }
        let results = send(&browser, &batch, stats.ran)?;
        stats.unhandled(&results.1, batch[0].seed);
        if let Some(m) = results.2 {
            stats.memory = Some((stats.memory.map_or(m, |(first, _)| first), m));
        }
        let mut failing = Vec::new();
        for (s, r) in batch.iter().zip(&results.0) {
            stats.ran += 1;
            let bad = check_result(s, r, &mut stats);
            if !bad.is_empty() {
                failing.push((s, bad));
            }
        }
        // A difference that goes once the extreme values are tamed is the native fuzzer's
        // `Extreme`; the tamed case runs in the page as the original did.
        for (s, bad) in failing {
            let tame = crate::tamed(&s.case).and_then(|c| prepare(s.seed, c, &fast));
            let explained = match &tame {
                Some(t) => {
                    let again = send(&browser, std::slice::from_ref(t), stats.ran)?;
                    stats.unhandled(&again.1, s.seed);
                    let mut scratch = PageStats::default();
                    again.0.first().is_some_and(|r| check_result(t, r, &mut scratch).is_empty())
                }
                None => false,
            };
            if explained {
                stats.extreme += 1;
                continue;
            }
            for b in bad {
                stats.failures.push(format!("seed {}: {b}\n  program: {}\n  constants (base64): {}", s.seed, s.page["program"], s.page["constants"].as_str().unwrap_or("")));
            }
        }
    }
    stats.seconds = start.elapsed().as_secs_f64();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..20 {
            let v: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(from_b64(&to_b64(&v)).unwrap(), v);
        }
        assert_eq!(to_b64(b"any carnal pleas"), "YW55IGNhcm5hbCBwbGVhcw==");
    }
}
