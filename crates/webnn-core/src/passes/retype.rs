//! Float-width rewrites: a float16 graph computed in float32 (what a CPU without fast float16
//! arithmetic runs: storage stays float16 at the edges, every kernel sees float32), and the
//! converse for tests and models (a float32 graph turned into the float16 graph a page would
//! build).

use crate::builder::GraphBuilder;
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::graph::{Graph, Operand, Source};
use crate::ops::{Cast, Op, OpOptions};
use crate::shape::OperandDescriptor;
use half::f16;
use std::sync::Arc;

/// Where the graph's inputs and outputs stand after a retype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// Inputs and outputs keep their data types: a cast after each retyped input and before
    /// each retyped output (the compute-in-float32 rewrite).
    Keep,
    /// Inputs and outputs take the new type too (a model converted to float16).
    Retype,
}

/// `graph` with every operand of type `from` (float16 or float32) made `to` (the other one):
/// constants converted once, `cast` to `from` kept exact (a cast to `from`, then one to `to`,
/// so rounding happens where the graph asked for it), the other nodes re-validated with the
/// new types. Labels are kept, so errors still name the page's ops.
pub fn retype_float(graph: &Graph, from: DataType, to: DataType, edges: Edges) -> Result<Graph> {
    let floats = [DataType::Float16, DataType::Float32];
    if from == to || !floats.contains(&from) || !floats.contains(&to) {
        return Err(Error::type_error(format!("retype from {from} to {to}: only float16 and float32 swap")));
    }
    let mut b = GraphBuilder::new();
    let mut map: Vec<Option<Operand>> = vec![None; graph.operands.len()];
    let retyped = |desc: &OperandDescriptor| OperandDescriptor { data_type: to, shape: desc.shape.clone() };
    let cast = |b: &mut GraphBuilder, input: Operand, data_type: DataType, label: &str| {
        let options = OpOptions { label: label.to_owned() };
        b.add_op(Op::Cast(Cast { input, data_type, options })).map(|o| o[0])
    };
    // An input that only casts read (a float16 cache widened where it is read) stays as it
    // is, and so do those casts: kernels that fuse them read the narrow bytes themselves.
    let only_cast_to = |i: usize| {
        let reads = |n: &&crate::graph::Node| n.op.operands().iter().any(|o| o.index() == i);
        graph.nodes.iter().filter(reads).all(|n| matches!(&n.op, Op::Cast(c) if c.data_type == to))
            && !graph.outputs.iter().any(|(_, y)| y.index() == i)
    };
    for (i, info) in graph.operands.iter().enumerate() {
        let own = info.desc.data_type == from;
        map[i] = match &info.source {
            Source::Input(name) if own && edges == Edges::Keep && only_cast_to(i) => {
                Some(b.input(name, info.desc.clone())?)
            }
            Source::Input(name) if own && edges == Edges::Keep => {
                let x = b.input(name, info.desc.clone())?;
                Some(cast(&mut b, x, to, name)?)
            }
            Source::Input(name) if own => Some(b.input(name, retyped(&info.desc))?),
            Source::Input(name) => Some(b.input(name, info.desc.clone())?),
            Source::Constant(data) if own => Some(b.constant(retyped(&info.desc), convert(data, from))?),
            Source::Constant(data) => Some(b.constant_shared(info.desc.clone(), Arc::clone(data))?),
            Source::Node { .. } => None,
        };
    }
    let missing = || Error::operation_error("the graph is not in topological order");
    for node in &graph.nodes {
        let mut op = node.op.clone();
        for o in op.operands() {
            map[o.index()].ok_or_else(missing)?;
        }
        // Where a value of type `from` leaves the float computation (a comparison, argMin,
        // isInfinite, a cast to another type, quantizeLinear), it is rounded to `from` first,
        // so the result sees the value the graph holds (1e5 is infinite in float16).
        let leaves = node.outputs.iter().any(|&o| graph.desc(o).data_type != from);
        let mut narrowed: Vec<(usize, Operand)> = Vec::new();
        if edges == Edges::Keep && leaves && !matches!(&op, Op::Cast(c) if c.data_type == from) {
            for o in op.operands() {
                let m = map[o.index()].ok_or_else(missing)?;
                if graph.desc(o).data_type == from && b.desc(m)?.data_type == to && !narrowed.iter().any(|(i, _)| *i == o.index()) {
                    narrowed.push((o.index(), cast(&mut b, m, from, node.op.label())?));
                }
            }
        }
        op.remap_operands(&|o: Operand| match narrowed.iter().find(|(i, _)| *i == o.index()) {
            Some((_, n)) => *n,
            None => map[o.index()].unwrap_or(o),
        });
        let outputs = match op {
            Op::Cast(c) if c.data_type == from => {
                let label = c.options.label.clone();
                let narrow = b.add_op(Op::Cast(c))?[0];
                vec![cast(&mut b, narrow, to, &label)?]
            }
            op => b.add_op(op)?,
        };
        for (o, n) in node.outputs.iter().zip(outputs) {
            map[o.index()] = Some(n);
        }
    }
    let mut outputs = Vec::with_capacity(graph.outputs.len());
    for (name, o) in &graph.outputs {
        let mut y = map[o.index()].ok_or_else(missing)?;
        if edges == Edges::Keep && graph.desc(*o).data_type == from {
            y = cast(&mut b, y, from, name)?;
        }
        outputs.push((name.as_str(), y));
    }
    b.build(&outputs)
}

