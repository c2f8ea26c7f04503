//! Quantized products for language models: `gemm(x, dequantizeLinear(q, scale, zeroPoint)ᵀ)`
//! with blockwise int4/uint4/int8/uint8 weights (and Q4_1's per-block offset added after
//! dequantizing), as `webnn_core::fusion::quantized_linears` finds them. The weights stay
//! quantized: 4-bit ones two per byte, 8-bit ones a byte each, so a product reads an eighth
//! (4-bit) of the float weights' bytes. For one or two rows (decode) each weight is widened
//! and dequantized in registers, `w = q·scale + (offset − zeroPoint·scale)`, and multiplied
//! into sixteen running sums per row, reduced once per output. A 4-bit block of B values
//! keeps value t in the low nibble of byte t and value t + B/2 in its high nibble (the
//! layout llama.cpp uses), so sixteen bytes widen to two full vectors without shuffles. For
//! more rows, a panel of columns is dequantized straight into the f32 GEMM's packed layout
//! (`PackedB::from_columns`; AVX-512 by the row kernel's table lookup) and multiplied by it.
//! The one- and two-row kernels are written with intrinsics for AVX-512 (its 4-bit kernel
//! looks each weight up in its block's sixteen dequantized values instead of converting it),
//! for AVX2 + FMA and for wasm simd128 / relaxed SIMD; elsewhere (NEON, x86 without AVX2) a
//! portable loop runs them, which the compiler does not vectorise well (about 8x slower than
//! the AVX2 kernel).
//!
//! Signed weights are stored biased (q + 8, q + 128) with the zero point biased alike, which
//! leaves `q − zp` unchanged and gives one unsigned unpack for every type. Work is split by
//! output columns, each output summed whole by one task, so results do not depend on the
//! thread count.

use crate::exec::{Ctx, Post, Step, Values};
use crate::plan::Planner;
use crate::pool::SharedMut;
use crate::simd::{self, fma, Simd};
use webnn_core::fusion::QuantizedLinear;
use webnn_core::{DataType, Result};
use webnn_cpu::Data;
use webnn_cpu::Tensor;

/// Output columns per task: a multiple of every tile, fixed by nothing but the shape.
const COLUMNS: usize = 32;

/// A fused quantized linear layer, its weights packed at compile.
pub(crate) struct QGemmStep {
    x: usize,
    out: usize,
    /// Rows at the bound (a dynamic graph's steps take the row count from the input).
    m: usize,
    k: usize,
    n: usize,
    block: usize,
    bits: u8,
    /// Row `j`'s weights: `k` biased unsigned values, one per byte for 8 bits; for 4 bits,
    /// per block of B, byte t holds value t (low nibble) and value t + B/2 (high nibble).
    weights: Vec<u8>,
    /// Per `[j, b]`: the weight is `q·scale + shift`, with `shift = offset − zeroPoint·scale`
    /// (zero point biased like `q`, offset 0 without one).
    scale: Vec<f32>,
    shift: Vec<f32>,
    post: Post,
    /// The GEMM kernels' instruction set, for several rows.
    isa: webnn_gemm::Isa,
}

/// The packed weights of a match, or `None` when a constant cannot be read (then the nodes
/// stay unfused and run as they are).
pub(crate) struct Packed {
    bits: u8,
    weights: Vec<u8>,
    scale: Vec<f32>,
    zero: Vec<f32>,
    offset: Option<Vec<f32>>,
}

fn decode(p: &Planner, o: webnn_core::Operand) -> Option<Tensor> {
    Tensor::from_bytes(p.orig.desc(o), p.orig.constant_data(o)?).ok()
}

/// Biased unsigned values and the bias of a quantized tensor's type.
fn biased(t: &Tensor) -> Option<(Vec<u8>, f32, u8)> {
    Some(match &t.data {
        Data::U4(v) => (v.clone(), 0.0, 4),
        Data::I4(v) => (v.iter().map(|&q| (q + 8) as u8).collect(), 8.0, 4),
        Data::U8(v) => (v.clone(), 0.0, 8),
        Data::I8(v) => (
            v.iter().map(|&q| (q as i16 + 128) as u8).collect(),
            128.0,
            8,
        ),
        _ => return None,
    })
}

