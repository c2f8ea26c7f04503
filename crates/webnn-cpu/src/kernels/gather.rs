//! gather/scatter family.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn gather(_cx: &Cx, _op: &Gather) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn gather_elements(_cx: &Cx, _op: &Gather) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn gather_nd(_cx: &Cx, _op: &GatherNd) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn scatter_elements(_cx: &Cx, _op: &ScatterElements) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn scatter_nd(_cx: &Cx, _op: &ScatterNd) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

