//! `webnn-fuzz`: the long runs. `--help` lists the options.

use std::process::ExitCode;
use webnn_fuzz::diff::Target;
use webnn_fuzz::gen::Config;
use webnn_fuzz::Run;

const HELP: &str = "webnn-fuzz: random graphs on the reference interpreter, compared with other backends

  --seed N         first seed (default 1)
  --cases N        cases to generate (default 10000)
  --calls N        builder calls tried per case (default 4)
  --edges          non-finite and extreme values among inputs and options
  --threads N      the fast backend's threads (default 1)
  --wgpu N         also compare on wgpu, every N-th case (0: never; default 0)
  --ort N          also compare on ONNX Runtime (ORT_DYLIB_PATH), every N-th case
  --out DIR        write each failure's case (JSON) and page script (JS) there
  --no-minimise    report failures as generated
  --page DEVICE    drive the polyfill in headless Chromium instead (WEBNN_BROWSER=firefox:
                   Firefox): each case built through navigator.ml on a cpu or webgpu
                   context, run as a storm of writes, dispatches, reads and a destroy, and
                   its reads compared with the reference (needs scripts/build-web.sh)
  --build B        with --page: the polyfill's wasm build (auto, threads, relaxed-simd,
                   simd128; default auto)
  --record FILE    (re)write the expectedOutputs of every case in a corpus file with the
                   reference's outputs (for a case written by hand)";

fn main() -> ExitCode {
    let mut seed = 1u64;
    let mut cases = 10_000u64;
    let mut config = Config::default();
    let mut threads = 1usize;
    let mut wgpu_every = 0u64;
    let mut ort_every = 0u64;
    let mut out: Option<std::path::PathBuf> = None;
    let mut minimise = true;
    let mut page: Option<String> = None;
    let mut build = "auto".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> u64 {
            args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
                eprintln!("{what} needs a number");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--seed" => seed = num("--seed"),
            "--cases" => cases = num("--cases"),
            "--calls" => config.calls = num("--calls") as usize,
            "--threads" => threads = num("--threads") as usize,
            "--wgpu" => wgpu_every = num("--wgpu"),
            "--ort" => ort_every = num("--ort"),
            "--edges" => config.edges = true,
            "--no-minimise" => minimise = false,
            "--page" => page = args.next(),
            "--build" => build = args.next().unwrap_or_default(),
            "--out" => out = args.next().map(Into::into),
            "--record" => {
                let path = args.next().unwrap_or_default();
                return match record(std::path::Path::new(&path)) {
                    Ok(n) => {
                        println!("recorded {n} cases in {path}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("{path}: {e}");
                        ExitCode::FAILURE
                    }
                };
            }
            "--help" | "-h" => {
                println!("{HELP}");
                return ExitCode::SUCCESS;
            }
            _ => {
                eprintln!("unknown argument {a}\n\n{HELP}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(device) = page {
        let options = webnn_fuzz::page::PageOptions { device, build, batch: 25 };
        return match webnn_fuzz::page::run_page(seed, cases, &config, &options) {
            Ok(s) => {
                for f in &s.failures {
                    println!("{f}");
                }
                println!(
                    "page, {}, build {}: {} cases generated, {} built and run, {} reads checked ({} of a destroyed tensor rejected), {} failures, {} cases explained as extreme values, {:.0} cases/s",
                    s.context, options.build, s.generated, s.ran, s.reads, s.destroyed_reads, s.failures.len(), s.extreme, s.generated as f64 / s.seconds
                );
                if let Some((first, last)) = s.memory {
                    // After the first batch the allocator holds its working set; growth past
                    // it over the run is what a leak would show.
                    println!(
                        "wasm memory: {:.1} MiB after the first batch, {:.1} MiB at the end ({:.0} bytes per 1,000 cases)",
                        first / 1048576.0,
                        last / 1048576.0,
                        (last - first) * 1000.0 / s.ran.max(1) as f64
                    );
                }
                if s.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
            }
            Err(e) => {
                eprintln!("webnn-fuzz --page: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let targets = vec![Target { name: "fast", backend: Box::new(webnn_fast::FastBackend::new(threads)) }];
    let mut slow = Vec::new();
    for (every, open) in [(wgpu_every, Target::wgpu as fn() -> Result<Target, String>), (ort_every, Target::ort)] {
        if every > 0 {
            match open() {
                Ok(t) => slow.push((t, every)),
                Err(e) => eprintln!("{e}; not compared"),
            }
        }
    }
    // Panics in the code under test are caught and reported per case.
    webnn_fuzz::case::quiet_panics();
    let run = Run { first_seed: seed, cases, config, targets, slow, minimise };
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir).expect("--out directory");
    }
    let stats = run.go(&mut |r| {
        let why = r.explained.map(|w| format!(" [explained: {w}]")).unwrap_or_default();
        println!("seed {}: {} {:?}: {}{why}", r.seed, r.finding.backend, r.finding.kind, r.finding.detail);
        if let Some(dir) = &out {
            let stem = dir.join(format!("seed-{}-{}", r.seed, r.finding.backend));
            let file = serde_json::json!({ "cases": [r.json] });
            let _ = std::fs::write(stem.with_extension("json"), serde_json::to_string_pretty(&file).unwrap());
            let _ = std::fs::write(stem.with_extension("js"), &r.javascript);
        }
    });
    print!("{}", stats.summary());
    if stats.unexplained().next().is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `--record`: the reference's outputs as each case's `expectedOutputs`.
fn record(path: &std::path::Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut root: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let cases = root["cases"].as_array_mut().ok_or("no cases array")?;
    for v in cases.iter_mut() {
        let name = v["name"].as_str().unwrap_or("?").to_owned();
        let case = webnn_fuzz::case::Case::from_json(v)?;
        let out = case.run(&webnn_cpu::CpuBackend).map_err(|e| format!("{name}: {e:?}"))?;
        let mut fresh = case.to_json(&name, Some(&out));
        for key in ["reason"] {
            if let Some(x) = v.get(key) {
                fresh[key] = x.clone();
            }
        }
        *v = fresh;
    }
    let n = cases.len();
    std::fs::write(path, serde_json::to_string_pretty(&root).unwrap() + "\n").map_err(|e| e.to_string())?;
    Ok(n)
}
