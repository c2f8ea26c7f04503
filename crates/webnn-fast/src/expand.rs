//! A pointwise convolution fused into the depthwise one that alone reads its result: the
//! expansion of an inverted residual block (MobileNetV2, EfficientNet), whose result is the
//! block's widest tensor (112 x 112 x 96 floats, 4.8 MB, in MobileNetV2's second block).
//! Written whole and read back by the depthwise kernel, it goes out to memory and back;
//! fused, each task computes the expanded rows its output rows' windows need into a ring
//! of `kh` rows, each row once as the window moves down, and the depthwise kernel reads
//! them there (`Depthwise::ring_row`) while they are in cache.
//!
//! Each expanded row is one GEMM over that row's pixels, so its values do not depend on
//! how the output rows are split into tasks: every thread count gives the same bits. A
//! task recomputes the rows its window shares with the task before it (`kh - stride` rows
//! at each cut), so there is one task per thread.

use crate::depthwise::Depthwise;
use crate::exec::Step;
use crate::simd::Simd;
use std::collections::HashMap;
use std::ops::Range;
use webnn_gemm::{gemm_rows, Epilogue, PackedB};

/// The expansion: a pointwise convolution of slot `input` (`c` channels, NHWC) by
/// `packed`, clamped by `epilogue`, then rounded to float16's grid where `round` (a float16
/// export's round trip, as `exec::Post::finish` rounds after the GEMM's clamp).
pub(crate) struct Expand {
    pub input: usize,
    pub c: usize,
    pub packed: PackedB,
    pub epilogue: Epilogue,
    pub round: bool,
}

impl Expand {
    pub(crate) fn describe(&self) -> String {
        format!(" clamp[{}, {}]{}", self.epilogue.min, self.epilogue.max, if self.round { " f16" } else { "" })
    }

    /// Output rows per task: one task per thread (each cut costs a few rows twice).
    pub(crate) fn unit(&self, rows: usize, threads: usize) -> usize {
        rows.div_ceil(threads.max(1)).max(1)
    }

    /// Output rows `rows` (of all images, `oh` per image) of the depthwise convolution `d`
    /// into `out`, from `x`, the expansion's input: `d`'s image of `c` channels per pixel.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rows(&self, simd: Simd, d: &Depthwise, x: &[f32], oh: usize, rows: Range<usize>, out: &mut [f32], lo: f32, hi: f32) {
        let row_len = d.ow * d.c;
        d.with_ring(|ring| {
            for (r, line) in rows.zip(out.chunks_exact_mut(row_len)) {
                ring.row(simd, r / oh, r % oh, line, lo, hi, |b, iy, slot| {
                    let pixels = (b * d.h + iy) * d.w;
                    gemm_rows(pixels..pixels + d.w, x, self.c, &self.packed, slot, d.c, self.epilogue);
                    if self.round {
                        crate::simd::round_f16(simd, slot);
                    }
                });
            }
        });
    }
}

/// Fuses each pointwise convolution whose result only a depthwise one reads (and which is
/// no graph output: `outputs`, slots) into it (`Conv::absorb`). Returns how many.
pub(crate) fn fuse(steps: &mut Vec<Step>, graph: &webnn_core::Graph, outputs: &[usize]) -> usize {
    let readers = crate::exec::readers(steps, graph);
    let mut producer: HashMap<usize, usize> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        if let Step::Conv(c) = s {
            if let Some(output) = c.pointwise_output() {
                producer.insert(output, i);
            }
        }
    }
    let mut pairs = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let Step::Conv(d) = s else { continue };
        let Some(slot) = d.depthwise_input() else { continue };
        let alone = readers.get(&slot).is_some_and(|r| r == &[i]);
        if let (true, false, Some(&j)) = (alone, outputs.contains(&slot), producer.get(&slot)) {
            pairs.push((j, i));
        }
    }
    let mut all: Vec<Option<Step>> = steps.drain(..).map(Some).collect();
    let mut fused = 0;
    for (j, i) in pairs {
        let Some(Step::Conv(e)) = all[j].take() else { unreachable!("a pointwise step") };
        let Some(Step::Conv(d)) = &mut all[i] else { unreachable!("a depthwise step") };
        match d.absorb(e) {
            Ok(()) => fused += 1,
            Err(e) => all[j] = Some(Step::Conv(e)),
        }
    }
    steps.extend(all.into_iter().flatten());
    fused
}
