//! Cases of the reductions, pooling, resampling and normalization ops.

use super::{only, B, SHAPE};
use webnn_core::ops::*;
use webnn_core::{DataType, OpKind, Operand};

/// The outputs of variant `v` of (kind, t), for the ops of this file.
pub(super) fn outs(b: &mut B, kind: OpKind, t: DataType, v: u32) -> Option<Vec<Operand>> {
    use OpKind::*;
    let only = |n: u32| only(v, n);
    Some(match kind {
        ArgMin | ArgMax => {
            only(2)?;
            let options = ArgMinMaxOptions {
                keep_dimensions: v == 1,
                output_data_type: if v == 0 {
                    DataType::Int32
                } else {
                    DataType::Int64
                },
                ..Default::default()
            };
            let x = b.x(t, &[3, 70, 5])?;
            let y = if kind == ArgMin {
                b.b.arg_min(x, 1, options)
            } else {
                b.b.arg_max(x, 1, options)
            };
            vec![y.ok()?]
        }
        CumulativeSum => {
            only(2)?;
            let options = CumulativeSumOptions {
                exclusive: v == 1,
                reversed: v == 1,
                ..Default::default()
            };
            let x = b.x(t, &[3, 70])?;
            vec![b.b.cumulative_sum(x, 1, options).ok()?]
        }
        ReduceL1 | ReduceL2 | ReduceLogSum | ReduceLogSumExp | ReduceMax | ReduceMean
        | ReduceMin | ReduceProduct | ReduceSum | ReduceSumSquare => {
            only(3)?;
            let options = ReduceOptions {
                axes: match v {
                    0 => Some(vec![0, 2]),
                    1 => None,
                    _ => Some(vec![1]),
                },
                keep_dimensions: v == 2,
                ..Default::default()
            };
            // Products of many elements overflow every type; two per group stay meaningful.
            let x = if kind == ReduceProduct {
                b.x(t, &[2, 3, 2])?
            } else if kind == ReduceLogSum {
                b.floats(t, &SHAPE, 0.1, 4.0)?
            } else {
                b.x(t, &SHAPE)?
            };
            let g = &mut b.b;
            let y = match kind {
                ReduceL1 => g.reduce_l1(x, options),
                ReduceL2 => g.reduce_l2(x, options),
                ReduceLogSum => g.reduce_log_sum(x, options),
                ReduceLogSumExp => g.reduce_log_sum_exp(x, options),
                ReduceMax => g.reduce_max(x, options),
                ReduceMean => g.reduce_mean(x, options),
                ReduceMin => g.reduce_min(x, options),
                ReduceProduct => g.reduce_product(x, options),
                ReduceSum => g.reduce_sum(x, options),
                _ => g.reduce_sum_square(x, options),
            };
            vec![y.ok()?]
        }
        AveragePool2d | L2Pool2d | MaxPool2d => {
            only(2)?;
            let layout = if v == 0 {
                InputLayout::Nchw
            } else {
                InputLayout::Nhwc
            };
            let options = Pool2dOptions {
                window_dimensions: Some(vec![3, 3]),
                strides: Some(vec![2, 2]),
                padding: Some(vec![1, 1, 1, 0]),
                layout,
                ..Default::default()
            };
            let x = b.x(t, &[1, 3, 9, 8])?;
            let g = &mut b.b;
            let y = match kind {
                AveragePool2d => g.average_pool2d(x, options),
                L2Pool2d => g.l2_pool2d(x, options),
                _ => g.max_pool2d(x, options),
            };
            vec![y.ok()?]
        }
        Resample2d => {
            only(2)?;
            let mode = if v == 0 {
                InterpolationMode::NearestNeighbor
            } else {
                InterpolationMode::Linear
            };
            let x = b.x(t, &[1, 2, 5, 6])?;
            let options = Resample2dOptions {
                mode,
                sizes: Some(vec![9, 4]),
                ..Default::default()
            };
            vec![b.b.resample2d(x, options).ok()?]
        }
        BatchNormalization => {
            only(1)?;
            let x = b.x(t, &[2, 3, 4, 5])?;
            let (mean, var) = (b.x(t, &[3])?, b.floats(t, &[3], 0.5, 2.0)?);
            let (scale, bias) = (b.x(t, &[3])?, b.x(t, &[3])?);
            let options = BatchNormalizationOptions {
                scale: Some(scale),
                bias: Some(bias),
                ..Default::default()
            };
            vec![b.b.batch_normalization(x, mean, var, options).ok()?]
        }
        InstanceNormalization => {
            only(2)?;
            let layout = if v == 0 {
                InputLayout::Nchw
            } else {
                InputLayout::Nhwc
            };
            let x = b.x(t, &[2, 3, 4, 3])?;
            let (scale, bias) = (b.x(t, &[3])?, b.x(t, &[3])?);
            let options = InstanceNormalizationOptions {
                scale: Some(scale),
                bias: Some(bias),
                layout,
                ..Default::default()
            };
            vec![b.b.instance_normalization(x, options).ok()?]
        }
        LayerNormalization => {
            only(1)?;
            let x = b.x(t, &[2, 3, 4, 5])?;
            let (scale, bias) = (b.x(t, &[5, 3])?, b.x(t, &[5, 3])?);
            let options = LayerNormalizationOptions {
                axes: Some(vec![3, 1]),
                scale: Some(scale),
                bias: Some(bias),
                ..Default::default()
            };
            vec![b.b.layer_normalization(x, options).ok()?]
        }
        // The other files' ops.
        _ => return None,
    })
}
