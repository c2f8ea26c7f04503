//! gather, gatherElements, gatherND, scatterElements, scatterND.

use super::common::Ctx;
use crate::error::{Error, Result};
use crate::ops::*;
use crate::shape::OperandDescriptor;

pub(super) fn gather(_cx: &Ctx, _op: &Gather) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn gather_elements(_cx: &Ctx, _op: &Gather) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn gather_nd(_cx: &Ctx, _op: &GatherNd) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn scatter_elements(_cx: &Ctx, _op: &ScatterElements) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

pub(super) fn scatter_nd(_cx: &Ctx, _op: &ScatterNd) -> Result<OperandDescriptor> {
    Err(Error::not_supported("validation of this op is not written yet"))
}

