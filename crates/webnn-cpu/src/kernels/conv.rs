//! conv2d and convTranspose2d.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn conv2d(_cx: &Cx, _op: &Conv2d) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn conv_transpose2d(_cx: &Cx, _op: &ConvTranspose2d) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

