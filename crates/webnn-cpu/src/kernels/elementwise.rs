//! Element-wise ops and activations.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn binary(_cx: &Cx, _kind: OpKind, _op: &Binary) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn unary(_cx: &Cx, _kind: OpKind, _op: &Unary) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn elu(_cx: &Cx, _op: &Elu) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn hard_sigmoid(_cx: &Cx, _op: &HardSigmoid) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn leaky_relu(_cx: &Cx, _op: &LeakyRelu) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn linear(_cx: &Cx, _op: &Linear) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn cast(_cx: &Cx, _op: &Cast) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn clamp(_cx: &Cx, _op: &Clamp) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn prelu(_cx: &Cx, _op: &Prelu) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

