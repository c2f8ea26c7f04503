// Accumulation of int32/int8/int4 values for the row kernels, in i32 with wrapping sums and
// products (the output is as wide as the input, so this is the cpu backend's wrap).
alias Acc = i32;

fn acc_identity(op: u32) -> Acc {
    if (op == OP_REDUCE_PRODUCT) {
        return 1;
    }
    // The input type's own extremes (int8: -128, 127), not i32's: a max pool's window that
    // lies wholly in the padding stores the identity, and i32's lowest would store as 0.
    // (Highest by a right shift, lowest as its complement: a constant left shift that
    // drops set bits is a shader-creation error.)
    let highest = bitcast<i32>(0x7fffffffu >> (32u - IN_BITS));
    if (op == OP_REDUCE_MAX) {
        return ~highest;
    }
    if (op == OP_REDUCE_MIN) {
        return highest;
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
