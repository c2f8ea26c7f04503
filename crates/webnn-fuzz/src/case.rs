//! A fuzz case: inputs and constants with their values, builder calls with JSON arguments
//! (as the WPT data writes them: operands by name), and the outputs to build. Saved in the
//! layout of a WPT conformance file, so a reproducer runs in the project's WPT harnesses too.

use serde_json::{json, Map, Value};
use std::collections::HashMap;
use webnn_core::{op_support_limits, Backend, DataType, Error, Graph, GraphBuilder, HostTensor, OpKind, Operand};
use webnn_core::{OpSupportLimits, OperandDescriptor};
use webnn_idl::{call, Args, CallError};

#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub name: String,
    pub data_type: DataType,
    pub shape: Vec<u32>,
    /// One value per element (integers exactly, floats as the data type rounds them).
    pub values: Vec<f64>,
    pub constant: bool,
}

impl Input {
    pub fn desc(&self) -> OperandDescriptor {
        OperandDescriptor::new(self.data_type, &self.shape)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub method: String,
    /// Positional parameters by their IDL names, options excluded.
    pub params: Vec<(String, Value)>,
    pub options: Option<Value>,
    /// The names given to the results, one per returned operand.
    pub outputs: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Case {
    pub seed: u64,
    pub inputs: Vec<Input>,
    pub calls: Vec<Call>,
    pub outputs: Vec<String>,
}

/// Where running a case on a backend stopped.
#[derive(Clone, Debug)]
pub enum Stop {
    /// The backend's `opSupportLimits()` lacks a data type the case uses: not comparable.
    Unsupported(String),
    /// An error the API reported, at `stage` (`input`, a method name, `build`, `compile`, `dispatch`).
    Error { stage: String, error: Error },
    /// A panic: never acceptable.
    Panic { stage: String, message: String },
    /// The case is malformed (a generator or corpus bug).
    Harness(String),
}

pub type Outputs = Vec<(String, HostTensor)>;

thread_local! {
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with panics caught: the hook `quiet_panics` installs stays silent meanwhile.
pub fn catch<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    let was = GUARDED.with(|g| g.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(was));
    r
}

/// A panic hook that prints only panics outside `catch` (the fuzzer's own bugs): those
/// inside are reported per case.
pub fn quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !GUARDED.with(|g| g.get()) {
            default(info);
        }
    }));
}

/// Runs `f`, turning a panic into `Stop::Panic` at `stage`.
pub fn guarded<T>(stage: &str, f: impl FnOnce() -> Result<T, Stop>) -> Result<T, Stop> {
    match catch(f) {
        Ok(r) => r,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(non-string panic)".into());
            Err(Stop::Panic { stage: stage.to_owned(), message })
        }
    }
}

/// The bytes of `values` as `data_type` (values out of an integer type's range wrap, as the
/// generator never makes them).
pub fn encode(data_type: DataType, values: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for &v in values {
        match data_type {
            DataType::Float32 => out.extend((v as f32).to_le_bytes()),
            DataType::Float16 => out.extend(half::f16::from_f64(v).to_bits().to_le_bytes()),
            DataType::Int32 => out.extend((v as i32).to_le_bytes()),
            DataType::Uint32 => out.extend((v as u32).to_le_bytes()),
            DataType::Int64 => out.extend((v as i64).to_le_bytes()),
            DataType::Uint64 => out.extend((v as u64).to_le_bytes()),
            DataType::Int8 => out.push(v as i8 as u8),
            DataType::Uint8 => out.push(v as u8),
            // The generator makes no packed 4-bit tensors.
            DataType::Int4 | DataType::Uint4 => out.push(v as i8 as u8 & 0xf),
        }
    }
    out
}

/// Element `i` of a tensor's bytes as a number (integers exact up to 2^53).
pub fn element(data_type: DataType, bytes: &[u8], i: usize) -> f64 {
    let b = |n: usize| -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&bytes[i * n..i * n + n]);
        a
    };
    match data_type {
        DataType::Float32 => f32::from_le_bytes(b(4)[..4].try_into().unwrap()) as f64,
        DataType::Float16 => half::f16::from_bits(u16::from_le_bytes(b(2)[..2].try_into().unwrap())).to_f64(),
        DataType::Int32 => i32::from_le_bytes(b(4)[..4].try_into().unwrap()) as f64,
        DataType::Uint32 => u32::from_le_bytes(b(4)[..4].try_into().unwrap()) as f64,
        DataType::Int64 => i64::from_le_bytes(b(8)) as f64,
        DataType::Uint64 => u64::from_le_bytes(b(8)) as f64,
        DataType::Int8 => bytes[i] as i8 as f64,
        DataType::Uint8 => bytes[i] as f64,
        DataType::Int4 | DataType::Uint4 => f64::NAN,
    }
}

