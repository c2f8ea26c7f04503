//! Shape and data movement.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn concat(_cx: &Cx, _op: &Concat) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn expand(_cx: &Cx, _op: &Expand) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn pad(_cx: &Cx, _op: &Pad) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn reshape(_cx: &Cx, _op: &Reshape) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn reverse(_cx: &Cx, _op: &Reverse) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn slice(_cx: &Cx, _op: &Slice) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn split(_cx: &Cx, _op: &Split) -> Result<Vec<Tensor>> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn tile(_cx: &Cx, _op: &Tile) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn transpose(_cx: &Cx, _op: &Transpose) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn triangular(_cx: &Cx, _op: &Triangular) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn where_(_cx: &Cx, _op: &Where) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

