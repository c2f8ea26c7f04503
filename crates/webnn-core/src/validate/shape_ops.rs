//! Shape and data movement ops.

use super::common::Ctx;
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::OperandDescriptor;

pub(super) fn concat(_cx: &Ctx, _op: &Concat) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn expand(_cx: &Ctx, _op: &Expand) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn pad(_cx: &Ctx, _op: &Pad) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn reshape(_cx: &Ctx, _op: &Reshape) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn reverse(_cx: &Ctx, _op: &Reverse) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn slice(_cx: &Ctx, _op: &Slice) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn split(_cx: &Ctx, _op: &Split) -> Result<Vec<OperandDescriptor>> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn tile(_cx: &Ctx, _op: &Tile) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn transpose(_cx: &Ctx, _op: &Transpose) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn triangular(_cx: &Ctx, _op: &Triangular) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn where_(_cx: &Ctx, _op: &Where) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

