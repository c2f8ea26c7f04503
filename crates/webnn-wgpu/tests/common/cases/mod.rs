//! One small graph per (op, data type): odd sizes so packed types straddle words, broadcast
//! operands, non-default options. `cases(kind, t)` gives every graph that exercises `kind`
//! with `t` as the type of its first operand (several when options or other slots vary);
//! none when the op table rejects `t`.

mod elementwise;
mod movement;
mod products;
mod rows;

use webnn_core::ops::*;
use webnn_core::{DataType, Graph, GraphBuilder, HostTensor, OpKind, Operand, OperandDescriptor};
use webnn_cpu::Tensor;

/// The shape of most cases' main operand: 105 elements, no multiple of a packed word.
const SHAPE: [u32; 3] = [3, 5, 7];

/// Some(()) for the variants below `n` (the ones a case has).
fn only(v: u32, n: u32) -> Option<()> {
    (v < n).then_some(())
}

type Unary<'a> = &'a dyn Fn(&mut GraphBuilder, Operand) -> webnn_core::Result<Operand>;
type Binary<'a> = &'a dyn Fn(&mut GraphBuilder, Operand, Operand) -> webnn_core::Result<Operand>;

/// A graph and the tensors for its inputs.
pub struct Case {
    pub name: String,
    pub graph: Graph,
    pub feeds: Vec<(String, HostTensor)>,
}

struct B {
    b: GraphBuilder,
    feeds: Vec<(String, HostTensor)>,
    seed: u64,
}

fn rand(seed: &mut u64) -> f64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    (*seed >> 11) as f64 / (1u64 << 53) as f64
}

/// Values spread over the type: floats in [-4, 4), integers over a range that keeps sums
/// and products interesting (64-bit ones beyond 32 bits).
fn values(t: DataType, n: usize, seed: &mut u64) -> Tensor {
    let shape = vec![n];
    if t.is_float() {
        let v: Vec<f64> = (0..n).map(|_| rand(seed) * 8.0 - 4.0).collect();
        return Tensor::from_f64(t, shape, &v);
    }
    let (lo, hi): (f64, f64) = match t {
        DataType::Int4 => (-8.0, 8.0),
        DataType::Uint4 => (0.0, 16.0),
        DataType::Int8 => (-128.0, 128.0),
        DataType::Uint8 => (0.0, 256.0),
        DataType::Int32 => (-1000.0, 1000.0),
        DataType::Uint32 => (0.0, 2000.0),
        DataType::Int64 => (-3e12, 3e12),
        _ => (0.0, 6e12),
    };
    let v: Vec<i128> = (0..n)
        .map(|_| (lo + (hi - lo) * rand(seed)).floor() as i128)
        .collect();
    Tensor::from_i128(t, shape, &v)
}

fn count(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

impl B {
    fn new(seed: u64) -> B {
        B {
            b: GraphBuilder::new(),
            feeds: Vec::new(),
            seed: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }
    fn feed(&mut self, t: DataType, shape: &[u32], data: Tensor) -> Option<Operand> {
        let name = format!("in{}", self.feeds.len());
        let desc = OperandDescriptor::new(t, shape);
        let o = self.b.input(&name, desc.clone()).ok()?;
        self.feeds.push((
            name,
            HostTensor {
                desc,
                bytes: data.to_bytes(),
            },
        ));
        Some(o)
    }
    fn x(&mut self, t: DataType, shape: &[u32]) -> Option<Operand> {
        let data = values(t, count(shape), &mut self.seed);
        self.feed(t, shape, data)
    }
    /// Values in [lo, hi) (for sizes, indices and conditions).
    fn ints(&mut self, t: DataType, shape: &[u32], lo: i128, hi: i128) -> Option<Operand> {
        let n = count(shape);
        let v: Vec<i128> = (0..n)
            .map(|_| lo + (rand(&mut self.seed) * (hi - lo) as f64) as i128)
            .collect();
        self.feed(t, shape, Tensor::from_i128(t, vec![n], &v))
    }
    fn given(&mut self, t: DataType, shape: &[u32], v: &[i128]) -> Option<Operand> {
        self.feed(t, shape, Tensor::from_i128(t, vec![v.len()], v))
    }
    fn floats(&mut self, t: DataType, shape: &[u32], lo: f64, hi: f64) -> Option<Operand> {
        let n = count(shape);
        let v: Vec<f64> = (0..n)
            .map(|_| lo + (hi - lo) * rand(&mut self.seed))
            .collect();
        self.feed(t, shape, Tensor::from_f64(t, vec![n], &v))
    }
    /// `f` of an input of type `t` and shape SHAPE.
    fn unary(&mut self, t: DataType, f: Unary) -> Option<Operand> {
        let x = self.x(t, &SHAPE)?;
        f(&mut self.b, x).ok()
    }
    /// `f` of two inputs of type `t`: broadcast (variant 0) or of one shape.
    fn binary(&mut self, t: DataType, v: u32, f: Binary) -> Option<Operand> {
        let (x, y) = if v == 0 {
            (self.x(t, &SHAPE)?, self.x(t, &[5, 1])?)
        } else {
            (self.x(t, &[6, 9])?, self.x(t, &[6, 9])?)
        };
        f(&mut self.b, x, y).ok()
    }
    fn done(mut self, name: String, outs: &[Operand]) -> Option<Case> {
        let named: Vec<(String, Operand)> = outs
            .iter()
            .enumerate()
            .map(|(k, &o)| (format!("out{k}"), o))
            .collect();
        let refs: Vec<(&str, Operand)> = named.iter().map(|(n, o)| (n.as_str(), *o)).collect();
        let graph = self.b.build(&refs).ok()?;
        Some(Case {
            name,
            graph,
            feeds: self.feeds,
        })
    }
}

fn o() -> OpOptions {
    OpOptions::default()
}

fn num(v: f64) -> Option<MLNumber> {
    Some(MLNumber::Double(v))
}

/// Every case of `kind` with first-operand type `t`.
pub fn cases(kind: OpKind, t: DataType) -> Vec<Case> {
    let mut out = Vec::new();
    for variant in 0..6 {
        if let Some(c) = case(kind, t, variant) {
            out.push(c);
        }
    }
    out
}

/// Variant `v` of the cases of (kind, t), if there is one.
fn case(kind: OpKind, t: DataType, v: u32) -> Option<Case> {
    let mut b = B::new(kind as u64 * 131 + t as u64 * 7 + v as u64);
    let name = format!("{kind:?} {t} #{v}");
    let outs = match kind.family() {
        Family::Elementwise | Family::Activation | Family::Quantization => {
            elementwise::outs(&mut b, kind, t, v)
        }
        Family::Reduction | Family::Pool | Family::Normalization => rows::outs(&mut b, kind, t, v),
        Family::Conv | Family::Matmul | Family::Recurrent => products::outs(&mut b, kind, t, v),
        Family::Gather | Family::Shape => movement::outs(&mut b, kind, t, v),
    }?;
    b.done(name, &outs)
}
