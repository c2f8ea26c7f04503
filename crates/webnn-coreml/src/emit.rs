//! The MIL block under construction: a typed value per WebNN operand, operation helpers that
//! declare each output's type (the MIL loader checks every declared type against its own
//! inference), constants inline or in the weight file, and casts to the types MIL ops take.

use crate::proto::specification::mil_spec::{
    argument::{binding, Binding},
    dimension::{self, ConstantDimension},
    tensor_value, value, value_type, Argument, DataType as MilType, Dimension, NamedValueType, Operation,
    TensorType, TensorValue, Value, ValueType,
};
use crate::weights::Weights;
use webnn_core::{DataType, Error, Graph, Operand, Result};

/// The element types a value may have inside the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    F32,
    F16,
    I32,
    I8,
    U8,
    Bool,
}

impl Ty {
    pub fn mil(self) -> MilType {
        match self {
            Ty::F32 => MilType::Float32,
            Ty::F16 => MilType::Float16,
            Ty::I32 => MilType::Int32,
            Ty::I8 => MilType::Int8,
            Ty::U8 => MilType::Uint8,
            Ty::Bool => MilType::Bool,
        }
    }
    /// The `dtype` string of MIL's `cast`.
    pub fn cast_name(self) -> &'static str {
        match self {
            Ty::F32 => "fp32",
            Ty::F16 => "fp16",
            Ty::I32 => "int32",
            Ty::I8 => "int8",
            Ty::U8 => "uint8",
            Ty::Bool => "bool",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F16)
    }
}

/// The type a WebNN operand has in the program. CoreML has no 64-bit or unsigned 32-bit
/// integer tensors, and 4-bit integers only inside compressed weights, so those types have
/// no program type (int4/uint4 constants are widened to int8/uint8 by the caller).
pub fn held(dt: DataType) -> Result<Ty> {
    match dt {
        DataType::Float32 => Ok(Ty::F32),
        DataType::Float16 => Ok(Ty::F16),
        DataType::Int32 => Ok(Ty::I32),
        DataType::Int8 => Ok(Ty::I8),
        DataType::Uint8 => Ok(Ty::U8),
        DataType::Int64 | DataType::Uint64 | DataType::Uint32 | DataType::Int4 | DataType::Uint4 => {
            Err(Error::not_supported(format!("CoreML has no {} tensors", dt.name())))
        }
    }
}

/// The type arithmetic runs in: MIL's arithmetic takes fp16, fp32 and int32 only.
pub fn arith(t: Ty) -> Ty {
    match t {
        Ty::F32 | Ty::F16 => t,
        Ty::I32 | Ty::I8 | Ty::U8 | Ty::Bool => Ty::I32,
    }
}

/// A value of the program: its name, element type and static shape.
#[derive(Clone, Debug, PartialEq)]
pub struct V {
    pub name: String,
    pub ty: Ty,
    pub shape: Vec<usize>,
}

impl V {
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// An operation input: a value, a list of values, or a constant parameter.
pub enum In {
    V(V),
    Vs(Vec<V>),
    /// A 1-D int32 tensor (axes, shapes, permutations...).
    Ints(Vec<i64>),
    /// An int32 scalar.
    Int(i64),
    /// A scalar of a type (floats rounded to it; integers wrapped).
    Num(Ty, f64),
    Bool(bool),
    Str(&'static str),
}

pub fn tensor_type(ty: Ty, shape: &[usize]) -> ValueType {
    ValueType {
        r#type: Some(value_type::Type::TensorType(TensorType {
            data_type: ty.mil() as i32,
            rank: shape.len() as i64,
            dimensions: shape
                .iter()
                .map(|&n| Dimension {
                    dimension: Some(dimension::Dimension::Constant(ConstantDimension { size: n as u64 })),
                })
                .collect(),
            attributes: Default::default(),
        })),
    }
}

/// An immediate tensor value of `ty` from little-endian element bytes as the program holds them.
pub fn immediate(ty: Ty, shape: &[usize], bytes: &[u8]) -> Value {
    let tv = match ty {
        Ty::F32 => tensor_value::Value::Floats(tensor_value::RepeatedFloats {
            values: bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
        }),
        Ty::I32 => tensor_value::Value::Ints(tensor_value::RepeatedInts {
            values: bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
        }),
        Ty::Bool => tensor_value::Value::Bools(tensor_value::RepeatedBools { values: bytes.iter().map(|&b| b != 0).collect() }),
        // MIL stores these types' immediate values as raw little-endian bytes.
        Ty::F16 | Ty::I8 | Ty::U8 => tensor_value::Value::Bytes(tensor_value::RepeatedBytes { values: bytes.to_vec() }),
    };
    Value {
        doc_string: String::new(),
        r#type: Some(tensor_type(ty, shape)),
        value: Some(value::Value::ImmediateValue(value::ImmediateValue {
            value: Some(value::immediate_value::Value::Tensor(TensorValue { value: Some(tv) })),
        })),
    }
}

