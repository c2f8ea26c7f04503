// Unary ops on int32/int8 values (sign-extended to i32; the encoder wraps sub-word results).
// Clamp bounds come from P.i.x and P.i.y, already in the type's range.

fn unary_op(x: i32) -> i32 {
    // Negation as 0 - x on the bits wraps int32's minimum to itself, as the cpu backend.
    let negated = bitcast<i32>(0u - bitcast<u32>(x));
    if (OP == OP_ABS) {
        return select(x, negated, x < 0);
    }
    if (OP == OP_NEG) {
        return negated;
    }
    if (OP == OP_SIGN) {
        return select(select(0, -1, x < 0), 1, x > 0);
    }
    if (OP == OP_RELU) {
        return max(x, 0);
    }
    if (OP == OP_CLAMP) {
        return min(max(x, bitcast<i32>(P.i.x)), bitcast<i32>(P.i.y));
    }
    return x;
}
