//! Splitting a kernel call into dispatches whose buffer bindings fit the device's
//! `max_storage_buffer_binding_size` (128 MiB on lavapipe): element-wise kernels that read
//! element i of every operand run over consecutive windows, each bound at an aligned offset.

use crate::kernel::KernelId;
use crate::lower::KernelCall;
use crate::params::{Params, Uniform};
use crate::storage::Storage;
use webnn_core::{Error, Result};

/// One dispatch: its uniform block and, per bound buffer (output first, then the inputs),
/// the byte range it binds.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub uniform: Uniform,
    pub ranges: Vec<(u64, u64)>,
}

/// Whether element i of the output reads element i of each input and nothing else.
fn same_index(call: &KernelCall) -> bool {
    use KernelId::*;
    match call.key.kernel {
        Unary(_) | Cast => true,
        Binary(_) => !call.key.broadcast,
        Strided
        | Copy
        | Remap(_)
        | Where
        | Triangular
        | Rope
        | SiluMul
        | Attention { .. }
        | AttentionTiled { .. }
        | AttentionSplit { .. }
        | AttentionMerge
        | Gather { .. }
        | GatherNd { .. }
        | Place
        | ScatterElements { .. }
        | ScatterNd { .. }
        | BatchNorm { .. }
        | Quantize
        | Dequantize
        | Resample(_)
        | Reduce { .. }
        | ArgReduce { .. }
        | Softmax { .. }
        | Normalize { .. }
        | CumSum
        | Pool { .. }
        | Matmul { .. }
        | Conv { .. }
        | Depthwise { .. }
        | Gemv { .. }
        | QGemv { .. }
        | QGemm { .. } => false,
    }
}

fn too_big(call: &KernelCall, max_binding: u64) -> Error {
    Error::not_supported(format!(
        "{} needs a buffer binding above the device's {max_binding} bytes",
        call.key.label()
    ))
}

/// The windows of `call`, whose bound buffers have `sizes` bytes (output first). One window
/// binding everything when it all fits.
pub fn windows(
    call: &KernelCall,
    sizes: &[u64],
    max_binding: u64,
    offset_align: u64,
) -> Result<Vec<Window>> {
    if sizes.iter().all(|&s| s <= max_binding) {
        return Ok(vec![Window {
            uniform: call.uniform,
            ranges: sizes.iter().map(|&s| (0, s)).collect(),
        }]);
    }
    let Uniform::Params(whole) = call.uniform else {
        return Err(too_big(call, max_binding));
    };
    if !same_index(call) {
        return Err(too_big(call, max_binding));
    }
    let mut types = vec![call.key.out];
    types.extend(std::iter::repeat_n(
        call.key.dtype,
        sizes.len().saturating_sub(1),
    ));
    let bits: Vec<u64> = types.iter().map(|t| t.bits() as u64).collect();
    let widest = bits.iter().copied().max().unwrap_or(32);
    // Window starts on an aligned byte offset of every operand, and on a whole word of the
    // packed ones (8 int4 elements).
    let step = bits
        .iter()
        .map(|&b| (offset_align * 8 / b).max(1))
        .max()
        .unwrap_or(1)
        .max(8);
    let len = (max_binding * 8 / widest) / step * step;
    if len == 0 {
        return Err(Error::not_supported(
            "the device's buffer bindings are too small to split a tensor",
        ));
    }
    let n = whole.n as u64;
    let mut out = Vec::new();
    let mut start = 0u64;
    while start < n {
        let count = len.min(n - start);
        let ranges = types
            .iter()
            .zip(&bits)
            .zip(sizes)
            .map(|((t, b), &size)| {
                let offset = start * b / 8;
                let bytes = Storage::of(*t).buffer_bytes(count).unwrap_or(size);
                (offset, bytes.min(size.saturating_sub(offset)))
            })
            .collect();
        let mut params = Params::new(&[count as u32], Storage::of(call.key.out).units(count))?;
        params.f = whole.f;
        params.i = whole.i;
        out.push(Window {
            uniform: Uniform::Params(params),
            ranges,
        });
        start += count;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{BinaryOp, KernelKey};
    use webnn_core::DataType;

    fn call(
        kernel: KernelId,
        dtype: DataType,
        out: DataType,
        broadcast: bool,
        n: u32,
    ) -> KernelCall {
        let key = KernelKey {
            kernel,
            dtype,
            out,
            broadcast,
        };
        let units = Storage::of(out).units(n as u64);
        KernelCall {
            key,
            inputs: Vec::new(),
            output: webnn_core::Operand::default(),
            uniform: Uniform::Params(Params::new(&[n], units).unwrap()),
        }
    }

    #[test]
    fn small_calls_are_one_window() {
        let c = call(
            KernelId::Cast,
            DataType::Float32,
            DataType::Int8,
            false,
            100,
        );
        let w = windows(&c, &[100, 400], 1 << 20, 256).unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].ranges, vec![(0, 100), (0, 400)]);
    }

    #[test]
    fn large_calls_split_on_aligned_offsets() {
        let n = 10_000u32;
        let c = call(
            KernelId::Binary(BinaryOp::Equal),
            DataType::Int64,
            DataType::Uint8,
            false,
            n,
        );
        let sizes = [n as u64, 8 * n as u64, 8 * n as u64];
        let w = windows(&c, &sizes, 16_384, 256).unwrap();
        // 16 KiB holds 2048 int64 elements.
        assert_eq!(w.len(), 5);
        let mut total = 0;
        for win in &w {
            for (k, (offset, size)) in win.ranges.iter().enumerate() {
                assert_eq!(offset % 256, 0);
                assert!(*size <= 16_384);
                assert!(offset + size <= sizes[k]);
            }
            let Uniform::Params(p) = win.uniform else {
                panic!()
            };
            total += p.n;
        }
        assert_eq!(total, n);
        assert_eq!(w[1].ranges[0], (2048, 2048));
        assert_eq!(w[1].ranges[1], (16_384, 16_384));
    }

    #[test]
    fn broadcast_calls_cannot_split() {
        let c = call(
            KernelId::Binary(BinaryOp::Add),
            DataType::Float32,
            DataType::Float32,
            true,
            100,
        );
        assert!(windows(&c, &[400, 400, 4], 256, 256).is_err());
    }
}
