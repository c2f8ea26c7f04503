//! Pointwise (1x1) convolutions and gemms of a QDQ model in integers: the input is a
//! `dequantizeLinear` result (8-bit activations, one scale and zero point) and the filter a
//! folded `dequantizeLinear` of int8 weights with a scale per output channel and zero
//! points of zero (ONNX Runtime's static quantizer writes both). The float32 graph computes
//! `Σ_k ((q_x - z_x)·s_x) · (w·s_w)`; here
//!
//! `y[j] = (Σ_k q_x[k]·w[k][j] - z_x·Σ_k w[k][j]) · (s_x·s_w[j]) + bias[j]`
//!
//! with the sum exact in 32-bit integers (AVX-512 VNNI's `vpdpbusd`: 64 byte products per
//! instruction, where float32 FMAs make 16) and one float32 multiply after it, so the
//! result is closer to the exact value than the float graph's sum of rounded products;
//! it is not bit for bit the reference's, as the fast float kernels are not either.
//!
//! The input is read as float32 (the slot holds the dequantized values) and quantized again
//! per tile of rows: a `dequantizeLinear` result is `(q - z)·s` rounded once, so
//! `x·(1/s) + z` is within 1e-4 of the integer `q` and rounding recovers it exactly. int8
//! activations are read as uint8 (`q + 128`, `z + 128`: the differences are the same).
//!
//! Machines without AVX-512 VNNI, and the other ISAs the tests force, keep the float32
//! kernels.

use crate::plan::Planner;
use crate::quant::FakeQuant;
use std::cell::RefCell;
use webnn_core::ops::Op;
use webnn_core::{DataType, Operand};
use webnn_gemm::Isa;

/// Output columns per panel: two zmm registers of 32-bit sums.
const NR: usize = 32;

/// A pointwise convolution's packed int8 weights and its output scaling.
pub(crate) struct QPointwise {
    /// Input channels, and that rounded up to a multiple of 4 (one `vpdpbusd` group).
    k: usize,
    kp: usize,
    /// Output channels.
    n: usize,
    /// Per panel of `NR` columns, per group of 4 input channels: `NR` columns x 4 bytes.
    packed: Vec<i8>,
    /// Per output channel (padded to whole panels): `z_x·Σ_k w[k][j]`, `s_x·s_w[j]` and
    /// the bias.
    offset: Vec<i32>,
    scale: Vec<f32>,
    bias: Vec<f32>,
    /// Requantization of the input: `1/s_x` and the zero point as uint8; `s_x`.
    inverse: f32,
    zero: f32,
    scale_x: f32,
}

/// Where the kernel writes its output rows: float32 values (through the pair, if one is
/// given), or the pair's integers as bytes (`stored::Bytes`).
pub(crate) enum Out<'a> {
    Floats(&'a mut [f32]),
    Bytes(&'a mut [u8], &'a FakeQuant),
}

impl Out<'_> {
    fn len(&self) -> usize {
        match self {
            Out::Floats(v) => v.len(),
            Out::Bytes(v, _) => v.len(),
        }
    }
}

thread_local! {
    /// Each thread's quantized rows of the input, kept between steps.
    static ROWS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Whether this machine, at `isa`, runs the integer kernel.
fn available(isa: Isa) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        isa == Isa::Avx512 && std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        false
    }
}

/// The integer form of a pointwise conv2d or gemm reading `input` with weights `filter`
/// (put in `[oc][c]` order by `oihw`, the reordering the float path applies), or `None`.
pub(crate) fn plan(
    p: &Planner,
    input: Operand,
    filter: Operand,
    oihw: impl Fn(&[f32]) -> Vec<f32>,
    c: usize,
    oc: usize,
    bias: Option<&[f32]>,
) -> Option<QPointwise> {
    if !available(p.isa) {
        return None;
    }
    let (s_x, zero) = activation(p, input)?;
    let webnn_core::graph::Source::Constant(data) = &p.orig.info(filter).source else { return None };
    let (values, scales) = p.quantized_constants.get(&crate::fold::key(data))?.elements()?;
    // The reordering is the float path's; integers and scales are exact in float32.
    let w = oihw(&values.iter().map(|&v| v as f32).collect::<Vec<_>>());
    let s = oihw(&scales);
    let mut scale_w = Vec::with_capacity(oc);
    for (w, s) in w.chunks_exact(c).zip(s.chunks_exact(c)) {
        // int8 values, one finite scale per output channel.
        if w.iter().any(|&v| !(-128.0..=127.0).contains(&v)) || s.iter().any(|&v| v != s[0] || !v.is_finite()) {
            return None;
        }
        scale_w.push(s[0]);
    }
    Some(QPointwise::new(c, oc, &w, &scale_w, s_x, zero, bias))
}

