//! The positional parameters of every `MLGraphBuilder` operation, read from the spec's IDL
//! (`webidl/webnn.idl`), so a binding that receives positional JavaScript arguments names
//! them exactly as the IDL does without a second hand-written table.

use std::sync::OnceLock;
use webnn_core::OpKind;

/// One IDL parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub optional: bool,
    /// The type as written (`MLConv2dOptions`, `sequence<MLOperand>`...).
    pub ty: String,
}

/// An operation of `MLGraphBuilder` and its parameters in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub method: String,
    pub params: Vec<Param>,
    /// The operation returns a `Promise` (so it rejects rather than throws).
    pub promise: bool,
    /// The operation returns a sequence (`split`, `gru`, `lstm`, `lstmCell`).
    pub sequence: bool,
}

/// An IDL attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    pub name: String,
    pub readonly: bool,
}

/// Overloads the spec dropped that published pages still call, with their argument count:
/// `softmax(input)`, the 2-D softmax of the 2023 spec (`GraphBuilder::softmax_2d`).
const LEGACY_MIN_ARGS: &[(&str, usize)] = &[("softmax", 1)];

impl Signature {
    /// The number of required parameters: JavaScript's `Function.length` for the operation.
    pub fn length(&self) -> usize {
        self.params.iter().take_while(|p| !p.optional).count()
    }

    /// The fewest arguments a call may pass (a legacy overload may need fewer than `length`).
    pub fn min_args(&self) -> usize {
        LEGACY_MIN_ARGS.iter().find(|(m, _)| *m == self.method).map_or(self.length(), |&(_, n)| n)
    }
}

const IDL: &str = include_str!("../../../webidl/webnn.idl");

/// Every operation of the op table with its IDL signature, in table order.
pub fn op_signatures() -> &'static [Signature] {
    static SIGS: OnceLock<Vec<Signature>> = OnceLock::new();
    SIGS.get_or_init(|| {
        let all = parse_interface(IDL, "MLGraphBuilder");
        OpKind::ALL
            .iter()
            .filter_map(|k| all.iter().find(|s| s.method == k.name()).cloned())
            .collect()
    })
}

/// The signature of builder operation `method`, if it is one of the op table's.
pub fn op_signature(method: &str) -> Option<&'static Signature> {
    op_signatures().iter().find(|s| s.method == method)
}

/// The operations declared in `interface NAME` and its partial interfaces (of overloads, the
/// one with the fewest required arguments; constructors and attributes are left out).
pub fn parse_interface(idl: &str, name: &str) -> Vec<Signature> {
    let mut out: Vec<Signature> = Vec::new();
    let mut rest = idl;
    while let Some(start) = find_interface(rest, name) {
        let body_start = rest[start..].find('{').map(|i| start + i + 1).unwrap_or(rest.len());
        let body_end = rest[body_start..].find("};").map(|i| body_start + i).unwrap_or(rest.len());
        for stmt in strip_comments(&rest[body_start..body_end]).split(';') {
            if let Some(sig) = parse_operation(stmt) {
                // Overloads: keep the shortest, whose required count is the operation's length.
                match out.iter_mut().find(|s| s.method == sig.method) {
                    Some(s) if sig.length() < s.length() => *s = sig,
                    Some(_) => {}
                    None => out.push(sig),
                }
            }
        }
        rest = &rest[body_end..];
    }
    out
}

/// The attributes declared in `interface NAME` and its partial interfaces.
pub fn parse_attributes(idl: &str, name: &str) -> Vec<Attribute> {
    let mut out = Vec::new();
    let mut rest = idl;
    while let Some(start) = find_interface(rest, name) {
        let body_start = rest[start..].find('{').map(|i| start + i + 1).unwrap_or(rest.len());
        let body_end = rest[body_start..].find("};").map(|i| body_start + i).unwrap_or(rest.len());
        for stmt in strip_comments(&rest[body_start..body_end]).split(';') {
            let words: Vec<&str> = stmt.split_whitespace().collect();
            if let Some(i) = words.iter().position(|w| *w == "attribute") {
                if let Some(name) = words.last() {
                    out.push(Attribute { name: name.to_string(), readonly: words[..i].contains(&"readonly") });
                }
            }
        }
        rest = &rest[body_end..];
    }
    out
}

