//! The generator: a seeded walk that builds a random graph call by call against a live
//! `GraphBuilder`. Every op of the op table is drawn, its arguments made from the IDL's
//! parameter and dictionary types (biased by parameter name towards values that validate:
//! axes within the rank, a permutation, a shape of the same size), and tried on the builder:
//! an accepted call joins the case, a rejected one is checked for the error's quality and
//! dropped. So valid and invalid calls come from one place without a model of every rule.

use crate::case::{encode, Call, Case, Input};
use crate::idl::idl;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use webnn_core::{DataType, Error, ErrorKind, GraphBuilder, Operand, OperandDescriptor};
use webnn_idl::{call, op_signatures, Args, CallError, Param};

/// splitmix64: small, seedable, the same stream on every platform.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// What the generator may draw.
#[derive(Clone, Debug)]
pub struct Config {
    /// Non-finite and extreme values among inputs and options (NaN, infinities, -0, 65504...).
    pub edges: bool,
    /// Builder calls tried per case.
    pub calls: usize,
    /// The largest operand (elements) kept; larger results are dropped from the case.
    pub max_elements: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config { edges: false, calls: 4, max_elements: 4096 }
    }
}

/// A call the builder rejected, and how.
#[derive(Clone, Debug)]
pub struct Rejected {
    pub call: Call,
    pub error: Error,
}

/// What one generated case yields: the accepted calls (the case) and the rejected ones.
pub struct Generated {
    pub case: Case,
    pub rejected: Vec<Rejected>,
    /// A call that panicked in the builder (never acceptable): the call and the message.
    pub panic: Option<(Call, String)>,
    /// A call whose arguments the conversion did not understand (a generator bug).
    pub harness: Vec<String>,
}

const FLOATS: &[DataType] = &[DataType::Float32, DataType::Float32, DataType::Float32, DataType::Float16];
/// `DataType::ALL` without the packed 4-bit types, written out: the order is part of the
/// seed-to-case mapping, so recorded seeds (docs/fuzzing.md) keep giving the same cases.
const ALL_TYPES: &[DataType] = &[
    DataType::Float32,
    DataType::Float16,
    DataType::Int32,
    DataType::Uint32,
    DataType::Int64,
    DataType::Uint64,
    DataType::Int8,
    DataType::Uint8,
];

struct Gen<'c> {
    rng: Rng,
    cfg: &'c Config,
    b: GraphBuilder,
    operands: HashMap<String, Operand>,
    /// Operands usable by later calls, newest last.
    pool: Vec<(String, OperandDescriptor)>,
    case: Case,
    next: usize,
}

pub fn generate(seed: u64, cfg: &Config) -> Generated {
    let mut g = Gen {
        rng: Rng::new(seed),
        cfg,
        b: GraphBuilder::new(),
        operands: HashMap::new(),
        pool: Vec::new(),
        case: Case { seed, ..Case::default() },
        next: 0,
    };
    let mut out = Generated { case: Case::default(), rejected: Vec::new(), panic: None, harness: Vec::new() };
    let first_type = if g.rng.chance(0.75) { *g.rng.pick(FLOATS) } else { *g.rng.pick(ALL_TYPES) };
    let rank = *g.rng.pick(&[0usize, 1, 2, 2, 3, 3, 4, 4, 4]);
    let first: Vec<u32> = (0..rank).map(|_| g.rng.range(1, 4) as u32).collect();
    let constant = g.rng.chance(0.2);
    g.add_input(first_type, first.clone(), constant);
    if g.rng.chance(0.6) {
        let shape = g.related_shape(&first);
        let t = if g.rng.chance(0.8) { first_type } else { *g.rng.pick(ALL_TYPES) };
        let constant = g.rng.chance(0.4);
        g.add_input(t, shape, constant);
    }
    let ops = op_signatures();
    for _ in 0..cfg.calls {
        let sig = g.rng.pick(ops);
        let c = match g.recurrent(&sig.method) {
            Some(c) => c,
            None => g.call_for(&sig.method, &sig.params),
        };
        match g.try_call(&c) {
            Ok(()) => {}
            Err(Tried::Rejected(error)) => out.rejected.push(Rejected { call: c, error }),
            Err(Tried::Panic(m)) => {
                out.panic = Some((c, m));
                break;
            }
            Err(Tried::Harness(m)) => out.harness.push(m),
        }
    }
    // One or two outputs: the newest result and maybe an earlier one.
    let made: Vec<String> = g.case.calls.iter().flat_map(|c| c.outputs.iter().cloned()).collect();
    let mut outputs: Vec<String> = Vec::new();
    for n in made.iter().rev() {
        if g.pool.iter().any(|(p, _)| p == n) {
            outputs.push(n.clone());
            break;
        }
    }
    if made.len() > 1 && g.rng.chance(0.3) {
        let n = g.rng.pick(&made).clone();
        if !outputs.contains(&n) && g.pool.iter().any(|(p, _)| *p == n) {
            outputs.push(n);
        }
    }
    g.case.outputs = outputs;
    out.case = g.case;
    out
}

