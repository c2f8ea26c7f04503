//! `webnn-onnx`: ONNX models in WebNN from the command line.
//!
//!   webnn-onnx inspect MODEL [--dims SPEC]        op histogram, inputs, dim_params, import outcome
//!   webnn-onnx run MODEL [--dims SPEC] [--backend fast|reference|wgpu] [--threads N]
//!                        [--input NAME=FILE.npy]... [--out DIR] [--runs N] [--profile]
//!   webnn-onnx convert MODEL OUT.onnx [--dims SPEC]   the imported graph as ONNX again (opset 21,
//!                                                  static shapes, WebNN's semantics)
//!
//! SPEC fixes dim_params (`batch=1`), bounds them (`seq<=2048`) or gives an input its whole
//! shape (`x=1x3x224x224`), comma separated. `--value NAME=INTEGER` fixes an int64 scalar
//! input at import (a sample rate the model branches on). Inputs not given are filled with values in
//! [0, 1) (integers: 0..10). `run` prints each output's shape, its first values and its
//! checksum, and writes `NAME.npy` files into DIR.

use std::path::{Path, PathBuf};
use std::time::Instant;
use webnn::onnx::{self, ImportOptions};
use webnn::{DataType, OperandDescriptor};
use webnn_core::{Backend, HostTensor};

/// `println!` for the results: a reader that has gone away (`webnn-onnx run ... | head`)
/// ends the program quietly, where `println!` would panic.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

fn main() {
    if let Err(e) = cli(std::env::args().skip(1).collect()) {
        eprintln!("webnn-onnx: {e}");
        std::process::exit(1);
    }
}

fn usage() -> String {
    "usage: webnn-onnx inspect|run|convert MODEL [OUT] [--dims SPEC] [--value NAME=INTEGER] [--backend B] [--threads N] [--isa NAME] [--input NAME=FILE.npy] [--out DIR] [--runs N] [--profile]".into()
}

struct Flags {
    positional: Vec<String>,
    dims: String,
    backend: String,
    threads: usize,
    inputs: Vec<(String, PathBuf)>,
    out: Option<PathBuf>,
    runs: usize,
    /// Inputs given an int64 scalar value at import (`--value sr=16000`).
    values: Vec<(String, i64)>,
    /// The fast backend's instruction set (its name, e.g. `scalar`: the portable kernels,
    /// for finding steps that the vector code of a wasm build may lack); the fastest when
    /// empty.
    isa: String,
    /// Print the fast backend's steps with their median times.
    profile: bool,
}

fn parse(args: Vec<String>) -> Result<Flags, String> {
    let mut f = Flags { positional: Vec::new(), dims: String::new(), backend: "fast".into(), isa: String::new(), threads: 0, inputs: Vec::new(), out: None, runs: 1, values: Vec::new(), profile: false };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--dims" => f.dims = value("--dims")?,
            "--backend" => f.backend = value("--backend")?,
            "--isa" => f.isa = value("--isa")?,
            "--threads" => f.threads = value("--threads")?.parse().map_err(|_| "--threads takes a number")?,
            "--runs" => f.runs = value("--runs")?.parse().map_err(|_| "--runs takes a number")?,
            "--out" => f.out = Some(PathBuf::from(value("--out")?)),
            "--profile" => f.profile = true,
            "--value" => {
                let v = value("--value")?;
                let (n, x) = v.split_once('=').ok_or("--value takes NAME=INTEGER")?;
                f.values.push((n.to_owned(), x.parse().map_err(|_| "--value takes NAME=INTEGER")?));
            }
            "--input" => {
                let v = value("--input")?;
                let (n, p) = v.split_once('=').ok_or("--input takes NAME=FILE.npy")?;
                f.inputs.push((n.to_owned(), PathBuf::from(p)));
            }
            s if s.starts_with("--") => return Err(format!("unknown option {s}\n{}", usage())),
            _ => f.positional.push(a),
        }
    }
    Ok(f)
}

