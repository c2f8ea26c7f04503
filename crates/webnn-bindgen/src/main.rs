//! `webnn-bindgen --out-dir DIR --out-name NAME FILE.wasm`: what `wasm-bindgen --target web`
//! does with the same arguments (the same library and options as the pinned
//! wasm-bindgen-cli), without the CLI's test runner and HTTP dependencies. The demo builds
//! the polyfill with it; the test command installs the CLI anyway (its test runner) and
//! `scripts/build-web.sh` uses whichever is there.

use std::path::PathBuf;
use std::process::ExitCode;
use wasm_bindgen_cli_support::Bindgen;

fn usage() -> ExitCode {
    eprintln!("usage: webnn-bindgen --out-dir DIR --out-name NAME FILE.wasm");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut out_dir, mut out_name, mut input) = (None, None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out-dir" => out_dir = args.next().map(PathBuf::from),
            "--out-name" => out_name = args.next(),
            _ if input.is_none() && !a.starts_with("--") => input = Some(PathBuf::from(a)),
            _ => return usage(),
        }
    }
    let (Some(out_dir), Some(out_name), Some(input)) = (out_dir, out_name, input) else {
        return usage();
    };
    let mut b = Bindgen::new();
    // The CLI's defaults for `--target web`: TypeScript declarations, demangled names, the
    // default module path (`new URL('<name>_bg.wasm', import.meta.url)`) kept.
    let generated = b.web(true).and_then(|b| {
        b.input_path(&input)
            .out_name(&out_name)
            .typescript(true)
            .demangle(true)
            .omit_default_module_path(false)
            .generate(&out_dir)
    });
    match generated {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("webnn-bindgen: {}: {e:#}", input.display());
            ExitCode::FAILURE
        }
    }
}