/// One element of `ty` as little-endian bytes.
pub fn scalar_bytes(ty: Ty, v: f64) -> Vec<u8> {
    match ty {
        Ty::F32 => (v as f32).to_le_bytes().to_vec(),
        Ty::F16 => half::f16::from_f64(v).to_le_bytes().to_vec(),
        Ty::I32 => (v as i64 as i32).to_le_bytes().to_vec(),
        Ty::I8 => vec![v as i64 as i8 as u8],
        Ty::U8 => vec![v as i64 as u8],
        Ty::Bool => vec![(v != 0.0) as u8],
    }
}

fn string_value(s: &str) -> Value {
    Value {
        doc_string: String::new(),
        r#type: Some(ValueType {
            r#type: Some(value_type::Type::TensorType(TensorType {
                data_type: MilType::String as i32,
                rank: 0,
                dimensions: vec![],
                attributes: Default::default(),
            })),
        }),
        value: Some(value::Value::ImmediateValue(value::ImmediateValue {
            value: Some(value::immediate_value::Value::Tensor(TensorValue {
                value: Some(tensor_value::Value::Strings(tensor_value::RepeatedStrings { values: vec![s.to_owned()] })),
            })),
        })),
    }
}

/// Constants with at least this many elements go to the weight file, as coremltools does.
const BLOB_MIN_ELEMENTS: usize = 10;

/// Builds the operation list of one function.
pub struct Em<'g> {
    pub g: &'g Graph,
    /// float32 operands are computed in float16 (`Options::float16`).
    pub float16: bool,
    pub ops: Vec<Operation>,
    pub weights: Weights,
    values: Vec<Option<V>>,
    counter: usize,
}

