// Accumulation of uint32/uint8/uint4 values for the row kernels, in u32 with wrapping sums
// and products.
alias Acc = u32;

fn acc_identity(op: u32) -> Acc {
    if (op == OP_REDUCE_PRODUCT) {
        return 1u;
    }
    if (op == OP_REDUCE_MIN) {
        return 0xffffffffu;
    }
    return 0u;
}

fn acc_map(op: u32, x: InT, shift: Acc) -> Acc {
    if (op == OP_REDUCE_SUM_SQUARE) {
        return x * x;
    }
    return x;
}

fn acc_combine(op: u32, a: Acc, b: Acc) -> Acc {
    if (op == OP_REDUCE_MAX) {
        return max(a, b);
    }
    if (op == OP_REDUCE_MIN) {
        return min(a, b);
    }
    if (op == OP_REDUCE_PRODUCT) {
        return a * b;
    }
    return a + b;
}

fn acc_finish(op: u32, a: Acc, shift: Acc, count: u32) -> Acc {
    return a;
}

fn acc_before(want_max: bool, a: Acc, b: Acc) -> bool {
    return select((a < b), (a > b), want_max);
}
