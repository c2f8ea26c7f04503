//! Cases of the convolutions, matrix products and recurrent networks.

use super::{num, o, only, B};
use webnn_core::ops::*;
use webnn_core::{DataType, OpKind, Operand};

/// The outputs of variant `v` of (kind, t), for the ops of this file.
pub(super) fn outs(b: &mut B, kind: OpKind, t: DataType, v: u32) -> Option<Vec<Operand>> {
    use OpKind::*;
    let only = |n: u32| only(v, n);
    Some(match kind {
        Conv2d => {
            // Grouped with strides, padding and dilation; depthwise; pointwise (NHWC).
            let (xs, fs, options) = match v {
                0 => (
                    [1, 4, 9, 8],
                    [6, 2, 3, 3],
                    Conv2dOptions {
                        groups: 2,
                        strides: Some(vec![2, 1]),
                        padding: Some(vec![1, 2, 0, 1]),
                        dilations: Some(vec![1, 2]),
                        ..Default::default()
                    },
                ),
                1 => (
                    [2, 5, 10, 37],
                    [5, 1, 3, 3],
                    Conv2dOptions {
                        groups: 5,
                        strides: Some(vec![2, 2]),
                        padding: Some(vec![1; 4]),
                        ..Default::default()
                    },
                ),
                2 => (
                    [2, 6, 7, 3],
                    [3, 1, 1, 3],
                    Conv2dOptions {
                        input_layout: InputLayout::Nhwc,
                        filter_layout: Conv2dFilterLayout::Ohwi,
                        ..Default::default()
                    },
                ),
                _ => return None,
            };
            let x = b.x(t, &xs)?;
            let f = b.x(t, &fs)?;
            let bias = b.x(t, &[fs[0]])?;
            let y =
                b.b.conv2d(
                    x,
                    f,
                    Conv2dOptions {
                        bias: Some(bias),
                        ..options
                    },
                )
                .ok()?;
            let relu = b.b.relu(y, o()).ok()?;
            vec![relu]
        }
        ConvTranspose2d => {
            only(2)?;
            let layout = if v == 0 {
                InputLayout::Nchw
            } else {
                InputLayout::Nhwc
            };
            let xs = if v == 0 { [1, 4, 5, 4] } else { [1, 5, 4, 4] };
            let filter_layout = if v == 0 {
                ConvTranspose2dFilterLayout::Iohw
            } else {
                ConvTranspose2dFilterLayout::Ohwi
            };
            let fs = if v == 0 { [4, 3, 3, 2] } else { [3, 3, 2, 4] };
            let x = b.x(t, &xs)?;
            let f = b.x(t, &fs)?;
            let options = ConvTranspose2dOptions {
                groups: if v == 0 { 2 } else { 1 },
                strides: Some(vec![2, 3]),
                padding: Some(vec![1, 0, 0, 1]),
                output_padding: Some(vec![1, 0]),
                input_layout: layout,
                filter_layout,
                ..Default::default()
            };
            vec![b.b.conv_transpose2d(x, f, options).ok()?]
        }
        Matmul => {
            only(2)?;
            let (sa, sb) = if v == 0 {
                (vec![2, 1, 5, 6], vec![3, 6, 70])
            } else {
                (vec![1, 19], vec![19, 9])
            };
            let (x, y) = (b.x(t, &sa)?, b.x(t, &sb)?);
            vec![b.b.matmul(x, y, o()).ok()?]
        }
        Gemm => {
            only(2)?;
            let x = b.x(t, &[6, 5])?;
            let y = b.x(t, &[7, 6])?;
            let c = b.x(t, &[7])?;
            let options = GemmOptions {
                c: Some(c),
                alpha: 0.5,
                beta: 2.0,
                a_transpose: true,
                b_transpose: true,
                ..Default::default()
            };
            let g = b.b.gemm(x, y, options).ok()?;
            vec![if v == 1 {
                b.b.clamp(
                    g,
                    ClampOptions {
                        min_value: num(-1.0),
                        max_value: num(1.0),
                        ..Default::default()
                    },
                )
                .ok()?
            } else {
                g
            }]
        }
        Gru | GruCell | Lstm | LstmCell => {
            only(1)?;
            let (batch, input, hidden, steps) = (2u32, 3u32, 4u32, 2u32);
            let gates = if matches!(kind, Gru | GruCell) { 3 } else { 4 };
            let small = |b: &mut B, s: &[u32]| b.floats(t, s, -0.5, 0.5);
            match kind {
                Gru | Lstm => {
                    let x = small(b, &[steps, batch, input])?;
                    let w = small(b, &[2, gates * hidden, input])?;
                    let r = small(b, &[2, gates * hidden, hidden])?;
                    let bias = small(b, &[2, gates * hidden])?;
                    if kind == Gru {
                        let options = GruOptions {
                            bias: Some(bias),
                            return_sequence: true,
                            direction: RecurrentDirection::Both,
                            reset_after: false,
                            ..Default::default()
                        };
                        b.b.gru(x, w, r, steps, hidden, options).ok()?
                    } else {
                        let peep = small(b, &[2, 3 * hidden])?;
                        let options = LstmOptions {
                            bias: Some(bias),
                            peephole_weight: Some(peep),
                            return_sequence: true,
                            direction: RecurrentDirection::Both,
                            ..Default::default()
                        };
                        b.b.lstm(x, w, r, steps, hidden, options).ok()?
                    }
                }
                _ => {
                    let x = small(b, &[batch, input])?;
                    let w = small(b, &[gates * hidden, input])?;
                    let r = small(b, &[gates * hidden, hidden])?;
                    let h = small(b, &[batch, hidden])?;
                    if kind == GruCell {
                        vec![b
                            .b
                            .gru_cell(x, w, r, h, hidden, GruCellOptions::default())
                            .ok()?]
                    } else {
                        let c = small(b, &[batch, hidden])?;
                        b.b.lstm_cell(x, w, r, h, c, hidden, LstmCellOptions::default())
                            .ok()?
                    }
                }
            }
        }
        // The other files' ops.
        _ => return None,
    })
}
