//! Fused 4-bit quantized products (blockwise `dequantizeLinear`, Q4_1's per-block offset,
//! `gemm`) run as ONNX Runtime's MatMulNBits, against the cpu backend running the ops one by
//! one: int4 and uint4, with and without the offset, an odd and an even number of blocks per
//! row, 1 to 40 rows of x through one graph. 8-bit weights stay standard ONNX.

mod common;

use common::*;
use webnn_core::{Backend, DataType, Graph, HostTensor, OperandDescriptor};
use webnn_models::{QuantizedLinear, Rng};

const F: DataType = DataType::Float32;

fn graph(t: DataType, block: u32, offset: bool, rng: &mut Rng) -> Graph {
    // 42 weight rows: not a multiple of the 4 that a CPU adapter's one-row gemv computes at once.
    QuantizedLinear { weight: t, n: 42, k: 96, block, offset, zero_points: true }.graph(40, rng).unwrap()
}

fn ops(model: &webnn_onnx::OnnxModel) -> Vec<String> {
    let g = model.model.graph.as_ref().unwrap();
    g.node.iter().filter_map(|n| n.op_type.clone()).collect()
}

#[test]
fn quantized_products_run_as_matmul_nbits() {
    let mut rng = Rng::new(9);
    for t in [DataType::Int4, DataType::Uint4, DataType::Int8] {
        // 3 blocks of 32 per weight row (the zero points' rows end mid-byte), 6 of 16.
        for (block, offset) in [(32, false), (32, true), (16, true)] {
            let g = graph(t, block, offset, &mut rng);
            let nbits = webnn_onnx::convert_with(&g, webnn_onnx::ConvertOptions { matmul_nbits: true, ..Default::default() }).unwrap();
            let fused = ops(&nbits).iter().filter(|o| *o == "MatMulNBits").count();
            assert_eq!(fused, usize::from(t.bits() == 4), "{t} block {block}: {:?}", ops(&nbits));
            assert!(!ops(&webnn_onnx::convert(&g).unwrap()).iter().any(|o| o == "MatMulNBits"), "standard ONNX by default");
            let mut ort = ort().compile(&g).unwrap();
            let mut cpu = webnn_cpu::CpuBackend.compile(&g).unwrap();
            for m in [1u32, 3, 40, 1] {
                let bytes = rng.fill(m as usize * 96, -1.0, 1.0).iter().flat_map(|v| v.to_le_bytes()).collect();
                let x = HostTensor { desc: OperandDescriptor::new(F, &[m, 96]), bytes };
                let got = ort.dispatch(&[("x", &x)]).unwrap();
                let want = cpu.dispatch(&[("x", &x)]).unwrap();
                let f = |t: &HostTensor| -> Vec<f32> { t.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect() };
                let (a, b) = (f(&got[0].1), f(&want[0].1));
                assert_eq!(a.len(), b.len());
                for (i, (a, b)) in a.iter().zip(&b).enumerate() {
                    assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0) * 96.0, "{t} block {block} offset {offset} m {m} [{i}]: {a} vs {b}");
                }
            }
        }
    }
}
