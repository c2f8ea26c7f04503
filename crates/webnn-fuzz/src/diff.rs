//! Differential execution: a case runs on the reference interpreter and on each backend under
//! test; results must agree within a tolerance that only allows for rounding order.

use crate::case::{element, Case, Outputs, Stop};
use webnn_core::{Backend, DataType, ErrorKind, HostTensor};

/// A named backend under test.
pub struct Target {
    pub name: &'static str,
    pub backend: Box<dyn Backend>,
}

impl Target {
    /// wgpu on the machine's adapter (lavapipe without a GPU), or why there is none.
    pub fn wgpu() -> Result<Target, String> {
        let b = webnn_wgpu::WgpuBackend::new().map_err(|e| format!("wgpu: no adapter ({e})"))?;
        Ok(Target { name: "wgpu", backend: Box::new(b) })
    }

    /// ONNX Runtime (its library from ORT_DYLIB_PATH), or why it did not load.
    pub fn ort() -> Result<Target, String> {
        let b = webnn_ort::OrtBackend::new().map_err(|e| format!("ONNX Runtime: not loaded ({e})"))?;
        Ok(Target { name: "ort", backend: Box::new(b) })
    }
}

/// What went wrong on one backend for one case.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A panic (at a stage): never acceptable.
    Panic,
    /// The backend refused a graph the reference ran (and its limits accept).
    Refused,
    /// The backend ran a graph the reference refused.
    Accepted,
    /// Different values, shape or type.
    Disagrees,
    /// Different values where the reference's own answer changes when the inputs move by one
    /// ulp: rounding decides the result.
    Unstable,
    /// Different values from inputs of extreme magnitude (65504 and more, infinities), which
    /// disappear when those are replaced by 1: float32 against the reference's float64.
    Extreme,
    /// Different values from a chain whose every op agrees when run alone on the reference's
    /// intermediate values: rounding differences amplified (an ill-conditioned graph).
    Amplified,
    /// A builder call was rejected with the wrong kind of error or no rule.
    BadError,
    /// The case could not be built as written, or the conversion ignored an IDL member.
    Harness,
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub backend: &'static str,
    pub kind: Kind,
    pub detail: String,
}

/// The reference's outcome for a case.
pub enum Reference {
    Ran(Outputs),
    /// The API rejected the graph at build or compile (valid at every call, invalid as a whole,
    /// or beyond the interpreter's limits): backends must not run it either... or may refuse it.
    Rejected(String),
}

fn float_close(a: f64, b: f64, t: DataType) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let (rel, abs) = if t == DataType::Float16 { (4e-3, 4e-3) } else { (1e-4, 1e-5) };
    (a - b).abs() <= abs + rel * a.abs().max(b.abs())
}

/// Compares one output; `None` when equal within tolerance.
pub fn compare(name: &str, want: &HostTensor, got: &HostTensor) -> Option<String> {
    if want.desc != got.desc {
        return Some(format!("{name}: {} against the reference's {}", got.desc, want.desc));
    }
    let t = want.desc.data_type;
    let n = want.desc.max_elements() as usize;
    let mut bad = Vec::new();
    let mut count = 0;
    for i in 0..n {
        let (a, b) = (element(t, &want.bytes, i), element(t, &got.bytes, i));
        let same = if t.is_float() { float_close(a, b, t) } else { a == b };
        if !same {
            count += 1;
            if bad.len() < 4 {
                bad.push(format!("[{i}] {b} (reference {a})"));
            }
        }
    }
    (count > 0).then(|| format!("{name}: {count} of {n} elements differ: {}", bad.join(", ")))
}

/// Runs `case` on the reference and every target; returns the reference's outcome and the
/// findings.
pub fn check(case: &Case, reference: &dyn Backend, targets: &[&Target]) -> (Option<Reference>, Vec<Finding>) {
    let mut findings = Vec::new();
    let reference = match case.run(reference) {
        Ok(out) => Reference::Ran(out),
        Err(Stop::Error { stage, error }) => Reference::Rejected(format!("{stage}: {error}")),
        Err(Stop::Unsupported(_)) => return (None, findings),
        Err(Stop::Panic { stage, message }) => {
            findings.push(Finding { backend: "reference", kind: Kind::Panic, detail: format!("{stage}: {message}") });
            return (None, findings);
        }
        Err(Stop::Harness(m)) => {
            findings.push(Finding { backend: "reference", kind: Kind::Harness, detail: m });
            return (None, findings);
        }
    };
    for t in targets {
        let got = case.run(t.backend.as_ref());
        let finding = |kind, detail| Finding { backend: t.name, kind, detail };
        match (&reference, got) {
            (_, Err(Stop::Unsupported(_))) => {}
            (_, Err(Stop::Panic { stage, message })) => findings.push(finding(Kind::Panic, format!("{stage}: {message}"))),
            (_, Err(Stop::Harness(m))) => findings.push(finding(Kind::Harness, m)),
            (Reference::Ran(want), Ok(got)) => {
                for (name, w) in want {
                    match got.iter().find(|(n, _)| n == name) {
                        None => findings.push(finding(Kind::Disagrees, format!("{name}: not returned"))),
                        Some((_, g)) => {
                            if let Some(d) = compare(name, w, g) {
                                findings.push(finding(Kind::Disagrees, d));
                            }
                        }
                    }
                }
            }
            (Reference::Ran(_), Err(Stop::Error { stage, error })) => {
                // A backend may refuse what its device cannot hold (NotSupportedError at
                // compile); anything else is a disagreement.
                let resource = error.kind == ErrorKind::NotSupportedError && stage == "compile";
                if !resource {
                    findings.push(finding(Kind::Refused, format!("{stage}: {error}")));
                }
            }
            (Reference::Rejected(why), Ok(_)) => {
                findings.push(finding(Kind::Accepted, format!("the reference rejected it ({why})")))
            }
            (Reference::Rejected(_), Err(Stop::Error { .. })) => {}
        }
    }
    (Some(reference), findings)
}
