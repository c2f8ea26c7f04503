//! 8-bit activations stored as bytes. A QDQ model's activation pair leaves each value on an
//! 8-bit grid, `(z - zero) * scale` with `z` one of 256 integers, so the value needs one byte,
//! not four: a convolution whose output goes through a pair, and whose every reader can take
//! bytes, writes bytes, and its readers read them (`store`, run after planning): the integer
//! pointwise kernel as its uint8 rows, the depthwise kernel decoding each vector as it loads
//! it. Where that holds (between the convolutions of an inverted residual block) the
//! activations' memory traffic drops to a quarter.
//!
//! This is storage only: decoding gives back the pair's float32 values bit for bit (the
//! product `(b - offset) * scale` is the one the pair rounds), so every step computes what it
//! computed from float32 storage.

use crate::exec::Step;
use crate::pool::SharedMut;
use crate::quant::FakeQuant;
use crate::simd::Simd;
use std::cell::RefCell;

/// How one stored activation's bytes map to its values: `(b - offset) * scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bytes {
    scale: f32,
    /// The byte of the zero point (`zero - lo` of the quantized type): an integer.
    offset: f32,
}

impl Bytes {
    /// The storage for values `pair` leaves: an 8-bit type (its range fits a byte) whose
    /// dequantization `(z - zero) * scale` the decoding repeats (`z - zero` an integer below
    /// 2^9, exact in float32, times the float32 scale: the product the pair rounds).
    pub(crate) fn of(pair: &FakeQuant) -> Option<Bytes> {
        let l = pair.lanes()?;
        let fits = l.hi - l.lo <= 255.0 && l.lo.fract() == 0.0 && l.zero2.fract() == 0.0;
        fits.then_some(Bytes { scale: l.scale2, offset: l.zero2 - l.lo })
    }

    /// The byte form's zero point and scale, as an integer kernel reading the bytes as
    /// uint8 activations sees them.
    pub(crate) fn zero_and_scale(&self) -> (f32, f32) {
        (self.offset, self.scale)
    }

    /// `src`'s values into `dst`: the pair's float32 values, bit for bit (the depthwise
    /// kernel's loads compute the same).
    #[cfg(test)]
    pub(crate) fn decode(&self, src: &[u8], dst: &mut [f32]) {
        for (d, &b) in dst.iter_mut().zip(src) {
            *d = (b as f32 - self.offset) * self.scale;
        }
    }
}

/// Where a step's units write their rows: the float32 output, or (stored as bytes) a
/// per-thread float32 scratch that the output's pair then quantizes into the byte output
/// (the step leaves the pair to it: `FakeQuant::quantize_bytes`).
pub(crate) struct Sink<'a> {
    floats: SharedMut<'a, f32>,
    bytes: Option<(SharedMut<'a, u8>, FakeQuant)>,
    simd: Simd,
}

thread_local! {
    /// Each thread's rows before quantization.
    static SCRATCH: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

impl<'a> Sink<'a> {
    pub(crate) fn new(simd: Simd, floats: &'a mut [f32], bytes: &'a mut [u8], pair: Option<FakeQuant>) -> Sink<'a> {
        Sink { floats: SharedMut::new(floats), bytes: pair.map(|p| (SharedMut::new(bytes), p)), simd }
    }

    /// Output elements `start..start + len` as bytes, and the pair whose integers they hold,
    /// where the output is stored as bytes: for a kernel that quantizes in its registers.
    ///
    /// # Safety
    /// As `rows`.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn bytes(&self, start: usize, len: usize) -> Option<(&mut [u8], &FakeQuant)> {
        // SAFETY: the caller's contract.
        self.bytes.as_ref().map(|(dst, pair)| (unsafe { dst.range(start, len) }, pair))
    }

    /// The whole float32 output, where it is not stored as bytes: for a step that splits its
    /// work its own way (`matmul::rows_on_pool`).
    ///
    /// # Safety
    /// No other range of the sink is in use while it is.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn floats(&self) -> Option<&mut [f32]> {
        match self.bytes {
            // SAFETY: the caller's contract.
            None => Some(unsafe { self.floats.range(0, self.floats.len()) }),
            Some(_) => None,
        }
    }

    /// `f` over output elements `start..start + len`, then (stored) the pair into bytes.
    ///
    /// # Safety
    /// Each unit of a job asks for its own range (`SharedMut::range`).
    pub(crate) unsafe fn rows(&self, start: usize, len: usize, f: impl FnOnce(&mut [f32])) {
        match &self.bytes {
            // SAFETY: the caller's contract.
            None => f(unsafe { self.floats.range(start, len) }),
            Some((dst, pair)) => SCRATCH.with_borrow_mut(|v| {
                v.resize(len, 0.0);
                f(v);
                // SAFETY: the caller's contract.
                let out = unsafe { dst.range(start, len) };
                crate::quant::quantize_bytes(self.simd, pair, v, out);
            }),
        }
    }
}

