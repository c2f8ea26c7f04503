//! Argument values (JSON, as the WPT data and a JavaScript binding hand them over) converted the way WebIDL converts JS values for `MLGraphBuilder`
//! methods: a value of the wrong kind, an out-of-range `[EnforceRange]` integer or an unknown
//! enum string is a TypeError (what JS would throw), so validation rows that rely on those
//! conversions behave as in a browser.

use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use webnn_core::ops::MLNumber;
use webnn_core::{DataType, Dim, Error, Operand, OperandDescriptor, Result};

fn type_error(msg: impl Into<String>) -> Error {
    Error::type_error(msg)
}

/// How a JavaScript binding marks a BigInt: `{"\u0000bigint": "<decimal>"}`. (The WPT data
/// writes bigints as decimal strings, which `ml_number` also reads.)
pub const BIGINT_KEY: &str = "\u{0}bigint";

/// How a binding marks an operand it hands over: `{"\u0000operand": [builder, index]}`
/// (`Operand::to_raw`). The key can never be a dictionary member, so dropping it from user
/// objects loses nothing. The JavaScript and Python bindings both mark operands this way.
pub const OPERAND_KEY: &str = "\u{0}operand";

/// Operands marked under [`OPERAND_KEY`].
pub struct Marked;

impl Operands for Marked {
    fn resolve(&self, v: &Value) -> Option<Operand> {
        let pair = v.as_object()?.get(OPERAND_KEY)?.as_array()?;
        let (b, i) = (pair.first()?.as_u64()?, pair.get(1)?.as_u64()?);
        Some(Operand::from_raw(u32::try_from(b).ok()?, u32::try_from(i).ok()?))
    }
}

/// The decimal digits of a marked BigInt.
fn bigint(v: &Value) -> Option<&str> {
    v.as_object().and_then(|o| o.get(BIGINT_KEY)).and_then(Value::as_str)
}

/// WebIDL's ToNumber throws a TypeError for a BigInt: no integer or double argument takes one.
fn no_bigint(v: &Value, what: &str) -> Result<()> {
    match bigint(v) {
        Some(d) => Err(type_error(format!("{what}: {d}n is a BigInt, not a number"))),
        None => Ok(()),
    }
}

/// The special numbers the extract writes as strings.
pub fn special_number(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        "-0" => Some(-0.0),
        _ => None,
    }
}

/// A JSON number or special-number string as a JS number.
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => special_number(s),
        _ => None,
    }
}

/// JS `ToNumber` restricted to what JSON can hold.
fn to_number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => special_number(s).or_else(|| s.trim().parse().ok()).unwrap_or(f64::NAN),
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Null => 0.0,
        Value::Array(_) | Value::Object(_) => f64::NAN,
    }
}

/// `[EnforceRange] unsigned long`.
pub fn enforce_u32(v: &Value, what: &str) -> Result<u32> {
    no_bigint(v, what)?;
    let x = to_number(v);
    if !x.is_finite() {
        return Err(type_error(format!("{what}: {v} is not a finite number")));
    }
    let x = x.trunc();
    if !(0.0..=u32::MAX as f64).contains(&x) {
        return Err(type_error(format!("{what}: {v} is outside the unsigned long range")));
    }
    Ok(x as u32)
}

/// `[EnforceRange] long`.
pub fn enforce_i32(v: &Value, what: &str) -> Result<i32> {
    no_bigint(v, what)?;
    let x = to_number(v);
    if !x.is_finite() {
        return Err(type_error(format!("{what}: {v} is not a finite number")));
    }
    let x = x.trunc();
    if !(i32::MIN as f64..=i32::MAX as f64).contains(&x) {
        return Err(type_error(format!("{what}: {v} is outside the long range")));
    }
    Ok(x as i32)
}