fn zero_points(t: &Tensor) -> Option<Vec<f32>> {
    Some(match &t.data {
        Data::U4(v) | Data::U8(v) => v.iter().map(|&z| z as f32).collect(),
        Data::I4(v) | Data::I8(v) => v.iter().map(|&z| z as f32).collect(),
        _ => return None,
    })
}

pub(crate) fn pack(p: &Planner, q: &QuantizedLinear) -> Option<Packed> {
    let (n, k) = (q.n as usize, q.k as usize);
    let (values, bias, bits) = biased(&decode(p, q.weight)?)?;
    let zero: Vec<f32> = zero_points(&decode(p, q.zero_point)?)?
        .into_iter()
        .map(|z| z + bias)
        .collect();
    let scale = p.const_f32(q.scale)?;
    let offset = match q.offset {
        Some(o) => Some(p.const_f32(o)?),
        None => None,
    };
    let block = q.block as usize;
    let weights = if bits == 4 {
        // Per block: byte t holds values t (low nibble) and t + block/2 (high nibble).
        let half = block / 2;
        values
            .chunks_exact(block)
            .flat_map(|b| (0..half).map(move |t| b[t] | (b[t + half] << 4)))
            .collect()
    } else {
        values
    };
    debug_assert_eq!(values_len(bits, k) * n, weights.len());
    Some(Packed {
        bits,
        weights,
        scale,
        zero,
        offset,
    })
}

/// Bytes of one packed row.
fn values_len(bits: u8, k: usize) -> usize {
    if bits == 4 {
        k.div_ceil(2)
    } else {
        k
    }
}

/// Node `n` (the match's gemm) as a step over the packed weights.
pub(crate) fn plan(p: &mut Planner, n: usize, q: &QuantizedLinear, packed: Packed) -> Step {
    let y = p.orig.nodes[n].outputs[0];
    let m = p.shape(y)[0];
    let x = p.logical(q.input);
    let (post, out) = p.tail(n, y, true, false);
    Step::QGemm(Box::new(QGemmStep {
        x,
        out: out.index(),
        m,
        k: q.k as usize,
        n: q.n as usize,
        block: q.block as usize,
        bits: packed.bits,
        weights: packed.weights,
        shift: (0..packed.scale.len())
            .map(|jb| {
                packed.offset.as_ref().map_or(0.0, |o| o[jb]) - packed.zero[jb] * packed.scale[jb]
            })
            .collect(),
        scale: packed.scale,
        post,
        isa: p.isa,
    }))
}

/// Whether the planner may fuse a match: float32 in and out, a 2-D input, even 4-bit blocks.
pub(crate) fn fusable(p: &Planner, n: usize, q: &QuantizedLinear) -> bool {
    let y = p.orig.nodes[n].outputs[0];
    let four_bit = matches!(
        p.orig.desc(q.weight).data_type,
        DataType::Int4 | DataType::Uint4
    );
    // 4-bit blocks split into two nibble halves (every format in use has even blocks).
    (!four_bit || q.block.is_multiple_of(2))
        && p.is_f32(q.input)
        && p.is_f32(y)
        && p.shape(q.input).len() == 2
        && p.orig.desc(q.scale).data_type == DataType::Float32
}

impl QGemmStep {
    pub(crate) fn describe(&self) -> String {
        format!(
            "quantized gemm {}x{}x{}, {}-bit, blocks of {}",
            self.m, self.k, self.n, self.bits, self.block
        )
    }

    pub(crate) fn reads(&self) -> Vec<usize> {
        std::iter::once(self.x).chain(self.post.residual).collect()
    }