/// The bytes of a `from` constant as the other float type, little-endian.
fn convert(data: &[u8], from: DataType) -> Vec<u8> {
    match from {
        DataType::Float16 => data
            .chunks_exact(2)
            .flat_map(|c| f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32().to_le_bytes())
            .collect(),
        _ => data
            .chunks_exact(4)
            .flat_map(|c| f16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_bits().to_le_bytes())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Binary, OpOptions};

    fn f16_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| f16::from_f32(*x).to_bits().to_le_bytes()).collect()
    }

    /// x (f16 input) + c (f16 constant), then a cast to float16 of the sum: the widened graph
    /// keeps the interface, computes in float32 and keeps the explicit cast's rounding.
    #[test]
    fn widens_inside_and_keeps_the_edges() {
        let mut b = GraphBuilder::new();
        let d = OperandDescriptor::new(DataType::Float16, &[2]);
        let x = b.input("x", d.clone()).unwrap();
        let c = b.constant(d, f16_bytes(&[1.5, -2.0])).unwrap();
        let s = b.add_op(Op::Add(Binary { a: x, b: c, options: OpOptions { label: "sum".into() } })).unwrap()[0];
        let y = b.cast(s, DataType::Float16, OpOptions::default()).unwrap();
        let g = b.build(&[("y", y)]).unwrap();

        let w = retype_float(&g, DataType::Float16, DataType::Float32, Edges::Keep).unwrap();
        assert_eq!(w.input_desc("x").unwrap().data_type, DataType::Float16);
        assert_eq!(w.output_desc("y").unwrap().data_type, DataType::Float16);
        let add = w.nodes.iter().find(|n| matches!(n.op, Op::Add(_))).unwrap();
        assert_eq!(add.op.label(), "sum");
        assert_eq!(w.desc(add.outputs[0]).data_type, DataType::Float32);
        let c32 = w.operands.iter().find_map(|o| match &o.source {
            Source::Constant(bytes) => Some(bytes.clone()),
            _ => None,
        });
        assert_eq!(c32.unwrap().len(), 8, "the constant is stored as float32");
        // input cast, add, cast to f16 (kept), cast back, output cast
        let casts: Vec<DataType> = w
            .nodes
            .iter()
            .filter_map(|n| match &n.op {
                Op::Cast(c) => Some(c.data_type),
                _ => None,
            })
            .collect();
        use DataType::{Float16 as H, Float32 as F};
        assert_eq!(casts, [F, H, F, H]);

        let n = retype_float(&g, DataType::Float16, DataType::Float32, Edges::Retype).unwrap();
        assert_eq!(n.input_desc("x").unwrap().data_type, DataType::Float32);
        assert_eq!(n.output_desc("y").unwrap().data_type, DataType::Float32);
    }

    /// A float16 value leaving the float computation (here through isInfinite) is rounded
    /// to float16 first: the widened sum 60000 + 60000 is infinite as float16.
    #[test]
    fn values_leaving_the_floats_are_narrowed_first() {
        let mut b = GraphBuilder::new();
        let d = OperandDescriptor::new(DataType::Float16, &[1]);
        let x = b.input("x", d).unwrap();
        let s = b.add_op(Op::Add(Binary { a: x, b: x, options: OpOptions::default() })).unwrap()[0];
        let inf = b.add_op(Op::IsInfinite(crate::ops::Unary { input: s, options: OpOptions::default() })).unwrap()[0];
        let g = b.build(&[("inf", inf)]).unwrap();
        let w = retype_float(&g, DataType::Float16, DataType::Float32, Edges::Keep).unwrap();
        let test = w.nodes.iter().find(|n| matches!(n.op, Op::IsInfinite(_))).unwrap();
        assert_eq!(w.desc(test.op.operands()[0]).data_type, DataType::Float16);
        let add = w.nodes.iter().find(|n| matches!(n.op, Op::Add(_))).unwrap();
        assert_eq!(w.desc(add.outputs[0]).data_type, DataType::Float32);
    }

    #[test]
    fn only_floats_swap() {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(DataType::Int32, &[1])).unwrap();
        let y = b.cast(x, DataType::Float32, OpOptions::default()).unwrap();
        let g = b.build(&[("y", y)]).unwrap();
        let e = retype_float(&g, DataType::Int32, DataType::Float32, Edges::Keep).unwrap_err();
        assert!(e.to_string().contains("only float16 and float32"), "{e}");
    }
}
