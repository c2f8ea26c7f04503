//! averagePool2d, l2Pool2d, maxPool2d and resample2d.

use crate::emit::{attr_i, attr_ints, attr_s, held, onnx_type, Em};
use webnn_core::ops::{spatial_pair, spatial_padding, InputLayout, InterpolationMode, Pool2d, Resample2d};
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
    let in_shape = em.shape(a.input)?;
    let out_shape = em.shape(out)?;
    let window = match o.window_dimensions.as_deref() {
        Some(&[h, w]) => [h, w],
        _ => [in_shape[ax[2]], in_shape[ax[3]]],
    };
    let (s, d, p) = (spatial_pair(&o.strides), spatial_pair(&o.dilations), spatial_padding(&o.padding));
    let mut ceil = None;
    for i in 0..2 {
        let span = in_shape[ax[2 + i]] as i64 + p[2 * i] as i64 + p[2 * i + 1] as i64
            - ((window[i] as i64 - 1) * d[i] as i64 + 1);
        let floor_size = span.div_euclid(s[i] as i64) + 1;
        let ceil_size = (span + s[i] as i64 - 1).div_euclid(s[i] as i64) + 1;
        let want = out_shape[ax[2 + i]] as i64;
        let mode = if want == floor_size { 0 } else if want == ceil_size { 1 } else { -1 };
        match (ceil, mode) {
            (_, -1) => return Err(Error::not_supported(format!("pool output size {want} is neither the floor nor the ceil size"))),
            (None, m) => ceil = Some(m),
            (Some(c), m) if c != m && floor_size != ceil_size => {
                return Err(Error::not_supported("pool output sizes round one axis up and the other down"))
            }
            _ => {}
        }
    }
    // An axis whose floor and ceil sizes agree goes with the other axis.
    let ceil_mode = ceil.unwrap_or(0);
    let ct = match (kind, dt) {
        (OpKind::MaxPool2d, DataType::Int8 | DataType::Uint8 | DataType::Int4 | DataType::Uint4) => held(dt),
        (OpKind::MaxPool2d, DataType::Int32 | DataType::Uint32 | DataType::Int64 | DataType::Uint64) => dt,
        _ => F,
    };
    let x = em.v(a.input)?;
    // Wide integers go through doubles: ONNX Runtime's MaxPool has no integer kernel above 8 bits.
    let x = if matches!(ct, DataType::Int32 | DataType::Uint32 | DataType::Int64 | DataType::Uint64) {
        em.to_f64(&x)
    } else {
        em.cast(&x, dt, ct)
    };
    let perm = layout_perm(o.layout);
    let x = match perm {
        Some((to, _)) => em.node("Transpose", &[&x], vec![attr_ints("perm", &to)]),
        None => x,
    };
    let mut attrs = vec![
        attr_ints("kernel_shape", &[window[0] as i64, window[1] as i64]),
        attr_ints("pads", &[p[0] as i64, p[2] as i64, p[1] as i64, p[3] as i64]),
        attr_ints("strides", &[s[0] as i64, s[1] as i64]),
        attr_ints("dilations", &[d[0] as i64, d[1] as i64]),
        attr_i("ceil_mode", ceil_mode),
    ];
    let op = match kind {
        OpKind::AveragePool2d => {
            attrs.push(attr_i("count_include_pad", 0));
            "AveragePool"
        }
        OpKind::L2Pool2d => {
            attrs.push(attr_i("p", 2));
            "LpPool"
        }
        _ => "MaxPool",
    };
    let y = em.node(op, &[&x], attrs);
    let y = match perm {
        Some((_, back)) => em.node("Transpose", &[&y], vec![attr_ints("perm", &back)]),
        None => y,
    };
    if matches!(ct, DataType::Int32 | DataType::Uint32 | DataType::Int64 | DataType::Uint64) {
        let y = em.node("Cast", &[&y], vec![attr_i("to", onnx_type(dt) as i64)]);
        em.set(out, y);
        return Ok(());
    }
    em.output_from(out, y, ct)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method>: half-pixel
/// coordinates with the scale out/in, nearest rounding half down; integer results of linear
/// mode round to nearest.
pub fn resample2d(em: &mut Em, a: &Resample2d, out: Operand) -> Result<()> {
    let dt = em.dt(a.input);
    let sizes: Vec<i64> = em.shape(out)?.iter().map(|&n| n as i64).collect();
    let x = em.input_as(a.input, F)?;
    let sizes = em.i64s(&sizes);
    let mut attrs = vec![attr_s("coordinate_transformation_mode", "half_pixel")];
    match a.options.mode {
        InterpolationMode::NearestNeighbor => {
            attrs.push(attr_s("mode", "nearest"));
            attrs.push(attr_s("nearest_mode", "round_prefer_floor"));
        }
        InterpolationMode::Linear => attrs.push(attr_s("mode", "linear")),
    }
    let mut y = em.node("Resize", &[&x, "", "", &sizes], attrs);
    if !dt.is_float() {
        y = em.node("Round", &[&y], vec![]);
    }
    em.output_from(out, y, F)
}
