//! The uniform block every kernel reads (`Params` in shaders/common.wgsl) and the index
//! arithmetic that fills it: element counts, shapes and broadcast/permuted strides.

use bytemuck::{Pod, Zeroable};
use webnn_core::{Error, Result};

/// The largest rank the uniform block holds (the op table's MAX_RANK).
pub const MAX_RANK: usize = 8;

/// Mirrors `struct Params` of common.wgsl (144 bytes, std140-compatible).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Params {
    pub n: u32,
    pub units: u32,
    pub rank: u32,
    pub pad0: u32,
    pub shape: [u32; MAX_RANK],
    pub a_strides: [u32; MAX_RANK],
    pub b_strides: [u32; MAX_RANK],
    pub f: [f32; 4],
    pub i: [u32; 4],
}

/// Row-major strides of a shape.
pub fn strides(shape: &[u32]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1].saturating_mul(shape[d + 1] as u64);
    }
    s
}

fn too_large() -> Error {
    Error::not_supported("a tensor has more elements than a GPU kernel can index (2^32)")
}

fn u32_of(v: u64) -> Result<u32> {
    u32::try_from(v).map_err(|_| too_large())
}

impl Params {
    /// A block for an output of `shape` written in `units` work units.
    pub fn new(shape: &[u32], units: u64) -> Result<Params> {
        if shape.len() > MAX_RANK {
            return Err(Error::not_supported(format!(
                "rank {} exceeds {MAX_RANK}",
                shape.len()
            )));
        }
        let n: u64 = shape
            .iter()
            .map(|&d| d as u64)
            .try_fold(1u64, |a, d| a.checked_mul(d))
            .ok_or_else(too_large)?;
        let mut p = Params::zeroed();
        p.n = u32_of(n)?;
        p.units = u32_of(units)?;
        p.rank = shape.len() as u32;
        p.shape[..shape.len()].copy_from_slice(shape);
        Ok(p)
    }

    /// Strides of an input of shape `input` broadcast to the output shape (numpy rules,
    /// aligned at the last dimension): 0 where the input's dimension is 1 or missing.
    pub fn broadcast_strides(input: &[u32], out: &[u32]) -> Result<[u32; MAX_RANK]> {
        let mut s = [0u32; MAX_RANK];
        if input.len() > out.len() {
            return Err(Error::operation_error(
                "an input has a higher rank than the output",
            ));
        }
        let offset = out.len() - input.len();
        let st = strides(input);
        for (k, &d) in input.iter().enumerate() {
            if d != 1 {
                if d != out[offset + k] {
                    return Err(Error::operation_error(
                        "an input does not broadcast to the output shape",
                    ));
                }
                s[offset + k] = u32_of(st[k])?;
            }
        }
        Ok(s)
    }

    /// Strides of the input of a transpose, per output dimension: output dimension k reads
    /// input dimension perm[k].
    pub fn permuted_strides(input: &[u32], perm: &[u32]) -> Result<[u32; MAX_RANK]> {
        let st = strides(input);
        let mut s = [0u32; MAX_RANK];
        for (k, &p) in perm.iter().enumerate() {
            let stride = st
                .get(p as usize)
                .ok_or_else(|| Error::operation_error("permutation out of range"))?;
            *s.get_mut(k).ok_or_else(too_large)? = u32_of(*stride)?;
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_wgsl() {
        assert_eq!(std::mem::size_of::<Params>(), 144);
    }

    #[test]
    fn broadcast() {
        let s = Params::broadcast_strides(&[3, 1], &[2, 3, 4]).unwrap();
        assert_eq!(&s[..3], &[0, 1, 0]);
        let s = Params::broadcast_strides(&[2, 3, 4], &[2, 3, 4]).unwrap();
        assert_eq!(&s[..3], &[12, 4, 1]);
        assert!(Params::broadcast_strides(&[5], &[2, 3]).is_err());
    }

    #[test]
    fn permute() {
        let s = Params::permuted_strides(&[2, 3, 4], &[2, 0, 1]).unwrap();
        assert_eq!(&s[..3], &[1, 12, 4]);
    }
}
