//! averagePool2d, l2Pool2d, maxPool2d and resample2d.

use crate::emit::{attr_i, attr_ints, attr_s, held, Em};
use webnn_core::ops::{
    spatial_padding, spatial_pair, InputLayout, InterpolationMode, Pool2d, Resample2d,
};
use webnn_core::{DataType, Error, OpKind, Operand, Result};

const F: DataType = DataType::Float32;

fn layout_perm(layout: InputLayout) -> Option<([i64; 4], [i64; 4])> {
    match layout {
        InputLayout::Nchw => None,
        InputLayout::Nhwc => Some(([0, 3, 1, 2], [0, 2, 3, 1])),
    }
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d>. Padding is not counted in the
/// average; `outputSizes` picks floor or ceil rounding, whichever gives those sizes.
pub fn pool2d(em: &mut Em, kind: OpKind, a: &Pool2d, out: Operand) -> Result<()> {
    let o = &a.options;
    let dt = em.dt(a.input);
    let ax = o.layout.nchw_axes();
    // The spatial sizes (batch and channels may be dynamic).
    let in_hw = [
        em.static_dim(a.input, ax[2])?,
        em.static_dim(a.input, ax[3])?,
    ];
    let out_hw = [em.static_dim(out, ax[2])?, em.static_dim(out, ax[3])?];
    let window = match o.window_dimensions.as_deref() {
        Some(&[h, w]) => [h, w],
        _ => in_hw,
    };
    let (s, d, p) = (
        spatial_pair(&o.strides),
        spatial_pair(&o.dilations),
        spatial_padding(&o.padding),
    );
    let mut ceil = None;
    for i in 0..2 {
        let span = in_hw[i] as i64 + p[2 * i] as i64 + p[2 * i + 1] as i64
            - ((window[i] as i64 - 1) * d[i] as i64 + 1);
        let floor_size = span.div_euclid(s[i] as i64) + 1;
        let ceil_size = (span + s[i] as i64 - 1).div_euclid(s[i] as i64) + 1;
        let want = out_hw[i] as i64;
        let mode = if want == floor_size {
            0
        } else if want == ceil_size {
            1
        } else {
            -1
        };
        match (ceil, mode) {
            (_, -1) => {
                return Err(Error::not_supported(format!(
                    "pool output size {want} is neither the floor nor the ceil size"
                )))
            }
            (None, m) => ceil = Some(m),
            (Some(c), m) if c != m && floor_size != ceil_size => {
                return Err(Error::not_supported(
                    "pool output sizes round one axis up and the other down",
                ))
            }
            _ => {}
        }
    }
    // An axis whose floor and ceil sizes agree goes with the other axis.
    let mut ceil_mode = ceil.unwrap_or(0);
    let mut p = p;
    if kind == OpKind::L2Pool2d && ceil_mode == 1 {
        // ONNX Runtime's LpPool ignores ceil_mode: pad the ends with zeros (nothing to a sum of
        // squares) until floor rounding gives the ceil size.
        for i in 0..2 {
            let span = in_hw[i] as i64 + p[2 * i] as i64 + p[2 * i + 1] as i64 - ((window[i] as i64 - 1) * d[i] as i64 + 1);
            let short = span.rem_euclid(s[i] as i64);
            if short != 0 {
                p[2 * i + 1] += (s[i] as i64 - short) as u32;
            }
        }
        ceil_mode = 0;
    }
    // ONNX Runtime wants every pad smaller than the window; WebNN allows any. For max and l2
    // larger pads are applied by a Pad first (the lowest value, zeros); the average refuses.
    let explicit = p[0] >= window[0] || p[1] >= window[0] || p[2] >= window[1] || p[3] >= window[1]
        || p != spatial_padding(&o.padding);
    let ct = match (kind, dt) {
        // A max pool of unsigned 8-bit values pads with -inf in float32 (exact for them): a
        // zero Pad would be fused back into the pool by ONNX Runtime.
        (OpKind::MaxPool2d, DataType::Uint8 | DataType::Uint4) if explicit => F,
        (
            OpKind::MaxPool2d,
            DataType::Int8 | DataType::Uint8 | DataType::Int4 | DataType::Uint4,
        ) => held(dt),
        (
            OpKind::MaxPool2d,
            DataType::Int32 | DataType::Uint32 | DataType::Int64 | DataType::Uint64,
        ) => dt,
        _ => F,
    };
    let x = em.v(a.input)?;
    let perm = layout_perm(o.layout);
    if matches!(
        ct,
        DataType::Int32 | DataType::Uint32 | DataType::Int64 | DataType::Uint64
    ) {
        let x = match perm {
            Some((to, _)) => em.node("Transpose", &[&x], vec![attr_ints("perm", &to)]),
            None => x,
        };
        let y = wide_int_max_pool(em, &x, dt, window, s, d, p, out_hw)?;
        let y = match perm {
            Some((_, back)) => em.node("Transpose", &[&y], vec![attr_ints("perm", &back)]),
            None => y,
        };
        em.set(out, y);
        return Ok(());
    }
    let x = em.cast(&x, dt, ct);
    let x = match perm {
        Some((to, _)) => em.node("Transpose", &[&x], vec![attr_ints("perm", &to)]),
        None => x,
    };
    let pads = if explicit { [0; 4] } else { [p[0] as i64, p[2] as i64, p[1] as i64, p[3] as i64] };
    let padded = |em: &mut Em, v: &str, fill: &str| {
        let amounts = em.i64s(&[0, 0, p[0] as i64, p[2] as i64, 0, 0, p[1] as i64, p[3] as i64]);
        em.node("Pad", &[v, &amounts, fill], vec![])
    };
    let x = if explicit && kind != OpKind::AveragePool2d {
        let fill = match (kind, ct) {
            (OpKind::MaxPool2d, F) => em.scalar(F, f64::NEG_INFINITY),
            (OpKind::MaxPool2d, _) => em.scalar_int(ct, dt.int_range().map_or(0, |(lo, _)| lo)),
            _ => em.scalar(ct, 0.0),
        };
        padded(em, &x, &fill)
    } else {
        x
    };
    let mut attrs = vec![
        attr_ints("kernel_shape", &[window[0] as i64, window[1] as i64]),
        attr_ints("pads", &pads),
        attr_ints("strides", &[s[0] as i64, s[1] as i64]),
        attr_i("ceil_mode", ceil_mode),
    ];
    // Written only when not the default: ONNX Runtime's quantizer turns a quantized
    // AveragePool into its QLinearAveragePool, whose schema has no `dilations`, and the
    // session then rejects the model.
    if d != [1, 1] {
        attrs.push(attr_ints("dilations", &[d[0] as i64, d[1] as i64]));
    }
    let op = match kind {
        OpKind::AveragePool2d => {
            attrs.push(attr_i("count_include_pad", 0));
            "AveragePool"
        }
        OpKind::L2Pool2d => {
            attrs.push(attr_i("p", 2));
            "LpPool"
        }
        OpKind::MaxPool2d => "MaxPool",
        other => return Err(crate::ops::misrouted(other)),
    };
    if explicit && kind == OpKind::AveragePool2d {
        // An explicit zero Pad would change the count, and ONNX Runtime fuses a zero Pad back
        // into the pool (with the pads it rejects), so no rewrite is kept from it.
        return Err(Error::not_supported(
            "averagePool2d: ONNX Runtime needs each pad smaller than the window",
        ));
    }
    let mut y = em.node(op, &[&x], attrs.clone());
    if kind == OpKind::MaxPool2d && ct == F {
        // ONNX Runtime's MaxPool skips NaN; in WebNN's (and the reference's) maximum it wins.
        y = nan_wins(em, "MaxPool", &x, &y, attrs);
    }
    let y = match perm {
        Some((_, back)) => em.node("Transpose", &[&y], vec![attr_ints("perm", &back)]),
        None => y,
    };
    em.output_from(out, y, ct)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method>: half-pixel
/// coordinates with the scale out/in, nearest rounding half down; integer results of linear
/// mode round to nearest, half away from zero.
pub fn resample2d(em: &mut Em, a: &Resample2d, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let mut x = em.input_as(a.input, F)?;
    // ONNX Runtime's linear Resize of a 4-D tensor scales only axes 2-3 or 1-2; other pairs
    // are moved last and back.
    let axes = a.options.axes.clone().unwrap_or_else(|| vec![2, 3]);
    let scaled_inside = |allowed: [u32; 2]| axes.iter().all(|ax| allowed.contains(ax));
    let moved = matches!(a.options.mode, InterpolationMode::Linear) && !scaled_inside([2, 3]) && !scaled_inside([1, 2]);
    let mut dims = em.dims(out);
    let mut back = None;
    if moved {
        let mut perm: Vec<i64> = (0..4).filter(|i| !axes.contains(&(*i as u32))).collect();
        perm.extend(axes.iter().map(|&ax| ax as i64));
        let mut inverse = [0i64; 4];
        for (k, &ax) in perm.iter().enumerate() {
            inverse[ax as usize] = k as i64;
        }
        x = em.node("Transpose", &[&x], vec![attr_ints("perm", &perm)]);
        dims = perm.iter().map(|&ax| dims[ax as usize].clone()).collect();
        back = Some(inverse);
    }
    let sizes = em.shape_value(&dims)?;
    let mut attrs = vec![attr_s("coordinate_transformation_mode", "half_pixel")];
    match a.options.mode {
        InterpolationMode::NearestNeighbor => {
            attrs.push(attr_s("mode", "nearest"));
            attrs.push(attr_s("nearest_mode", "round_prefer_floor"));
        }
        InterpolationMode::Linear => attrs.push(attr_s("mode", "linear")),
    }
    let mut y = em.node("Resize", &[&x, "", "", &sizes], attrs);
    if let Some(inverse) = back {
        y = em.node("Transpose", &[&y], vec![attr_ints("perm", &inverse)]);
    }
    if !dt.is_float() {
        // Half away from zero, as the reference rounds (ONNX's Round is half to even).
        let half = em.scalar(F, 0.5);
        let sign = em.node("Sign", &[&y], vec![]);
        let abs = em.node("Abs", &[&y], vec![]);
        let up = em.node("Add", &[&abs, &half], vec![]);
        let down = em.node("Floor", &[&up], vec![]);
        y = em.node("Mul", &[&sign, &down], vec![]);
    }
    em.output_from(out, y, F)
}

/// maxPool2d of 32- and 64-bit integers (ONNX Runtime's MaxPool stops at 8 bits), exactly:
/// the input padded with the type's lowest value, one strided slice per window position,
/// and their element-wise maximum. uint64 compares in the sign-flipped order.
#[allow(clippy::too_many_arguments)]
fn wide_int_max_pool(
    em: &mut Em,
    x: &str,
    dt: DataType,
    window: [u32; 2],
    s: [u32; 2],
    d: [u32; 2],
    p: [u32; 4],
    out: [u32; 2],
) -> Result<String> {
    let ct = crate::emit::arith(dt);
    let mut v = if dt == DataType::Uint64 {
        crate::ops::elementwise::ordered_u64(em, x)
    } else {
        em.cast(x, dt, ct)
    };
    let lowest = match dt {
        DataType::Int32 => i32::MIN as i128,
        DataType::Int64 | DataType::Uint64 => i64::MIN as i128,
        _ => 0,
    };
    let fill = em.scalar_int(ct, lowest);
    // Enough padding at the end for the last window of ceil rounding.
    let mut pads = [
        0i64,
        0,
        p[0] as i64,
        p[2] as i64,
        0,
        0,
        p[1] as i64,
        p[3] as i64,
    ];
    for i in 0..2 {
        let span = (out[i] as i64 - 1) * s[i] as i64 + (window[i] as i64 - 1) * d[i] as i64 + 1;
        pads[6 + i] = pads[6 + i].max(span);
    }
    let pads_v = em.i64s(&pads);
    v = em.node(
        "Pad",
        &[&v, &pads_v, &fill],
        vec![attr_s("mode", "constant")],
    );
    let mut best: Option<String> = None;
    for i in 0..window[0] as i64 {
        for j in 0..window[1] as i64 {
            let (h0, w0) = (i * d[0] as i64, j * d[1] as i64);
            let starts = em.i64s(&[h0, w0]);
            let ends = em.i64s(&[
                h0 + (out[0] as i64 - 1) * s[0] as i64 + 1,
                w0 + (out[1] as i64 - 1) * s[1] as i64 + 1,
            ]);
            let axes = em.i64s(&[2, 3]);
            let steps = em.i64s(&[s[0] as i64, s[1] as i64]);
            let tap = em.node("Slice", &[&v, &starts, &ends, &axes, &steps], vec![]);
            best = Some(match best {
                None => tap,
                Some(b) => em.extreme(true, &b, &tap, ct),
            });
        }
    }
    let mut y = best.ok_or_else(|| Error::operation_error("an empty pooling window"))?;
    if dt == DataType::Uint64 {
        let bit = em.scalar_int(DataType::Int64, i64::MIN as i128);
        y = em.node("BitwiseXor", &[&y, &bit], vec![]);
    }
    Ok(em.cast(&y, ct, dt))
}

/// `y` with NaN wherever the same `op` (a maximum) over `x`'s NaN flags finds one.
fn nan_wins(
    em: &mut Em,
    op: &str,
    x: &str,
    y: &str,
    attrs: Vec<crate::proto::AttributeProto>,
) -> String {
    let flags = em.node("IsNaN", &[x], vec![]);
    let flags = em.node(
        "Cast",
        &[&flags],
        vec![attr_i("to", crate::emit::onnx_type(F) as i64)],
    );
    let any = em.node(op, &[&flags], attrs);
    let zero = em.scalar(F, 0.0);
    let found = em.node("Greater", &[&any, &zero], vec![]);
    let nan = em.scalar(F, f64::NAN);
    em.node("Where", &[&found, &nan, y], vec![])
}
