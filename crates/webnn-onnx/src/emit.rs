//! The ONNX graph under construction: value names per WebNN operand, node and initializer
//! helpers, and the casts around kernels that ONNX Runtime lacks for a data type.

use crate::proto::{
    attribute_proto::AttributeType, tensor_proto, AttributeProto, NodeProto, TensorProto,
};
use std::collections::HashMap;
use webnn_core::{DataType, Dim, Error, Graph, Operand, OperandDescriptor, Result};

/// The ONNX element type a WebNN operand is held in inside the model. int4/uint4 are held
/// unpacked as int8/uint8 (ONNX Runtime has almost no 4-bit kernels): they are cast from and
/// to their packed types at the model's boundary.
pub fn onnx_type(dt: DataType) -> i32 {
    use tensor_proto::DataType as T;
    (match dt {
        DataType::Float32 => T::Float,
        DataType::Float16 => T::Float16,
        DataType::Int32 => T::Int32,
        DataType::Uint32 => T::Uint32,
        DataType::Int64 => T::Int64,
        DataType::Uint64 => T::Uint64,
        DataType::Int8 | DataType::Int4 => T::Int8,
        DataType::Uint8 | DataType::Uint4 => T::Uint8,
    }) as i32
}

/// The type held in the model for a WebNN type (int4/uint4 become int8/uint8).
pub fn held(dt: DataType) -> DataType {
    match dt {
        DataType::Int4 => DataType::Int8,
        DataType::Uint4 => DataType::Uint8,
        other => other,
    }
}

/// The type arithmetic runs in: ONNX Runtime's CPU kernels reliably cover float32, int32 and
/// int64. float16 is computed in float32 and rounded once (the correctly rounded result);
/// narrow and unsigned integers are widened, and the cast back keeps the low bits, which is
/// WebNN's wrapping integer arithmetic.
pub fn arith(dt: DataType) -> DataType {
    match dt {
        DataType::Float32 | DataType::Float16 => DataType::Float32,
        DataType::Int32 | DataType::Int8 | DataType::Uint8 | DataType::Int4 | DataType::Uint4 => {
            DataType::Int32
        }
        DataType::Int64 | DataType::Uint32 | DataType::Uint64 => DataType::Int64,
    }
}

/// Little-endian bytes of `v` as one element of `dt` (held type).
pub fn scalar_bytes(dt: DataType, v: f64, i: i128) -> Vec<u8> {
    match held(dt) {
        DataType::Float32 => (v as f32).to_le_bytes().to_vec(),
        DataType::Float16 => half::f16::from_f64(v).to_le_bytes().to_vec(),
        DataType::Int32 => (i as i32).to_le_bytes().to_vec(),
        DataType::Uint32 => (i as u32).to_le_bytes().to_vec(),
        DataType::Int64 => (i as i64).to_le_bytes().to_vec(),
        DataType::Uint64 => (i as u64).to_le_bytes().to_vec(),
        DataType::Int8 | DataType::Int4 => vec![i as i8 as u8],
        DataType::Uint8 | DataType::Uint4 => vec![i as u8],
    }
}

/// The ONNX element type of a WebNN type at the model's boundary (inputs, outputs,
/// initializers): int4/uint4 packed two per byte, low nibble first, as WebNN lays them out.
pub fn boundary_type(dt: DataType) -> i32 {
    use tensor_proto::DataType as T;
    match dt {
        DataType::Int4 => T::Int4 as i32,
        DataType::Uint4 => T::Uint4 as i32,
        other => onnx_type(other),
    }
}

pub fn attr_i(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}
pub fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}
pub fn attr_f(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(v),
        ..Default::default()
    }
}
pub fn attr_s(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    }
}

/// Builds the node list of one model.
pub struct Em<'g> {
    pub g: &'g Graph,
    pub nodes: Vec<NodeProto>,
    pub initializers: Vec<TensorProto>,
    values: Vec<Option<String>>,
    counter: usize,
    /// Per dynamic dimension name: a graph input holding it and the axis.
    dim_sources: HashMap<String, (String, usize)>,
    /// Per dynamic dimension name: its size as a 1-D int64 value, once read.
    dim_values: HashMap<String, String>,
    /// `ConvertOptions::normalization_ops`.
    pub normalization_ops: bool,
}