    pub(crate) fn run(&self, ctx: &Ctx, values: &mut Values) -> Result<()> {
        let (k, n) = (self.k, self.n);
        let m = values.f32(self.x)?.len() / k;
        let mut y = values.alloc(m * n);
        {
            let x = values.f32(self.x)?;
            let dst = SharedMut::new(&mut y);
            // One or two rows stream every weight once: each thread takes long runs of
            // consecutive weight rows, which the hardware prefetches as one stream (two runs
            // per thread; 32-row tasks made SmolLM2's 2-thread decode step 8.4 ms instead of
            // 5.7-6.1, four or eight runs per thread 6.0-7.1). Each output's sum is one
            // task's, whatever the run it falls in.
            let width = if m <= GEMV_ROWS {
                n.div_ceil(2 * ctx.pool.threads()).next_multiple_of(COLUMNS)
            } else {
                COLUMNS
            };
            ctx.pool.run(n.div_ceil(width), &|task| {
                let cols = task * width..((task + 1) * width).min(n);
                let mut acc = vec![0.0f32; m * cols.len()];
                if m > GEMV_ROWS {
                    self.columns_by_gemm(ctx.simd, m, x, cols.clone(), &mut acc);
                } else if !self.vector_columns(ctx.simd, m, x, cols.clone(), &mut acc) {
                    let out = &mut acc[..];
                    simd::dispatch!(ctx.simd, columns_generic((self, x, cols.clone()), out));
                }
                for i in 0..m {
                    // SAFETY: each task writes its own columns of every row.
                    let out = unsafe { dst.range(i * n + cols.start, cols.len()) };
                    out.copy_from_slice(&acc[i * cols.len()..(i + 1) * cols.len()]);
                }
            });
            let residual = self.post.residual.map(|r| values.f32(r)).transpose()?;
            let (lo, hi) = (self.post.lo, self.post.hi);
            match residual {
                Some(r) => simd::add_clamp(ctx.simd, &mut y, r, lo, hi),
                None if lo > f32::NEG_INFINITY || hi < f32::INFINITY => {
                    y.iter_mut().for_each(|v| *v = simd::clamp(*v, lo, hi))
                }
                None => {}
            }
        }
        values.put(self.out, vec![m, n], y);
        Ok(())
    }
}

/// Up to this many rows, each weight block is widened once and dotted with every row; with
/// more, a column panel is widened to floats and multiplied by the f32 GEMM kernels, whose
/// register tiles reuse each loaded weight across rows.
const GEMV_ROWS: usize = 2;

impl QGemmStep {
    fn row_bytes(&self) -> usize {
        values_len(self.bits, self.k)
    }

    /// Dequantized weight `j`, block `b`, into `w` (the block's length).
    #[inline(always)]
    fn dequantize_block(&self, j: usize, b: usize, w: &mut [f32]) {
        let rb = self.row_bytes();
        let row = &self.weights[j * rb..(j + 1) * rb];
        unpack(self.bits, row, b, w);
        let jb = j * (self.k / self.block) + b;
        let (scale, shift) = (self.scale[jb], self.shift[jb]);
        for v in w.iter_mut() {
            *v = *v * scale + shift;
        }
    }

    /// Columns `cols` for every row through the f32 GEMM: the panel's weights dequantized
    /// straight into the GEMM's packed layout (k x columns, as B), then multiplied.
    fn columns_by_gemm(&self, simd: Simd, m: usize, x: &[f32], cols: std::ops::Range<usize>, acc: &mut [f32]) {
        let (k, w) = (self.k, cols.len());
        let packed = webnn_gemm::PackedB::from_columns(self.isa, k, w, None, |c, values| {
            self.dequantize_column(simd, cols.start + c, values)
        });
        webnn_gemm::gemm(m, x, k, &packed, acc, w, webnn_gemm::Epilogue::NONE);
    }

    /// Weight row `j` (k values) dequantized into `values`.
    fn dequantize_column(&self, simd: Simd, j: usize, values: &mut [f32]) {
        let block = self.block;
        #[cfg(target_arch = "x86_64")]
        if simd == Simd::Avx512 && self.bits == 4 && block.is_multiple_of(32) {
            let (rb, blocks) = (self.row_bytes(), self.k / block);
            let params = j * blocks..(j + 1) * blocks;
            // SAFETY: `Simd::Avx512` comes from `Isa::detect`; the kernel checks the bounds.
            return unsafe {
                x86::q4_dequantize_avx512(
                    &self.weights[j * rb..(j + 1) * rb],
                    &self.scale[params.clone()],
                    &self.shift[params],
                    block,
                    values,
                )
            };
        }
        // Only x86 has a vector dequantization.
        #[cfg(not(target_arch = "x86_64"))]
        let _ = simd;
        for (b, out) in values.chunks_exact_mut(block).enumerate() {
            self.dequantize_block(j, b, out);
        }
    }
}

