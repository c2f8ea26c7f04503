//! quantizeLinear and dequantizeLinear.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn quantize_linear(_cx: &Cx, _op: &QuantizeLinear) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn dequantize_linear(_cx: &Cx, _op: &QuantizeLinear) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