fn cli(args: Vec<String>) -> Result<(), String> {
    let f = parse(args)?;
    let (Some(cmd), Some(model)) = (f.positional.first(), f.positional.get(1)) else { return Err(usage()) };
    let path = Path::new(model);
    let mut options = ImportOptions::default().with_dims(&f.dims).map_err(|e| e.to_string())?;
    for (name, v) in &f.values {
        options = options.with_value(name, onnx::Host::from_ints(DataType::Int64, vec![], &[*v]));
    }
    match cmd.as_str() {
        "inspect" => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut options = options;
            options.dir = path.parent().map(PathBuf::from);
            let report = onnx::inspect(&bytes, &options).map_err(|e| e.to_string())?.to_string();
            say!("{}", report.trim_end());
            Ok(())
        }
        "convert" => {
            let out = f.positional.get(2).ok_or_else(usage)?;
            let imported = onnx::import_file(path, &options).map_err(|e| e.to_string())?;
            let converted = webnn_onnx::convert(&imported.graph).map_err(|e| e.to_string())?;
            if let Some(dir) = Path::new(out).parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            converted.save(Path::new(out)).map_err(|e| format!("{out}: {e}"))?;
            say!("wrote {out} ({} WebNN ops, opset {})", imported.graph.nodes.len(), webnn_onnx::OPSET);
            Ok(())
        }
        "run" => run(path, &options, &f),
        other => Err(format!("unknown command '{other}'\n{}", usage())),
    }
}

/// The fast backend on `threads` threads with the instruction set named `isa` (the
/// fastest when empty).
fn fast(threads: usize, isa: &str) -> Result<webnn::FastBackend, String> {
    if isa.is_empty() {
        return Ok(webnn::FastBackend::new(threads));
    }
    let available = webnn_fast::Isa::available();
    match available.iter().find(|i| i.name() == isa) {
        Some(&i) => Ok(webnn::FastBackend::with_isa(threads, i)),
        None => Err(format!("--isa {isa}: this machine has {}", available.iter().map(|i| i.name()).collect::<Vec<_>>().join(", "))),
    }
}

fn backend(name: &str, threads: usize, isa: &str) -> Result<Box<dyn Backend>, String> {
    Ok(match name {
        "fast" => Box::new(fast(threads, isa)?),
        "reference" => Box::new(webnn_cpu::CpuBackend),
        "wgpu" => Box::new(webnn_wgpu::WgpuBackend::new().map_err(|e| e.to_string())?),
        other => return Err(format!("unknown backend '{other}' (fast, reference, wgpu)")),
    })
}

fn run(path: &Path, options: &ImportOptions, f: &Flags) -> Result<(), String> {
    let started = Instant::now();
    let imported = onnx::import_file(path, options).map_err(|e| e.to_string())?;
    let graph = imported.graph;
    let imported_ms = started.elapsed().as_secs_f64() * 1e3;
    let b = backend(&f.backend, f.threads, &f.isa)?;
    let started = Instant::now();
    let mut exe = b.compile(&graph).map_err(|e| e.to_string())?;
    let compiled_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut feeds = Vec::new();
    for (name, o) in &graph.inputs {
        let desc = graph.desc(*o);
        let t = match f.inputs.iter().find(|(n, _)| n == name) {
            Some((_, file)) => npy::read(file, desc)?,
            None => filler(desc)?,
        };
        feeds.push((name.clone(), t));
    }
    let refs: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let mut outputs = Vec::new();
    let mut times = Vec::new();
    for _ in 0..f.runs.max(1) {
        let t = Instant::now();
        outputs = exe.dispatch(&refs).map_err(|e| e.to_string())?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    say!(
        "{}: imported in {imported_ms:.0} ms ({} WebNN ops), compiled on {} in {compiled_ms:.0} ms, ran in {:.2} ms (median of {})",
        path.display(),
        graph.nodes.len(),
        b.device().name,
        times[times.len() / 2],
        times.len()
    );
    if f.profile {
        profile(&graph, &feeds, f)?;
    }
    for (name, t) in &outputs {
        let values = npy::values(t);
        let head: Vec<String> = values.iter().take(6).map(|v| format!("{v:.6}")).collect();
        let sum: f64 = values.iter().sum();
        say!("  {name}: {} [{}{}] sum {sum:.6}", t.desc, head.join(", "), if values.len() > 6 { ", ..." } else { "" });
        if let Some(dir) = &f.out {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            let file = dir.join(format!("{}.npy", name.replace(['/', '\\', ':'], "_")));
            npy::write(&file, t)?;
        }
    }
    Ok(())
}

/// The fast backend's steps on `graph`, slowest first, with the median of `--runs` runs each.
fn profile(graph: &webnn_core::Graph, feeds: &[(String, HostTensor)], f: &Flags) -> Result<(), String> {
    if f.backend != "fast" {
        return Err("--profile lists the fast backend's steps: use it with --backend fast".into());
    }
    let compiled = fast(f.threads, &f.isa)?.compile_graph(graph).map_err(|e| e.to_string())?;
    let mut inputs = std::collections::HashMap::new();
    for (name, t) in feeds {
        inputs.insert(name.clone(), webnn_cpu::Tensor::from_bytes(&t.desc, &t.bytes).map_err(|e| e.to_string())?);
    }
    let mut steps = compiled.profile(&inputs, f.runs.max(1)).map_err(|e| e.to_string())?;
    let total: f64 = steps.iter().map(|(_, t)| t).sum();
    steps.sort_by(|a, b| b.1.total_cmp(&a.1));
    say!("  {} steps, {:.2} ms in all (sums of step medians):", steps.len(), total * 1e3);
    for (name, t) in &steps {
        say!("  {:9.1} us {:5.1}%  {name}", t * 1e6, 100.0 * t / total);
    }
    Ok(())
}

/// Deterministic values for an input nobody gave: [0, 1) for floats, 0..10 for integers.
fn filler(desc: &OperandDescriptor) -> Result<HostTensor, String> {
    let shape = desc.static_shape().ok_or("an input with dynamic dimensions needs --dims to fix them")?;
    let n: usize = shape.iter().map(|&d| d as usize).product();
    let vals: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 / 1000.0).collect();
    let ints: Vec<i64> = (0..n).map(|i| ((i * 7919) % 10) as i64).collect();
    let host = if desc.data_type.is_float() {
        onnx::Host::from_floats(desc.data_type, shape.iter().map(|&d| d as usize).collect(), &vals)
    } else {
        onnx::Host::from_ints(desc.data_type, shape.iter().map(|&d| d as usize).collect(), &ints)
    };
    Ok(HostTensor { desc: OperandDescriptor::new(desc.data_type, &shape), bytes: host.data.to_vec() })
}