enum Tried {
    Rejected(Error),
    Panic(String),
    Harness(String),
}

impl Gen<'_> {
    fn name(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn value(&mut self, t: DataType) -> f64 {
        if self.cfg.edges && self.rng.chance(0.08) {
            let specials: &[f64] = if t.is_float() {
                &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 65504.0, 1e-7, -1e30]
            } else {
                &[0.0, 127.0, 255.0, -128.0, 2147483647.0, 4294967295.0]
            };
            let v = *self.rng.pick(specials);
            return match t.int_range() {
                Some((lo, hi)) => v.clamp(lo as f64, hi as f64),
                None => v,
            };
        }
        match t {
            // Eighths in [-2, 2]: exact in float16, so every backend starts from the same values.
            DataType::Float32 | DataType::Float16 => self.rng.range(-16, 16) as f64 / 8.0,
            _ if t.is_signed() => self.rng.range(-3, 3) as f64,
            _ => self.rng.range(0, 3) as f64,
        }
    }

    fn add_input(&mut self, t: DataType, shape: Vec<u32>, constant: bool) -> Option<String> {
        let name = self.name(if constant { "c" } else { "x" });
        let n: u64 = shape.iter().map(|&d| d as u64).product();
        let values: Vec<f64> = (0..n).map(|_| self.value(t)).collect();
        let desc = OperandDescriptor::new(t, &shape);
        let o = if constant {
            self.b.constant(desc.clone(), encode(t, &values))
        } else {
            self.b.input(&name, desc.clone())
        };
        let o = o.ok()?;
        self.operands.insert(name.clone(), o);
        self.pool.push((name.clone(), desc));
        self.case.inputs.push(Input { name: name.clone(), data_type: t, shape, values, constant });
        Some(name)
    }

    /// A shape that broadcasts with `s` (or equals it, or is a suffix of it).
    fn related_shape(&mut self, s: &[u32]) -> Vec<u32> {
        match self.rng.below(4) {
            0 | 1 => s.to_vec(),
            2 => s.iter().map(|&d| if self.rng.chance(0.5) { 1 } else { d }).collect(),
            _ => {
                let k = self.rng.below(s.len() + 1);
                s[k..].to_vec()
            }
        }
    }

    /// An operand for parameter `name`: mostly from the pool (the newest first), sometimes a
    /// new constant shaped after `main`.
    fn operand(&mut self, name: &str, main: Option<&OperandDescriptor>) -> Value {
        let wants_int = matches!(name, "indices" | "zeroPoint") || name.ends_with("Indices");
        if !self.pool.is_empty() && self.rng.chance(if main.is_none() { 0.9 } else { 0.55 }) {
            let k = if self.rng.chance(0.5) { self.pool.len() - 1 } else { self.rng.below(self.pool.len()) };
            let (n, d) = self.pool[k].clone();
            if !wants_int || !d.data_type.is_float() {
                return Value::String(n);
            }
        }
        let base = main.map(|d| d.max_shape()).unwrap_or_else(|| vec![self.rng.range(1, 4) as u32]);
        let (t, shape) = if wants_int {
            let t = if name == "zeroPoint" { *self.rng.pick(ALL_TYPES) } else { *self.rng.pick(&[DataType::Int32, DataType::Int64, DataType::Uint32]) };
            let rank = self.rng.below(3);
            (t, (0..rank).map(|_| self.rng.range(1, 3) as u32).collect())
        } else {
            let t = match main {
                Some(d) if self.rng.chance(0.85) => d.data_type,
                _ => *self.rng.pick(ALL_TYPES),
            };
            (t, self.related_shape(&base))
        };
        match self.add_input(t, shape, true) {
            Some(n) => Value::String(n),
            None => Value::Null,
        }
    }

    fn list(&mut self, name: &str, main: Option<&OperandDescriptor>) -> Value {
        let shape = main.map(|d| d.max_shape()).unwrap_or_default();
        let rank = shape.len();
        let r = &mut self.rng;
        let v: Vec<Value> = match name {
            "axes" => {
                let mut axes: Vec<usize> = (0..rank).filter(|_| r.chance(0.5)).collect();
                if r.chance(0.05) {
                    axes.push(rank);
                }
                axes.into_iter().map(|a| json!(a)).collect()
            }
            "permutation" => {
                let mut p: Vec<usize> = (0..rank).collect();
                for i in (1..p.len()).rev() {
                    p.swap(i, r.below(i + 1));
                }
                p.into_iter().map(|a| json!(a)).collect()
            }
            "newShape" => {
                // The same element count, spread over 1-4 dimensions.
                let mut n: u64 = shape.iter().map(|&d| d as u64).product();
                let mut out = Vec::new();
                for _ in 0..r.range(0, 3) {
                    let f = (2..=n).find(|f| n % f == 0 && r.chance(0.6)).unwrap_or(1);
                    out.push(json!(f));
                    n /= f;
                }
                out.push(json!(n));
                out
            }
            "starts" => shape.iter().map(|&d| json!(r.range(0, d as i64 - 1))).collect(),
            "sizes" if rank > 0 => shape.iter().map(|&d| json!(r.range(1, d as i64))).collect(),
            "strides" if rank != 4 => shape.iter().map(|_| json!(r.range(1, 2))).collect(),
            "padding" => (0..4).map(|_| json!(r.range(0, 1))).collect(),
            "strides" | "dilations" => (0..2).map(|_| json!(r.range(1, 2))).collect(),
            "windowDimensions" => {
                let hw = if rank == 4 { [shape[2], shape[3]] } else { [2, 2] };
                hw.iter().map(|&d| json!(r.range(1, d as i64))).collect()
            }
            "sizes" | "outputSizes" | "outputPadding" => (0..2).map(|_| json!(r.range(1, 4))).collect(),
            "beginningPadding" | "endingPadding" => shape.iter().map(|_| json!(r.range(0, 2))).collect(),
            "splits" => {
                let d = shape.first().copied().unwrap_or(1) as i64;
                let a = r.range(1, d);
                if a < d {
                    vec![json!(a), json!(d - a)]
                } else {
                    vec![json!(d)]
                }
            }
            "scales" => (0..2).map(|_| json!(*r.pick(&[0.5, 1.0, 2.0]))).collect(),
            _ => shape.iter().map(|_| json!(r.range(0, 3))).collect(),
        };
        Value::Array(v)
    }

    fn integer(&mut self, name: &str, main: Option<&OperandDescriptor>) -> Value {
        let rank = main.map(|d| d.rank()).unwrap_or(0) as i64;
        let r = &mut self.rng;
        match name {
            "axis" if r.chance(0.95) => json!(r.range(0, (rank - 1).max(0))),
            "groups" => json!(if r.chance(0.7) { 1 } else { main.map(|d| d.max_shape().get(1).copied().unwrap_or(1)).unwrap_or(1) }),
            "hiddenSize" => json!(r.range(1, 3)),
            "steps" => json!(r.range(1, 2)),
            _ => json!(r.range(0, 3)),
        }
    }

    fn number(&mut self, restricted: bool) -> Value {
        if self.cfg.edges && self.rng.chance(0.1) {
            // Restricted doubles must reject these; MLNumber takes them.
            return json!(*self.rng.pick(&["NaN", "Infinity", "-Infinity", "-0"]));
        }
        let _ = restricted;
        json!(*self.rng.pick(&[0.0, 0.5, 1.0, 2.0, -1.0, 1e-5, 0.125]))
    }

    /// A value of IDL type `ty` for the parameter or member `name`.
    fn arg(&mut self, name: &str, ty: &str, main: Option<&OperandDescriptor>) -> Option<Value> {
        let ty = ty.trim_end_matches('?');
        let inner = ty.strip_prefix("sequence<").and_then(|t| t.strip_suffix('>'));
        Some(match (ty, inner) {
            ("MLOperand", _) => self.operand(name, main),
            (_, Some("MLOperand")) => {
                let n = self.rng.range(1, 3);
                Value::Array((0..n).map(|_| self.operand(name, main)).collect())
            }
            (_, Some(t)) if t.contains("long") => self.list(name, main),
            (_, Some(t)) if t.contains("float") || t.contains("double") => self.list(name, main),
            (_, Some(t)) => {
                let values = idl().enum_values(t)?.to_vec();
                let n = self.rng.range(1, 3);
                Value::Array((0..n).map(|_| json!(self.rng.pick(&values))).collect())
            }
            (t, _) if t.contains("long") && t.contains("sequence") => self.list(name, main),
            (t, _) if t.contains("or sequence") => {
                if self.rng.chance(0.5) {
                    self.list(name, main)
                } else {
                    json!(self.rng.range(1, 2))
                }
            }
            (t, _) if t.contains("long") => self.integer(name, main),
            ("MLNumber", _) => self.number(false),
            (t, _) if t.contains("double") || t.contains("float") => self.number(true),
            ("boolean", _) => json!(self.rng.chance(0.5)),
            ("DOMString" | "USVString", _) => json!("fuzz"),
            ("MLOperandDataType", _) => json!(self.rng.pick(ALL_TYPES).name()),
            (t, _) if t.ends_with("Options") => self.options(t, main),
            (t, _) => json!(self.rng.pick(idl().enum_values(t)?)),
        })
    }

    fn options(&mut self, ty: &str, main: Option<&OperandDescriptor>) -> Value {
        let mut m = Map::new();
        for member in idl().members(ty) {
            let p = if member.name == "label" { 0.1 } else { 0.35 };
            if !self.rng.chance(p) {
                continue;
            }
            if let Some(v) = self.arg(&member.name, &member.ty, main) {
                m.insert(member.name.clone(), v);
            }
        }
        Value::Object(m)
    }

    /// gru, gruCell, lstm, lstmCell with operands of matching shapes (hidden size, input
    /// size, batch, steps and directions drawn first): the generic walk almost never meets
    /// their shape rules. Options are drawn with the same shapes; `None` for other ops.
    fn recurrent(&mut self, method: &str) -> Option<Call> {
        let lstm = match method {
            "lstm" | "lstmCell" => true,
            "gru" | "gruCell" => false,
            _ => return None,
        };
        let cell = method.ends_with("Cell");
        let gates = if lstm { 4 } else { 3 };
        let r = &mut self.rng;
        let (h, i, b, steps) = (r.range(1, 3) as u32, r.range(1, 3) as u32, r.range(1, 2) as u32, r.range(1, 2) as u32);
        let t = *r.pick(FLOATS);
        let dirs = if !cell && r.chance(0.3) { 2 } else { 1 };
        let shape = |s: &[u32]| if cell { s.to_vec() } else { [&[dirs], s].concat() };
        let mut c = Call { method: method.to_owned(), params: Vec::new(), options: None, outputs: Vec::new() };
        let x = self.add_input(t, if cell { vec![b, i] } else { vec![steps, b, i] }, false)?;
        c.params.push(("input".into(), json!(x)));
        let w = self.add_input(t, shape(&[gates * h, i]), true)?;
        c.params.push(("weight".into(), json!(w)));
        let rw = self.add_input(t, shape(&[gates * h, h]), true)?;
        c.params.push(("recurrentWeight".into(), json!(rw)));
        if cell {
            let hs = self.add_input(t, vec![b, h], false)?;
            c.params.push(("hiddenState".into(), json!(hs)));
            if lstm {
                let cs = self.add_input(t, vec![b, h], false)?;
                c.params.push(("cellState".into(), json!(cs)));
            }
        } else {
            c.params.push(("steps".into(), json!(steps)));
        }
        c.params.push(("hiddenSize".into(), json!(h)));
        let mut o = Map::new();
        let mut operand = |g: &mut Self, key: &str, s: Vec<u32>| {
            if g.rng.chance(0.4) {
                let constant = g.rng.chance(0.5);
                if let Some(n) = g.add_input(t, s, constant) {
                    o.insert(key.to_owned(), json!(n));
                }
            }
        };
        operand(self, "bias", shape(&[gates * h]));
        operand(self, "recurrentBias", shape(&[gates * h]));
        if lstm {
            operand(self, "peepholeWeight", shape(&[3 * h]));
        }
        if !cell {
            operand(self, "initialHiddenState", vec![dirs, b, h]);
            if lstm {
                operand(self, "initialCellState", vec![dirs, b, h]);
            }
        }
        let r = &mut self.rng;
        if !cell {
            let direction = if dirs == 2 { "both" } else { *r.pick(&["forward", "backward"]) };
            o.insert("direction".into(), json!(direction));
            if r.chance(0.5) {
                o.insert("returnSequence".into(), json!(true));
            }
        }
        if !lstm && r.chance(0.5) {
            o.insert("resetAfter".into(), json!(r.chance(0.5)));
        }
        if r.chance(0.4) {
            o.insert("layout".into(), json!(if lstm { *r.pick(&["iofg", "ifgo"]) } else { *r.pick(&["zrn", "rzn"]) }));
        }
        if r.chance(0.4) {
            let n = if lstm { 3 } else { 2 };
            let acts: Vec<Value> = (0..n).map(|_| json!(*r.pick(&["relu", "sigmoid", "tanh"]))).collect();
            o.insert("activations".into(), Value::Array(acts));
        }
        c.options = Some(Value::Object(o));
        Some(c)
    }

    fn call_for(&mut self, method: &str, params: &[Param]) -> Call {
        let mut main: Option<OperandDescriptor> = None;
        let mut c = Call { method: method.to_owned(), params: Vec::new(), options: None, outputs: Vec::new() };
        for p in params {
            if p.optional && !p.ty.ends_with("Options") && self.rng.chance(0.5) {
                break;
            }
            let Some(v) = self.arg(&p.name, &p.ty, main.as_ref()) else { break };
            if main.is_none() {
                if let Some(d) = v.as_str().and_then(|n| self.pool.iter().find(|(p, _)| p == n)) {
                    main = Some(d.1.clone());
                } else if let Some(d) = v.as_array().and_then(|a| a.first()).and_then(Value::as_str).and_then(|n| self.pool.iter().find(|(p, _)| p == n)) {
                    main = Some(d.1.clone());
                }
            }
            if p.ty.ends_with("Options") {
                if v.as_object().is_some_and(|m| !m.is_empty()) {
                    c.options = Some(v);
                }
            } else {
                c.params.push((p.name.clone(), v));
            }
        }
        c
    }

    fn try_call(&mut self, c: &Call) -> Result<(), Tried> {
        let params: Vec<(&str, &Value)> = c.params.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let args = Args::new(params, c.options.as_ref(), &self.operands, false);
        let b = &mut self.b;
        let r = crate::case::catch(|| call(b, &c.method, &args));
        let outs = match r {
            Err(p) => {
                let m = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
                return Err(Tried::Panic(m.unwrap_or_default()));
            }
            Ok(Err(CallError::Api(e))) => return Err(Tried::Rejected(e)),
            Ok(Err(CallError::Harness(m))) => return Err(Tried::Harness(m)),
            Ok(Ok(outs)) => outs,
        };
        let unused = args.unused();
        if !unused.is_empty() {
            return Err(Tried::Harness(format!("{}: not understood: {}", c.method, unused.join(", "))));
        }
        let mut c = c.clone();
        let mut keep = Vec::new();
        for o in outs {
            let name = self.name("v");
            let d = self.b.desc(o).cloned().map_err(Tried::Rejected)?;
            if d.max_elements() <= self.cfg.max_elements && d.max_elements() > 0 {
                keep.push((name.clone(), d));
            }
            self.operands.insert(name.clone(), o);
            c.outputs.push(name);
        }
        // Results too large to compare cheaply stay out of the pool and out of the case
        // (nothing later reads them, so the case without the call builds the same graph).
        if !keep.is_empty() {
            self.pool.extend(keep);
            self.case.calls.push(c);
        }
        Ok(())
    }
}

/// Whether a rejection is of a kind the builder's algorithms throw, naming the op.
pub fn error_quality(method: &str, e: &Error) -> Result<(), String> {
    if !matches!(e.kind, ErrorKind::TypeError | ErrorKind::DataError | ErrorKind::NotSupportedError) {
        return Err(format!("{method} threw {}: builder calls throw TypeError, DataError or NotSupportedError", e.kind.name()));
    }
    if e.rule.trim().is_empty() {
        return Err(format!("{method}: the error names no rule"));
    }
    Ok(())
}