/// `input` as a dequantizeLinear result of 8-bit values with a scalar positive scale and zero
/// point (or a reshape of one, which moves no value): the scale, and the zero point as uint8.
fn activation(p: &Planner, input: Operand) -> Option<(f64, f32)> {
    let n = p.producer_of(input)?;
    if let Op::Reshape(r) = &p.orig.nodes[n].op {
        return activation(p, r.input);
    }
    let Op::DequantizeLinear(d) = &p.orig.nodes[n].op else { return None };
    let s = crate::quant::scalar_f32(p, d.scale)?;
    let (z, _, _) = crate::quant::scalar_int(p, d.zero_point)?;
    let bias = match p.orig.desc(d.input).data_type {
        DataType::Uint8 => 0.0,
        DataType::Int8 => 128.0,
        _ => return None,
    };
    (s > 0.0 && s.is_finite()).then_some((s, (z + bias) as f32))
}

impl QPointwise {
    /// From weights `w[o][k]` (integers), per-channel scales, the input's scale and uint8 zero
    /// point, and the bias.
    fn new(k: usize, n: usize, w: &[f32], scale_w: &[f32], s_x: f64, zero: f32, bias: Option<&[f32]>) -> QPointwise {
        let kp = k.next_multiple_of(4);
        let np = n.next_multiple_of(NR);
        let mut packed = vec![0i8; np * kp];
        let (mut offset, mut scale, mut b) = (vec![0i32; np], vec![0f32; np], vec![0f32; np]);
        for j in 0..n {
            let (panel, col) = (j / NR, j % NR);
            let mut sum = 0i32;
            for kk in 0..k {
                let v = w[j * k + kk] as i32;
                sum += v;
                packed[panel * kp * NR + (kk / 4) * NR * 4 + col * 4 + kk % 4] = v as i8;
            }
            offset[j] = zero as i32 * sum;
            scale[j] = (s_x * scale_w[j] as f64) as f32;
            b[j] = bias.map_or(0.0, |b| b[j]);
        }
        QPointwise { k, kp, n, packed, offset, scale, bias: b, inverse: (1.0 / s_x) as f32, zero, scale_x: s_x as f32 }
    }

    pub(crate) fn describe(&self) -> String {
        format!("int8 (VNNI) {}->{}", self.k, self.n)
    }

    /// Output rows `out` (`n` floats each) from input rows `x` (`k` floats each), clamped to
    /// `[lo, hi]`, then through `quant` (an 8-bit activation pair, in registers: see
    /// `quant.rs`; the caller leaves it out of the step's `Post::finish`).
    pub(crate) fn run(&self, x: &[f32], out: Out, lo: f32, hi: f32, quant: Option<&FakeQuant>) {
        let rows = out.len() / self.n;
        ROWS.with_borrow_mut(|a| {
            self.padded(a, rows);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `plan` built this step only where `available` found the features.
            unsafe {
                x86::quantize(self, x, a)
            }
            #[cfg(not(target_arch = "x86_64"))]
            self.quantize(x, a);
            self.sums(a, out, lo, hi, quant);
        });
    }

    /// `a` sized for `rows` input rows of `kp` bytes, not cleared: the caller writes each
    /// row's first `k`, and the padding's weights are zero, so whatever bytes it holds add
    /// nothing to the exact sums.
    fn padded(&self, a: &mut Vec<u8>, rows: usize) {
        a.resize(rows * self.kp, 0);
    }

    /// Whether input rows stored as bytes with this zero point and scale (`stored::Bytes`)
    /// are this kernel's uint8 rows.
    pub(crate) fn reads_bytes(&self, zero: f32, scale: f32) -> bool {
        zero == self.zero && scale == self.scale_x
    }

    /// `run` from input rows stored as bytes (`reads_bytes`): already the kernel's integers,
    /// padded to whole groups of four where `k` is not.
    pub(crate) fn run_bytes(&self, x: &[u8], out: Out, lo: f32, hi: f32, quant: Option<&FakeQuant>) {
        if self.k == self.kp {
            return self.sums(x, out, lo, hi, quant);
        }
        ROWS.with_borrow_mut(|a| {
            self.padded(a, out.len() / self.n);
            for (dst, src) in a.chunks_exact_mut(self.kp).zip(x.chunks_exact(self.k)) {
                dst[..self.k].copy_from_slice(src);
            }
            self.sums(a, out, lo, hi, quant);
        });
    }

