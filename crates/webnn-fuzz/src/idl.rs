//! The dictionaries and enums of the spec's IDL (`webidl/webnn.idl`): the generator draws
//! option members and enum values from them, so a new option in the IDL is fuzzed without a
//! second table here.

use std::collections::HashMap;
use std::sync::OnceLock;

/// One dictionary member: its name and type as written.
#[derive(Clone, Debug)]
pub struct Member {
    pub name: String,
    pub ty: String,
}

pub struct Idl {
    dictionaries: HashMap<String, (Option<String>, Vec<Member>)>,
    enums: HashMap<String, Vec<String>>,
}

const IDL: &str = include_str!("../../../webidl/webnn.idl");

pub fn idl() -> &'static Idl {
    static IDL_TABLES: OnceLock<Idl> = OnceLock::new();
    IDL_TABLES.get_or_init(|| Idl::parse(IDL))
}

fn strip_comments(s: &str) -> String {
    s.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

impl Idl {
    fn parse(text: &str) -> Idl {
        let text = strip_comments(text);
        let mut dictionaries: HashMap<String, (Option<String>, Vec<Member>)> = HashMap::new();
        let mut enums = HashMap::new();
        let mut rest = text.as_str();
        while let Some(brace) = rest.find('{') {
            let head = rest[..brace].rsplit(';').next().unwrap_or("").trim().to_owned();
            let Some(end) = rest[brace..].find("};").map(|i| brace + i) else { break };
            let body = &rest[brace + 1..end];
            let words: Vec<&str> = head.split_whitespace().collect();
            match words.as_slice() {
                ["enum", name] => {
                    let values = body.split(',').map(|v| v.trim().trim_matches('"').to_owned()).filter(|v| !v.is_empty());
                    enums.insert((*name).to_owned(), values.collect());
                }
                ["dictionary", name, rest @ ..] | ["partial", "dictionary", name, rest @ ..] => {
                    let parent = match rest {
                        [":", p] => Some((*p).to_owned()),
                        _ => None,
                    };
                    let entry = dictionaries.entry((*name).to_owned()).or_insert((None, Vec::new()));
                    if parent.is_some() {
                        entry.0 = parent;
                    }
                    entry.1.extend(body.split(';').filter_map(member));
                }
                _ => {}
            }
            rest = &rest[end + 2..];
        }
        Idl { dictionaries, enums }
    }

    /// The members of dictionary `name`, inherited ones first.
    pub fn members(&self, name: &str) -> Vec<Member> {
        let Some((parent, own)) = self.dictionaries.get(name) else { return Vec::new() };
        let mut out = parent.as_deref().map(|p| self.members(p)).unwrap_or_default();
        out.extend(own.iter().cloned());
        out
    }

    pub fn enum_values(&self, name: &str) -> Option<&[String]> {
        self.enums.get(name).map(Vec::as_slice)
    }
}

/// `required? type name (= default)?` -> the member.
fn member(stmt: &str) -> Option<Member> {
    let stmt = stmt.split('=').next()?.trim();
    let stmt = stmt.strip_prefix("required ").unwrap_or(stmt);
    let (ty, name) = stmt.rsplit_once(char::is_whitespace)?;
    Some(Member { name: name.trim().to_owned(), ty: ty.trim().to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_conv2d_options_and_enums() {
        let m = idl().members("MLConv2dOptions");
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["label", "padding", "strides", "dilations", "groups", "inputLayout", "filterLayout", "bias"]);
        assert_eq!(m[1].ty, "sequence<[EnforceRange] unsigned long>");
        assert_eq!(idl().enum_values("MLPaddingMode").unwrap(), ["constant", "edge", "reflection"]);
    }
}
