// Unary ops on uint32/uint8 values. Clamp bounds come from P.i.x and P.i.y.

fn unary_op(x: u32) -> u32 {
    if (OP == OP_CLAMP) {
        return min(max(x, P.i.x), P.i.y);
    }
    return x;
}

// logicalNot: non-zero is true.
fn unary_test(x: u32) -> bool {
    return x == 0u;
}