impl QGemmStep {
    /// The one- and two-row columns with a row kernel written with the target's vector
    /// intrinsics (AVX2 + FMA on x86-64 machines that have them, simd128 or relaxed SIMD on
    /// wasm), where the blocks fill whole vectors; false when this path does not apply.
    fn vector_columns(
        &self,
        simd: Simd,
        m: usize,
        x: &[f32],
        cols: std::ops::Range<usize>,
        acc: &mut [f32],
    ) -> bool {
        let Some((q4, q8)) = row_kernels(simd) else { return false };
        let fits = if self.bits == 4 {
            self.block.is_multiple_of(32)
        } else {
            self.block.is_multiple_of(8)
        };
        if !fits {
            return false;
        }
        let (k, blocks, rb, width) = (self.k, self.k / self.block, self.row_bytes(), cols.len());
        for (c, j) in cols.enumerate() {
            let row = &self.weights[j * rb..(j + 1) * rb];
            let (scale, shift) = (
                &self.scale[j * blocks..(j + 1) * blocks],
                &self.shift[j * blocks..(j + 1) * blocks],
            );
            for i in 0..m {
                let xr = &x[i * k..(i + 1) * k];
                // SAFETY: `row_kernels` returns kernels whose features this machine has (x86:
                // `Simd` comes from `Isa::detect`; wasm: compiled in); the kernels check the
                // slices' lengths.
                acc[i * width + c] = unsafe {
                    if self.bits == 4 {
                        q4(row, xr, scale, shift, self.block)
                    } else {
                        q8(row, xr, scale, shift, self.block)
                    }
                };
            }
        }
        true
    }
}

/// `Σ_b Σ_t (q·scale[b] + shift[b])·x` over one packed row (4- or 8-bit).
type RowDot = unsafe fn(&[u8], &[f32], &[f32], &[f32], usize) -> f32;