/// Plain `unsigned long` (no `[EnforceRange]`): JS `ToUint32`, modulo 2^32.
pub fn wrapping_u32(v: &Value) -> u32 {
    let x = to_number(v);
    if !x.is_finite() {
        return 0;
    }
    x.trunc().rem_euclid(4294967296.0) as u32
}

/// `double` (restricted: NaN and infinities are a TypeError).
pub fn restricted_double(v: &Value, what: &str) -> Result<f64> {
    no_bigint(v, what)?;
    let x = to_number(v);
    if !x.is_finite() {
        return Err(type_error(format!("{what}: {v} is not a finite number")));
    }
    Ok(x)
}

/// `float` (restricted; a value that rounds to an infinity is a TypeError too).
pub fn restricted_float(v: &Value, what: &str) -> Result<f32> {
    let x = restricted_double(v, what)? as f32;
    if !x.is_finite() {
        return Err(type_error(format!("{what}: {v} is outside the float range")));
    }
    Ok(x)
}

/// JS `ToBoolean`.
pub fn boolean(v: &Value) -> bool {
    if let Some(d) = bigint(v) {
        return d.trim_start_matches('-') != "0";
    }
    match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0 && !x.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// JS `ToString` for the primitive values JSON holds.
pub fn string(v: &Value) -> Result<String> {
    if let Some(d) = bigint(v) {
        return Ok(d.to_owned());
    }
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok("null".into()),
        Value::Array(_) | Value::Object(_) => Err(type_error(format!("{v} is not a string"))),
    }
}

/// An IDL enum value: one of `table`'s strings.
pub fn enum_value<T: Copy>(v: &Value, table: &[(&str, T)], what: &str) -> Result<T> {
    let s = string(v)?;
    table
        .iter()
        .find(|(name, _)| *name == s)
        .map(|(_, t)| *t)
        .ok_or_else(|| type_error(format!("{what}: '{s}' is not a valid enum value")))
}

/// A `sequence<T>`: only arrays convert.
pub fn sequence<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| type_error(format!("{what}: {v} is not a sequence")))
}

pub fn enforce_u32_list(v: &Value, what: &str) -> Result<Vec<u32>> {
    sequence(v, what)?.iter().map(|x| enforce_u32(x, what)).collect()
}

/// `MLOperandDataType` (plus the int4/uint4 extension types).
pub fn data_type(v: &Value, what: &str) -> Result<DataType> {
    let s = string(v)?;
    DataType::from_name(&s).ok_or_else(|| type_error(format!("{what}: '{s}' is not a valid MLOperandDataType")))
}

/// `MLNumber` = `bigint or unrestricted double`; a decimal integer string is a bigint.
pub fn ml_number(v: &Value, what: &str) -> Result<MLNumber> {
    if let Some(d) = bigint(v) {
        return d.parse::<i128>().map(MLNumber::BigInt).map_err(|_| type_error(format!("{what}: {d}n is out of range")));
    }
    if let Value::String(s) = v {
        if special_number(s).is_none() {
            return s
                .trim()
                .parse::<i128>()
                .map(MLNumber::BigInt)
                .map_err(|_| type_error(format!("{what}: '{s}' is not a number")));
        }
    }
    match v {
        Value::Array(_) | Value::Object(_) => Err(type_error(format!("{what}: {v} is not a number"))),
        _ => Ok(MLNumber::Double(to_number(v))),
    }
}

/// `MLOperandDescriptor` (`dataType` and `shape` are required members). Two extensions:
/// the pre-2024 member name `dimensions` is read when `shape` is absent (frameworks still
/// pass it), and a shape entry may be a bounded dynamic dimension `{name, maxSize}`.
pub fn descriptor(v: &Value) -> Result<OperandDescriptor> {
    let obj = v.as_object().ok_or_else(|| type_error(format!("{v} is not an MLOperandDescriptor")))?;
    let dt = obj.get("dataType").ok_or_else(|| type_error("descriptor: dataType is required"))?;
    let shape = obj
        .get("shape")
        .or_else(|| obj.get("dimensions"))
        .ok_or_else(|| type_error("descriptor: shape is required"))?;
    let data_type = data_type(dt, "descriptor.dataType")?;
    let dims = sequence(shape, "descriptor.shape")?.iter().map(dim).collect::<Result<Vec<Dim>>>()?;
    Ok(OperandDescriptor::with_dims(data_type, dims))
}