/// The operand names a JSON argument refers to (strings naming an entry of `known`).
pub fn operand_refs<'a>(v: &'a Value, known: &dyn Fn(&str) -> bool, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) if known(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|x| operand_refs(x, known, out)),
        Value::Object(m) => m.values().for_each(|x| operand_refs(x, known, out)),
        _ => {}
    }
}

/// Whether every operand the call reads has a data type `limits` allows in its slot.
fn supported(limits: &OpSupportLimits, c: &Call, descs: &HashMap<String, OperandDescriptor>) -> Result<(), String> {
    let Some(kind) = OpKind::from_name(&c.method) else { return Ok(()) };
    let mut slots: Vec<(&str, &Value)> = c.params.iter().map(|(k, v)| (k.as_str(), v)).collect();
    if let Some(Value::Object(m)) = &c.options {
        slots.extend(m.iter().map(|(k, v)| (k.as_str(), v)));
    }
    for (slot, v) in slots {
        if !kind.slots().iter().any(|s| s.name == slot) {
            continue;
        }
        let mut names = Vec::new();
        operand_refs(v, &|n| descs.contains_key(n), &mut names);
        for n in names {
            let t = descs[n].data_type;
            if !limits.supports(kind, slot, t) {
                return Err(format!("{}.{slot}: {t} is not in opSupportLimits()", c.method));
            }
        }
    }
    Ok(())
}

impl Case {
    /// Builds the case's graph with a fresh builder, checking data types against `limits`
    /// (`None`: any). Returns the graph and the inputs' tensors.
    pub fn build(&self, limits: Option<&OpSupportLimits>) -> Result<(Graph, Vec<(String, HostTensor)>), Stop> {
        let mut b = GraphBuilder::new();
        let mut operands: HashMap<String, Operand> = HashMap::new();
        let mut descs: HashMap<String, OperandDescriptor> = HashMap::new();
        let mut feeds = Vec::new();
        let api = |stage: &str| {
            let stage = stage.to_owned();
            move |error: Error| Stop::Error { stage: stage.clone(), error }
        };
        for i in &self.inputs {
            let desc = i.desc();
            if let Some(l) = limits {
                let allowed = if i.constant { l.constant.data_types } else { l.input.data_types };
                if !allowed.contains(i.data_type) {
                    return Err(Stop::Unsupported(format!("{} is {}", i.name, i.data_type)));
                }
            }
            let bytes = encode(i.data_type, &i.values);
            let o = guarded("input", || {
                if i.constant {
                    b.constant(desc.clone(), bytes.clone()).map_err(api("constant"))
                } else {
                    b.input(&i.name, desc.clone()).map_err(api("input"))
                }
            })?;
            if !i.constant {
                feeds.push((i.name.clone(), HostTensor { desc: desc.clone(), bytes }));
            }
            operands.insert(i.name.clone(), o);
            descs.insert(i.name.clone(), desc);
        }
        for c in &self.calls {
            if let Some(l) = limits {
                supported(l, c, &descs).map_err(Stop::Unsupported)?;
            }
            let outs = guarded(&c.method, || {
                let params: Vec<(&str, &Value)> = c.params.iter().map(|(k, v)| (k.as_str(), v)).collect();
                let args = Args::new(params, c.options.as_ref(), &operands, false);
                let outs = call(&mut b, &c.method, &args).map_err(|e| match e {
                    CallError::Api(error) => Stop::Error { stage: c.method.clone(), error },
                    CallError::Harness(m) => Stop::Harness(m),
                })?;
                let unused = args.unused();
                if !unused.is_empty() {
                    return Err(Stop::Harness(format!("{}: arguments not understood: {}", c.method, unused.join(", "))));
                }
                Ok(outs)
            })?;
            if outs.len() != c.outputs.len() {
                return Err(Stop::Harness(format!("{} returned {} operands, the case names {}", c.method, outs.len(), c.outputs.len())));
            }
            for (name, o) in c.outputs.iter().zip(outs) {
                let d = b.desc(o).cloned().map_err(api(&c.method))?;
                operands.insert(name.clone(), o);
                descs.insert(name.clone(), d);
            }
        }
        let mut named = Vec::new();
        for n in &self.outputs {
            let o = *operands.get(n).ok_or_else(|| Stop::Harness(format!("output '{n}' is not produced")))?;
            if let Some(l) = limits {
                if !l.output.data_types.contains(descs[n].data_type) {
                    return Err(Stop::Unsupported(format!("output {n} is {}", descs[n].data_type)));
                }
            }
            named.push((n.as_str(), o));
        }
        let graph = guarded("build", || b.build(&named).map_err(api("build")))?;
        Ok((graph, feeds))
    }

