//! The fused quantized linear layer (`webnn_core::fusion::QuantizedLinear`, weights kept
//! 4- or 8-bit) against the reference interpreter running the same graph op by op: every
//! weight type, with and without Q4_1's per-block offset, several block sizes and row
//! counts, a fused relu and residual add; bit-identical for 1 and 3 threads. The same tests
//! run in headless Chromium for the simd128 and the threads build's relaxed-SIMD row kernels
//! (scripts/test.sh), where a pool without started workers runs every unit on the caller.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use webnn_core::ops::{GemmOptions, OpOptions};
use webnn_core::{Backend, DataType, Graph, GraphBuilder, HostTensor, OperandDescriptor};
use webnn_fast::FastBackend;
use webnn_models::{QuantizedLinear, Rng};

const F: DataType = DataType::Float32;

fn floats(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<u8> {
    rng.fill(n, lo, hi)
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

fn to_f32(t: &HostTensor) -> Vec<f32> {
    t.bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

struct Case {
    t: DataType,
    m: u32,
    n: u32,
    k: u32,
    block: u32,
    offset: bool,
    /// relu and a residual add after the gemm (both fused into the step).
    tail: bool,
}

fn graph(c: &Case, rng: &mut Rng) -> Graph {
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let x = b.input("x", OperandDescriptor::new(F, &[c.m, c.k])).unwrap();
    let layer = QuantizedLinear { weight: c.t, n: c.n, k: c.k, block: c.block, offset: c.offset, zero_points: true };
    let mut y = layer.build(&mut b, x, rng).unwrap();
    if c.tail {
        let r = b.input("r", OperandDescriptor::new(F, &[c.m, c.n])).unwrap();
        y = b.add(y, r, none()).unwrap();
        y = b.relu(y, none()).unwrap();
    }
    b.build(&[("y", y)]).unwrap()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn fused_quantized_linear_matches_the_ops_one_by_one() {
    let mut rng = Rng::new(3);
    let types = [
        DataType::Int4,
        DataType::Uint4,
        DataType::Int8,
        DataType::Uint8,
    ];
    // Rows for both one-or-two-row paths (intrinsics where blocks fill vectors, portable
    // otherwise; on AVX2 the 16-bit integer kernels for 4-bit blocks of 32 and 64, 8-bit
    // ones of 16, 32 and 64, where k is a whole number of 32-byte groups: the last shape
    // has an odd count of them, ten blocks' shift terms and 19 columns, two short of a
    // multiple of eight) and the dequantize-then-GEMM path; blocks of 64, 32, 16 and 25.
    let shapes = [
        (1, 40, 96, 32),
        (3, 70, 64, 16),
        (17, 33, 128, 64),
        (2, 8, 50, 25),
        (2, 45, 128, 64),
        (1, 24, 96, 16),
        (2, 19, 320, 32),
    ];
    let mut cases = 0;
    for t in types {
        for (i, &(m, n, k, block)) in shapes.iter().enumerate() {
            for offset in [false, true] {
                let c = Case {
                    t,
                    m,
                    n,
                    k,
                    block,
                    offset,
                    tail: i % 2 == 1,
                };
                let g = graph(&c, &mut rng);
                assert_eq!(webnn_core::fusion::quantized_linears(&g).len(), 1);
                let one = FastBackend::new(1);
                let fast1 = one.compile_graph(&g).unwrap();
                // The gemm and everything feeding its weights became one fast step (plus
                // the fused tail); nothing runs on the reference kernels. An odd 4-bit block
                // cannot be split into nibble halves and stays unfused.
                let four_bit = matches!(t, DataType::Int4 | DataType::Uint4);
                if four_bit && block % 2 == 1 {
                    assert!(fast1.step_counts().1 > 0, "{t} block {block}: fused");
                } else {
                    assert_eq!(
                        fast1.step_counts(),
                        (1, 0),
                        "{t} {m}x{n}x{k} block {block} offset {offset}"
                    );
                }
                let x = HostTensor {
                    desc: OperandDescriptor::new(F, &[m, k]),
                    bytes: floats(&mut rng, (m * k) as usize, -1.0, 1.0),
                };
                let r = HostTensor {
                    desc: OperandDescriptor::new(F, &[m, n]),
                    bytes: floats(&mut rng, (m * n) as usize, -1.0, 1.0),
                };
                let feeds: Vec<(&str, &HostTensor)> = if c.tail {
                    vec![("x", &x), ("r", &r)]
                } else {
                    vec![("x", &x)]
                };
                let want = to_f32(
                    &webnn_cpu::CpuBackend
                        .compile(&g)
                        .unwrap()
                        .dispatch(&feeds)
                        .unwrap()[0]
                        .1,
                );
                let got1 = to_f32(&one.compile(&g).unwrap().dispatch(&feeds).unwrap()[0].1);
                // Every instruction set this machine has (AVX-512, AVX2, portable on x86)
                // runs its own row kernels; each must match the reference.
                for isa in webnn_gemm::Isa::available() {
                    let got = to_f32(
                        &FastBackend::with_isa(1, isa)
                            .compile(&g)
                            .unwrap()
                            .dispatch(&feeds)
                            .unwrap()[0]
                            .1,
                    );
                    for (j, (a, b)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            (a - b).abs() <= 2e-5 * k as f32 * b.abs().max(1.0),
                            "{isa} {t} {m}x{n}x{k} block {block} offset {offset} [{j}]: {a} vs {b}"
                        );
                    }
                }
                let got3 = to_f32(
                    &FastBackend::new(3)
                        .compile(&g)
                        .unwrap()
                        .dispatch(&feeds)
                        .unwrap()[0]
                        .1,
                );
                assert_eq!(got1, got3, "{t}: the thread count changed a result");
                for (j, (a, b)) in got1.iter().zip(&want).enumerate() {
                    // Sums of k products of magnitude up to ~8: f32 rounding in a different order.
                    assert!(
                        (a - b).abs() <= 2e-5 * k as f32 * b.abs().max(1.0),
                        "{t} {m}x{n}x{k} block {block} offset {offset} [{j}]: {a} vs {b}"
                    );
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 56);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn infinities_and_nans_in_the_input_give_the_reference_results() {
    // The AVX2 kernels round x to 16 bits per block, which has no infinity or NaN: such an
    // input must still give IEEE's answers, as the op-by-op graph does.
    let mut rng = Rng::new(5);
    for t in [DataType::Uint4, DataType::Int8] {
        let c = Case { t, m: 1, n: 16, k: 96, block: 32, offset: true, tail: false };
        let g = graph(&c, &mut rng);
        for (at, v) in [(3, f32::INFINITY), (40, f32::NEG_INFINITY), (70, f32::NAN)] {
            let mut xs = rng.fill(96, -1.0, 1.0);
            xs[at] = v;
            let x = HostTensor {
                desc: OperandDescriptor::new(F, &[1, 96]),
                bytes: xs.iter().flat_map(|v| v.to_le_bytes()).collect(),
            };
            let run = |b: &dyn Backend| to_f32(&b.compile(&g).unwrap().dispatch(&[("x", &x)]).unwrap()[0].1);
            let (got, want) = (run(&FastBackend::new(1)), run(&webnn_cpu::CpuBackend));
            for (j, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(
                    a.is_nan() && b.is_nan() || a == b || (a - b).abs() <= 1e-3 * b.abs().max(1.0),
                    "{t} x[{at}] = {v}, [{j}]: {a} vs {b}"
                );
                assert_eq!(a.is_finite(), b.is_finite(), "{t} x[{at}] = {v}, [{j}]: {a} vs {b}");
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_dequantized_weight_read_twice_is_folded_not_fused() {
    // The dequantized weight also feeds a second gemm: no match, both gemms run unfused
    // and still agree with the reference.
    let mut rng = Rng::new(9);
    let mut b = GraphBuilder::new();
    let none = OpOptions::default;
    let x = b.input("x", OperandDescriptor::new(F, &[2, 32])).unwrap();
    let q = b
        .constant(
            OperandDescriptor::new(DataType::Uint8, &[8, 32]),
            (0..256).map(|i| (i * 37 % 256) as u8).collect(),
        )
        .unwrap();
    let scale = b
        .constant(
            OperandDescriptor::new(F, &[8, 2]),
            floats(&mut rng, 16, 0.01, 0.1),
        )
        .unwrap();
    let zero = b
        .constant(
            OperandDescriptor::new(DataType::Uint8, &[8, 2]),
            vec![128; 16],
        )
        .unwrap();
    let w = b.dequantize_linear(q, scale, zero, none()).unwrap();
    let opts = || GemmOptions {
        b_transpose: true,
        ..Default::default()
    };
    let y1 = b.gemm(x, w, opts()).unwrap();
    let y2 = b.gemm(x, w, opts()).unwrap();
    let g = b.build(&[("y1", y1), ("y2", y2)]).unwrap();
    assert!(webnn_core::fusion::quantized_linears(&g).is_empty());
    let fast = FastBackend::new(2);
    // dequantizeLinear of constants is folded at compile: both gemms get float32 weights to
    // pack, and run as fast steps.
    assert_eq!(fast.compile_graph(&g).unwrap().step_counts(), (2, 0));
    let xv = HostTensor {
        desc: OperandDescriptor::new(F, &[2, 32]),
        bytes: floats(&mut rng, 64, -1.0, 1.0),
    };
    let got = fast.compile(&g).unwrap().dispatch(&[("x", &xv)]).unwrap();
    let want = webnn_cpu::CpuBackend
        .compile(&g)
        .unwrap()
        .dispatch(&[("x", &xv)])
        .unwrap();
    for (a, b) in got.iter().zip(&want) {
        for (p, q) in to_f32(&a.1).iter().zip(to_f32(&b.1)) {
            assert!((p - q).abs() <= 1e-5 * q.abs().max(1.0), "{p} vs {q}");
        }
    }
}
