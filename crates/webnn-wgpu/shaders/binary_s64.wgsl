// Binary ops on int64 values (vec2<u32>, int64.wgsl).

fn binary_op(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    if (OP == OP_ADD) {
        return add64(x, y);
    }
    if (OP == OP_SUB) {
        return sub64(x, y);
    }
    if (OP == OP_MUL) {
        return mul64(x, y);
    }
    if (OP == OP_DIV) {
        return div_s64(x, y);
    }
    if (OP == OP_MAX) {
        return select(x, y, lt_s64(x, y));
    }
    if (OP == OP_MIN) {
        return select(x, y, lt_s64(y, x));
    }
    if (OP == OP_PRELU) {
        return select(x, mul64(y, x), is_neg64(x));
    }
    return pow64(x, y, true);
}

fn binary_test(x: vec2<u32>, y: vec2<u32>) -> bool {
    if (OP == OP_EQUAL) {
        return eq64(x, y);
    }
    if (OP == OP_NOT_EQUAL) {
        return !eq64(x, y);
    }
    if (OP == OP_GREATER) {
        return lt_s64(y, x);
    }
    if (OP == OP_GREATER_OR_EQUAL) {
        return !lt_s64(x, y);
    }
    if (OP == OP_LESSER) {
        return lt_s64(x, y);
    }
    return !lt_s64(y, x);
}