/// The interfaces the IDL declares (not the partial ones twice).
pub fn interfaces(idl: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in idl.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("interface ").filter(|r| !r.starts_with("mixin ")) {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The spec's IDL text (`webidl/webnn.idl`).
pub fn idl() -> &'static str {
    IDL
}

fn find_interface(text: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find("interface ") {
        let at = from + i;
        let after = text[at + "interface ".len()..].trim_start();
        let word: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if word == name {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn strip_comments(s: &str) -> String {
    s.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join(" ")
}

/// `RetType name(params)`: `None` for attributes, constructors and anything else.
fn parse_operation(stmt: &str) -> Option<Signature> {
    let open = stmt.find('(')?;
    let close = stmt.rfind(')')?;
    let head = stmt[..open].trim();
    let method = head.rsplit(|c: char| c.is_whitespace() || c == '>').next()?.to_owned();
    if method.is_empty() || method == "constructor" || head.split_whitespace().count() < 2 {
        return None;
    }
    let params = split_top_level(&stmt[open + 1..close]).into_iter().filter_map(parse_param).collect();
    Some(Signature { method, params, promise: head.starts_with("Promise<"), sequence: head.starts_with("sequence<") })
}

/// Splits on commas outside `<...>`, `(...)` and `[...]`.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

fn parse_param(p: &str) -> Option<Param> {
    let decl = p.split('=').next()?.trim();
    let optional = decl.starts_with("optional ");
    let name = decl.rsplit(|c: char| c.is_whitespace() || c == ')' || c == '>').next()?.to_owned();
    let ty = decl.strip_prefix("optional ").unwrap_or(decl);
    let ty = ty[..ty.len().saturating_sub(name.len())].trim().to_owned();
    (!name.is_empty()).then_some(Param { name, optional, ty })
}

/// A dictionary with its parent and members (`name`, the default as written), partial
/// dictionaries merged in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dictionary {
    pub parent: Option<String>,
    pub members: Vec<(String, Option<String>)>,
}

/// Every dictionary the IDL declares, by name.
pub fn parse_dictionaries(idl: &str) -> Vec<(String, Dictionary)> {
    let text = strip_comments(idl);
    let mut out: Vec<(String, Dictionary)> = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("dictionary ") {
        let after = &rest[at + "dictionary ".len()..];
        let Some(open) = after.find('{') else { break };
        let Some(close) = after[open..].find("};").map(|i| open + i) else { break };
        let head: Vec<&str> = after[..open].split(':').map(str::trim).collect();
        let name = head[0].to_owned();
        let parent = head.get(1).map(|p| p.to_string());
        let members = after[open + 1..close].split(';').filter_map(|m| {
            let (decl, default) = match m.split_once('=') {
                Some((d, v)) => (d.trim(), Some(v.trim().to_owned())),
                None => (m.trim(), None),
            };
            let member = decl.rsplit(|c: char| c.is_whitespace() || c == '>').next()?.to_owned();
            (!member.is_empty()).then_some((member, default))
        });
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, d)) => d.members.extend(members),
            None => out.push((name, Dictionary { parent, members: members.collect() })),
        }
        rest = &after[close..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_has_its_idl_signature() {
        assert_eq!(op_signatures().len(), OpKind::ALL.len());
        let conv = op_signature("conv2d").unwrap();
        let names: Vec<&str> = conv.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["input", "filter", "options"]);
        assert_eq!(conv.length(), 2);
        let split = op_signature("split").unwrap();
        assert_eq!(split.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["input", "splits", "options"]);
        assert_eq!(op_signature("gru").unwrap().length(), 5);
        assert!(op_signature("lstmCell").unwrap().sequence && !op_signature("conv2d").unwrap().sequence);
        assert_eq!(op_signature("lstmCell").unwrap().length(), 6);
        assert_eq!(op_signature("instanceNormalization").unwrap().length(), 1);
    }

    #[test]
    fn dictionaries_with_parents_defaults_and_partials() {
        let dicts = parse_dictionaries(IDL);
        let conv = &dicts.iter().find(|(n, _)| n == "MLConv2dOptions").unwrap().1;
        assert_eq!(conv.parent.as_deref(), Some("MLOperatorOptions"));
        assert!(conv.members.contains(&("groups".into(), Some("1".into()))));
        let limits = &dicts.iter().find(|(n, _)| n == "MLOpSupportLimits").unwrap().1;
        assert!(limits.members.iter().any(|(m, _)| m == "conv2d"), "partial dictionaries merged");
        let sig = op_signature("conv2d").unwrap();
        assert_eq!(sig.params[2].ty, "MLConv2dOptions");
    }

    #[test]
    fn other_interfaces_parse_too() {
        let ctx = parse_interface(IDL, "MLContext");
        let dispatch = ctx.iter().find(|s| s.method == "dispatch").unwrap();
        assert_eq!(dispatch.length(), 3);
        let builder = parse_interface(IDL, "MLGraphBuilder");
        assert!(builder.iter().any(|s| s.method == "input" && s.length() == 2));
        assert!(builder.iter().any(|s| s.method == "build" && s.length() == 1));
    }
}