impl<'g> Em<'g> {
    pub fn new(g: &'g Graph) -> Em<'g> {
        Em { g, float16: false, ops: Vec::new(), weights: Weights::new(), values: vec![None; g.operands.len()], counter: 0 }
    }

    pub fn fresh(&mut self, hint: &str) -> String {
        self.counter += 1;
        format!("{hint}_{}", self.counter)
    }

    /// The value holding operand `o` (an operand is defined before any node reads it).
    pub fn v(&self, o: Operand) -> Result<V> {
        self.values
            .get(o.index())
            .cloned()
            .flatten()
            .ok_or_else(|| Error::operation_error(format!("operand {} has no value", o.index())))
    }

    pub fn set(&mut self, o: Operand, v: V) {
        self.values[o.index()] = Some(v);
    }

    /// The static shape of a WebNN operand.
    pub fn shape(&self, o: Operand) -> Result<Vec<usize>> {
        Ok(self.g.desc(o).require_static("a CoreML tensor")?.iter().map(|&n| n as usize).collect())
    }

    /// The program type of a WebNN operand.
    pub fn ty(&self, o: Operand) -> Result<Ty> {
        self.held(self.g.desc(o).data_type)
    }

    /// The type values of a WebNN type are computed in.
    pub fn held(&self, dt: DataType) -> Result<Ty> {
        match dt {
            DataType::Float32 if self.float16 => Ok(Ty::F16),
            _ => held(dt),
        }
    }

    /// Appends an operation with outputs of the given types and returns them.
    pub fn op_n(&mut self, kind: &str, inputs: Vec<(&str, In)>, outs: Vec<(Ty, Vec<usize>)>) -> Vec<V> {
        let outs: Vec<V> =
            outs.into_iter().map(|(ty, shape)| V { name: self.fresh(kind), ty, shape }).collect();
        let mut op = Operation { r#type: kind.to_owned(), ..Default::default() };
        for (name, input) in inputs {
            let arguments = match input {
                In::V(v) => vec![bind_name(&v.name)],
                In::Vs(vs) => vs.iter().map(|v| bind_name(&v.name)).collect(),
                In::Ints(xs) => {
                    let bytes: Vec<u8> = xs.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect();
                    vec![bind_value(immediate(Ty::I32, &[xs.len()], &bytes))]
                }
                In::Int(x) => vec![bind_value(immediate(Ty::I32, &[], &(x as i32).to_le_bytes()))],
                In::Num(ty, x) => vec![bind_value(immediate(ty, &[], &scalar_bytes(ty, x)))],
                In::Bool(b) => vec![bind_value(immediate(Ty::Bool, &[], &[b as u8]))],
                In::Str(s) => vec![bind_value(string_value(s))],
            };
            op.inputs.insert(name.to_owned(), Argument { arguments });
        }
        op.outputs =
            outs.iter().map(|v| NamedValueType { name: v.name.clone(), r#type: Some(tensor_type(v.ty, &v.shape)) }).collect();
        self.ops.push(op);
        outs
    }

    /// Appends an operation with one output.
    pub fn op(&mut self, kind: &str, inputs: Vec<(&str, In)>, ty: Ty, shape: Vec<usize>) -> V {
        self.op_n(kind, inputs, vec![(ty, shape)]).remove(0)
    }

    /// A constant tensor from element bytes in `ty`'s layout: large ones in the weight file.
    pub fn constant(&mut self, ty: Ty, shape: &[usize], bytes: &[u8]) -> V {
        let name = self.fresh("const");
        let elements: usize = shape.iter().product();
        let val = if elements >= BLOB_MIN_ELEMENTS && ty != Ty::Bool {
            let offset = self.weights.add(ty, bytes);
            Value {
                doc_string: String::new(),
                r#type: Some(tensor_type(ty, shape)),
                value: Some(value::Value::BlobFileValue(value::BlobFileValue {
                    file_name: crate::WEIGHT_PATH.to_owned(),
                    offset,
                })),
            }
        } else {
            immediate(ty, shape, bytes)
        };
        let mut op = Operation { r#type: "const".into(), ..Default::default() };
        op.attributes.insert("name".into(), string_value(&name));
        op.attributes.insert("val".into(), val);
        op.outputs = vec![NamedValueType { name: name.clone(), r#type: Some(tensor_type(ty, shape)) }];
        self.ops.push(op);
        V { name, ty, shape: shape.to_vec() }
    }

    /// A scalar constant value.
    pub fn scalar(&mut self, ty: Ty, v: f64) -> V {
        self.constant(ty, &[], &scalar_bytes(ty, v))
    }

    /// `v` cast to `ty` (itself when it already has that type).
    pub fn cast(&mut self, v: &V, ty: Ty) -> V {
        if v.ty == ty {
            return v.clone();
        }
        self.op("cast", vec![("x", In::V(v.clone())), ("dtype", In::Str(ty.cast_name()))], ty, v.shape.clone())
    }

    /// `v` in the type arithmetic runs in.
    pub fn arith(&mut self, v: &V) -> V {
        self.cast(v, arith(v.ty))
    }

    /// An element-wise op of one input that keeps its type and shape.
    pub fn unary(&mut self, kind: &str, x: &V, extra: Vec<(&str, In)>) -> V {
        let mut inputs = vec![("x", In::V(x.clone()))];
        inputs.extend(extra);
        self.op(kind, inputs, x.ty, x.shape.clone())
    }

    /// A broadcasting binary op (inputs of one type); `out` is the result type.
    pub fn binary(&mut self, kind: &str, x: &V, y: &V, out: Ty) -> V {
        let shape = broadcast(&x.shape, &y.shape);
        self.op(kind, vec![("x", In::V(x.clone())), ("y", In::V(y.clone()))], out, shape)
    }

    /// A broadcasting arithmetic op whose result has the inputs' type.
    pub fn arith2(&mut self, kind: &str, x: &V, y: &V) -> V {
        self.binary(kind, x, y, x.ty)
    }

    /// `x` op a scalar of `x`'s type.
    pub fn with_scalar(&mut self, kind: &str, x: &V, s: f64) -> V {
        let c = self.scalar(x.ty, s);
        self.arith2(kind, x, &c)
    }

    pub fn reshape(&mut self, x: &V, shape: Vec<usize>) -> V {
        if x.shape == shape {
            return x.clone();
        }
        let s: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
        self.op("reshape", vec![("x", In::V(x.clone())), ("shape", In::Ints(s))], x.ty, shape)
    }

    pub fn transpose(&mut self, x: &V, perm: &[usize]) -> V {
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return x.clone();
        }
        let shape = perm.iter().map(|&p| x.shape[p]).collect();
        let p = perm.iter().map(|&p| p as i64).collect();
        self.op("transpose", vec![("x", In::V(x.clone())), ("perm", In::Ints(p))], x.ty, shape)
    }

    /// Binds a node's output, casting the computed value to the operand's program type.
    pub fn bind(&mut self, o: Operand, v: V) -> Result<()> {
        let ty = self.ty(o)?;
        let shape = self.shape(o)?;
        let v = self.cast(&v, ty);
        let v = self.reshape(&v, shape);
        self.set(o, v);
        Ok(())
    }
}

fn bind_name(name: &str) -> Binding {
    Binding { binding: Some(binding::Binding::Name(name.to_owned())) }
}

fn bind_value(v: Value) -> Binding {
    Binding { binding: Some(binding::Binding::Value(v)) }
}

/// Numpy-style broadcasting of two static shapes.
pub fn broadcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|i| {
            let da = if i + a.len() >= rank { a[i + a.len() - rank] } else { 1 };
            let db = if i + b.len() >= rank { b[i + b.len() - rank] } else { 1 };
            if da == 1 {
                db
            } else {
                da
            }
        })
        .collect()
}