/// The vector row kernels for `simd`, if the target has them.
#[allow(unused_variables)]
fn row_kernels(simd: Simd) -> Option<(RowDot, RowDot)> {
    #[cfg(target_arch = "x86_64")]
    match simd {
        Simd::Avx512 => return Some((x86::q4_row_avx512, x86::q8_row_avx512)),
        Simd::Avx2 => return Some((x86::q4_row, x86::q8_row)),
        Simd::Base => {}
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return Some((wasm::q4_row, wasm::q8_row));
    #[allow(unreachable_code)]
    None
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
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
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,fma")]
    unsafe fn sum(v: __m256) -> f32 {
        let h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)))
    }

    /// `Σ_b Σ_t (q·scale[b] + shift[b])·x` over a 4-bit row (blocks a multiple of 32).
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn q4_row(
        row: &[u8],
        x: &[f32],
        scale: &[f32],
        shift: &[f32],
        block: usize,
    ) -> f32 {
        let half = block / 2;
        assert!(
            row.len() >= scale.len() * half
                && x.len() >= scale.len() * block
                && shift.len() == scale.len()
        );
        let mask = _mm_set1_epi8(15);
        let mut acc = [_mm256_setzero_ps(); 4];
        for b in 0..scale.len() {
            let (s, c) = (_mm256_set1_ps(scale[b]), _mm256_set1_ps(shift[b]));
            let (q, xb) = (row.as_ptr().add(b * half), x.as_ptr().add(b * block));
            for t in (0..half).step_by(16) {
                let bytes = _mm_loadu_si128(q.add(t).cast());
                let lo = _mm_and_si128(bytes, mask);
                let hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
                let w =
                    |v: __m128i| _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)), s, c);
                acc[0] = _mm256_fmadd_ps(w(lo), _mm256_loadu_ps(xb.add(t)), acc[0]);
                acc[1] = _mm256_fmadd_ps(
                    w(_mm_srli_si128(lo, 8)),
                    _mm256_loadu_ps(xb.add(t + 8)),
                    acc[1],
                );
                acc[2] = _mm256_fmadd_ps(w(hi), _mm256_loadu_ps(xb.add(half + t)), acc[2]);
                acc[3] = _mm256_fmadd_ps(
                    w(_mm_srli_si128(hi, 8)),
                    _mm256_loadu_ps(xb.add(half + t + 8)),
                    acc[3],
                );
            }
        }
        sum(_mm256_add_ps(
            _mm256_add_ps(acc[0], acc[1]),
            _mm256_add_ps(acc[2], acc[3]),
        ))
    }

    /// The 4-bit row with AVX-512, for blocks of 32 and 64 (other sizes take the AVX2
    /// kernel): a block's sixteen bytes widen to one vector of sixteen lanes, and each lane's
    /// nibble picks its weight from the block's sixteen dequantized values (`vpermps` reads
    /// only an index's low four bits), so neither a mask nor a conversion is needed per
    /// weight. The table is `fma(v, scale, shift)` for v in 0..16, the same rounding as
    /// dequantizing each weight.
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(super) unsafe fn q4_row_avx512(
        row: &[u8],
        x: &[f32],
        scale: &[f32],
        shift: &[f32],
        block: usize,
    ) -> f32 {
        let half = block / 2;
        assert!(
            row.len() >= scale.len() * half
                && x.len() >= scale.len() * block
                && shift.len() == scale.len()
        );
        match block {
            32 => q4_blocks::<1>(row, x, scale, shift),
            64 => q4_blocks::<2>(row, x, scale, shift),
            _ => q4_row(row, x, scale, shift, block),
        }
    }

    /// `q4_row_avx512` for blocks of 32·`V` values (`V` vectors per nibble half), two blocks
    /// per pass into independent sums; bounds checked by the caller.
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    unsafe fn q4_blocks<const V: usize>(row: &[u8], x: &[f32], scale: &[f32], shift: &[f32]) -> f32 {
        let half = 16 * V;
        let values = _mm512_setr_ps(0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15.);
        let one = |b: usize, acc: &mut [__m512; 2]| {
            let table = _mm512_fmadd_ps(values, _mm512_set1_ps(scale[b]), _mm512_set1_ps(shift[b]));
            let (q, xb) = (row.as_ptr().add(b * half), x.as_ptr().add(2 * b * half));
            for t in 0..V {
                let bytes = _mm512_cvtepu8_epi32(_mm_loadu_si128(q.add(16 * t).cast()));
                let lo = _mm512_permutexvar_ps(bytes, table);
                let hi = _mm512_permutexvar_ps(_mm512_srli_epi32(bytes, 4), table);
                acc[0] = _mm512_fmadd_ps(lo, _mm512_loadu_ps(xb.add(16 * t)), acc[0]);
                acc[1] = _mm512_fmadd_ps(hi, _mm512_loadu_ps(xb.add(half + 16 * t)), acc[1]);
            }
        };
        let (mut a, mut c) = ([_mm512_setzero_ps(); 2], [_mm512_setzero_ps(); 2]);
        super::in_pairs(scale.len(), &mut a, &mut c, one);
        total(&a, &c)
    }

    /// A 4-bit row dequantized into `out` with AVX-512 (blocks a multiple of 32), by the
    /// row kernel's table lookup: `fma(q, scale, shift)` per weight.
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(super) unsafe fn q4_dequantize_avx512(row: &[u8], scale: &[f32], shift: &[f32], block: usize, out: &mut [f32]) {
        let half = block / 2;
        assert!(
            row.len() >= scale.len() * half && out.len() >= scale.len() * block && shift.len() == scale.len()
        );
        let values = _mm512_setr_ps(0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15.);
        for b in 0..scale.len() {
            let table = _mm512_fmadd_ps(values, _mm512_set1_ps(scale[b]), _mm512_set1_ps(shift[b]));
            let (q, o) = (row.as_ptr().add(b * half), out.as_mut_ptr().add(b * block));
            for t in (0..half).step_by(16) {
                let bytes = _mm512_cvtepu8_epi32(_mm_loadu_si128(q.add(t).cast()));
                _mm512_storeu_ps(o.add(t), _mm512_permutexvar_ps(bytes, table));
                _mm512_storeu_ps(o.add(half + t), _mm512_permutexvar_ps(_mm512_srli_epi32(bytes, 4), table));
            }
        }
    }

    /// The 8-bit row with AVX-512, for blocks of 16, 32 and 64 (other sizes take the AVX2
    /// kernel).
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(super) unsafe fn q8_row_avx512(
        row: &[u8],
        x: &[f32],
        scale: &[f32],
        shift: &[f32],
        block: usize,
    ) -> f32 {
        assert!(
            row.len() >= scale.len() * block
                && x.len() >= scale.len() * block
                && shift.len() == scale.len()
        );
        match block {
            16 => q8_blocks::<1>(row, x, scale, shift),
            32 => q8_blocks::<2>(row, x, scale, shift),
            64 => q8_blocks::<4>(row, x, scale, shift),
            _ => q8_row(row, x, scale, shift, block),
        }
    }

    /// `q8_row_avx512` for blocks of `V` vectors of 16, two blocks per pass into independent
    /// sums; bounds checked by the caller.
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    unsafe fn q8_blocks<const V: usize>(row: &[u8], x: &[f32], scale: &[f32], shift: &[f32]) -> f32 {
        let block = 16 * V;
        let one = |b: usize, acc: &mut [__m512; V]| {
            let (s, c) = (_mm512_set1_ps(scale[b]), _mm512_set1_ps(shift[b]));
            let (q, xb) = (row.as_ptr().add(b * block), x.as_ptr().add(b * block));
            for (t, a) in acc.iter_mut().enumerate() {
                let v = _mm512_cvtepu8_epi32(_mm_loadu_si128(q.add(16 * t).cast()));
                let w = _mm512_fmadd_ps(_mm512_cvtepi32_ps(v), s, c);
                *a = _mm512_fmadd_ps(w, _mm512_loadu_ps(xb.add(16 * t)), *a);
            }
        };
        let (mut a, mut c) = ([_mm512_setzero_ps(); V], [_mm512_setzero_ps(); V]);
        super::in_pairs(scale.len(), &mut a, &mut c, one);
        total(&a, &c)
    }

    /// The sum of every lane of two sets of running sums.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn total(a: &[__m512], c: &[__m512]) -> f32 {
        let mut sum = _mm512_setzero_ps();
        for (x, y) in a.iter().zip(c) {
            sum = _mm512_add_ps(sum, _mm512_add_ps(*x, *y));
        }
        _mm512_reduce_add_ps(sum)
    }

    /// The same over an 8-bit row (blocks a multiple of 8).
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn q8_row(
        row: &[u8],
        x: &[f32],
        scale: &[f32],
        shift: &[f32],
        block: usize,
    ) -> f32 {
        assert!(
            row.len() >= scale.len() * block
                && x.len() >= scale.len() * block
                && shift.len() == scale.len()
        );
        if block == 32 {
            // Blocks of 32 (Q8_0's), two per pass, each into its own four running sums.
            let one = |b: usize, acc: &mut [__m256; 4]| {
                let (s, c) = (_mm256_set1_ps(scale[b]), _mm256_set1_ps(shift[b]));
                let (q, xb) = (row.as_ptr().add(32 * b), x.as_ptr().add(32 * b));
                for (t, a) in acc.iter_mut().enumerate() {
                    let v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(q.add(8 * t).cast()));
                    let w = _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), s, c);
                    *a = _mm256_fmadd_ps(w, _mm256_loadu_ps(xb.add(8 * t)), *a);
                }
            };
            let (mut a, mut c) = ([_mm256_setzero_ps(); 4], [_mm256_setzero_ps(); 4]);
            let blocks = scale.len();
            super::in_pairs(blocks, &mut a, &mut c, one);
            let mut total = _mm256_setzero_ps();
            for (x, y) in a.iter().zip(&c) {
                total = _mm256_add_ps(total, _mm256_add_ps(*x, *y));
            }
            return sum(total);
        }
        let mut acc = [_mm256_setzero_ps(); 2];
        for b in 0..scale.len() {
            let (s, c) = (_mm256_set1_ps(scale[b]), _mm256_set1_ps(shift[b]));
            let (q, xb) = (row.as_ptr().add(b * block), x.as_ptr().add(b * block));
            for t in (0..block).step_by(8) {
                let v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(q.add(t).cast()));
                let w = _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), s, c);
                let a = &mut acc[(t / 8) % 2];
                *a = _mm256_fmadd_ps(w, _mm256_loadu_ps(xb.add(t)), *a);
            }
        }
        sum(_mm256_add_ps(acc[0], acc[1]))
    }
}

