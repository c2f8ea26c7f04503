//! Cases of the gather/scatter and shape ops.

use super::{o, only, B, SHAPE};
use webnn_core::ops::*;
use webnn_core::{DataType, OpKind, Operand};

/// The outputs of variant `v` of (kind, t), for the ops of this file.
pub(super) fn outs(b: &mut B, kind: OpKind, t: DataType, v: u32) -> Option<Vec<Operand>> {
    use OpKind::*;
    let only = |n: u32| only(v, n);
    Some(match kind {
        Gather | GatherElements | GatherNd | ScatterElements | ScatterNd => {
            let index = [DataType::Int32, DataType::Uint32, DataType::Int64]
                .get(v as usize)
                .copied()?;
            let lo = if index == DataType::Uint32 { 0 } else { -6 };
            match kind {
                Gather => {
                    let x = b.x(t, &[5, 6, 7])?;
                    let i = b.ints(index, &[2, 3], lo, 6)?;
                    vec![b
                        .b
                        .gather(
                            x,
                            i,
                            GatherOptions {
                                axis: 1,
                                ..Default::default()
                            },
                        )
                        .ok()?]
                }
                GatherElements => {
                    let x = b.x(t, &[4, 5])?;
                    let i = b.ints(index, &[3, 5], lo.max(-4), 4)?;
                    vec![b
                        .b
                        .gather_elements(
                            x,
                            i,
                            GatherOptions {
                                axis: 0,
                                ..Default::default()
                            },
                        )
                        .ok()?]
                }
                GatherNd => {
                    let x = b.x(t, &[4, 5, 6])?;
                    let i = b.ints(index, &[2, 3, 2], lo.max(-4), 4)?;
                    vec![b.b.gather_nd(x, i, o()).ok()?]
                }
                ScatterElements => {
                    // Distinct targets per column, so the result does not depend on order.
                    let x = b.x(t, &[4, 5])?;
                    let i = b.given(index, &[2, 5], &[0, 1, 2, 3, 0, 1, 2, 3, 0, 3])?;
                    let u = b.x(t, &[2, 5])?;
                    vec![b
                        .b
                        .scatter_elements(
                            x,
                            i,
                            u,
                            ScatterOptions {
                                axis: 0,
                                ..Default::default()
                            },
                        )
                        .ok()?]
                }
                _ => {
                    let x = b.x(t, &[4, 5, 3])?;
                    let i = b.given(index, &[2, 1], &[3, 1])?;
                    let u = b.x(t, &[2, 5, 3])?;
                    vec![b.b.scatter_nd(x, i, u, o()).ok()?]
                }
            }
        }
        Concat => {
            only(1)?;
            let parts = [
                b.x(t, &[2, 3, 5])?,
                b.x(t, &[2, 1, 5])?,
                b.x(t, &[2, 4, 5])?,
            ];
            vec![b.b.concat(&parts, 1, o()).ok()?]
        }
        Expand => {
            only(1)?;
            let x = b.x(t, &[3, 1])?;
            vec![b
                .b
                .expand(x, vec![2.into(), 3.into(), 5.into()], o())
                .ok()?]
        }
        Pad => {
            only(3)?;
            let mode = [
                PaddingMode::Constant,
                PaddingMode::Edge,
                PaddingMode::Reflection,
            ][v as usize];
            let x = b.x(t, &[3, 5])?;
            let options = PadOptions {
                mode,
                value: MLNumber::Double(3.5),
                ..Default::default()
            };
            vec![b.b.pad(x, vec![1, 2], vec![2, 4], options).ok()?]
        }
        Reshape => {
            only(1)?;
            let x = b.x(t, &SHAPE)?;
            let r = b.b.reshape(x, vec![7.into(), 15.into()], o()).ok()?;
            vec![b.b.identity(r, o()).ok()?]
        }
        Reverse => {
            only(2)?;
            let axes = if v == 0 { Some(vec![0, 2]) } else { None };
            vec![b.unary(t, &|g, x| {
                g.reverse(
                    x,
                    ReverseOptions {
                        axes: axes.clone(),
                        ..Default::default()
                    },
                )
            })?]
        }
        Slice => {
            only(1)?;
            let x = b.x(t, &[5, 7])?;
            let options = SliceOptions {
                strides: Some(vec![2, 3]),
                ..Default::default()
            };
            vec![b.b.slice(x, vec![1, 0], vec![3, 7], options).ok()?]
        }
        Split => {
            only(1)?;
            let x = b.x(t, &[3, 10])?;
            b.b.split(
                x,
                Splits::Sizes(vec![3, 7]),
                SplitOptions {
                    axis: 1,
                    ..Default::default()
                },
            )
            .ok()?
        }
        Tile => {
            only(1)?;
            let x = b.x(t, &[2, 3])?;
            vec![b.b.tile(x, vec![2, 3], o()).ok()?]
        }
        Transpose => {
            only(1)?;
            vec![b.unary(t, &|g, x| {
                g.transpose(
                    x,
                    TransposeOptions {
                        permutation: Some(vec![2, 0, 1]),
                        ..Default::default()
                    },
                )
            })?]
        }
        Triangular => {
            only(2)?;
            let options = TriangularOptions {
                upper: v == 0,
                diagonal: if v == 0 { 1 } else { -1 },
                ..Default::default()
            };
            let x = b.x(t, &[2, 5, 6])?;
            vec![b.b.triangular(x, options).ok()?]
        }
        Where => {
            only(1)?;
            let c = b.ints(DataType::Uint8, &[3, 1], 0, 3)?;
            let (x, y) = (b.x(t, &[5])?, b.x(t, &[3, 5])?);
            vec![b.b.where_(c, x, y, o()).ok()?]
        }
        // The other files' ops.
        _ => return None,
    })
}
