//! matmul and gemm.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn matmul(_cx: &Cx, _op: &Binary) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn gemm(_cx: &Cx, _op: &Gemm) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

