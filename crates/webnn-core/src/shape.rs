//! Dimensions (static or bounded-dynamic) and operand descriptors.

use crate::dtype::DataType;
use crate::error::{Error, Result};
use std::fmt;
use std::sync::Arc;

/// The largest dimension size: the IDL's `[EnforceRange] unsigned long`.
pub const MAX_DIM: u64 = u32::MAX as u64;

/// A dimension: a fixed size, or a named size bounded by `max_size` that is supplied at
/// dispatch (the flexible-input extension; dimensions with one name always agree).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Static(u32),
    Dynamic { name: Arc<str>, max_size: u32 },
}

impl Dim {
    /// The static size, if the dimension is static.
    pub fn as_static(&self) -> Option<u32> {
        match self {
            Dim::Static(n) => Some(*n),
            Dim::Dynamic { .. } => None,
        }
    }
    /// The size buffers are planned at: the size, or the bound.
    pub fn max_size(&self) -> u32 {
        match self {
            Dim::Static(n) => *n,
            Dim::Dynamic { max_size, .. } => *max_size,
        }
    }
    pub fn is_dynamic(&self) -> bool {
        matches!(self, Dim::Dynamic { .. })
    }

    /// The sum of dimensions (concat along a dynamic axis): static when both are, otherwise a
    /// derived dimension named by its terms (`past+1`, `a+b`), bounded by the sum of bounds.
    /// None when the bound overflows.
    pub fn sum(&self, other: &Dim) -> Option<Dim> {
        let (mut names, mut constant) = (Vec::new(), 0u64);
        for d in [self, other] {
            match d {
                Dim::Static(n) => constant += *n as u64,
                Dim::Dynamic { name, .. } => {
                    let (terms, c) = derived_terms(name)?;
                    names.extend(terms);
                    constant += c;
                }
            }
        }
        let bound = self.max_size() as u64 + other.max_size() as u64;
        let bound = u32::try_from(bound).ok()?;
        if names.is_empty() {
            return Some(Dim::Static(bound));
        }
        names.sort_unstable();
        let mut name = names.join("+");
        if constant > 0 {
            name = format!("{name}+{constant}");
        }
        Some(Dim::Dynamic { name: name.into(), max_size: bound })
    }
}

/// Whether `name` may name a dynamic dimension of a graph input: a non-empty name of
/// letters, digits, `_`, `-` and `.`, not starting with a digit (`+` is kept for derived
/// dimensions such as `past+1`).
pub fn valid_dim_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A term of a (possibly derived) dimension name (`past+1`): a named part or a constant.
enum Term<'a> {
    Name(&'a str),
    Constant(u64),
}

/// The terms of a dimension name, one by one (`DimBindings::get` sums them without
/// collecting them: the wgpu backend asks for `past+1` some 300 times per decode step).
fn terms(name: &str) -> impl Iterator<Item = Term<'_>> {
    name.split('+').map(|t| t.parse::<u64>().map_or(Term::Name(t), Term::Constant))
}

/// The terms of a (possibly derived) dimension name: the named parts and the constant.
fn derived_terms(name: &str) -> Option<(Vec<&str>, u64)> {
    let (mut names, mut constant) = (Vec::new(), 0u64);
    for term in terms(name) {
        match term {
            Term::Constant(n) => constant = constant.checked_add(n)?,
            Term::Name(n) => names.push(n),
        }
    }
    Some((names, constant))
}

impl From<u32> for Dim {
    fn from(n: u32) -> Dim {
        Dim::Static(n)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Dynamic { name, max_size } => write!(f, "{name}<={max_size}"),
        }
    }
}

/// `MLOperandDescriptor`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OperandDescriptor {
    pub data_type: DataType,
    pub shape: Vec<Dim>,
}

