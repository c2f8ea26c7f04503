// Accumulation of int32/int8/int4 values for the row kernels, in i32 with wrapping sums and
// products (the output is as wide as the input, so this is the cpu backend's wrap).
alias Acc = i32;

fn acc_identity(op: u32) -> Acc {
    if (op == OP_REDUCE_PRODUCT) {
        return 1;
    }
    if (op == OP_REDUCE_MAX) {
        return bitcast<i32>(0x80000000u);
    }
    if (op == OP_REDUCE_MIN) {
        return 0x7fffffff;
    }
    return 0;
}

fn acc_map(op: u32, x: InT, shift: Acc) -> Acc {
    if (op == OP_REDUCE_L1) {
        return select(x, bitcast<i32>(0u - bitcast<u32>(x)), x < 0);
    }
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
