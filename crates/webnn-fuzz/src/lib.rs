//! webnn-fuzz: a seeded generator of random graphs (valid and invalid builder calls over every
//! op of the op table), run on the reference interpreter and on the backends under test, with
//! a minimiser that prints each failure as a JSON case (kept in `corpus/` as a regression
//! test) and a JavaScript snippet. `cargo run -p webnn-fuzz --release -- --help` for the
//! long runs; the test command runs a short fixed-seed pass (`tests/fuzz.rs`).

pub mod case;
pub mod diff;
pub mod gen;
pub mod idl;
pub mod page;
pub mod repro;

use case::Case;
use diff::{check, Finding, Kind, Target};
use gen::{error_quality, generate, Config};
use std::collections::BTreeMap;
use std::time::Instant;

/// One failure, minimised.
pub struct Report {
    pub seed: u64,
    pub finding: Finding,
    /// Why the failure is expected, when it is (`explain`).
    pub explained: Option<&'static str>,
    pub case: Case,
    pub json: serde_json::Value,
    pub javascript: String,
}

#[derive(Default)]
pub struct Stats {
    pub cases: u64,
    /// Graphs the reference ran (and every target compared).
    pub graphs: u64,
    /// Graphs the reference rejected as a whole (build or compile).
    pub graphs_rejected: u64,
    pub calls_accepted: u64,
    pub calls_rejected: u64,
    /// Per op: calls accepted, calls rejected.
    pub per_op: BTreeMap<String, (u64, u64)>,
    /// Graphs compared per target.
    pub compared: BTreeMap<&'static str, u64>,
    pub findings: Vec<Report>,
    pub seconds: f64,
}

pub struct Run {
    pub first_seed: u64,
    pub cases: u64,
    pub config: Config,
    /// Targets compared on every case.
    pub targets: Vec<Target>,
    /// Slower targets (wgpu, ONNX Runtime), each compared on every n-th case.
    pub slow: Vec<(Target, u64)>,
    pub minimise: bool,
}

fn report(seed: u64, finding: Finding, case: Case, reference: &dyn webnn_core::Backend) -> Report {
    let expected = match case.run(reference) {
        Ok(out) => Some(out),
        Err(_) => None,
    };
    let name = format!("fuzz seed {seed}: {} {:?}", finding.backend, finding.kind);
    let json = case.to_json(&name, expected.as_ref());
    let device = if finding.backend == "wgpu" { "gpu" } else { "cpu" };
    let javascript = repro::javascript(&case, device);
    let explained = explain(&case, &finding);
    Report { seed, finding, explained, case, json, javascript }
}

/// The differences this project accepts, each with its reason (docs/backends.md argues them).
pub fn explain(case: &Case, f: &Finding) -> Option<&'static str> {
    if f.kind == Kind::Amplified {
        return Some("rounding amplified along a chain: every op agrees with the reference on the same inputs");
    }
    if f.kind == Kind::Unstable {
        return Some("ill-conditioned: the reference's own answer moves beyond the tolerance when the inputs move by one ulp");
    }
    if f.kind == Kind::Extreme {
        return Some("extreme magnitudes: the reference computes in float64, where float32 or float16 intermediates overflow or cancel; the case agrees without them");
    }
    if f.kind != Kind::Disagrees {
        return None;
    }
    if case.calls.iter().any(|c| nan_beside_linear_sample(case, c)) {
        return Some("a NaN beside a sample point of a linear resample2d: ONNX Runtime multiplies it by the zero weight (NaN), the others skip it");
    }
    if case.calls.iter().any(|c| infinite_weight_on_padding(case, c)) {
        return Some("a non-finite conv2d weight meeting the zero padding: NaN where the padding is multiplied, ONNX Runtime skips it");
    }
    if f.backend == "wgpu" && case.calls.iter().any(|c| scatters_twice(case, c)) {
        return Some("scatter with duplicate indices: the spec sets no order among their updates; wgpu's land in any order");
    }
    None
}