    /// The output rows from uint8 input rows `a` (`kp` bytes each).
    fn sums(&self, a: &[u8], out: Out, lo: f32, hi: f32, quant: Option<&FakeQuant>) {
        let rows = out.len() / self.n;
        // Wider pairs (32-bit zero points) have no float32 lanes: applied after, exactly.
        let (quant, after) = match quant {
            Some(f) if f.lanes().is_none() => (None, Some(f)),
            other => (other, None),
        };
        // SAFETY (both calls): `plan` built this step only where `available` found the
        // features.
        #[cfg(target_arch = "x86_64")]
        match out {
            Out::Floats(v) => {
                unsafe { x86::rows(self, a, rows, x86::Dst::Floats(&mut *v), lo, hi, quant) };
                if let Some(f) = after {
                    f.apply_f32(v);
                }
            }
            Out::Bytes(v, pair) => unsafe { x86::rows(self, a, rows, x86::Dst::Bytes(v), lo, hi, Some(pair)) },
        }
        #[cfg(not(target_arch = "x86_64"))]
        match out {
            Out::Floats(v) => {
                self.rows_portable(a, rows, v, lo, hi, quant);
                if let Some(f) = after {
                    f.apply_f32(v);
                }
            }
            Out::Bytes(v, pair) => {
                let mut y = vec![0f32; v.len()];
                self.rows_portable(a, rows, &mut y, lo, hi, None);
                pair.quantize_bytes(&y, v);
            }
        }
    }

    /// The input rows as uint8 (each row's padding up to `kp` is left as it is: its weights
    /// are zero).
    /// Inlined into the ISA's compiled caller, where it vectorizes.
    #[inline(always)]
    fn quantize(&self, x: &[f32], a: &mut [u8]) {
        for (row, q) in x.chunks_exact(self.k).zip(a.chunks_exact_mut(self.kp)) {
            for (q, &v) in q.iter_mut().zip(row) {
                // On the grid: `v·(1/s) + z` is within 1e-4 of an integer in [0, 255].
                // max/min, not `clamp`: its assertion is a branch that keeps the loop scalar.
                #[allow(clippy::manual_clamp)]
                let v = (v * self.inverse + self.zero + 0.5).max(0.0).min(255.0);
                // SAFETY: in [0, 255] (`max` returns 0 for NaN). `as` would add the checks
                // of a saturating conversion, which keep the loop scalar.
                *q = unsafe { v.to_int_unchecked::<i32>() } as u8;
            }
        }
    }

