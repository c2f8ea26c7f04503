//! Fused 4-bit quantized products (`webnn_core::fusion::QuantizedLinear`) as ONNX Runtime's
//! `com.microsoft.MatMulNBits` (`ConvertOptions::matmul_nbits`). The weight stays 4-bit and
//! ONNX Runtime's blockwise kernels read it; through the standard ops, the session build folds
//! the dequantization into float32 weights (8 times the bytes per decode step, and gigabytes
//! of intermediates while folding).
//!
//! MatMulNBits computes x · ((q - z) * scale)ᵀ on unsigned codes: signed weights and zero
//! points become unsigned by adding 8 (128 for 8 bits), flipping each code's top bit, which
//! leaves q - z as it was.
//! Q4_1's per-block offset adds, per block, the offset times the block's sum of x: a
//! [m, blocks] × [blocks, n] product. The sums are regrouped, so results differ from the op
//! by op model in rounding only.

use crate::emit::{attr_i, Em};
use crate::proto::{tensor_proto, NodeProto};
use webnn_core::fusion::QuantizedLinear;
use webnn_core::{DataType, Error, Graph, Operand, Result, Source};

/// ONNX Runtime's contrib operator domain.
pub const DOMAIN: &str = "com.microsoft";

/// The matches MatMulNBits runs: 4-bit weights in blocks of a power of two from 16. (8-bit
/// ones convert too, but ONNX Runtime 1.31's CPU kernel decoded SmolLM2 at 8-9 tok/s with its
/// 8-bit embedding as MatMulNBits against 46 tok/s with it folded to float32.)
pub fn matches(g: &Graph) -> Vec<QuantizedLinear> {
    webnn_core::fusion::quantized_linears(g)
        .into_iter()
        .filter(|q| {
            matches!(g.desc(q.weight).data_type, DataType::Int4 | DataType::Uint4)
                && q.block >= 16
                && q.block.is_power_of_two()
        })
        .collect()
}

fn bytes(g: &Graph, o: Operand) -> Result<&[u8]> {
    match &g.info(o).source {
        Source::Constant(data) => Ok(data),
        _ => Err(Error::operation_error("a fused quantized product reads a non-constant weight")),
    }
}

/// Code i of packed `bits`-bit codes (low bits first).
fn code(bytes: &[u8], i: usize, bits: usize) -> u8 {
    let per = 8 / bits;
    (bytes[i / per] >> (bits * (i % per))) & ((1u16 << bits) - 1) as u8
}

/// `q`'s gemm as MatMulNBits (plus the offset's product), bound to the gemm's output `out`.
pub fn lower(em: &mut Em, q: &QuantizedLinear, out: Operand) -> Result<()> {
    let g = em.g;
    let (n, k, block) = (q.n as usize, q.k as usize, q.block as usize);
    let blocks = k / block;
    let t = g.desc(q.weight).data_type;
    let bits = t.bits() as usize;
    // Signed codes to unsigned: + 2^(bits - 1), the top bit of every code flipped.
    let flip: u8 = match t {
        DataType::Int4 => 0x88,
        DataType::Int8 => 0x80,
        _ => 0,
    };
    let weight = bytes(g, q.weight)?;
    if weight.len() != n * k * bits / 8 {
        return Err(Error::operation_error("a quantized weight's bytes do not match its shape"));
    }
    // Row-major packed [n, k] is already [n, blocks, block * bits / 8].
    let b: Vec<u8> = weight.iter().map(|w| w ^ flip).collect();
    let b = em.tensor(DataType::Uint8, &[n as i64, blocks as i64, (block * bits / 8) as i64], b);
    let scale = em.initializer(tensor_proto::DataType::Float as i32, &[(n * blocks) as i64], bytes(g, q.scale)?.to_vec());
    // Zero points: each weight row's blocks start on a byte of their own.
    let zero = bytes(g, q.zero_point)?;
    let per = 8 / bits;
    let row = blocks.div_ceil(per);
    let mut z = vec![0u8; n * row];
    for j in 0..n {
        for c in 0..blocks {
            let v = code(zero, j * blocks + c, bits) ^ (flip & ((1u16 << bits) - 1) as u8);
            z[j * row + c / per] |= v << (bits * (c % per));
        }
    }
    let z = em.tensor(DataType::Uint8, &[(n * row) as i64], z);
    let x = em.v(q.input)?;
    let y = em.fresh("MatMulNBits");
    let name = em.fresh("n_MatMulNBits");
    em.nodes.push(NodeProto {
        input: vec![x.clone(), b, scale, z],
        output: vec![y.clone()],
        name: Some(name),
        op_type: Some("MatMulNBits".into()),
        domain: Some(DOMAIN.into()),
        attribute: vec![
            attr_i("K", k as i64),
            attr_i("N", n as i64),
            attr_i("bits", bits as i64),
            attr_i("block_size", block as i64),
        ],
        ..Default::default()
    });
    let y = match q.offset {
        None => y,
        Some(offset) => {
            // offset [n, blocks, 1] as [blocks, n].
            let off = bytes(g, offset)?;
            let mut t = Vec::with_capacity(off.len());
            for c in 0..blocks {
                for j in 0..n {
                    let at = 4 * (j * blocks + c);
                    t.extend_from_slice(&off[at..at + 4]);
                }
            }
            let t = em.initializer(tensor_proto::DataType::Float as i32, &[blocks as i64, n as i64], t);
            let split = em.i64s(&[-1, blocks as i64, block as i64]);
            let r = em.node("Reshape", &[&x, &split], vec![]);
            let axes = em.i64s(&[2]);
            let sums = em.node("ReduceSum", &[&r, &axes], vec![attr_i("keepdims", 0)]);
            let extra = em.node("MatMul", &[&sums, &t], vec![]);
            em.node("Add", &[&y, &extra], vec![])
        }
    };
    em.set(out, y);
    Ok(())
}
