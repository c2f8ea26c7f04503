// Unary ops on int64 values (vec2<u32>, int64.wgsl). Clamp bounds: P.i.xy and P.i.zw.

fn unary_op(x: vec2<u32>) -> vec2<u32> {
    if (OP == OP_ABS) {
        return abs64(x);
    }
    if (OP == OP_NEG) {
        return neg64(x);
    }
    if (OP == OP_SIGN) {
        if (is_neg64(x)) {
            return vec2<u32>(0xffffffffu, 0xffffffffu);
        }
        return select(vec2<u32>(1u, 0u), ZERO64, is_zero64(x));
    }
    if (OP == OP_RELU) {
        return select(x, ZERO64, is_neg64(x));
    }
    if (OP == OP_CLAMP) {
        let lo = P.i.xy;
        let hi = P.i.zw;
        if (lt_s64(x, lo)) {
            return lo;
        }
        return select(x, hi, lt_s64(hi, x));
    }
    return x;
}