/// Whether the reference's own answer moves beyond the tolerance when the case's float inputs
/// move by one unit in the last place (a log of a sum that cancels to about zero, say):
/// then rounding decides the result, and backends that round differently may differ.
fn unstable(case: &Case) -> bool {
    let Ok(base) = case.run(&webnn_cpu::CpuBackend) else { return false };
    (0..3).any(|trial| {
        let mut c = case.clone();
        for i in c.inputs.iter_mut().filter(|i| i.data_type.is_float()) {
            for (k, v) in i.values.iter_mut().enumerate() {
                let step = (k + trial) % 3;
                if step == 0 || !v.is_finite() || *v == 0.0 {
                    continue;
                }
                let up = step == 1;
                *v = match i.data_type {
                    webnn_core::DataType::Float16 => {
                        let b = half::f16::from_f64(*v).to_bits();
                        half::f16::from_bits(if up { b + 1 } else { b - 1 }).to_f64()
                    }
                    _ => {
                        let b = (*v as f32).to_bits();
                        f32::from_bits(if up { b + 1 } else { b - 1 }) as f64
                    }
                };
            }
        }
        match c.run(&webnn_cpu::CpuBackend) {
            Ok(out) => base.iter().zip(&out).any(|((n, a), (_, b))| diff::compare(n, a, b).is_some()),
            Err(_) => false,
        }
    })
}

/// The case with every float value of magnitude 65504 or more (infinities included) replaced
/// by 1; `None` when it has none. NaN stays: it propagates the same in any order.
pub(crate) fn tamed(case: &Case) -> Option<Case> {
    let extreme = |i: &case::Input| i.data_type.is_float() && i.values.iter().any(|v| v.abs() >= 65504.0);
    if !case.inputs.iter().any(extreme) {
        return None;
    }
    let mut c = case.clone();
    for i in c.inputs.iter_mut().filter(|i| i.data_type.is_float()) {
        for v in i.values.iter_mut().filter(|v| v.abs() >= 65504.0) {
            *v = 1.0;
        }
    }
    Some(c)
}

/// Whether `c` is a linear resample2d of an input of the case holding a NaN.
fn nan_beside_linear_sample(case: &Case, c: &case::Call) -> bool {
    let linear = c.options.as_ref().and_then(|o| o.get("mode")).and_then(serde_json::Value::as_str) == Some("linear");
    let input = c.params.iter().find(|(k, _)| k == "input").and_then(|(_, v)| v.as_str());
    let input = input.and_then(|n| case.inputs.iter().find(|i| i.name == n));
    c.method == "resample2d" && linear && input.is_some_and(|i| i.values.iter().any(|v| v.is_nan()))
}

/// Whether `c` is a padded conv2d whose filter (an input of the case) holds a non-finite value.
fn infinite_weight_on_padding(case: &Case, c: &case::Call) -> bool {
    if c.method != "conv2d" {
        return false;
    }
    let padded = c.options.as_ref().and_then(|o| o.get("padding")).and_then(serde_json::Value::as_array);
    let padded = padded.is_some_and(|p| p.iter().any(|x| x.as_u64() != Some(0)));
    let filter = c.params.iter().find(|(k, _)| k == "filter").and_then(|(_, v)| v.as_str());
    let filter = filter.and_then(|n| case.inputs.iter().find(|i| i.name == n));
    padded && filter.is_some_and(|f| f.values.iter().any(|v| !v.is_finite()))
}

/// Whether a scatterElements or scatterND call of `case` writes some output element twice
/// (its indices are inputs of the case, as after `isolate`).
fn scatters_twice(case: &Case, c: &case::Call) -> bool {
    let input = |param: &str| {
        let name = c.params.iter().find(|(k, _)| k == param)?.1.as_str()?;
        case.inputs.iter().find(|i| i.name == name)
    };
    let (Some(data), Some(indices)) = (input("input"), input("indices")) else { return false };
    // Where an index lands: negative ones count from the end, and out-of-range ones are
    // clamped into range (as every backend resolves them).
    let norm = |v: f64, dim: u32| (if v < 0.0 { v + dim as f64 } else { v } as i64).clamp(0, dim as i64 - 1);
    let mut seen = std::collections::HashSet::new();
    match c.method.as_str() {
        "scatterElements" => {
            let axis = c.options.as_ref().and_then(|o| o.get("axis")).and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
            let Some(&dim) = data.shape.get(axis) else { return false };
            // An update's target: its own coordinates with the axis one replaced by its index.
            let rank = indices.shape.len();
            for (k, &v) in indices.values.iter().enumerate() {
                let mut rest = k;
                let mut coords = vec![0i64; rank];
                for d in (0..rank).rev() {
                    coords[d] = (rest % indices.shape[d] as usize) as i64;
                    rest /= indices.shape[d] as usize;
                }
                coords[axis] = norm(v, dim);
                if !seen.insert(coords) {
                    return true;
                }
            }
            false
        }
        "scatterND" => {
            let Some(&k) = indices.shape.last() else { return false };
            let k = k.max(1) as usize;
            indices.values.chunks(k).any(|t| {
                let tuple: Vec<i64> = t.iter().zip(&data.shape).map(|(&v, &d)| norm(v, d)).collect();
                !seen.insert(tuple)
            })
        }
        _ => false,
    }
}