impl OperandDescriptor {
    pub fn new(data_type: DataType, shape: &[u32]) -> OperandDescriptor {
        OperandDescriptor { data_type, shape: shape.iter().map(|&n| Dim::Static(n)).collect() }
    }
    pub fn with_dims(data_type: DataType, shape: Vec<Dim>) -> OperandDescriptor {
        OperandDescriptor { data_type, shape }
    }
    /// Same shape, another data type.
    pub fn with_type(&self, data_type: DataType) -> OperandDescriptor {
        OperandDescriptor { data_type, shape: self.shape.clone() }
    }
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    pub fn is_static(&self) -> bool {
        self.shape.iter().all(|d| !d.is_dynamic())
    }
    /// The shape as numbers, if every dimension is static.
    pub fn static_shape(&self) -> Option<Vec<u32>> {
        self.shape.iter().map(Dim::as_static).collect()
    }
    /// The shape as numbers, or a NotSupportedError naming `what` when a dimension is dynamic.
    pub fn require_static(&self, what: &str) -> Result<Vec<u32>> {
        self.static_shape().ok_or_else(|| {
            Error::not_supported(format!("{what} must have static dimensions, got {}", self.shape_string()))
        })
    }
    /// The shape at the bounds of its dynamic dimensions.
    pub fn max_shape(&self) -> Vec<u32> {
        self.shape.iter().map(Dim::max_size).collect()
    }
    /// Element count at the bounds (saturating at u64::MAX).
    pub fn max_elements(&self) -> u64 {
        self.shape.iter().fold(1u64, |acc, d| acc.saturating_mul(d.max_size() as u64))
    }
    /// Byte length at the bounds (packed for int4/uint4); None if it overflows.
    pub fn max_byte_length(&self) -> Option<u64> {
        let mut n: u64 = 1;
        for d in &self.shape {
            n = n.checked_mul(d.max_size() as u64)?;
        }
        self.data_type.byte_length(n)
    }
    pub fn shape_string(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        format!("[{}]", dims.join(", "))
    }
}

impl fmt::Display for OperandDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.data_type, self.shape_string())
    }
}

/// The sizes of a graph's named dynamic dimensions for one dispatch, read from the tensors
/// bound to its inputs (flexible inputs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DimBindings {
    sizes: Vec<(Arc<str>, u32)>,
}

impl DimBindings {
    /// `d` at its size here: static as it is, dynamic at its bound size or, where unbound,
    /// at its bound (`max_size`).
    pub fn fixed(&self, d: &Dim) -> Dim {
        match d {
            Dim::Static(n) => Dim::Static(*n),
            Dim::Dynamic { name, max_size } => Dim::Static(self.get(name).unwrap_or(*max_size)),
        }
    }

    /// The size bound to `name`; a derived name (`past+1`) is the sum of its terms.
    pub fn get(&self, name: &str) -> Option<u32> {
        if let Some(&(_, s)) = self.sizes.iter().find(|(n, _)| &**n == name) {
            return Some(s);
        }
        let (mut names, mut constant, mut total) = (0usize, 0u64, 0u64);
        for term in terms(name) {
            match term {
                Term::Constant(n) => constant = constant.checked_add(n)?,
                Term::Name(n) => {
                    names += 1;
                    let (_, s) = self.sizes.iter().find(|(m, _)| &**m == n)?;
                    total += *s as u64;
                }
            }
        }
        if names + usize::from(constant > 0) < 2 {
            return None;
        }
        u32::try_from(total.checked_add(constant)?).ok()
    }

    /// Matches the actual shape of the tensor for input `input` against its descriptor: static
    /// dimensions exactly, a dynamic one within 1..=maxSize and equal to every other dimension
    /// of its name. Each failure is a TypeError naming the input and the dimension.
    pub fn bind(&mut self, input: &str, desc: &OperandDescriptor, actual: &[u32]) -> Result<()> {
        let err = |rule: String| Err(Error::type_error(format!("input '{input}': {rule}")));
        if actual.len() != desc.rank() {
            return err(format!("the tensor has rank {}, the input {}", actual.len(), desc.shape_string()));
        }
        for (axis, (d, &n)) in desc.shape.iter().zip(actual).enumerate() {
            match d {
                Dim::Static(s) if *s != n => {
                    return err(format!("dimension {axis} is {s}, the tensor has {n}"));
                }
                Dim::Static(_) => {}
                Dim::Dynamic { name, max_size } => {
                    if n == 0 || n > *max_size {
                        return err(format!("dimension {axis} '{name}' must be 1 to {max_size}, the tensor has {n}"));
                    }
                    match self.get(name) {
                        Some(bound) if bound != n => {
                            return err(format!(
                                "dimension {axis} '{name}' is {n}, but another input gives '{name}' = {bound}"
                            ))
                        }
                        Some(_) => {}
                        None => self.sizes.push((name.clone(), n)),
                    }
                }
            }
        }
        Ok(())
    }

