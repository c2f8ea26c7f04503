//! The uniform block every kernel reads (`Params` in shaders/common.wgsl) and the index
//! arithmetic that fills it: element counts, shapes and broadcast/permuted strides.

use bytemuck::{Pod, Zeroable};
use webnn_core::{Error, Result};

/// The largest rank the uniform block holds (the op table's MAX_RANK).
pub const MAX_RANK: usize = 8;

/// Declares a uniform block mirrored by a WGSL struct of the same name: `#[repr(C)]`, `Pod`,
/// with its field names and offsets listed for the layout test (tests/naga.rs).
macro_rules! uniform_block {
    ($(#[$m:meta])* $name:ident => $wgsl:literal { $($(#[$fm:meta])* $field:ident : $ty:ty,)* }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
        }
        impl $name {
            /// The WGSL struct's name.
            pub const WGSL: &'static str = $wgsl;
            /// (field, byte offset) in declaration order.
            pub fn fields() -> Vec<(&'static str, usize)> {
                vec![$((stringify!($field), std::mem::offset_of!($name, $field)),)*]
            }
        }
    };
}

uniform_block! {
    /// The block of the element-wise and scatter frames (`Params` in shaders/params.wgsl,
    /// which says what each field holds).
    Params => "Params" {
        n: u32,
        units: u32,
        rank: u32,
        base: u32,
        shape: [u32; MAX_RANK],
        a_strides: [u32; MAX_RANK],
        b_strides: [u32; MAX_RANK],
        c_strides: [u32; MAX_RANK],
        dims: [u32; MAX_RANK],
        lo: [u32; MAX_RANK],
        f: [f32; 4],
        i: [u32; 4],
        j: [u32; 4],
    }
}

uniform_block! {
    /// The block of row kernels over an input's axes (`Rows` in shaders/rows_params.wgsl).
    Rows => "Rows" {
        rows: u32,
        len: u32,
        outer_rank: u32,
        inner_rank: u32,
        outer_shape: [u32; MAX_RANK],
        outer_strides: [u32; MAX_RANK],
        inner_shape: [u32; MAX_RANK],
        inner_strides: [u32; MAX_RANK],
        f: [f32; 4],
        i: [u32; 4],
    }
}

uniform_block! {
    /// Pooling windows (`Pool` in shaders/pool.wgsl).
    PoolParams => "Pool" {
        rows: u32,
        len: u32,
        kh: u32,
        kw: u32,
        oh: u32,
        ow: u32,
        channels: u32,
        nhwc: u32,
        ih: u32,
        iw: u32,
        stride_h: u32,
        stride_w: u32,
        dilation_h: u32,
        dilation_w: u32,
        pad_top: u32,
        pad_left: u32,
        sn: u32,
        sc: u32,
        sh: u32,
        sw: u32,
    }
}

uniform_block! {
    /// Batched matrix products (`Matmul` in shaders/matmul.wgsl).
    MatmulParams => "Matmul" {
        m: u32,
        n: u32,
        k: u32,
        batch_rank: u32,
        a_m: u32,
        a_k: u32,
        b_k: u32,
        b_n: u32,
        c_m: u32,
        c_n: u32,
        /// Products in the batch.
        batches: u32,
        pad1: u32,
        alpha: f32,
        beta: f32,
        clamp_low: f32,
        clamp_high: f32,
        batch_shape: [u32; MAX_RANK],
        a_batch: [u32; MAX_RANK],
        b_batch: [u32; MAX_RANK],
    }
}

uniform_block! {
    /// Convolutions as implicit products (`Conv` in shaders/conv.wgsl).
    ConvParams => "Conv" {
        m: u32,
        n: u32,
        k: u32,
        groups: u32,
        kh: u32,
        kw: u32,
        oh: u32,
        ow: u32,
        ih: u32,
        iw: u32,
        icg: u32,
        pad0: u32,
        stride_h: u32,
        stride_w: u32,
        dilation_h: u32,
        dilation_w: u32,
        pad_top: u32,
        pad_left: u32,
        clamp_low: f32,
        clamp_high: f32,
        in_strides: [u32; 4],
        filter_strides: [u32; 4],
        out_strides: [u32; 4],
    }
}

uniform_block! {
    /// Depthwise convolutions (`Depthwise` in shaders/depthwise.wgsl).
    DepthwiseParams => "Depthwise" {
        channels: u32,
        kh: u32,
        kw: u32,
        patch_h: u32,
        patch_w: u32,
        oh: u32,
        ow: u32,
        ih: u32,
        iw: u32,
        stride_h: u32,
        stride_w: u32,
        dilation_h: u32,
        dilation_w: u32,
        pad_top: u32,
        pad_left: u32,
        planes: u32,
        clamp_low: f32,
        clamp_high: f32,
        pad1: u32,
        pad2: u32,
        in_strides: [u32; 4],
        filter_strides: [u32; 4],
        out_strides: [u32; 4],
    }
}

/// The uniform block of one dispatch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Uniform {
    Params(Params),
    Rows(Rows),
    Pool(PoolParams),
    Matmul(MatmulParams),
    Conv(ConvParams),
    Depthwise(DepthwiseParams),
}

impl Uniform {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Uniform::Params(p) => bytemuck::bytes_of(p),
            Uniform::Rows(p) => bytemuck::bytes_of(p),
            Uniform::Pool(p) => bytemuck::bytes_of(p),
            Uniform::Matmul(p) => bytemuck::bytes_of(p),
            Uniform::Conv(p) => bytemuck::bytes_of(p),
            Uniform::Depthwise(p) => bytemuck::bytes_of(p),
        }
    }
}

/// The largest uniform block (each dispatch's block takes this much, aligned, in the shared
/// uniform buffer).
pub const MAX_BLOCK: u64 = 256;

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
        assert_eq!(std::mem::size_of::<Params>(), 256);
        for size in [
            std::mem::size_of::<Params>(),
            std::mem::size_of::<Rows>(),
            std::mem::size_of::<PoolParams>(),
            std::mem::size_of::<MatmulParams>(),
            std::mem::size_of::<ConvParams>(),
            std::mem::size_of::<DepthwiseParams>(),
        ] {
            assert!(size as u64 <= MAX_BLOCK && size % 16 == 0, "{size}");
        }
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
