// Accumulation of int64/uint64 values (vec2<u32> words) for the row kernels, wrapping modulo
// 2^64; IN_SIGNED picks the order of max, min and the arg reductions.
alias Acc = vec2<u32>;

fn acc_identity(op: u32) -> Acc {
    if (op == OP_REDUCE_PRODUCT) {
        return vec2<u32>(1u, 0u);
    }
    if (op == OP_REDUCE_MAX) {
        return select(ZERO64, vec2<u32>(0u, 0x80000000u), IN_SIGNED);
    }
    if (op == OP_REDUCE_MIN) {
        return select(vec2<u32>(0xffffffffu, 0xffffffffu), vec2<u32>(0xffffffffu, 0x7fffffffu), IN_SIGNED);
    }
    return ZERO64;
}

fn less64(a: Acc, b: Acc) -> bool {
    if (IN_SIGNED) {
        return lt_s64(a, b);
    }
    return lt_u64(a, b);
}

fn acc_map(op: u32, x: InT, shift: Acc) -> Acc {
    if (op == OP_REDUCE_L1 && IN_SIGNED) {
        return abs64(x);
    }
    if (op == OP_REDUCE_SUM_SQUARE) {
        return mul64(x, x);
    }
    return x;
}

fn acc_combine(op: u32, a: Acc, b: Acc) -> Acc {
    if (op == OP_REDUCE_MAX) {
        return select(a, b, less64(a, b));
    }
    if (op == OP_REDUCE_MIN) {
        return select(a, b, less64(b, a));
    }
    if (op == OP_REDUCE_PRODUCT) {
        return mul64(a, b);
    }
    return add64(a, b);
}

fn acc_finish(op: u32, a: Acc, shift: Acc, count: u32) -> Acc {
    return a;
}

fn acc_before(want_max: bool, a: Acc, b: Acc) -> bool {
    return select(less64(a, b), less64(b, a), want_max);
}