impl Run {
    pub fn go(&self, on_report: &mut dyn FnMut(&Report)) -> Stats {
        let reference = webnn_cpu::CpuBackend;
        let started = Instant::now();
        let mut st = Stats::default();
        for seed in self.first_seed..self.first_seed + self.cases {
            st.cases += 1;
            let g = generate(seed, &self.config);
            let mut findings: Vec<(Finding, Case)> = Vec::new();
            for r in &g.rejected {
                st.calls_rejected += 1;
                st.per_op.entry(r.call.method.clone()).or_default().1 += 1;
                if let Err(detail) = error_quality(&r.call.method, &r.error) {
                    let c = Case { seed, inputs: g.case.inputs.clone(), calls: vec![r.call.clone()], outputs: Vec::new() };
                    findings.push((Finding { backend: "builder", kind: Kind::BadError, detail }, c));
                }
            }
            for c in &g.case.calls {
                st.calls_accepted += 1;
                st.per_op.entry(c.method.clone()).or_default().0 += 1;
            }
            if let Some((c, message)) = &g.panic {
                let case = Case { seed, inputs: g.case.inputs.clone(), calls: vec![c.clone()], outputs: Vec::new() };
                findings.push((Finding { backend: "builder", kind: Kind::Panic, detail: message.clone() }, case));
            }
            for m in &g.harness {
                findings.push((Finding { backend: "builder", kind: Kind::Harness, detail: m.clone() }, g.case.clone()));
            }
            if !g.case.outputs.is_empty() {
                let slow = self.slow.iter().filter(|(_, every)| seed % every == 0).map(|(t, _)| t);
                let targets: Vec<&Target> = self.targets.iter().chain(slow).collect();
                let (outcome, found) = self.check_on(&g.case, &targets);
                match outcome {
                    Some(diff::Reference::Ran(_)) => {
                        st.graphs += 1;
                        for t in &targets {
                            *st.compared.entry(t.name).or_default() += 1;
                        }
                    }
                    Some(diff::Reference::Rejected(_)) => st.graphs_rejected += 1,
                    None => {}
                }
                for mut f in found {
                    let mut case = if self.minimise { self.minimise_for(&g.case, &f, &targets) } else { g.case.clone() };
                    if f.kind == Kind::Disagrees && case.calls.len() > 1 {
                        match self.isolate(&case, &f, &targets) {
                            Some(one) => case = one,
                            None => f.kind = Kind::Amplified,
                        }
                    }
                    if f.kind == Kind::Disagrees && unstable(&case) {
                        f.kind = Kind::Unstable;
                    }
                    if f.kind == Kind::Disagrees {
                        if let Some(tame) = tamed(&case) {
                            // Without the extreme values the op must agree; if it does not,
                            // the extreme values only revealed a plain bug: report that case.
                            let only: Vec<&Target> = targets.iter().copied().filter(|t| t.name == f.backend).collect();
                            let (_, found) = check(&tame, &webnn_cpu::CpuBackend, &only);
                            if found.iter().any(|g| g.kind == Kind::Disagrees) {
                                case = tame;
                            } else {
                                f.kind = Kind::Extreme;
                            }
                        }
                    }
                    findings.push((f, case));
                }
            }
            for (f, case) in findings {
                let r = report(seed, f, case, &reference);
                on_report(&r);
                st.findings.push(r);
            }
        }
        st.seconds = started.elapsed().as_secs_f64();
        st
    }