/// NumPy's .npy format (version 1), little-endian, C order.
mod npy {
    use super::*;

    pub fn read(path: &Path, desc: &OperandDescriptor) -> Result<HostTensor, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bad = || format!("{}: not a version 1 or 2 .npy file", path.display());
        if bytes.len() < 12 || &bytes[..6] != b"\x93NUMPY" {
            return Err(bad());
        }
        let (len, start) = match bytes[6] {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
            _ => (u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, 12),
        };
        let header = std::str::from_utf8(bytes.get(start..start + len).ok_or_else(bad)?).map_err(|_| bad())?;
        let field = |k: &str| header.split(k).nth(1).map(str::to_owned);
        let d = field("'descr':").ok_or_else(bad)?;
        let d = d.split('\'').nth(1).ok_or_else(bad)?;
        let want = desc.data_type.numpy_descr().ok_or("4-bit inputs have no .npy form")?;
        if d != want && !(d.ends_with(&want[1..]) && want.starts_with('|')) {
            return Err(format!("{}: holds {d}, the input needs {want}", path.display()));
        }
        if field("'fortran_order':").is_some_and(|v| v.trim_start().starts_with("True")) {
            return Err(format!("{}: Fortran order is not read", path.display()));
        }
        let shape_text = field("'shape':").ok_or_else(bad)?;
        let inner = shape_text.split('(').nth(1).and_then(|s| s.split(')').next()).ok_or_else(bad)?;
        let shape: Vec<u32> = inner.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| s.parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
        let data = bytes[start + len..].to_vec();
        let t = OperandDescriptor::new(desc.data_type, &shape);
        if data.len() as u64 != t.max_byte_length().unwrap_or(0) {
            return Err(format!("{}: {} data bytes for the shape {shape:?}", path.display(), data.len()));
        }
        Ok(HostTensor { desc: t, bytes: data })
    }

    pub fn write(path: &Path, t: &HostTensor) -> Result<(), String> {
        let d = t.desc.data_type.numpy_descr().ok_or("4-bit outputs have no .npy form")?;
        let dims: Vec<String> = t.desc.max_shape().iter().map(u32::to_string).collect();
        let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
        let mut header = format!("{{'descr': '{d}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(&t.bytes);
        std::fs::write(path, out).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The elements as f64, for printing.
    pub fn values(t: &HostTensor) -> Vec<f64> {
        let shape: Vec<usize> = t.desc.max_shape().iter().map(|&d| d as usize).collect();
        let h = onnx::Host { dt: t.desc.data_type, shape, data: t.bytes.clone().into() };
        h.floats()
    }
}
