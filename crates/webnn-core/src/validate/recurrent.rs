//! gru, gruCell, lstm, lstmCell.

use super::common::Ctx;
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::OperandDescriptor;

pub(super) fn gru(_cx: &Ctx, _op: &Gru) -> Result<Vec<OperandDescriptor>> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn gru_cell(_cx: &Ctx, _op: &GruCell) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn lstm(_cx: &Ctx, _op: &Lstm) -> Result<Vec<OperandDescriptor>> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn lstm_cell(_cx: &Ctx, _op: &LstmCell) -> Result<Vec<OperandDescriptor>> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

