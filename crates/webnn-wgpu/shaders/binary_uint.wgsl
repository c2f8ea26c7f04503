// Binary ops on uint32/uint8 values, and the logical ops on uint8 (non-zero is true).

fn pow_u32(x: u32, y: u32) -> u32 {
    var result = 1u;
    var base = x;
    var e = y;
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

fn binary_op(x: u32, y: u32) -> u32 {
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
        if (y == 0u) {
            return 0u;
        }
        return x / y;
    }
    if (OP == OP_MAX) {
        return max(x, y);
    }
    if (OP == OP_MIN) {
        return min(x, y);
    }
    return pow_u32(x, y);
}

fn binary_test(x: u32, y: u32) -> bool {
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
    if (OP == OP_LESSER_OR_EQUAL) {
        return x <= y;
    }
    if (OP == OP_LOGICAL_AND) {
        return x != 0u && y != 0u;
    }
    if (OP == OP_LOGICAL_OR) {
        return x != 0u || y != 0u;
    }
    return (x != 0u) != (y != 0u);
}
