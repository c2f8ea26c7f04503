//! Pooling and resample2d.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn pool2d(_cx: &Cx, _kind: OpKind, _op: &Pool2d) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn resample2d(_cx: &Cx, _op: &Resample2d) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