/// Whether byte storage is used at `isa`: AVX-512 only, where it was measured to pay (the
/// QDQ MobileNetV2 export 8% faster on one thread). In the wasm builds the page measured
/// the same model twice as slow with it (49.9 against 27.6 ms): quantizing into bytes does
/// not vectorize there (a float to byte conversion wasm has no instruction for), and the
/// integer pointwise kernel that reads bytes without decoding is x86-only. AVX2 is
/// unmeasured.
pub(crate) fn pays(isa: webnn_gemm::Isa) -> bool {
    isa == webnn_gemm::Isa::Avx512
}

/// Stores as bytes every value a step can write as bytes whose readers all read bytes and
/// which is no graph output (`outputs`: their slots). Returns how many.
pub(crate) fn store(steps: &mut [Step], graph: &webnn_core::Graph, outputs: &[usize]) -> usize {
    let readers = crate::exec::readers(steps, graph);
    let mut stored = 0;
    for i in 0..steps.len() {
        let Step::Conv(c) = &steps[i] else { continue };
        let (slot, Some(bytes)) = (c.output, c.output_bytes()) else { continue };
        let Some(rs) = readers.get(&slot) else { continue };
        let readable = |r: &usize| matches!(&steps[*r], Step::Conv(d) if d.reads_bytes(slot, &bytes));
        if outputs.contains(&slot) || !rs.iter().all(readable) {
            continue;
        }
        for &r in rs {
            if let Step::Conv(d) = &mut steps[r] {
                d.set_input_bytes(bytes);
            }
        }
        if let Step::Conv(c) = &mut steps[i] {
            c.set_output_bytes(bytes);
        }
        stored += 1;
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pair's bytes decode to its float32 values bit for bit, and the pair into bytes
    /// gives the bytes of its integers, over values dense around every tie and the
    /// specials, for uint8 and int8 pairs and zero points at the ends of their ranges.
    #[test]
    fn bytes_decode_to_the_pairs_values() {
        let scales = [0.0123f32, 0.05, 1.7e-3, 3.0, 2f32.powi(-125), 1.0 / 3.0, 6.0 / 255.0, 2f32.powi(100), 1e-45];
        for scale in scales {
            for (lo, hi, zeros) in [(0.0, 255.0, [0.0, 17.0, 128.0, 255.0]), (-128.0, 127.0, [-128.0, -5.0, 0.0, 127.0])] {
                for zero in zeros {
                    let pair = FakeQuant::new(scale as f64, zero, lo, hi, scale as f64, zero);
                    // A scale whose reciprocal is no normal float32 takes the exact path,
                    // and its values are not stored as bytes.
                    let Some(b) = Bytes::of(&pair) else {
                        assert!(!(1.0 / scale).is_normal(), "scale {scale:e}: an 8-bit pair");
                        continue;
                    };
                    let mut xs: Vec<f32> = Vec::new();
                    for k in -300..300 {
                        let tie = (k as f32 + 0.5) * scale;
                        xs.extend((-2i32..=2).map(|d| f32::from_bits(tie.to_bits().wrapping_add_signed(d))));
                        xs.push(k as f32 * scale);
                    }
                    xs.extend([0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, f32::MIN_POSITIVE]);
                    let mut want = xs.clone();
                    pair.apply_f32(&mut want);
                    // The portable loop and every ISA's compiled form (AVX-512's intrinsics).
                    for isa in webnn_gemm::Isa::available() {
                        let mut bytes = vec![0u8; xs.len()];
                        crate::quant::quantize_bytes(crate::simd::Simd::for_isa(isa), &pair, &xs, &mut bytes);
                        let mut portable = vec![0u8; xs.len()];
                        pair.quantize_bytes(&xs, &mut portable);
                        assert_eq!(bytes, portable, "{isa}: scale {scale:e} zero {zero}");
                        let mut got = vec![0f32; xs.len()];
                        b.decode(&bytes, &mut got);
                        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                            assert_eq!(w.to_bits(), g.to_bits(), "{isa}: scale {scale:e} zero {zero}: x {:e}", xs[i]);
                        }
                    }
                }
            }
        }
        // Wider types are not stored.
        assert!(Bytes::of(&FakeQuant::new(0.5, 0.0, i32::MIN as f64, i32::MAX as f64, 0.5, 0.0)).is_none());
    }
}
