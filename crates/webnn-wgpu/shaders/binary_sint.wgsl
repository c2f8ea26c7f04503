// Binary ops on int32/int8 values (sign-extended to i32). Wrapping 32-bit arithmetic has the
// low bits of the exact result, so the encoder's masking gives int8's wrapped result too.

// x^y by squaring, wrapping; a negative exponent truncates 1/x^|y| toward zero.
fn pow_i32(x: i32, y: i32) -> i32 {
    if (y < 0) {
        if (x == 1) {
            return 1;
        }
        if (x == -1) {
            return select(1, -1, (y & 1) == 1);
        }
        return 0;
    }
    var result = 1;
    var base = x;
    var e = u32(y);
    loop {
        if (e == 0u) {
            break;
        }
        if ((e & 1u) == 1u) {
            result = result * base;
        }
        base = base * base;
        e = e >> 1u;
    }
    return result;
}

fn binary_op(x: i32, y: i32) -> i32 {
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
        // Truncating; division by zero gives 0 (the cpu backend's choice; the spec is silent).
        if (y == 0) {
            return 0;
        }
        return x / y;
    }
    if (OP == OP_PRELU) {
        return select(x, y * x, x < 0);
    }
    if (OP == OP_MAX) {
        return max(x, y);
    }
    if (OP == OP_MIN) {
        return min(x, y);
    }
    return pow_i32(x, y);
}

fn binary_test(x: i32, y: i32) -> bool {
    if (OP == OP_EQUAL) {
        return x == y;
    }
    if (OP == OP_NOT_EQUAL) {
        return x != y;
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
