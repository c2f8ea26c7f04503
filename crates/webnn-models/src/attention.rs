//! Grouped-query attention over a `[total, kv_heads * head_dim]` key/value cache as a
//! framework writes it with WebNN primitives (the pattern `webnn_core::fusion::attentions`
//! recognises); the backends' tests build it here.

use webnn_core::ops::{MLNumber, OpOptions, TransposeOptions};
use webnn_core::{DataType, Dim, GraphBuilder, Operand, Result};

/// The heads and scores of an [`attention`].
#[derive(Clone, Debug)]
pub struct AttentionShape {
    pub kv_heads: u32,
    pub head_dim: u32,
    /// The cached rows (`keys` and `values` are `[total, kv_heads * head_dim]`).
    pub total: Dim,
    /// Multiplies every score.
    pub scale: f64,
    /// The score where the mask is 0.
    pub masked: f64,
}

/// `softmax(where(mask, (q · kᵀ) * scale, masked)) · v` per kv head, for `q`
/// `[kv_heads, group, seq, head_dim]` and a uint8 `mask` `[seq, total]`; the keys and values
/// are viewed per head by reshape and transpose.
pub fn attention(b: &mut GraphBuilder, s: &AttentionShape, q: Operand, keys: Operand, values: Operand, mask: Operand) -> Result<Operand> {
    let none = OpOptions::default;
    let view = |b: &mut GraphBuilder, x, perm: Vec<u32>| -> Result<Operand> {
        let r = b.reshape(x, vec![s.total.clone(), s.kv_heads.into(), 1.into(), s.head_dim.into()], none())?;
        b.transpose(r, TransposeOptions { permutation: Some(perm), ..Default::default() })
    };
    let kh = view(b, keys, vec![1, 2, 3, 0])?;
    let vh = view(b, values, vec![1, 2, 0, 3])?;
    let scale = b.constant_scalar(DataType::Float32, MLNumber::Double(s.scale))?;
    let masked = b.constant_scalar(DataType::Float32, MLNumber::Double(s.masked))?;
    let scores = b.matmul(q, kh, none())?;
    let scores = b.mul(scores, scale, none())?;
    let scores = b.where_(mask, scores, masked, none())?;
    let probs = b.softmax(scores, 3, none())?;
    b.matmul(probs, vh, none())
}
