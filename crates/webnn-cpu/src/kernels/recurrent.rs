//! gru, gruCell, lstm, lstmCell.

use crate::eval::Cx;
use crate::tensor::Tensor;
#[allow(unused_imports)]
use webnn_core::ops::*;
use webnn_core::{Error, OpKind, Result};

pub fn gru(_cx: &Cx, _op: &Gru) -> Result<Vec<Tensor>> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn gru_cell(_cx: &Cx, _op: &GruCell) -> Result<Tensor> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn lstm(_cx: &Cx, _op: &Lstm) -> Result<Vec<Tensor>> {
    Err(Error::not_supported("this kernel is not written yet"))
}

pub fn lstm_cell(_cx: &Cx, _op: &LstmCell) -> Result<Vec<Tensor>> {
    Err(Error::not_supported("this kernel is not written yet"))
}

