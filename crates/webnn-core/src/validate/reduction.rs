//! Reductions, arg min/max, cumulative sum and softmax.

use super::common::Ctx;
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::OperandDescriptor;

pub(super) fn softmax(_cx: &Ctx, _op: &Softmax) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn arg_min_max(_cx: &Ctx, _op: &ArgMinMax) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn cumulative_sum(_cx: &Ctx, _op: &CumulativeSum) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn reduce(_cx: &Ctx, _op: &Reduce) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

