//! Element-wise ops: unary and binary maps, casts, clamp, where and (de)quantization.

use super::{dims8, float_option, words64, Cx, Lowering};
use crate::kernel::{BinaryOp, KernelId, KernelKey, UnaryOp};
use crate::params::{strides, Params, Uniform};
use crate::storage::Domain;
use webnn_core::ops::*;
use webnn_core::{Error, Operand, Result};

fn unary(cx: &Cx, op: UnaryOp, input: Operand, f: [f32; 4], i: [u32; 4]) -> Result<Lowering> {
    let mut params = cx.output_params(cx.out())?;
    params.f = f;
    params.i = i;
    cx.one(KernelId::Unary(op), vec![input], Uniform::Params(params))
}

pub fn plain(cx: &Cx, op: UnaryOp, input: Operand) -> Result<Lowering> {
    unary(cx, op, input, [0.0; 4], [0; 4])
}

/// An activation whose float options (alpha, beta) are cast to the input's type.
pub fn with_floats(cx: &Cx, op: UnaryOp, input: Operand, options: &[f64]) -> Result<Lowering> {
    let t = cx.dtype(input);
    let mut f = [0.0f32; 4];
    for (slot, &v) in f.iter_mut().zip(options) {
        *slot = float_option(t, v);
    }
    unary(cx, op, input, f, [0; 4])
}

pub fn binary(cx: &Cx, op: BinaryOp, a: Operand, b: Operand) -> Result<Lowering> {
    let out = cx.out();
    let mut params = cx.output_params(out)?;
    let (sa, sb, so) = (cx.shape(a)?, cx.shape(b)?, cx.shape(out)?);
    params.a_strides = Params::broadcast_strides(&sa, &so)?;
    params.b_strides = Params::broadcast_strides(&sb, &so)?;
    let key = KernelKey {
        broadcast: sa != so || sb != so,
        ..KernelKey::new(KernelId::Binary(op), cx.dtype(a), cx.dtype(out))
    };
    Ok(Lowering::Kernels(vec![cx.call(
        key,
        vec![a, b],
        Uniform::Params(params),
    )]))
}

/// Clamp bounds cast to the element type: floats round to the type (float16 included),
/// integers saturate to the type's range.
pub fn clamp(cx: &Cx, args: &Clamp) -> Result<Lowering> {
    let t = cx.dtype(args.input);
    let (mut f, mut i) = ([0f32; 4], [0u32; 4]);
    let (min, max) = (args.options.min_value, args.options.max_value);
    match Domain::of(t) {
        Domain::Float => {
            f[0] = min.map_or(f32::NEG_INFINITY, |v| float_option(t, v.as_f64()));
            f[1] = max.map_or(f32::INFINITY, |v| float_option(t, v.as_f64()));
        }
        Domain::Sint | Domain::Uint | Domain::S64 | Domain::U64 => {
            let (lo, hi) = t.int_range().unwrap_or_default();
            let (wa, wb) = (
                words64(min.map_or(lo, |v| super::int_value(v, t))),
                words64(max.map_or(hi, |v| super::int_value(v, t))),
            );
            // The low word alone for 32-bit domains.
            i = if matches!(Domain::of(t), Domain::S64 | Domain::U64) {
                [wa[0], wa[1], wb[0], wb[1]]
            } else {
                [wa[0], wb[0], 0, 0]
            };
        }
    }
    unary(cx, UnaryOp::Clamp, args.input, f, i)
}