    /// The same sums and epilogue as the vector kernel, one element at a time: the tests'
    /// reference for it, and the kernel where the machine has none.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn rows_portable(&self, a: &[u8], rows: usize, out: &mut [f32], lo: f32, hi: f32, quant: Option<&FakeQuant>) {
        for r in 0..rows {
            for j in 0..self.n {
                let (panel, col) = (j / NR, j % NR);
                let mut acc = 0i32;
                for kk in 0..self.k {
                    let w = self.packed[panel * self.kp * NR + (kk / 4) * NR * 4 + col * 4 + kk % 4] as i32;
                    acc += a[r * self.kp + kk] as i32 * w;
                }
                let v = ((acc - self.offset[j]) as f32 * self.scale[j] + self.bias[j]).max(lo).min(hi);
                out[r * self.n + j] = quant.map_or(v, |q| q.exact_f32(v));
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{QPointwise, NR};
    use crate::quant::x86::{store_bytes, store_bytes2, store_values};
    use crate::quant::{FakeQuant, Lanes};
    use std::arch::x86_64::*;

    /// [`QPointwise::quantize`] compiled for AVX-512.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn quantize(q: &QPointwise, x: &[f32], a: &mut [u8]) {
        q.quantize(x, a)
    }

    /// The epilogue's constants.
    struct Epilogue<'a> {
        lo: __m512,
        hi: __m512,
        /// Whether the bounds clamp at all (a QDQ model's clamps are its pairs' ranges).
        clamps: bool,
        /// An 8-bit activation pair, and its float32 constants.
        quant: Option<(&'a FakeQuant, Lanes)>,
    }

    /// The output rows: float32 values, or (with a pair) the pair's integers as bytes.
    pub(super) enum Dst<'a> {
        Floats(&'a mut [f32]),
        Bytes(&'a mut [u8]),
    }

    /// Every row and panel: tiles of 8 rows, then 4, then 1.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn rows(q: &QPointwise, a: &[u8], rows: usize, mut out: Dst, lo: f32, hi: f32, quant: Option<&FakeQuant>) {
        let groups = q.kp / 4;
        let e = Epilogue {
            lo: _mm512_set1_ps(lo),
            hi: _mm512_set1_ps(hi),
            clamps: lo > f32::NEG_INFINITY || hi < f32::INFINITY,
            quant: quant.and_then(|f| Some((f, f.lanes()?))),
        };
        let len = match &out {
            Dst::Floats(v) => v.len(),
            Dst::Bytes(v) => {
                assert!(e.quant.is_some(), "bytes are the integers of an 8-bit pair");
                v.len()
            }
        };
        assert!(len >= rows * q.n && a.len() >= rows * q.kp);
        for panel in 0..q.n.div_ceil(NR) {
            let b = q.packed[panel * q.kp * NR..].as_ptr();
            let mut r = 0;
            while r + 8 <= rows {
                tile::<8>(q, a, r, b, groups, panel, &mut out, &e);
                r += 8;
            }
            while r + 4 <= rows {
                tile::<4>(q, a, r, b, groups, panel, &mut out, &e);
                r += 4;
            }
            while r < rows {
                tile::<1>(q, a, r, b, groups, panel, &mut out, &e);
                r += 1;
            }
        }
    }

    /// Rows `r..r + MR` by the panel's `NR` columns: the sums, then the epilogue into `out`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile<const MR: usize>(
        q: &QPointwise,
        a: &[u8],
        r: usize,
        b: *const i8,
        groups: usize,
        panel: usize,
        out: &mut Dst,
        e: &Epilogue,
    ) {
        let mut acc = [[_mm512_setzero_si512(); 2]; MR];
        let a = a[r * q.kp..].as_ptr();
        for g in 0..groups {
            let b0 = _mm512_loadu_si512(b.add(g * NR * 4) as *const __m512i);
            let b1 = _mm512_loadu_si512(b.add(g * NR * 4 + 64) as *const __m512i);
            for (i, acc) in acc.iter_mut().enumerate() {
                let v = _mm512_set1_epi32((a.add(i * q.kp + 4 * g) as *const i32).read_unaligned());
                acc[0] = _mm512_dpbusd_epi32(acc[0], v, b0);
                acc[1] = _mm512_dpbusd_epi32(acc[1], v, b1);
            }
        }
        // The panel's one or two vectors of columns: their masks and per-column constants.
        let cols = (q.n - panel * NR).min(NR);
        let halves = cols.div_ceil(16);
        let mut mask = [0 as __mmask16; 2];
        let mut consts = [(_mm512_setzero_si512(), _mm512_setzero_ps(), _mm512_setzero_ps()); 2];
        for h in 0..halves {
            let col0 = panel * NR + 16 * h;
            mask[h] = if q.n - col0 >= 16 { 0xffff } else { (1u16 << (q.n - col0)) - 1 };
            consts[h] = (
                _mm512_loadu_si512(q.offset[col0..].as_ptr() as *const __m512i),
                _mm512_loadu_ps(q.scale[col0..].as_ptr()),
                _mm512_loadu_ps(q.bias[col0..].as_ptr()),
            );
        }
        for (i, acc) in acc.iter().enumerate() {
            let mut v = [_mm512_setzero_ps(); 2];
            for h in 0..halves {
                let (offset, scale, bias) = consts[h];
                let x = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[h], offset));
                let x = _mm512_add_ps(_mm512_mul_ps(x, scale), bias);
                // The bounds first: max/min return their second operand where either is
                // NaN, so a NaN sum stays NaN (the pair then gives its zero point), as in
                // the reference's clamp.
                v[h] = if e.clamps { _mm512_min_ps(e.hi, _mm512_max_ps(e.lo, x)) } else { x };
            }
            let at = (r + i) * q.n + panel * NR;
            match (&mut *out, &e.quant) {
                // A whole panel: its 32 bytes in one store.
                (Dst::Bytes(o), Some((f, l))) if halves == 2 && mask[1] == 0xffff => {
                    store_bytes2(v[0], v[1], o[at..].as_mut_ptr(), f, l)
                }
                (out, quant) => {
                    for h in 0..halves {
                        let at = at + 16 * h;
                        match (&mut *out, quant) {
                            (Dst::Floats(o), Some((f, l))) => store_values(v[h], mask[h], o[at..].as_mut_ptr(), f, l),
                            (Dst::Floats(o), None) => _mm512_mask_storeu_ps(o[at..].as_mut_ptr(), mask[h], v[h]),
                            (Dst::Bytes(o), Some((f, l))) => store_bytes(v[h], mask[h], o[at..].as_mut_ptr(), f, l),
                            (Dst::Bytes(_), None) => unreachable!("checked in `rows`"),
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector kernel's results equal the portable loop's bit for bit (both sum exactly
    /// and share the epilogue), over ragged row counts, channel counts and the clamp.
    #[test]
    fn the_kernel_equals_the_portable_loop() {
        if !available(Isa::Avx512) {
            eprintln!("skipped: this machine has no AVX-512 VNNI");
            return;
        }
        let mut rng = webnn_models::Rng::new(3);
        let mut next = || rng.next_u64();
        for (k, n, rows) in [(16, 96, 37), (3, 5, 9), (960, 320, 17), (24, 144, 8), (33, 47, 13)] {
            let w: Vec<f32> = (0..k * n).map(|_| (next() % 256) as f32 - 128.0).collect();
            let scale_w: Vec<f32> = (0..n).map(|_| 1e-3 * (1 + next() % 100) as f32).collect();
            let bias: Vec<f32> = (0..n).map(|_| (next() % 100) as f32 * 0.01 - 0.5).collect();
            let q = QPointwise::new(k, n, &w, &scale_w, 0.05, 17.0, Some(&bias));
            let a: Vec<u8> = (0..rows * q.kp).map(|i| if i % q.kp < k { next() as u8 } else { 0 }).collect();
            // Without an output pair, with a uint8 one and with an int8 one (whose steps
            // put values on ties now and then).
            // Scales are float32 values, as a graph's are.
            let (s1, s2) = (0.05f32 as f64, 0.0125f32 as f64);
            // With scale 2, the clamp's bound -1 is a tie (-0.5): the lanes' exact fallback.
            let pairs = [
                None,
                Some(FakeQuant::new(s1, 3.0, 0.0, 255.0, s1, 3.0)),
                Some(FakeQuant::new(s2, -4.0, -128.0, 127.0, s2, -4.0)),
                Some(FakeQuant::new(2.0, 0.0, -128.0, 127.0, 2.0, 0.0)),
            ];
            for pair in &pairs {
                let (mut got, mut want) = (vec![0.0f32; rows * n], vec![0.0f32; rows * n]);
                // SAFETY: `available` checked the features.
                unsafe { x86::rows(&q, &a, rows, x86::Dst::Floats(&mut got), -1.0, 6.0, pair.as_ref()) };
                q.rows_portable(&a, rows, &mut want, -1.0, 6.0, pair.as_ref());
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g.to_bits(), w.to_bits(), "k {k} n {n} rows {rows} {pair:?}: [{i}] {g} vs {w}");
                }
                // The pair's integers stored as bytes from the registers decode to the same
                // values.
                let Some(stored) = pair.as_ref().and_then(crate::stored::Bytes::of) else { continue };
                let mut bytes = vec![0u8; rows * n];
                // SAFETY: as above.
                unsafe { x86::rows(&q, &a, rows, x86::Dst::Bytes(&mut bytes), -1.0, 6.0, pair.as_ref()) };
                let mut decoded = vec![0f32; rows * n];
                stored.decode(&bytes, &mut decoded);
                assert!(decoded.iter().zip(&got).all(|(d, g)| d.to_bits() == g.to_bits()), "k {k} n {n} rows {rows} {pair:?}: bytes");
            }
        }
    }

    /// Requantizing dequantized values recovers their integers, at the ends of the range too.
    #[test]
    fn requantization_is_exact() {
        for s in [0.0123f32, 0.05, 1.7e-3, 3.0] {
            for z in [0.0f64, 17.0, 128.0, 255.0] {
                let q = QPointwise::new(4, 1, &[0.0; 4], &[1.0], s as f64, z as f32, None);
                for v in 0..=255u8 {
                    let x = ((v as f64 - z) * s as f64) as f32;
                    let mut a = [0u8; 4];
                    q.quantize(&[x, x, x, x], &mut a);
                    assert_eq!(a[0], v, "s {s} z {z}");
                }
            }
        }
    }
}