impl<'g> Em<'g> {
    pub fn new(g: &'g Graph) -> Em<'g> {
        Em {
            g,
            nodes: Vec::new(),
            initializers: Vec::new(),
            values: vec![None; g.operands.len()],
            counter: 0,
            dim_sources: HashMap::new(),
            dim_values: HashMap::new(),
            normalization_ops: false,
        }
    }

    pub fn fresh(&mut self, hint: &str) -> String {
        self.counter += 1;
        format!("{hint}_{}", self.counter)
    }

    /// The value holding operand `o` (an operand is defined before any node reads it).
    pub fn v(&self, o: Operand) -> Result<String> {
        self.values
            .get(o.index())
            .cloned()
            .flatten()
            .ok_or_else(|| {
                Error::operation_error(format!("operand {} has no value yet", o.index()))
            })
    }
    pub fn set(&mut self, o: Operand, name: String) {
        self.values[o.index()] = Some(name);
    }
    pub fn dt(&self, o: Operand) -> DataType {
        self.g.desc(o).data_type
    }
    pub fn dims(&self, o: Operand) -> Vec<Dim> {
        self.g.desc(o).shape.clone()
    }

    /// The static size of dimension `axis` of `o`, or a NotSupportedError naming it.
    pub fn static_dim(&self, o: Operand, axis: usize) -> Result<u32> {
        match self.g.desc(o).shape.get(axis) {
            Some(Dim::Static(n)) => Ok(*n),
            Some(d) => Err(Error::not_supported(format!(
                "dimension {axis} ({d}) must be static in the ONNX backend"
            ))),
            None => Err(Error::operation_error(format!("no dimension {axis}"))),
        }
    }

    /// Records where graph input `value` (descriptor `desc`) holds each dynamic dimension.
    pub fn dim_source(&mut self, value: &str, desc: &OperandDescriptor) {
        for (axis, d) in desc.shape.iter().enumerate() {
            if let Dim::Dynamic { name, .. } = d {
                self.dim_sources
                    .entry(name.to_string())
                    .or_insert((value.to_string(), axis));
            }
        }
    }

    /// The size of a dynamic dimension as a 1-D int64 value of one element, read from an
    /// input's shape at run time.
    fn dim_value(&mut self, name: &str) -> Result<String> {
        if let Some(v) = self.dim_values.get(name) {
            return Ok(v.clone());
        }
        let Some((input, axis)) = self.dim_sources.get(name).cloned() else {
            return self.derived_value(name);
        };
        let attrs = vec![attr_i("start", axis as i64), attr_i("end", axis as i64 + 1)];
        let v = self.node("Shape", &[&input], attrs);
        self.dim_values.insert(name.to_string(), v.clone());
        Ok(v)
    }

    /// A derived dimension (`past+1`, from concat along a dynamic axis): the sum of its terms.
    fn derived_value(&mut self, name: &str) -> Result<String> {
        if !name.contains('+') {
            return Err(Error::operation_error(format!(
                "no input gives the size of dimension '{name}'"
            )));
        }
        let mut sum: Option<String> = None;
        for term in name.split('+') {
            let v = match term.parse::<i64>() {
                Ok(n) => self.i64s(&[n]),
                Err(_) => self.dim_value(term)?,
            };
            sum = Some(match sum {
                Some(s) => self.node("Add", &[&s, &v], vec![]),
                None => v,
            });
        }
        let v = sum.unwrap_or_else(|| self.i64s(&[0]));
        self.dim_values.insert(name.to_string(), v.clone());
        Ok(v)
    }

    /// A shape as a 1-D int64 value: a constant when every dimension is static, else the
    /// dynamic sizes read from the inputs and concatenated with the static ones.
    pub fn shape_value(&mut self, dims: &[Dim]) -> Result<String> {
        if let Some(s) = dims
            .iter()
            .map(Dim::as_static)
            .collect::<Option<Vec<u32>>>()
        {
            let s: Vec<i64> = s.iter().map(|&n| n as i64).collect();
            return Ok(self.i64s(&s));
        }
        let mut pieces = Vec::new();
        let mut run: Vec<i64> = Vec::new();
        for d in dims {
            match d {
                Dim::Static(n) => run.push(*n as i64),
                Dim::Dynamic { name, .. } => {
                    if !run.is_empty() {
                        pieces.push(self.i64s(&std::mem::take(&mut run)));
                    }
                    pieces.push(self.dim_value(name)?);
                }
            }
        }
        if !run.is_empty() {
            pieces.push(self.i64s(&run));
        }
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        Ok(self.node("Concat", &refs, vec![attr_i("axis", 0)]))
    }

    /// One dimension as a 0-D int64 value.
    pub fn dim_scalar(&mut self, d: &Dim) -> Result<String> {
        match d {
            Dim::Static(n) => Ok(self.scalar_int(DataType::Int64, *n as i128)),
            Dim::Dynamic { name, .. } => {
                let v = self.dim_value(name)?;
                let empty = self.i64s(&[]);
                Ok(self.node("Reshape", &[&v, &empty], vec![]))
            }
        }
    }
    pub fn rank(&self, o: Operand) -> usize {
        self.g.desc(o).rank()
    }

    pub fn node_n(
        &mut self,
        op: &str,
        inputs: &[&str],
        outputs: usize,
        attrs: Vec<AttributeProto>,
    ) -> Vec<String> {
        let outs: Vec<String> = (0..outputs).map(|_| self.fresh(op)).collect();
        let name = self.fresh(&format!("n_{op}"));
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outs.clone(),
            name: Some(name),
            op_type: Some(op.into()),
            attribute: attrs,
            ..Default::default()
        });
        outs
    }
    pub fn node(&mut self, op: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        self.node_n(op, inputs, 1, attrs).remove(0)
    }

    /// An initializer from held-type bytes.
    pub fn tensor(&mut self, dt: DataType, shape: &[i64], bytes: Vec<u8>) -> String {
        self.initializer(onnx_type(dt), shape, bytes)
    }

    /// An initializer of ONNX element type `elem_type`.
    pub fn initializer(&mut self, elem_type: i32, shape: &[i64], bytes: Vec<u8>) -> String {
        let name = self.fresh("c");
        self.initializers.push(TensorProto {
            name: Some(name.clone()),
            dims: shape.to_vec(),
            data_type: Some(elem_type),
            raw_data: Some(bytes),
            ..Default::default()
        });
        name
    }
    /// A 1-D int64 initializer.
    pub fn i64s(&mut self, v: &[i64]) -> String {
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.tensor(DataType::Int64, &[v.len() as i64], bytes)
    }
    /// A 0-D constant of type `dt` (held), from a float for float types, else an integer.
    pub fn scalar(&mut self, dt: DataType, v: f64) -> String {
        let b = scalar_bytes(dt, v, v as i128);
        self.tensor(held(dt), &[], b)
    }
    pub fn scalar_int(&mut self, dt: DataType, i: i128) -> String {
        let b = scalar_bytes(dt, i as f64, i);
        self.tensor(held(dt), &[], b)
    }

    /// `v` (of held type `from`) as type `to`, a plain ONNX Cast (int to int keeps the low
    /// bits, float to float and int to float round to nearest).
    pub fn cast(&mut self, v: &str, from: DataType, to: DataType) -> String {
        if held(from) == held(to) {
            return v.to_string();
        }
        self.node("Cast", &[v], vec![attr_i("to", onnx_type(to) as i64)])
    }

    /// `v` as an ONNX double (a type WebNN lacks, used for exact intermediate values).
    pub fn as_f64(&mut self, v: &str) -> String {
        self.node(
            "Cast",
            &[v],
            vec![attr_i("to", tensor_proto::DataType::Double as i64)],
        )
    }
    pub fn f64_scalar(&mut self, v: f64) -> String {
        let name = self.fresh("c");
        self.initializers.push(TensorProto {
            name: Some(name.clone()),
            dims: vec![],
            data_type: Some(tensor_proto::DataType::Double as i32),
            raw_data: Some(v.to_le_bytes().to_vec()),
            ..Default::default()
        });
        name
    }

    /// Element-wise maximum (or minimum) of two values of type `ct`. ONNX Runtime's int64
    /// Max, Min and Clip compare only the low 32 bits, so int64 selects by comparison.
    pub fn extreme(&mut self, max: bool, a: &str, b: &str, ct: DataType) -> String {
        if held(ct) == DataType::Int64 {
            let c = self.node(if max { "Greater" } else { "Less" }, &[a, b], vec![]);
            return self.node("Where", &[&c, a, b], vec![]);
        }
        self.node(if max { "Max" } else { "Min" }, &[a, b], vec![])
    }

    /// Operand `o` in type `to`.
    pub fn input_as(&mut self, o: Operand, to: DataType) -> Result<String> {
        let v = self.v(o)?;
        Ok(self.cast(&v, self.dt(o), to))
    }

    /// Binds WebNN output `o` to value `v` computed in type `from`, casting back. Casting
    /// into int4/uint4 keeps the low nibble, sign-extended for int4.
    pub fn output_from(&mut self, o: Operand, v: String, from: DataType) -> Result<()> {
        let to = self.dt(o);
        let v = match to {
            DataType::Int4 | DataType::Uint4 if from != held(to) => self.wrap_nibble(&v, from, to),
            _ => self.cast(&v, from, to),
        };
        self.set(o, v);
        Ok(())
    }

    /// Integer `v` of type `from` reduced to its low 4 bits as int4/uint4 (held as int8/uint8).
    fn wrap_nibble(&mut self, v: &str, from: DataType, to: DataType) -> String {
        let x = self.cast(v, from, DataType::Int32);
        let mask = self.scalar_int(DataType::Int32, 15);
        let low = self.node("BitwiseAnd", &[&x, &mask], vec![]);
        let low = if to == DataType::Int4 {
            // (n ^ 8) - 8 sign-extends a nibble.
            let eight = self.scalar_int(DataType::Int32, 8);
            let flipped = self.node("BitwiseXor", &[&low, &eight], vec![]);
            self.node("Sub", &[&flipped, &eight], vec![])
        } else {
            low
        };
        self.cast(&low, DataType::Int32, to)
    }

    /// Applies one ONNX op element-wise in `ct` to operands cast into it, binding the result
    /// (of type `ct`, or `out_ct` when given) to `out`.
    pub fn simple(
        &mut self,
        op: &str,
        inputs: &[Operand],
        ct: DataType,
        attrs: Vec<AttributeProto>,
        out: Operand,
    ) -> Result<()> {
        let names = inputs
            .iter()
            .map(|&o| self.input_as(o, ct))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let y = self.node(op, &refs, attrs);
        self.output_from(out, y, ct)
    }
}
