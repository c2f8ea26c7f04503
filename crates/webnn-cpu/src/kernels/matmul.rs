//! matmul and gemm: f64 accumulation, rounded once to the output type.

use crate::eval::Cx;
use crate::tensor::{broadcast_map, Tensor};
use half::f16;
use webnn_core::ops::*;
use webnn_core::{DataType, Result};

/// `out[m, n] += sum_k a[m, k] * b[k, n]` for row-major `a` (m x k) and `b` (k x n), with
/// `a` and `b` given by element strides so transposed operands need no copy.
#[allow(clippy::too_many_arguments)]
fn gemm_block(
    a: &[f64],
    a_rs: usize,
    a_cs: usize,
    b: &[f64],
    b_rs: usize,
    b_cs: usize,
    out: &mut [f64],
    m: usize,
    k: usize,
    n: usize,
) {
    for i in 0..m {
        let row = &mut out[i * n..][..n];
        for p in 0..k {
            let av = a[i * a_rs + p * a_cs];
            for (j, o) in row.iter_mut().enumerate() {
                *o += av * b[p * b_rs + j * b_cs];
            }
        }
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul>: a stack of matrix products
/// whose batch dimensions broadcast.
pub fn matmul(cx: &Cx, op: &Binary) -> Result<Tensor> {
    let a = cx.t(op.a)?;
    let b = cx.t(op.b)?;
    let (ra, rb) = (a.rank(), b.rank());
    let (m, k) = (a.shape[ra - 2], a.shape[ra - 1]);
    let n = b.shape[rb - 1];
    let out_shape = cx.out_shape(0);
    let out_batch = &out_shape[..out_shape.len() - 2];
    let a_batches = broadcast_map(&a.shape[..ra - 2], out_batch);
    let b_batches = broadcast_map(&b.shape[..rb - 2], out_batch);
    let (av, bv) = (a.to_f64(), b.to_f64());
    let mut out = vec![0.0f64; a_batches.len() * m * n];
    for (i, (&ia, &ib)) in a_batches.iter().zip(&b_batches).enumerate() {
        let a_mat = &av[ia * m * k..][..m * k];
        let b_mat = &bv[ib * k * n..][..k * n];
        gemm_block(
            a_mat,
            k,
            1,
            b_mat,
            n,
            1,
            &mut out[i * m * n..][..m * n],
            m,
            k,
            n,
        );
    }
    Ok(Tensor::from_f64(cx.out_type(0), out_shape, &out))
}

/// A scalar option as the spec casts it to the operands' data type.
fn cast_scalar(data_type: DataType, v: f64) -> f64 {
    match data_type {
        DataType::Float16 => f16::from_f64(v).to_f64(),
        DataType::Float32 => v as f32 as f64,
        _ => v,
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm>: `alpha * A * B + beta * C`.
pub fn gemm(cx: &Cx, op: &Gemm) -> Result<Tensor> {
    let o = &op.options;
    let a = cx.t(op.a)?;
    let b = cx.t(op.b)?;
    let c = cx.opt(o.c)?;
    let dt = cx.out_type(0);
    let (alpha, beta) = (cast_scalar(dt, o.alpha), cast_scalar(dt, o.beta));
    let (m, k) = if o.a_transpose {
        (a.shape[1], a.shape[0])
    } else {
        (a.shape[0], a.shape[1])
    };
    let n = if o.b_transpose {
        b.shape[0]
    } else {
        b.shape[1]
    };
    // Element strides of the logical (row, column) of each operand.
    let (a_rs, a_cs) = if o.a_transpose { (1, m) } else { (k, 1) };
    let (b_rs, b_cs) = if o.b_transpose { (1, k) } else { (n, 1) };
    let mut out = vec![0.0f64; m * n];
    gemm_block(
        &a.to_f64(),
        a_rs,
        a_cs,
        &b.to_f64(),
        b_rs,
        b_cs,
        &mut out,
        m,
        k,
        n,
    );
    out.iter_mut().for_each(|v| *v *= alpha);
    if let Some(c) = c {
        let cv = c.to_f64();
        let map = broadcast_map(&c.shape, &[m, n]);
        for (v, &i) in out.iter_mut().zip(&map) {
            *v += beta * cv[i];
        }
    }
    Ok(Tensor::from_f64(dt, vec![m, n], &out))
}
