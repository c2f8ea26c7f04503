//! Minimising a failing case and writing it as a reproducer: the case JSON (a WPT conformance
//! case, which `corpus/` keeps as a regression test) and a JavaScript page snippet.

use crate::case::{number, operand_refs, Case};
use serde_json::Value;
use std::collections::HashSet;
use webnn_core::DataType;

/// The calls `outputs` need (transitively), in order; inputs nothing reads are dropped too.
fn prune(case: &Case) -> Case {
    let mut needed: HashSet<String> = case.outputs.iter().cloned().collect();
    let mut calls = Vec::new();
    for c in case.calls.iter().rev() {
        if c.outputs.iter().any(|o| needed.contains(o)) {
            let mut refs = Vec::new();
            let known = |_: &str| true;
            c.params.iter().for_each(|(_, v)| operand_refs(v, &known, &mut refs));
            if let Some(o) = &c.options {
                operand_refs(o, &known, &mut refs);
            }
            needed.extend(refs.into_iter().map(str::to_owned));
            calls.push(c.clone());
        }
    }
    calls.reverse();
    let inputs = case.inputs.iter().filter(|i| needed.contains(&i.name)).cloned().collect();
    Case { seed: case.seed, inputs, calls, outputs: case.outputs.clone() }
}

/// Shrinks `case` while `fails` still holds: one output, only the calls it needs, option
/// members removed one at a time, single-element inputs where the case allows.
pub fn minimise(case: &Case, fails: &dyn Fn(&Case) -> bool) -> Case {
    let mut best = prune(case);
    for o in case.outputs.clone() {
        let c = prune(&Case { outputs: vec![o], ..best.clone() });
        if c.outputs.len() < best.outputs.len() && fails(&c) {
            best = c;
            break;
        }
    }
    // Earlier results as outputs: a shorter chain may fail the same way. (Indices are
    // checked on every step: each success shortens the case.)
    let mut k = 0;
    while k < best.calls.len() {
        for o in best.calls[k].outputs.clone() {
            let c = prune(&Case { outputs: vec![o], ..best.clone() });
            if c.calls.len() < best.calls.len() && fails(&c) {
                best = c;
                break;
            }
        }
        k += 1;
    }
    let mut k = 0;
    while k < best.calls.len() {
        let keys: Vec<String> =
            best.calls[k].options.as_ref().and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default();
        for key in keys {
            if k >= best.calls.len() {
                break;
            }
            let mut c = best.clone();
            if let Some(Value::Object(m)) = &mut c.calls[k].options {
                m.remove(&key);
            }
            let c = prune(&c);
            if fails(&c) {
                best = c;
            }
        }
        k += 1;
    }
    best
}

fn ident(name: &str) -> String {
    name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
}

/// A JSON argument as JavaScript source; strings that name operands become their variables.
fn js_value(v: &Value, operands: &HashSet<String>) -> String {
    match v {
        Value::String(s) if operands.contains(s) => ident(s),
        Value::String(s) => match s.as_str() {
            "NaN" | "Infinity" | "-Infinity" | "-0" => s.clone(),
            _ => format!("{v}"),
        },
        Value::Array(a) => format!("[{}]", a.iter().map(|x| js_value(x, operands)).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            let fields: Vec<String> = m.iter().map(|(k, x)| format!("{k}: {}", js_value(x, operands))).collect();
            format!("{{{}}}", fields.join(", "))
        }
        _ => v.to_string(),
    }
}

