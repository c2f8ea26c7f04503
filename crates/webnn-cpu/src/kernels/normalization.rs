//! batch, instance and layer normalization.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn batch_normalization(_cx: &Cx, _op: &BatchNormalization) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn instance_normalization(_cx: &Cx, _op: &InstanceNormalization) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn layer_normalization(_cx: &Cx, _op: &LayerNormalization) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

