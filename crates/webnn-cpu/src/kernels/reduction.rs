//! Reductions, arg min/max, cumulative sum, softmax.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn softmax(_cx: &Cx, _op: &Softmax) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn arg_min_max(_cx: &Cx, _kind: OpKind, _op: &ArgMinMax) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn cumulative_sum(_cx: &Cx, _op: &CumulativeSum) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn reduce(_cx: &Cx, _kind: OpKind, _op: &Reduce) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