/// One shape entry: `[EnforceRange] unsigned long`, or `{name, maxSize}` (flexible inputs).
fn dim(v: &Value) -> Result<Dim> {
    match v.as_object() {
        Some(o) => {
            let name = o.get("name").map(string).transpose()?.filter(|n| !n.is_empty());
            let name = name.ok_or_else(|| type_error("descriptor.shape: a dynamic dimension needs a name"))?;
            let max = o.get("maxSize").ok_or_else(|| type_error(format!("descriptor.shape: '{name}' needs maxSize")))?;
            Ok(Dim::Dynamic { name: name.into(), max_size: enforce_u32(max, "descriptor.shape maxSize")? })
        }
        None => Ok(Dim::Static(enforce_u32(v, "descriptor.shape")?)),
    }
}

/// Whether a JSON value is written as an operand descriptor (validation rows).
pub fn is_descriptor(v: &Value) -> bool {
    v.as_object().is_some_and(|o| o.contains_key("dataType") && o.contains_key("shape"))
}

/// How a value that stands for an `MLOperand` is turned into one: the WPT data names operands
/// with strings; a JavaScript binding marks its operand objects in its own way.
pub trait Operands {
    fn resolve(&self, v: &Value) -> Option<Operand>;
}

/// Operands named by string values.
impl Operands for HashMap<String, Operand> {
    fn resolve(&self, v: &Value) -> Option<Operand> {
        v.as_str().and_then(|s| self.get(s)).copied()
    }
}

fn operand_ref(v: &Value, operands: &dyn Operands, what: &str) -> Result<Operand> {
    operands.resolve(v).ok_or_else(|| type_error(format!("{what}: {v} is not an MLOperand")))
}

/// The arguments of one builder call: positional parameters by name, the options dictionary,
/// and how operand values are resolved.
pub struct Args<'a> {
    params: Vec<(&'a str, &'a Value)>,
    options: Option<&'a Value>,
    operands: &'a dyn Operands,
    /// Validation rows write some option members (gather's `axis`, slice's `strides`...) next
    /// to the positional arguments; when set, option lookups fall back to those.
    option_fallback: bool,
    /// Parameter names and option keys read so far (to report data the mapping ignored).
    used: RefCell<Vec<String>>,
}

