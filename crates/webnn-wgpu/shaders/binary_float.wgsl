// Binary ops on float32/float16 values (computed in f32). Needs math.wgsl for pow.

fn binary_op(x: f32, y: f32) -> f32 {
    if (OP == OP_ADD) {
        return x + y;
    }
    if (OP == OP_SUB) {
        return x - y;
    }
    if (OP == OP_MUL) {
        return x * y;
    }
    if (OP == OP_DIV) {
        return x / y;
    }
    // max and min propagate NaN (WGSL's max/min leave it open).
    if (OP == OP_MAX) {
        if (is_nan(x) || is_nan(y)) {
            return f32_nan();
        }
        return select(x, y, y > x);
    }
    if (OP == OP_MIN) {
        if (is_nan(x) || is_nan(y)) {
            return f32_nan();
        }
        return select(x, y, y < x);
    }
    if (OP == OP_PRELU) {
        return select(x, y * x, x < 0.0);
    }
    return pow_f(x, y);
}

fn binary_test(x: f32, y: f32) -> bool {
    // NaN tested on its bits: drivers may fold x != x to false (NaN compares unequal to
    // everything, itself included, and false in every ordered comparison).
    let unordered = is_nan(x) || is_nan(y);
    if (OP == OP_EQUAL) {
        return !unordered && x == y;
    }
    if (OP == OP_NOT_EQUAL) {
        return unordered || x != y;
    }
    if (unordered) {
        return false;
    }
    if (OP == OP_GREATER) {
        return x > y;
    }
    if (OP == OP_GREATER_OR_EQUAL) {
        return x >= y;
    }
    if (OP == OP_LESSER) {
        return x < y;
    }
    return x <= y;
}
