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
//! for AVX2 + FMA (integer products with x rounded to 16 bits per four values, `rows16`)
//! and for wasm simd128 / relaxed SIMD; elsewhere (NEON, x86 without AVX2) a
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
    /// 8 bits: the shifts for the signed bytes `q − 128` that the AVX2 integer kernels
    /// multiply, `shift + 128·scale`; empty when all are zero (int8 without a zero point, as
    /// Q8_0), so that they skip 10% of the int8 head's bytes and the biased products' large
    /// cancellation against the shift terms.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    signed_shift: Vec<f32>,
    /// Where the AVX2 integer kernels take x from, when this machine runs them on this
    /// layer (`has_columns16`).
    layout16: Option<Layout16>,
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
    let shift: Vec<f32> = (0..packed.scale.len())
        .map(|jb| packed.offset.as_ref().map_or(0.0, |o| o[jb]) - packed.zero[jb] * packed.scale[jb])
        .collect();
    Step::QGemm(Box::new(QGemmStep {
        x,
        out: out.index(),
        m,
        k: q.k as usize,
        n: q.n as usize,
        block: q.block as usize,
        bits: packed.bits,
        weights: packed.weights,
        signed_shift: match packed.bits {
            8 => signed_shift(&shift, &packed.scale),
            _ => Vec::new(),
        },
        shift,
        layout16: has_columns16(Simd::for_isa(p.isa), packed.bits, q.block as usize, q.k as usize)
            .then(|| Layout16::new(packed.bits, q.block as usize)),
        scale: packed.scale,
        post,
        isa: p.isa,
    }))
}

/// `shift + 128·scale` per block, or nothing when every one is zero.
fn signed_shift(shift: &[f32], scale: &[f32]) -> Vec<f32> {
    let signed: Vec<f32> = shift.iter().zip(scale).map(|(h, s)| s.mul_add(128.0, *h)).collect();
    if signed.iter().all(|v| *v == 0.0) {
        return Vec::new();
    }
    signed
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
            let rows16 = match &self.layout16 {
                Some(layout) if m <= GEMV_ROWS => Rows16::new(x, k, layout),
                _ => None,
            };
            ctx.pool.run(n.div_ceil(width), &|task| {
                let cols = task * width..((task + 1) * width).min(n);
                let mut acc = vec![0.0f32; m * cols.len()];
                if m > GEMV_ROWS {
                    self.columns_by_gemm(ctx.simd, m, x, cols.clone(), &mut acc);
                } else if let Some(rows) = &rows16 {
                    self.columns16(rows, m, cols.clone(), &mut acc);
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
            let (lo, hi) = self.post.kernel_bounds();
            if lo > f32::NEG_INFINITY || hi < f32::INFINITY {
                y.iter_mut().for_each(|v| *v = simd::clamp(*v, lo, hi))
            }
            self.post.finish(ctx.simd, &mut y, residual, 0);
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
        if self.bits == 4 && block.is_multiple_of(32) {
            type Dequantize = unsafe fn(&[u8], &[f32], &[f32], usize, &mut [f32]);
            let kernel: Option<Dequantize> = match simd {
                Simd::Avx512 => Some(x86::q4_dequantize_avx512),
                Simd::Avx2 => Some(x86::q4_dequantize_avx2),
                Simd::Base => None,
            };
            if let Some(kernel) = kernel {
                let (rb, blocks) = (self.row_bytes(), self.k / block);
                let params = j * blocks..(j + 1) * blocks;
                let (row, scale, shift) = (&self.weights[j * rb..(j + 1) * rb], &self.scale[params.clone()], &self.shift[params]);
                // SAFETY: the kernel's level comes from `Isa::detect`; it checks the bounds.
                return unsafe { kernel(row, scale, shift, block, values) };
            }
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

/// Whether `simd` has an integer kernel for rows of `k` `bits`-bit weights in blocks of `block`.
#[allow(unused_variables)]
fn has_columns16(simd: Simd, bits: u8, block: usize, k: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if simd == Simd::Avx2 && x86::fits16(bits, block, k) {
        return true;
    }
    false
}

impl QGemmStep {
    /// The one- and two-row columns by the integer kernel over x rounded to 16 bits: both
    /// rows over a run of 32 columns at a time, so the second reads its weights from cache.
    #[allow(unused_variables)]
    fn columns16(&self, x: &Rows16, m: usize, cols: std::ops::Range<usize>, acc: &mut [f32]) {
        let (blocks, rb, width) = (self.k / self.block, self.row_bytes(), cols.len());
        let runs = if m == 1 { width } else { COLUMNS };
        for start in cols.clone().step_by(runs) {
            let run = start..(start + runs).min(cols.end);
            for i in 0..m {
                #[cfg(target_arch = "x86_64")]
                {
                    let w = x86::Weights {
                        bytes: &self.weights[run.start * rb..run.end * rb],
                        scale: &self.scale[run.start * blocks..run.end * blocks],
                        shift: match (self.bits, self.signed_shift.is_empty()) {
                            (8, true) => None,
                            (8, false) => Some(&self.signed_shift[run.start * blocks..run.end * blocks]),
                            _ => Some(&self.shift[run.start * blocks..run.end * blocks]),
                        },
                        bits: self.bits,
                        block: self.block,
                    };
                    let at = i * width + run.start - cols.start;
                    // SAFETY: `has_columns16` chose this kernel, whose features this machine
                    // has (`Simd` comes from `Isa::detect`); it checks the slices' lengths.
                    unsafe { x86::columns16(w, x.row(i), &mut acc[at..at + run.len()]) };
                }
            }
        }
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

mod rows16;
use rows16::{Layout16, Rows16};

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm;

#[cfg(target_arch = "x86_64")]
mod x86;

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