/// Blocks `0..blocks` through `one`, two per pass: even ones into `a`, odd ones into `c`,
/// so consecutive blocks' sums are independent chains (the last of an odd count into `a`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn in_pairs<A>(blocks: usize, a: &mut A, c: &mut A, mut one: impl FnMut(usize, &mut A)) {
    for b in (0..blocks - blocks % 2).step_by(2) {
        one(b, a);
        one(b + 1, c);
    }
    if blocks % 2 == 1 {
        one(blocks - 1, a);
    }
}

/// Columns `cols` of one or two rows, every weight dequantized in registers: per output,
/// sixteen running sums per row over all of k, reduced once.
#[inline(always)]
fn columns_generic<const FMA: bool>(
    (step, x, cols): (&QGemmStep, &[f32], std::ops::Range<usize>),
    acc: &mut [f32],
) {
    let (k, block) = (step.k, step.block);
    let m = x.len() / k;
    let blocks = k / block;
    let rb = step.row_bytes();
    let width = cols.len();
    for (c, j) in cols.enumerate() {
        let row = &step.weights[j * rb..(j + 1) * rb];
        for i in 0..m {
            let xr = &x[i * k..(i + 1) * k];
            let mut lanes = [0.0f32; 16];
            let mut tail = 0.0f32;
            for b in 0..blocks {
                let jb = j * blocks + b;
                let (scale, shift) = (step.scale[jb], step.shift[jb]);
                let xb = &xr[b * block..(b + 1) * block];
                if step.bits == 4 {
                    let half = block / 2;
                    let bytes = &row[b * half..(b + 1) * half];
                    let (lo_x, hi_x) = xb.split_at(half);
                    let (bc, lc, hc) = (
                        bytes.chunks_exact(16),
                        lo_x.chunks_exact(16),
                        hi_x.chunks_exact(16),
                    );
                    let (br, lr, hr) = (bc.remainder(), lc.remainder(), hc.remainder());
                    for ((q, xl), xh) in bc.zip(lc).zip(hc) {
                        let mut lo = [0.0f32; 16];
                        let mut hi = [0.0f32; 16];
                        for l in 0..16 {
                            lo[l] = fma::<FMA>((q[l] & 15) as f32, scale, shift);
                            hi[l] = fma::<FMA>((q[l] >> 4) as f32, scale, shift);
                        }
                        for l in 0..16 {
                            lanes[l] = fma::<FMA>(lo[l], xl[l], lanes[l]);
                            lanes[l] = fma::<FMA>(hi[l], xh[l], lanes[l]);
                        }
                    }
                    for ((q, xl), xh) in br.iter().zip(lr).zip(hr) {
                        tail = fma::<FMA>(fma::<FMA>((q & 15) as f32, scale, shift), *xl, tail);
                        tail = fma::<FMA>(fma::<FMA>((q >> 4) as f32, scale, shift), *xh, tail);
                    }
                } else {
                    let bytes = &row[b * block..(b + 1) * block];
                    let (bc, xc) = (bytes.chunks_exact(16), xb.chunks_exact(16));
                    let (br, xr2) = (bc.remainder(), xc.remainder());
                    for (q, xv) in bc.zip(xc) {
                        for l in 0..16 {
                            let w = fma::<FMA>(q[l] as f32, scale, shift);
                            lanes[l] = fma::<FMA>(w, xv[l], lanes[l]);
                        }
                    }
                    for (q, xv) in br.iter().zip(xr2) {
                        tail = fma::<FMA>(fma::<FMA>(*q as f32, scale, shift), *xv, tail);
                    }
                }
            }
            let mut half = [0.0f32; 8];
            for l in 0..8 {
                half[l] = lanes[l] + lanes[l + 8];
            }
            let sum = ((half[0] + half[4]) + (half[1] + half[5]))
                + ((half[2] + half[6]) + (half[3] + half[7]));
            acc[i * width + c] = sum + tail;
        }
    }
}

/// Values of block `b` of a packed row, as floats (`w` has the block's length).
fn unpack(bits: u8, row: &[u8], b: usize, w: &mut [f32]) {
    if bits == 8 {
        let start = b * w.len();
        for (o, &q) in w.iter_mut().zip(&row[start..]) {
            *o = q as f32;
        }
        return;
    }
    let half = w.len() / 2;
    let bytes = &row[b * half..(b + 1) * half];
    let (lo, hi) = w.split_at_mut(half);
    for ((l, h), &q) in lo.iter_mut().zip(hi).zip(bytes) {
        *l = (q & 15) as f32;
        *h = (q >> 4) as f32;
    }
}