impl<'a> Args<'a> {
    pub fn new(
        params: Vec<(&'a str, &'a Value)>,
        options: Option<&'a Value>,
        operands: &'a dyn Operands,
        option_fallback: bool,
    ) -> Args<'a> {
        Args { params, options, operands, option_fallback, used: RefCell::new(Vec::new()) }
    }

    fn mark(&self, key: String) {
        self.used.borrow_mut().push(key);
    }

    /// The value of a positional parameter, if given.
    pub fn param(&self, name: &str) -> Option<&'a Value> {
        self.mark(name.to_owned());
        self.params.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// Parameters and option members given but never read by the op mapping.
    pub fn unused(&self) -> Vec<String> {
        let used = self.used.borrow();
        let mut out: Vec<String> =
            self.params.iter().filter(|(n, _)| !used.iter().any(|u| u == n)).map(|(n, _)| n.to_string()).collect();
        if let Some(Value::Object(m)) = self.options {
            for k in m.keys() {
                if !used.iter().any(|u| u.strip_prefix("options.") == Some(k)) {
                    out.push(format!("options.{k}"));
                }
            }
        }
        out
    }

    fn required(&self, name: &str) -> Result<&'a Value> {
        self.param(name).ok_or_else(|| type_error(format!("the required argument '{name}' is missing")))
    }

    /// A required `MLOperand` parameter.
    pub fn operand(&self, name: &str) -> Result<Operand> {
        operand_ref(self.required(name)?, self.operands, name)
    }

    /// A required `MLOperand` parameter under the first of `names` given.
    pub fn operand_of(&self, names: &[&str]) -> Result<Operand> {
        let first = names.first().copied().unwrap_or("input");
        let v = names.iter().find_map(|n| self.param(n));
        let v = v.ok_or_else(|| type_error(format!("the required argument '{first}' is missing")))?;
        operand_ref(v, self.operands, first)
    }

    /// A required `sequence<MLOperand>` parameter.
    pub fn operands(&self, name: &str) -> Result<Vec<Operand>> {
        sequence(self.required(name)?, name)?.iter().map(|v| operand_ref(v, self.operands, name)).collect()
    }

    /// A required `[EnforceRange] unsigned long` parameter.
    pub fn u32(&self, name: &str) -> Result<u32> {
        enforce_u32(self.required(name)?, name)
    }

    /// A required plain `unsigned long` parameter (wraps modulo 2^32 as JS does).
    pub fn wrapping_u32(&self, name: &str) -> Result<u32> {
        Ok(wrapping_u32(self.required(name)?))
    }

    /// A required `sequence<[EnforceRange] unsigned long>` parameter.
    pub fn u32_list(&self, name: &str) -> Result<Vec<u32>> {
        enforce_u32_list(self.required(name)?, name)
    }

    /// A required `sequence<unsigned long>` parameter.
    pub fn wrapping_u32_list(&self, name: &str) -> Result<Vec<u32>> {
        Ok(sequence(self.required(name)?, name)?.iter().map(wrapping_u32).collect())
    }

    /// A required shape parameter (`newShape`): sizes, or (flexible inputs) `{name, maxSize}`
    /// entries naming the input's dynamic dimensions.
    pub fn dims(&self, name: &str) -> Result<Vec<Dim>> {
        sequence(self.required(name)?, name)?.iter().map(dim).collect()
    }

    /// A required `MLOperandDataType` parameter, under the first of `names` present.
    pub fn data_type(&self, names: &[&str]) -> Result<DataType> {
        let first = names.first().copied().unwrap_or("dataType");
        let v = names.iter().find_map(|n| self.param(n));
        let v = v.ok_or_else(|| type_error(format!("the required argument '{first}' is missing")))?;
        data_type(v, first)
    }

    /// The options dictionary (absent or null means `{}`).
    pub fn opts(&self) -> Result<Opts<'_>> {
        let map = match self.options {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(v) => return Err(type_error(format!("options: {v} is not a dictionary"))),
        };
        let fallback = if self.option_fallback { self.params.clone() } else { Vec::new() };
        Ok(Opts { map, fallback, operands: self.operands, used: &self.used })
    }
}

/// An options dictionary. Every getter returns `None` when the member is absent (or null).
pub struct Opts<'a> {
    map: Option<&'a Map<String, Value>>,
    fallback: Vec<(&'a str, &'a Value)>,
    operands: &'a dyn Operands,
    used: &'a RefCell<Vec<String>>,
}

