//! Every ISA this machine runs, against a naive f64 triple loop, on awkward sizes. The same
//! tests run in headless Chromium for each wasm build (scripts/test.sh): simd128, and the
//! threads build's relaxed SIMD.

// In a browser: wasm-bindgen-test-runner drives headless Chromium.
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use webnn_gemm::{gemm, gemm_rows, gemv, Epilogue, Isa, PackedB};

/// xorshift64*: reproducible inputs without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [-1, 1).
    fn f32(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    /// Integers in [-4, 4]: every product and partial sum is exact in f32 for K < 2^20.
    fn small_int(&mut self) -> f32 {
        (self.next() % 9) as f32 - 4.0
    }
    fn vec(&mut self, len: usize, int: bool) -> Vec<f32> {
        (0..len)
            .map(|_| if int { self.small_int() } else { self.f32() })
            .collect()
    }
}

struct Case {
    m: usize,
    k: usize,
    n: usize,
    lda: usize,
    ldc: usize,
    bias: bool,
    epilogue: Epilogue,
    int: bool,
}

struct Data {
    a: Vec<f32>,
    b: Vec<f32>,
    bias: Option<Vec<f32>>,
    /// Expected C (`m` x `n`, dense) and the error budget of each element.
    want: Vec<f64>,
    tol: Vec<f64>,
}

fn data(case: &Case, rng: &mut Rng) -> Data {
    let Case { m, k, n, lda, .. } = *case;
    let a = rng.vec(m.saturating_sub(1) * lda + k, case.int);
    let b = rng.vec(k * n, case.int);
    let bias = case.bias.then(|| rng.vec(n, case.int));
    let (mut want, mut tol) = (vec![0.0; m * n], vec![0.0; m * n]);
    for i in 0..m {
        for j in 0..n {
            let start = bias.as_ref().map_or(0.0, |bias| bias[j] as f64);
            let (mut sum, mut mag) = (start, start.abs());
            for p in 0..k {
                let prod = a[i * lda + p] as f64 * b[p * n + j] as f64;
                sum += prod;
                mag += prod.abs();
            }
            // Clamp in f64 the way the kernels do in f32.
            let (lo, hi) = (case.epilogue.min as f64, case.epilogue.max as f64);
            want[i * n + j] = sum.max(lo).min(hi);
            // Random-sign sums round to about eps times the sum of magnitudes, independent of
            // K; 16 eps leaves room without hiding a dropped term of a short sum.
            tol[i * n + j] = if case.int {
                0.0
            } else {
                16.0 * f32::EPSILON as f64 * mag
            };
        }
    }
    Data {
        a,
        b,
        bias,
        want,
        tol,
    }
}

fn check(isa: Isa, case: &Case, d: &Data, c: &[f32], what: &str) {
    let Case { m, k, n, ldc, .. } = *case;
    for i in 0..m {
        for j in 0..n {
            let (got, want, tol) = (c[i * ldc + j] as f64, d.want[i * n + j], d.tol[i * n + j]);
            assert!(
                (got - want).abs() <= tol,
                "{isa} {what} m={m} k={k} n={n} bias={} {:?}: C[{i}][{j}] = {got}, want {want} \
                 (tolerance {tol})",
                case.bias,
                case.epilogue,
            );
        }
        // Padding between rows must be left alone.
        if i + 1 < m {
            assert!(
                c[i * ldc + n..(i + 1) * ldc].iter().all(|&x| x == SENTINEL),
                "{isa} padding"
            );
        }
    }
}

const SENTINEL: f32 = -1234.5;

/// Runs one case on one ISA through `gemm` and checks it.
fn run(isa: Isa, case: &Case, rng: &mut Rng) {
    let d = data(case, rng);
    let packed = PackedB::new(isa, case.k, case.n, &d.b, d.bias.as_deref());
    let mut c = vec![SENTINEL; case.m.saturating_sub(1) * case.ldc + case.n];
    gemm(
        case.m,
        &d.a,
        case.lda,
        &packed,
        &mut c,
        case.ldc,
        case.epilogue,
    );
    check(isa, case, &d, &c, "gemm");
}

