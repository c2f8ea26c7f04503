//! Integer ops on every integer type with their extremes and every cast, compared exactly
//! with the cpu backend: the cases shared with the wgpu tests, plus ONNX Runtime's own traps.

mod common;
#[path = "../../webnn-wgpu/tests/shared/integers.rs"]
mod integers;

use common::*;
use integers::tensor;
use webnn_core::ops::*;
use webnn_core::{DataType, GraphBuilder, HostTensor, OperandDescriptor};

/// The lowest value divided by -1 overflows (and traps in a plain integer division): it
/// wraps to itself, as the cpu backend computes; division by zero gives 0.
#[test]
fn division_overflow_and_by_zero() {
    for t in [DataType::Int32, DataType::Int64, DataType::Int8] {
        let size = t.bits() as usize / 8;
        let min: i128 = match t {
            DataType::Int32 => i32::MIN as i128,
            DataType::Int64 => i64::MIN as i128,
            _ => i8::MIN as i128,
        };
        let xs = [min, min, 7, -7, min, 5];
        let ys = [-1i128, 1, -1, 0, 0, -2];
        let bytes = |v: &[i128]| -> Vec<u8> {
            v.iter()
                .flat_map(|x| x.to_le_bytes()[..size].to_vec())
                .collect()
        };
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(t, &[6])).unwrap();
        let y = b.input("y", OperandDescriptor::new(t, &[6])).unwrap();
        let q = b.div(x, y, OpOptions::default()).unwrap();
        let g = b.build(&[("q", q)]).unwrap();
        let (xv, yv) = (tensor(t, 6, bytes(&xs)), tensor(t, 6, bytes(&ys)));
        for (got, want) in run_both(&g, &[("x", &xv), ("y", &yv)]) {
            assert_eq!(got.bytes, want.bytes, "div {t}");
        }
    }
}

/// int4/uint4 cross the model's boundary packed (ONNX INT4/UINT4): an odd element count
/// leaves half a byte, inputs and outputs alike.
#[test]
fn packed_int4_inputs_and_outputs() {
    for t in [DataType::Int4, DataType::Uint4] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", OperandDescriptor::new(t, &[5])).unwrap();
        let scale = b
            .constant(
                OperandDescriptor::new(DataType::Float32, &[1]),
                0.5f32.to_le_bytes().to_vec(),
            )
            .unwrap();
        let zero = b
            .constant(OperandDescriptor::new(t, &[1]), vec![0x01])
            .unwrap();
        let f = b
            .dequantize_linear(x, scale, zero, OpOptions::default())
            .unwrap();
        let doubled = b.add(f, f, OpOptions::default()).unwrap();
        let q = b
            .quantize_linear(doubled, scale, zero, OpOptions::default())
            .unwrap();
        let g = b.build(&[("f", f), ("q", q)]).unwrap();
        let xv = HostTensor {
            desc: OperandDescriptor::new(t, &[5]),
            bytes: vec![0x9f, 0x37, 0x0c],
        };
        for (got, want) in run_both(&g, &[("x", &xv)]) {
            assert_eq!(got, want, "{t}");
        }
    }
}