impl<'a> Opts<'a> {
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.used.borrow_mut().push(format!("options.{key}"));
        let v = self.map.and_then(|m| m.get(key));
        let v = v.or_else(|| self.fallback.iter().find(|(n, _)| *n == key).map(|(_, v)| *v));
        v.filter(|v| !v.is_null())
    }

    /// `label` (USVString, default "").
    pub fn label(&self) -> Result<String> {
        self.get("label").map(string).transpose().map(Option::unwrap_or_default)
    }

    pub fn u32(&self, key: &str) -> Result<Option<u32>> {
        self.get(key).map(|v| enforce_u32(v, key)).transpose()
    }

    pub fn i32(&self, key: &str) -> Result<Option<i32>> {
        self.get(key).map(|v| enforce_i32(v, key)).transpose()
    }

    pub fn f64(&self, key: &str) -> Result<Option<f64>> {
        self.get(key).map(|v| restricted_double(v, key)).transpose()
    }

    pub fn bool(&self, key: &str) -> Option<bool> {
        self.get(key).map(boolean)
    }

    pub fn number(&self, key: &str) -> Result<Option<MLNumber>> {
        self.get(key).map(|v| ml_number(v, key)).transpose()
    }

    pub fn u32_list(&self, key: &str) -> Result<Option<Vec<u32>>> {
        self.get(key).map(|v| enforce_u32_list(v, key)).transpose()
    }

    pub fn f32_list(&self, key: &str) -> Result<Option<Vec<f32>>> {
        self.get(key).map(|v| sequence(v, key)?.iter().map(|x| restricted_float(x, key)).collect()).transpose()
    }

    pub fn operand(&self, key: &str) -> Result<Option<Operand>> {
        self.get(key).map(|v| operand_ref(v, self.operands, key)).transpose()
    }

    pub fn data_type(&self, key: &str) -> Result<Option<DataType>> {
        self.get(key).map(|v| data_type(v, key)).transpose()
    }

    pub fn enum_value<T: Copy>(&self, key: &str, table: &[(&str, T)]) -> Result<Option<T>> {
        self.get(key).map(|v| enum_value(v, table, key)).transpose()
    }

    pub fn enum_list<T: Copy>(&self, key: &str, table: &[(&str, T)]) -> Result<Option<Vec<T>>> {
        self.get(key).map(|v| sequence(v, key)?.iter().map(|x| enum_value(x, table, key)).collect()).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enforce_range_rejects_what_js_rejects() {
        assert_eq!(enforce_u32(&json!(3.7), "x").ok(), Some(3));
        assert!(enforce_u32(&json!(-1), "x").is_err());
        assert!(enforce_u32(&json!(4294967296u64), "x").is_err());
        assert!(enforce_u32(&json!("NaN"), "x").is_err());
        assert!(enforce_u32(&json!([1]), "x").is_err());
        assert_eq!(wrapping_u32(&json!(-1)), u32::MAX);
        assert_eq!(wrapping_u32(&json!(4294967297u64)), 1);
        assert_eq!(enforce_i32(&json!(-3), "x").ok(), Some(-3));
    }

    #[test]
    fn enums_numbers_and_descriptors() {
        let t = [("a", 1), ("b", 2)];
        assert_eq!(enum_value(&json!("b"), &t, "x").ok(), Some(2));
        assert!(enum_value(&json!("c"), &t, "x").is_err());
        assert_eq!(ml_number(&json!("-Infinity"), "x").ok(), Some(MLNumber::Double(f64::NEG_INFINITY)));
        assert_eq!(ml_number(&json!("123456789012345678901"), "x").ok(), Some(MLNumber::BigInt(123456789012345678901)));
        let big = json!({ BIGINT_KEY: "3" });
        assert_eq!(ml_number(&big, "x").ok(), Some(MLNumber::BigInt(3)));
        assert_eq!(enforce_u32(&big, "shape").unwrap_err().kind, webnn_core::ErrorKind::TypeError);
        assert_eq!(restricted_double(&big, "alpha").unwrap_err().kind, webnn_core::ErrorKind::TypeError);
        assert_eq!(string(&big).unwrap(), "3");
        assert!(descriptor(&json!({"dataType": "int16", "shape": [1]})).is_err());
        assert!(descriptor(&json!({"dataType": "float32", "shape": [4294967296u64]})).is_err());
        assert!(descriptor(&json!({"dataType": "float32"})).is_err());
        let d = descriptor(&json!({"dataType": "uint4", "shape": [2, 3]})).ok();
        assert_eq!(d, Some(OperandDescriptor::new(DataType::Uint4, &[2, 3])));
    }
}