fn typed_array(t: DataType, values: &[f64]) -> String {
    let list = |f: &dyn Fn(f64) -> String| values.iter().map(|&v| f(v)).collect::<Vec<_>>().join(", ");
    let js_num = |v: f64| match number(v) {
        Value::String(s) => s,
        n => n.to_string(),
    };
    match t {
        DataType::Float32 => format!("new Float32Array([{}])", list(&js_num)),
        // float16 as its bits: pages without Float16Array pass a Uint16Array.
        DataType::Float16 => format!("new Uint16Array([{}])", list(&|v| half::f16::from_f64(v).to_bits().to_string())),
        DataType::Int32 => format!("new Int32Array([{}])", list(&js_num)),
        DataType::Uint32 => format!("new Uint32Array([{}])", list(&js_num)),
        DataType::Int64 => format!("new BigInt64Array([{}])", list(&|v| format!("{}n", v as i64))),
        DataType::Uint64 => format!("new BigUint64Array([{}])", list(&|v| format!("{}n", v as u64))),
        DataType::Int8 => format!("new Int8Array([{}])", list(&js_num)),
        DataType::Uint8 | DataType::Int4 | DataType::Uint4 => format!("new Uint8Array([{}])", list(&js_num)),
    }
}

/// The case as a script for a page with `navigator.ml` (the polyfill or a browser's own):
/// builds the graph, runs it on `device` ('cpu' or 'gpu') and logs every output.
pub fn javascript(case: &Case, device: &str) -> String {
    let mut names: HashSet<String> = case.inputs.iter().map(|i| i.name.clone()).collect();
    names.extend(case.calls.iter().flat_map(|c| c.outputs.iter().cloned()));
    let mut s = format!("// webnn-fuzz seed {}\n", case.seed);
    s += &format!("const context = await navigator.ml.createContext({{deviceType: '{device}'}});\n");
    s += "const builder = new MLGraphBuilder(context);\n";
    for i in &case.inputs {
        let desc = format!("{{dataType: '{}', shape: {:?}}}", i.data_type.name(), i.shape);
        if i.constant {
            s += &format!("const {} = builder.constant({desc}, {});\n", ident(&i.name), typed_array(i.data_type, &i.values));
        } else {
            s += &format!("const {} = builder.input('{}', {desc});\n", ident(&i.name), i.name);
        }
    }
    for c in &case.calls {
        let mut args: Vec<String> = c.params.iter().map(|(_, v)| js_value(v, &names)).collect();
        if let Some(o) = &c.options {
            // The options dictionary is the last parameter of every builder method.
            args.push(js_value(o, &names));
        }
        let lhs = if c.outputs.len() == 1 {
            ident(&c.outputs[0])
        } else {
            format!("[{}]", c.outputs.iter().map(|o| ident(o)).collect::<Vec<_>>().join(", "))
        };
        s += &format!("const {lhs} = builder.{}({});\n", c.method, args.join(", "));
    }
    let outs: Vec<String> = case.outputs.iter().map(|o| ident(o)).collect();
    s += &format!("const graph = await builder.build({{{}}});\n", outs.join(", "));
    let mut feeds = Vec::new();
    for i in case.inputs.iter().filter(|i| !i.constant) {
        let t = format!("t_{}", ident(&i.name));
        s += &format!(
            "const {t} = await context.createTensor({{dataType: '{}', shape: {:?}, writable: true}});\n",
            i.data_type.name(),
            i.shape
        );
        s += &format!("context.writeTensor({t}, {});\n", typed_array(i.data_type, &i.values));
        feeds.push(format!("'{}': {t}", i.name));
    }
    let mut results = Vec::new();
    for o in &outs {
        s += &format!("const r_{o} = await context.createTensor({{dataType: {o}.dataType, shape: {o}.shape, readable: true}});\n");
        results.push(format!("{o}: r_{o}"));
    }
    s += &format!("context.dispatch(graph, {{{}}}, {{{}}});\n", feeds.join(", "), results.join(", "));
    s += "const views = {float32: Float32Array, float16: Uint16Array, int32: Int32Array, uint32: Uint32Array, \
          int64: BigInt64Array, uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array};\n";
    for o in &outs {
        s += &format!("console.log('{o}', new views[{o}.dataType](await context.readTensor(r_{o})));\n");
    }
    s
}
