// Unary ops on uint64 values (vec2<u32>, int64.wgsl). Clamp bounds: P.i.xy and P.i.zw.

fn unary_op(x: vec2<u32>) -> vec2<u32> {
    if (OP == OP_CLAMP) {
        let lo = P.i.xy;
        let hi = P.i.zw;
        if (lt_u64(x, lo)) {
            return lo;
        }
        return select(x, hi, lt_u64(hi, x));
    }
    return x;
}
