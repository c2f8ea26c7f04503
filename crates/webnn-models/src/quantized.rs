//! A quantized linear layer as a framework writes it with WebNN primitives, with seeded
//! weights: blockwise `dequantizeLinear` of a 4- or 8-bit weight [n, k] (scale and zero point
//! per block of k), optionally GGUF Q4_1's per-block offset added after dequantizing
//! (reshape to [n, blocks, block], add [n, blocks, 1], reshape back), then
//! `gemm(x, W, bTranspose)`. This is the pattern `webnn_core::fusion::quantized_linears`
//! recognises; the backends' tests and benchmarks build it here.

use crate::rng::Rng;
use webnn_core::ops::{GemmOptions, OpOptions};
use webnn_core::{DataType, Dim, Graph, GraphBuilder, Operand, OperandDescriptor, Result};

/// The layer's shape and weight format.
#[derive(Clone, Copy, Debug)]
pub struct QuantizedLinear {
    /// int4, uint4, int8 or uint8.
    pub weight: DataType,
    /// Output features (weight rows).
    pub n: u32,
    /// Input features (the reduction).
    pub k: u32,
    /// Values per scale and zero point along k.
    pub block: u32,
    /// Whether a float offset per block follows the dequantization (Q4_1).
    pub offset: bool,
    /// Random zero points; false: all zero (GGUF's formats have none).
    pub zero_points: bool,
}

fn floats(rng: &mut Rng, n: u32, lo: f32, hi: f32) -> Vec<u8> {
    rng.fill(n as usize, lo, hi)
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

impl QuantizedLinear {
    /// The layer as a whole graph: float32 input `x` with 1 to `max_rows` rows (the dynamic
    /// dimension `m`), output `y`.
    pub fn graph(&self, max_rows: u32, rng: &mut Rng) -> Result<Graph> {
        let mut b = GraphBuilder::new();
        let rows = Dim::Dynamic { name: "m".into(), max_size: max_rows };
        let x = b.input("x", OperandDescriptor::with_dims(DataType::Float32, vec![rows, self.k.into()]))?;
        let y = self.build(&mut b, x, rng)?;
        b.build(&[("y", y)])
    }

    /// `x · Wᵀ` for `x` [rows, k] float32, with random weights (every bit pattern of the
    /// quantized values, and of the zero points when it has them), scales in [0.01, 0.1) and
    /// offsets in [-0.5, 0.5).
    pub fn build(&self, b: &mut GraphBuilder, x: Operand, rng: &mut Rng) -> Result<Operand> {
        let (n, k, block) = (self.n, self.k, self.block);
        let blocks = k / block;
        let none = OpOptions::default;
        let mut random = |d: &OperandDescriptor| -> Vec<u8> {
            (0..d.max_byte_length().unwrap_or(0))
                .map(|_| (rng.next_u64() >> 24) as u8)
                .collect()
        };
        let qd = OperandDescriptor::new(self.weight, &[n, k]);
        let q = b.constant(qd.clone(), random(&qd))?;
        let zd = OperandDescriptor::new(self.weight, &[n, blocks]);
        let zeros = match self.zero_points {
            true => random(&zd),
            false => vec![0; zd.max_byte_length().unwrap_or(0) as usize],
        };
        let zero = b.constant(zd, zeros)?;
        let scale = b.constant(
            OperandDescriptor::new(DataType::Float32, &[n, blocks]),
            floats(rng, n * blocks, 0.01, 0.1),
        )?;
        let mut w = b.dequantize_linear(q, scale, zero, none())?;
        if self.offset {
            let r = b.reshape(w, vec![n.into(), blocks.into(), block.into()], none())?;
            let off = b.constant(
                OperandDescriptor::new(DataType::Float32, &[n, blocks, 1]),
                floats(rng, n * blocks, -0.5, 0.5),
            )?;
            let sum = b.add(r, off, none())?;
            w = b.reshape(sum, vec![n.into(), k.into()], none())?;
        }
        b.gemm(
            x,
            w,
            GemmOptions {
                b_transpose: true,
                ..Default::default()
            },
        )
    }
}
