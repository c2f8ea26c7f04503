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
//!
//! A QDQ model's expansion runs on the integer kernel (`qconv.rs`) with its activation pair
//! in registers, writing the pair's float32 values into the ring: the values the depthwise
//! kernel would have decoded from the bytes the unfused step stores, so the fusion changes
//! no bit. It saves the bytes' store and the decoding (MobileNetV2 QDQ, one thread: about
//! 6% of the model).

use crate::depthwise::{Depthwise, Input};
use crate::qconv::{Out as QOut, QPointwise};
use crate::quant::FakeQuant;
use crate::exec::Step;
use crate::simd::Simd;
use std::collections::HashMap;
use std::ops::Range;
use webnn_gemm::{gemm_rows, Epilogue, PackedB};

/// The expansion: a pointwise convolution of slot `input` (`c` channels, NHWC).
pub(crate) struct Expand {
    pub input: usize,
    pub c: usize,
    pub kernel: Kernel,
}

/// How the expansion computes its rows.
pub(crate) enum Kernel {
    /// A float32 GEMM by `packed`, clamped by `epilogue`, then rounded to float16's grid
    /// where `round` (a float16 export's round trip, as `exec::Post::finish` rounds after
    /// the GEMM's clamp).
    Floats { packed: PackedB, epilogue: Epilogue, round: bool },
    /// A QDQ model's integer kernel, clamped to `[lo, hi]`, then its 8-bit activation pair
    /// `pair` in registers: the rows hold the pair's values, what the depthwise kernel would
    /// have decoded from the bytes the unfused step stored. Its input is stored as bytes
    /// where the step's `input_bytes` says so.
    Ints { q: QPointwise, lo: f32, hi: f32, pair: FakeQuant },
}

impl Expand {
    pub(crate) fn describe(&self) -> String {
        match &self.kernel {
            Kernel::Floats { epilogue, round, .. } => format!(" clamp[{}, {}]{}", epilogue.min, epilogue.max, if *round { " f16" } else { "" }),
            Kernel::Ints { lo, hi, .. } => format!(" int8 (VNNI) clamp[{lo}, {hi}] +fake-quant"),
        }
    }

    /// Output rows per task: one task per thread (each cut costs a few rows twice).
    pub(crate) fn unit(&self, rows: usize, threads: usize) -> usize {
        rows.div_ceil(threads.max(1)).max(1)
    }

    /// Output rows `rows` (of all images, `oh` per image) of the depthwise convolution `d`:
    /// `out(r, row)` is given each row `r` and fills its output with `row`; from the
    /// expansion's input, `d`'s image of `c` channels per pixel, float32 values or bytes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rows(&self, simd: Simd, d: &Depthwise, x: Input, oh: usize, rows: Range<usize>, lo: f32, hi: f32, out: &dyn Fn(usize, &mut dyn FnMut(&mut [f32]))) {
        d.with_ring(|ring| {
            for r in rows {
                out(r, &mut |line| {
                    ring.row(simd, r / oh, r % oh, line, lo, hi, |b, iy, slot| {
                        let pixels = (b * d.h + iy) * d.w;
                        let input = pixels * self.c..(pixels + d.w) * self.c;
                        match (&self.kernel, x) {
                            (Kernel::Floats { packed, epilogue, round }, Input::Floats(x)) => {
                                gemm_rows(pixels..pixels + d.w, x, self.c, packed, slot, d.c, *epilogue);
                                if *round {
                                    crate::simd::round_f16(simd, slot);
                                }
                            }
                            (Kernel::Ints { q, lo, hi, pair }, Input::Floats(x)) => q.run(&x[input], QOut::Floats(slot), *lo, *hi, Some(pair)),
                            (Kernel::Ints { q, lo, hi, pair }, Input::Bytes(v, ..)) => q.run_bytes(&v[input], QOut::Floats(slot), *lo, *hi, Some(pair)),
                            (Kernel::Floats { .. }, Input::Bytes(..)) => unreachable!("float expansions read float32 (`Conv::absorb`)"),
                        }
                    });
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