    /// The actual shape of `desc` under these sizes (an OperationError for a dynamic dimension
    /// no input named, which validation does not let through).
    pub fn shape(&self, desc: &OperandDescriptor) -> Result<Vec<u32>> {
        desc.shape
            .iter()
            .map(|d| match d {
                Dim::Static(n) => Ok(*n),
                Dim::Dynamic { name, .. } => self
                    .get(name)
                    .ok_or_else(|| Error::operation_error(format!("no input gives the size of dimension '{name}'"))),
            })
            .collect()
    }
}

/// Row-major strides of a static shape.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Unidirectional/bidirectional broadcasting of two dimension lists
/// (<https://www.w3.org/TR/webnn/#algorithm-broadcast-shapes>). Dynamic dimensions broadcast
/// against 1 and against a dynamic dimension of the same name.
pub fn broadcast_shapes(a: &[Dim], b: &[Dim], bidirectional: bool) -> Option<Vec<Dim>> {
    let rank = if bidirectional { a.len().max(b.len()) } else { a.len() };
    if !bidirectional && b.len() > a.len() {
        return None;
    }
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let da = if i + a.len() >= rank { Some(&a[i + a.len() - rank]) } else { None };
        let db = if i + b.len() >= rank { Some(&b[i + b.len() - rank]) } else { None };
        let d = match (da, db) {
            (Some(x), None) => x.clone(),
            (None, Some(y)) => y.clone(),
            (Some(x), Some(y)) => {
                if x == y || *y == Dim::Static(1) {
                    x.clone()
                } else if *x == Dim::Static(1) && bidirectional {
                    y.clone()
                } else {
                    return None;
                }
            }
            (None, None) => unreachable!("index within rank"),
        };
        out.push(d);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_check_bounds_names_and_static_sizes() {
        let seq = Dim::Dynamic { name: "seq".into(), max_size: 8 };
        let a = OperandDescriptor::with_dims(DataType::Float32, vec![seq.clone(), Dim::Static(4)]);
        let b = OperandDescriptor::with_dims(DataType::Float32, vec![Dim::Static(1), seq]);
        let mut dims = DimBindings::default();
        dims.bind("a", &a, &[3, 4]).unwrap();
        dims.bind("b", &b, &[1, 3]).unwrap();
        assert_eq!(dims.shape(&a).unwrap(), [3, 4]);
        let kind = |r: Result<()>| r.unwrap_err().kind;
        assert_eq!(kind(DimBindings::default().bind("a", &a, &[9, 4])), crate::ErrorKind::TypeError, "above maxSize");
        assert_eq!(kind(DimBindings::default().bind("a", &a, &[0, 4])), crate::ErrorKind::TypeError, "zero");
        assert_eq!(kind(DimBindings::default().bind("a", &a, &[3, 5])), crate::ErrorKind::TypeError, "static");
        assert_eq!(kind(dims.clone().bind("b", &b, &[1, 2])), crate::ErrorKind::TypeError, "names agree");
        let msg = dims.bind("b", &b, &[1, 2]).unwrap_err().to_string();
        assert!(msg.contains("'b'") && msg.contains("'seq'"), "{msg}");
    }

    #[test]
    fn derived_dimensions_sum_their_terms() {
        let past = Dim::Dynamic { name: "past".into(), max_size: 15 };
        let seq = Dim::Dynamic { name: "seq".into(), max_size: 4 };
        let one = past.sum(&Dim::Static(1)).unwrap();
        assert_eq!(one, Dim::Dynamic { name: "past+1".into(), max_size: 16 });
        let both = seq.sum(&past).unwrap();
        assert_eq!(both, Dim::Dynamic { name: "past+seq".into(), max_size: 19 });
        assert_eq!(both.sum(&Dim::Static(2)).unwrap().to_string(), "past+seq+2<=21");
        assert_eq!(Dim::Static(2).sum(&Dim::Static(3)), Some(Dim::Static(5)));
        assert_eq!(past.sum(&Dim::Static(u32::MAX)), None, "bound overflows");
        let mut dims = DimBindings::default();
        let d = OperandDescriptor::with_dims(DataType::Float32, vec![past, seq]);
        dims.bind("x", &d, &[7, 2]).unwrap();
        assert_eq!(dims.get("past+1"), Some(8));
        assert_eq!(dims.get("past+seq+2"), Some(11));
        assert_eq!(dims.get("other+1"), None);
        assert!(valid_dim_name("past") && valid_dim_name("_k.v-2"));
        assert!(!valid_dim_name("past+1") && !valid_dim_name("1x") && !valid_dim_name(""));
    }
}