pub fn cast(cx: &Cx, args: &Cast) -> Result<Lowering> {
    if cx.dtype(args.input) == args.data_type {
        return Ok(Lowering::Alias(args.input));
    }
    let params = cx.output_params(cx.out())?;
    cx.one(KernelId::Cast, vec![args.input], Uniform::Params(params))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where>: condition, trueValue and
/// falseValue broadcast to the output.
pub fn where_(cx: &Cx, args: &Where) -> Result<Lowering> {
    let out = cx.out();
    let so = cx.shape(out)?;
    let shapes = [
        cx.shape(args.condition)?,
        cx.shape(args.true_value)?,
        cx.shape(args.false_value)?,
    ];
    let mut params = cx.output_params(out)?;
    params.a_strides = Params::broadcast_strides(&shapes[0], &so)?;
    params.b_strides = Params::broadcast_strides(&shapes[1], &so)?;
    params.c_strides = Params::broadcast_strides(&shapes[2], &so)?;
    let t = cx.dtype(args.true_value);
    let key = KernelKey {
        broadcast: shapes.iter().any(|s| *s != so),
        ..KernelKey::new(KernelId::Where, t, t)
    };
    let inputs = vec![args.condition, args.true_value, args.false_value];
    Ok(Lowering::Kernels(vec![cx.call(
        key,
        inputs,
        Uniform::Params(params),
    )]))
}

/// A `Rope` match (`webnn_core::fusion`): the input's pairs turned by cos and sin, which
/// broadcast to the output. `cx.node` is the match's concat.
pub fn rope(cx: &Cx, r: &webnn_core::fusion::Rope) -> Result<Lowering> {
    let so = cx.shape(cx.out())?;
    let mut params = cx.output_params(cx.out())?;
    params.a_strides = Params::broadcast_strides(&cx.shape(r.input)?, &so)?;
    params.b_strides = Params::broadcast_strides(&cx.shape(r.cos)?, &so)?;
    params.c_strides = Params::broadcast_strides(&cx.shape(r.sin)?, &so)?;
    let key = KernelKey { broadcast: true, ..KernelKey::new(KernelId::Rope, cx.dtype(r.input), cx.dtype(cx.out())) };
    Ok(Lowering::Kernels(vec![cx.call(key, vec![r.input, r.cos, r.sin], Uniform::Params(params))]))
}

/// A `SiluGate` match (`webnn_core::fusion`): g * sigmoid(g) * u in one pass. `cx.node` is
/// the match's outer mul.
pub fn silu_gate(cx: &Cx, s: &webnn_core::fusion::SiluGate) -> Result<Lowering> {
    let params = cx.output_params(cx.out())?;
    let key = KernelKey::new(KernelId::SiluMul, cx.dtype(s.gate), cx.dtype(cx.out()));
    Ok(Lowering::Kernels(vec![cx.call(key, vec![s.gate, s.up], Uniform::Params(params))]))
}

/// The element-wise block of a (de)quantization: the input's shape, the scale's strides
/// and block sizes per input dimension (a lower-rank scale aligned to the trailing axes).
fn quantization_params(cx: &Cx, args: &QuantizeLinear) -> Result<Params> {
    let shape = cx.shape(args.input)?;
    let scale = cx.shape(args.scale)?;
    if cx.shape(args.zero_point)? != scale {
        return Err(Error::operation_error(
            "the zero point and the scale have different shapes",
        ));
    }
    let offset = shape
        .len()
        .checked_sub(scale.len())
        .ok_or_else(|| Error::operation_error("the scale has a higher rank than the input"))?;
    let st = strides(&scale);
    let mut blocks = vec![0u32; shape.len()];
    let mut scale_strides = vec![0u32; shape.len()];
    for d in 0..shape.len() {
        let s = if d < offset { 1 } else { scale[d - offset] };
        if s == 0 || shape[d] % s != 0 {
            return Err(Error::operation_error(
                "the scale is not blockwise broadcastable to the input",
            ));
        }
        blocks[d] = shape[d] / s;
        if d >= offset {
            scale_strides[d] = super::u32_of(st[d - offset])?;
        }
    }
    let mut params = cx.output_params(cx.out())?;
    params.b_strides = dims8(&scale_strides)?;
    params.dims = dims8(&blocks)?;
    Ok(params)
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear>
pub fn quantize(cx: &Cx, args: &QuantizeLinear) -> Result<Lowering> {
    let mut params = quantization_params(cx, args)?;
    let out = cx.dtype(cx.out());
    let (lo, hi) = out.int_range().unwrap_or_default();
    let (l, h) = (words64(lo), words64(hi));
    params.j = [l[0], l[1], h[0], h[1]];
    let inputs = vec![args.input, args.scale, args.zero_point];
    cx.one(KernelId::Quantize, inputs, Uniform::Params(params))
}

/// <https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear>
pub fn dequantize(cx: &Cx, args: &QuantizeLinear) -> Result<Lowering> {
    let params = quantization_params(cx, args)?;
    let inputs = vec![args.input, args.scale, args.zero_point];
    cx.one(KernelId::Dequantize, inputs, Uniform::Params(params))
}