const SIZES: [usize; 12] = [1, 2, 3, 5, 7, 8, 13, 17, 31, 33, 64, 100];
const EPILOGUES: [Epilogue; 4] = [
    Epilogue::NONE,
    Epilogue::RELU,
    Epilogue::RELU6,
    Epilogue {
        min: -0.25,
        max: 0.5,
    },
];

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn odd_sizes_every_isa() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for isa in Isa::available() {
        let mut count = 0;
        // A sampled cube: every M with every N, K rotating, so each size meets each other.
        for (im, &m) in SIZES.iter().enumerate() {
            for (in_, &n) in SIZES.iter().enumerate() {
                let k = SIZES[(im * 5 + in_ * 7) % SIZES.len()];
                let pad = (im + in_) % 3;
                let case = Case {
                    m,
                    k,
                    n,
                    lda: k + pad,
                    ldc: n + 2 * pad,
                    bias: (im + in_) % 2 == 0,
                    epilogue: EPILOGUES[(im + 2 * in_) % 4],
                    int: false,
                };
                run(isa, &case, &mut rng);
                count += 1;
            }
        }
        assert_eq!(count, SIZES.len() * SIZES.len());
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_epilogue_with_and_without_bias() {
    let mut rng = Rng(7);
    for isa in Isa::available() {
        for epilogue in EPILOGUES {
            for bias in [false, true] {
                for (m, k, n) in [(13, 17, 33), (1, 31, 100), (17, 64, 7)] {
                    let case = Case {
                        m,
                        k,
                        n,
                        lda: k,
                        ldc: n,
                        bias,
                        epilogue,
                        int: false,
                    };
                    run(isa, &case, &mut rng);
                }
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn k_extremes() {
    let mut rng = Rng(42);
    for isa in Isa::available() {
        for (m, k, n) in [
            (1, 1, 1),
            (7, 1, 33),
            (33, 1, 17),
            (5, 4097, 17),
            (13, 4097, 40),
        ] {
            for int in [false, true] {
                let epilogue = Epilogue::NONE;
                let case = Case {
                    m,
                    k,
                    n,
                    lda: k + 3,
                    ldc: n + 1,
                    bias: true,
                    epilogue,
                    int,
                };
                run(isa, &case, &mut rng);
            }
        }
        // K = 0: the output is the clamped bias.
        let case = Case {
            m: 3,
            k: 0,
            n: 5,
            lda: 0,
            ldc: 5,
            bias: true,
            epilogue: Epilogue::RELU,
            int: false,
        };
        run(isa, &case, &mut rng);
    }
}

/// Small integers make every sum exact, so any dropped, doubled or misplaced term shows up
/// even where rounding tolerance would hide it.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn exact_on_integers() {
    let mut rng = Rng(3);
    for isa in Isa::available() {
        for (m, k, n) in [
            (100, 300, 64),
            (31, 257, 33),
            (9, 1000, 47),
            (1, 513, 100),
            (64, 64, 64),
        ] {
            for bias in [false, true] {
                let epilogue = Epilogue::clamp(-50.0, 50.0);
                let case = Case {
                    m,
                    k,
                    n,
                    lda: k + 1,
                    ldc: n + 3,
                    bias,
                    epilogue,
                    int: true,
                };
                run(isa, &case, &mut rng);
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn rows_in_pieces_equal_the_whole() {
    let mut rng = Rng(11);
    let (m, k, n, lda, ldc) = (100, 300, 45, 303, 50);
    let a = rng.vec(m * lda, false);
    let b = rng.vec(k * n, false);
    let bias = rng.vec(n, false);
    for isa in Isa::available() {
        let packed = PackedB::new(isa, k, n, &b, Some(&bias));
        let mr = packed.tile().0;
        let mut whole = vec![SENTINEL; m * ldc];
        gemm(m, &a, lda, &packed, &mut whole, ldc, Epilogue::RELU6);
        // Cuts at multiples of the tile height reproduce gemm exactly.
        let cuts = [0, mr, 3 * mr, 4 * mr, 9 * mr, m];
        let mut pieces = vec![SENTINEL; m * ldc];
        for w in cuts.windows(2) {
            let out = &mut pieces[w[0] * ldc..w[1] * ldc];
            gemm_rows(w[0]..w[1], &a, lda, &packed, out, ldc, Epilogue::RELU6);
        }
        assert!(
            whole == pieces,
            "{isa}: aligned pieces differ from the whole"
        );
        // Arbitrary cuts, thread-pool style with chunks_mut, agree up to rounding.
        let mut pieces = vec![SENTINEL; m * ldc];
        for (t, out) in pieces.chunks_mut(7 * ldc).enumerate() {
            let rows = t * 7..(t * 7 + 7).min(m);
            gemm_rows(rows, &a, lda, &packed, out, ldc, Epilogue::RELU6);
        }
        for (x, y) in whole.iter().zip(&pieces) {
            assert!((x - y).abs() <= 1e-5 * (1.0 + x.abs()), "{isa}: {x} vs {y}");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn gemv_matches_gemm() {
    let mut rng = Rng(5);
    for isa in Isa::available() {
        for (k, n) in [(576, 1536), (3, 1), (17, 31), (1, 64)] {
            let case = Case {
                m: 1,
                k,
                n,
                lda: k,
                ldc: n,
                bias: true,
                epilogue: Epilogue::RELU,
                int: false,
            };
            let d = data(&case, &mut rng);
            let packed = PackedB::new(isa, k, n, &d.b, d.bias.as_deref());
            let mut c = vec![0.0; n];
            gemv(&d.a, &packed, &mut c, case.epilogue);
            check(isa, &case, &d, &c, "gemv");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn nan_passes_through_the_clamp() {
    for isa in Isa::available() {
        let (k, n) = (2, 40);
        let b: Vec<f32> = (0..k * n).map(|i| i as f32).collect();
        let packed = PackedB::new(isa, k, n, &b, None);
        let a = [f32::NAN, 1.0, 1.0, 1.0];
        let mut c = vec![0.0; 2 * n];
        gemm(2, &a, k, &packed, &mut c, n, Epilogue::RELU6);
        assert!(c[..n].iter().all(|x| x.is_nan()), "{isa}: NaN clamped away: {:?}", &c[..n]);
        assert!(c[n..].iter().all(|&x| x == 6.0), "{isa}: {:?}", &c[n..]);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn packed_weights_are_shareable_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<PackedB>();
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn detect_is_available() {
    let all = Isa::available();
    assert!(all.contains(&Isa::detect()) && all.contains(&Isa::Scalar));
    assert_eq!(all[0], Isa::detect());
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        assert!(all.contains(&Isa::Avx2Fma));
    }
    // Each wasm build has its kernels, so the tests above ran them in this browser.
    #[cfg(target_arch = "wasm32")]
    {
        assert!(all.contains(&Isa::Simd128), "{all:?}");
        let relaxed = cfg!(target_feature = "relaxed-simd");
        assert_eq!(all.contains(&Isa::RelaxedSimd), relaxed, "{all:?}");
        assert_eq!(Isa::detect(), if relaxed { Isa::RelaxedSimd } else { Isa::Simd128 });
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[should_panic(expected = "C is too short")]
fn short_output_panics() {
    let packed = PackedB::new(Isa::detect(), 4, 4, &[0.0; 16], None);
    let mut c = [0.0; 15];
    gemm(4, &[0.0; 16], 4, &packed, &mut c, 4, Epilogue::NONE);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn packing_by_columns_equals_packing_by_rows() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for isa in Isa::available() {
        for (i, &n) in SIZES.iter().enumerate() {
            let (k, m) = (SIZES[(i * 7 + 3) % SIZES.len()], 5);
            let (a, b, bias) = (rng.vec(m * k, false), rng.vec(k * n, false), rng.vec(n, false));
            let bias = (i % 2 == 0).then_some(&bias[..]);
            let rows = PackedB::new(isa, k, n, &b, bias);
            let columns = PackedB::from_columns(isa, k, n, bias, |j, values| {
                for (r, v) in values.iter_mut().enumerate() {
                    *v = b[r * n + j];
                }
            });
            let (mut c1, mut c2) = (vec![0.0; m * n], vec![0.0; m * n]);
            gemm(m, &a, k, &rows, &mut c1, n, Epilogue::NONE);
            gemm(m, &a, k, &columns, &mut c2, n, Epilogue::NONE);
            assert_eq!(c1, c2, "{isa}: k {k}, n {n}");
        }
    }
}

/// Column blocks of panels: each block equals the same columns of the whole product bit
/// for bit, on every ISA, with a bias, a clamp and a K split into several blocks.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn column_blocks_equal_the_whole_product() {
    let mut rng = Rng(0x5eed_b10c);
    let (m, k, n) = (37, 600, 203);
    let a = rng.vec(m * k, false);
    let b = rng.vec(k * n, false);
    let bias = rng.vec(n, false);
    for isa in Isa::available() {
        let packed = PackedB::new(isa, k, n, &b, Some(&bias));
        let epilogue = Epilogue::clamp(-2.0, 2.0);
        let mut whole = vec![0.0f32; m * n];
        gemm(m, &a, k, &packed, &mut whole, n, epilogue);
        let nr = packed.tile().1;
        let panels = packed.panels();
        assert_eq!(panels, n.div_ceil(nr));
        for (p0, p1) in [(0, 1), (1, panels), (panels / 2, panels), (0, panels)] {
            let (c0, c1) = (p0 * nr, (p1 * nr).min(n));
            let width = c1 - c0;
            let mut block = vec![0.0f32; m * width];
            webnn_gemm::gemm_block(0..m, p0..p1, &a, k, &packed, &mut block, width, epilogue);
            for i in 0..m {
                let (got, want) = (&block[i * width..][..width], &whole[i * n + c0..][..width]);
                assert!(got.iter().zip(want).all(|(x, y)| x.to_bits() == y.to_bits()), "{isa} panels {p0}..{p1} row {i}");
            }
        }
    }
}
