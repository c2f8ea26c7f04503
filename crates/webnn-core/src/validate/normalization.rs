//! batchNormalization, instanceNormalization, layerNormalization.

use super::common::Ctx;
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::OperandDescriptor;

pub(super) fn batch_normalization(_cx: &Ctx, _op: &BatchNormalization) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn instance_normalization(_cx: &Ctx, _op: &InstanceNormalization) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn layer_normalization(_cx: &Ctx, _op: &LayerNormalization) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

