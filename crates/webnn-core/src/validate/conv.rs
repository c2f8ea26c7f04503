//! conv2d, convTranspose2d, matmul and gemm.

use super::common::Ctx;
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::OperandDescriptor;

pub(super) fn conv2d(_cx: &Ctx, _op: &Conv2d) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn conv_transpose2d(_cx: &Ctx, _op: &ConvTranspose2d) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn matmul(_cx: &Ctx, _op: &Binary) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn gemm(_cx: &Ctx, _op: &Gemm) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

