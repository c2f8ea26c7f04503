//! The one- and two-row kernels with wasm simd128 (relaxed SIMD where compiled in).

use crate::vector::madd;
use std::arch::wasm32::*;

/// Sixteen bytes as four vectors of floats, in order.
#[inline(always)]
fn widen(v: v128) -> [v128; 4] {
    let (lo, hi) = (u16x8_extend_low_u8x16(v), u16x8_extend_high_u8x16(v));
    [
        f32x4_convert_u32x4(u32x4_extend_low_u16x8(lo)),
        f32x4_convert_u32x4(u32x4_extend_high_u16x8(lo)),
        f32x4_convert_u32x4(u32x4_extend_low_u16x8(hi)),
        f32x4_convert_u32x4(u32x4_extend_high_u16x8(hi)),
    ]
}

fn sum(a: [v128; 4]) -> f32 {
    let v = f32x4_add(f32x4_add(a[0], a[1]), f32x4_add(a[2], a[3]));
    (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<1>(v))
        + (f32x4_extract_lane::<2>(v) + f32x4_extract_lane::<3>(v))
}

/// The 4-bit row (blocks a multiple of 32): value t of a block in the low nibble of byte
/// t, value t + block/2 in its high nibble.
pub(super) unsafe fn q4_row(row: &[u8], x: &[f32], scale: &[f32], shift: &[f32], block: usize) -> f32 {
    let half = block / 2;
    assert!(row.len() >= scale.len() * half && x.len() >= scale.len() * block && shift.len() == scale.len());
    let mask = u8x16_splat(15);
    let mut acc = [f32x4_splat(0.0); 4];
    for b in 0..scale.len() {
        let (s, c) = (f32x4_splat(scale[b]), f32x4_splat(shift[b]));
        let (q, xb) = (row.as_ptr().add(b * half), x.as_ptr().add(b * block));
        for t in (0..half).step_by(16) {
            // SAFETY: the assert bounds every load.
            let bytes = v128_load(q.add(t).cast());
            let (lo, hi) = (widen(v128_and(bytes, mask)), widen(u8x16_shr(bytes, 4)));
            for k in 0..4 {
                let xl = v128_load(xb.add(t + 4 * k).cast());
                let xh = v128_load(xb.add(half + t + 4 * k).cast());
                acc[k] = madd(madd(lo[k], s, c), xl, acc[k]);
                acc[k] = madd(madd(hi[k], s, c), xh, acc[k]);
            }
        }
    }
    sum(acc)
}

/// The 8-bit row (blocks a multiple of 8).
pub(super) unsafe fn q8_row(row: &[u8], x: &[f32], scale: &[f32], shift: &[f32], block: usize) -> f32 {
    assert!(row.len() >= scale.len() * block && x.len() >= scale.len() * block && shift.len() == scale.len());
    let mut acc = [f32x4_splat(0.0); 4];
    for b in 0..scale.len() {
        let (s, c) = (f32x4_splat(scale[b]), f32x4_splat(shift[b]));
        let (q, xb) = (row.as_ptr().add(b * block), x.as_ptr().add(b * block));
        for t in (0..block).step_by(8) {
            // Eight bytes, widened: the first two of `widen`'s four vectors.
            let w = widen(v128_load64_zero(q.add(t).cast()));
            let a = (t / 8) % 2 * 2;
            acc[a] = madd(madd(w[0], s, c), v128_load(xb.add(t).cast()), acc[a]);
            acc[a + 1] = madd(madd(w[1], s, c), v128_load(xb.add(t + 4).cast()), acc[a + 1]);
        }
    }
    sum(acc)
}