    fn check_on(&self, case: &Case, targets: &[&Target]) -> (Option<diff::Reference>, Vec<Finding>) {
        check(case, &webnn_cpu::CpuBackend, targets)
    }

    /// Runs each call of a disagreeing chain alone, its operands taken from the reference's
    /// values: the first call that still disagrees, as a one-call case; `None` when every call
    /// agrees on the same inputs (the chain amplified rounding, no op is wrong).
    fn isolate(&self, case: &Case, f: &Finding, targets: &[&Target]) -> Option<Case> {
        let only: Vec<&Target> = targets.iter().copied().filter(|t| t.name == f.backend).collect();
        let made: Vec<String> = case.calls.iter().flat_map(|c| c.outputs.iter().cloned()).collect();
        let all = Case { outputs: made.clone(), ..case.clone() };
        let values = all.run(&webnn_cpu::CpuBackend).ok()?;
        for c in &case.calls {
            let mut refs = Vec::new();
            let known = |n: &str| made.iter().any(|m| m == n) || case.inputs.iter().any(|i| i.name == n);
            c.params.iter().for_each(|(_, v)| case::operand_refs(v, &known, &mut refs));
            if let Some(o) = &c.options {
                case::operand_refs(o, &known, &mut refs);
            }
            let mut inputs: Vec<case::Input> = Vec::new();
            for r in refs {
                if inputs.iter().any(|i| i.name == r) {
                    continue;
                }
                if let Some(i) = case.inputs.iter().find(|i| i.name == r) {
                    inputs.push(i.clone());
                } else if let Some((_, t)) = values.iter().find(|(n, _)| n == r) {
                    let n = t.desc.max_elements() as usize;
                    let values = (0..n).map(|k| case::element(t.desc.data_type, &t.bytes, k)).collect();
                    let (data_type, shape) = (t.desc.data_type, t.desc.max_shape());
                    inputs.push(case::Input { name: r.to_owned(), data_type, shape, values, constant: true });
                }
            }
            let one = Case { seed: case.seed, inputs, calls: vec![c.clone()], outputs: c.outputs.clone() };
            let (_, found) = check(&one, &webnn_cpu::CpuBackend, &only);
            if found.iter().any(|g| g.kind == Kind::Disagrees) {
                return Some(one);
            }
        }
        None
    }

    fn minimise_for(&self, case: &Case, f: &Finding, targets: &[&Target]) -> Case {
        let only: Vec<&Target> = targets.iter().copied().filter(|t| t.name == f.backend).collect();
        let fails = |c: &Case| {
            let (_, found) = self.check_on(c, &only);
            found.iter().any(|g| g.backend == f.backend && g.kind == f.kind)
        };
        repro::minimise(case, &fails)
    }
}

impl Stats {
    /// The findings no `explain` rule covers.
    pub fn unexplained(&self) -> impl Iterator<Item = &Report> {
        self.findings.iter().filter(|r| r.explained.is_none())
    }

    /// A summary: cases, graphs compared per target, calls accepted and rejected, findings by
    /// backend and kind, ops never accepted, cases per second.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} cases in {:.1} s ({:.0}/s): {} graphs ran on the reference ({} rejected whole); calls {} accepted, {} rejected\n",
            self.cases,
            self.seconds,
            self.cases as f64 / self.seconds.max(1e-9),
            self.graphs,
            self.graphs_rejected,
            self.calls_accepted,
            self.calls_rejected
        );
        for (t, n) in &self.compared {
            s += &format!("  compared on {t}: {n}\n");
        }
        let mut by: BTreeMap<(&str, &Kind, Option<&str>), u64> = BTreeMap::new();
        for r in &self.findings {
            *by.entry((r.finding.backend, &r.finding.kind, r.explained)).or_default() += 1;
        }
        for ((b, k, why), n) in &by {
            match why {
                None => s += &format!("  findings: {b} {k:?}: {n}\n"),
                Some(why) => s += &format!("  explained: {b} {k:?}: {n} ({why})\n"),
            }
        }
        let never: Vec<&str> = self.per_op.iter().filter(|(_, (a, _))| *a == 0).map(|(m, _)| m.as_str()).collect();
        if !never.is_empty() {
            s += &format!("  ops drawn but never accepted ({}): {}\n", never.len(), never.join(", "));
        }
        s
    }
}