    /// Builds, compiles and runs the case on `backend`.
    pub fn run(&self, backend: &dyn Backend) -> Result<Outputs, Stop> {
        let limits = op_support_limits(&backend.capabilities());
        let (graph, feeds) = self.build(Some(&limits))?;
        let api = |stage: &'static str| move |error: Error| Stop::Error { stage: stage.into(), error };
        let mut exe = guarded("compile", || backend.compile(&graph).map_err(api("compile")))?;
        let feeds: Vec<(&str, &HostTensor)> = feeds.iter().map(|(n, t)| (n.as_str(), t)).collect();
        guarded("dispatch", || exe.dispatch(&feeds).map_err(api("dispatch")))
    }

    /// The case as a WPT conformance case; `expected` (the reference's outputs) fills
    /// `expectedOutputs`.
    pub fn to_json(&self, name: &str, expected: Option<&Outputs>) -> Value {
        let mut inputs = Map::new();
        for i in &self.inputs {
            let mut t = json!({
                "data": i.values.iter().map(|&v| number(v)).collect::<Vec<_>>(),
                "descriptor": {"dataType": i.data_type.name(), "shape": i.shape},
            });
            if i.constant {
                t["constant"] = true.into();
            }
            inputs.insert(i.name.clone(), t);
        }
        let operators: Vec<Value> = self
            .calls
            .iter()
            .map(|c| {
                let mut args: Vec<Value> = c.params.iter().map(|(k, v)| json!({ k: v })).collect();
                if let Some(o) = &c.options {
                    args.push(json!({ "options": o }));
                }
                let outputs = if c.outputs.len() == 1 { json!(c.outputs[0]) } else { json!(c.outputs) };
                json!({"name": c.method, "arguments": args, "outputs": outputs})
            })
            .collect();
        let mut expected_outputs = Map::new();
        for n in &self.outputs {
            let t = expected.and_then(|e| e.iter().find(|(m, _)| m == n)).map(|(_, t)| t);
            let v = match t {
                Some(t) => {
                    let count = t.desc.max_elements() as usize;
                    let data: Vec<Value> = (0..count).map(|k| number(element(t.desc.data_type, &t.bytes, k))).collect();
                    json!({"data": data, "descriptor": {"dataType": t.desc.data_type.name(), "shape": t.desc.max_shape()}})
                }
                None => json!({}),
            };
            expected_outputs.insert(n.clone(), v);
        }
        json!({
            "name": name,
            "seed": self.seed,
            "graph": {"inputs": inputs, "operators": operators, "expectedOutputs": expected_outputs},
        })
    }

    /// Reads a case written by `to_json`.
    pub fn from_json(v: &Value) -> Result<Case, String> {
        let g = v.get("graph").ok_or("no graph")?;
        let mut inputs = Vec::new();
        for (name, t) in g.get("inputs").and_then(Value::as_object).ok_or("no graph.inputs")? {
            let d = t.get("descriptor").ok_or("no descriptor")?;
            let data_type = d
                .get("dataType")
                .and_then(Value::as_str)
                .and_then(DataType::from_name)
                .ok_or_else(|| format!("{name}: dataType"))?;
            let shape = d
                .get("shape")
                .and_then(Value::as_array)
                .ok_or("shape")?
                .iter()
                .map(|x| x.as_u64().map(|x| x as u32).ok_or("shape entry"))
                .collect::<Result<Vec<u32>, _>>()?;
            let values = t
                .get("data")
                .and_then(Value::as_array)
                .ok_or("data")?
                .iter()
                .map(|x| webnn_idl::args::number(x).ok_or("a value"))
                .collect::<Result<Vec<f64>, _>>()?;
            let constant = t.get("constant").and_then(Value::as_bool).unwrap_or(false);
            inputs.push(Input { name: name.clone(), data_type, shape, values, constant });
        }
        let mut calls = Vec::new();
        for op in g.get("operators").and_then(Value::as_array).ok_or("no graph.operators")? {
            let method = op.get("name").and_then(Value::as_str).ok_or("operator name")?.to_owned();
            let mut params = Vec::new();
            let mut options = None;
            for a in op.get("arguments").and_then(Value::as_array).ok_or("arguments")? {
                for (k, x) in a.as_object().ok_or("argument")? {
                    if k == "options" {
                        options = Some(x.clone());
                    } else {
                        params.push((k.clone(), x.clone()));
                    }
                }
            }
            let outputs = match op.get("outputs") {
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                _ => return Err(format!("{method}: outputs")),
            };
            calls.push(Call { method, params, options, outputs });
        }
        let outputs = g.get("expectedOutputs").and_then(Value::as_object).ok_or("expectedOutputs")?.keys().cloned().collect();
        let seed = v.get("seed").and_then(Value::as_u64).unwrap_or(0);
        Ok(Case { seed, inputs, calls, outputs })
    }
}

/// A number as the WPT data writes it (non-finite values as strings).
pub fn number(v: f64) -> Value {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        (if v > 0.0 { "Infinity" } else { "-Infinity" }).into()
    } else if v == 0.0 && v.is_sign_negative() {
        "-0".into()
    } else if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}
