// Accumulation of float32/float16 values for the row kernels, in f32. Needs math.wgsl.
alias Acc = f32;

fn acc_identity(op: u32) -> Acc {
    if (op == OP_REDUCE_PRODUCT) {
        return 1.0;
    }
    if (op == OP_REDUCE_MAX) {
        return f32_inf(true);
    }
    if (op == OP_REDUCE_MIN) {
        return f32_inf(false);
    }
    return 0.0;
}

// What one element contributes; `shift` is the row maximum in logSumExp's second pass.
fn acc_map(op: u32, x: InT, shift: Acc) -> Acc {
    if (op == OP_REDUCE_L1) {
        return abs(x);
    }
    if (op == OP_REDUCE_L2 || op == OP_REDUCE_SUM_SQUARE) {
        return x * x;
    }
    if (op == OP_REDUCE_LOG_SUM_EXP) {
        return exp_f(x - shift);
    }
    return x;
}

// max and min propagate NaN.
fn acc_combine(op: u32, a: Acc, b: Acc) -> Acc {
    if (op == OP_REDUCE_MAX || op == OP_REDUCE_MIN) {
        if (is_nan(a) || is_nan(b)) {
            return f32_nan();
        }
        if (op == OP_REDUCE_MAX) {
            return max(a, b);
        }
        return min(a, b);
    }
    if (op == OP_REDUCE_PRODUCT) {
        return a * b;
    }
    return a + b;
}

// The result from the accumulator of `count` elements.
fn acc_finish(op: u32, a: Acc, shift: Acc, count: u32) -> Acc {
    if (op == OP_REDUCE_MEAN) {
        if (count == 0u) {
            return 0.0;
        }
        return a / f32(count);
    }
    if (op == OP_REDUCE_L2) {
        return sqrt(a);
    }
    if (op == OP_REDUCE_LOG_SUM) {
        return log_f(a);
    }
    if (op == OP_REDUCE_LOG_SUM_EXP) {
        if (is_inf(shift) || is_nan(shift)) {
            return shift;
        }
        return shift + log_f(a);
    }
    return a;
}

// Order for argMin/argMax: NaN counts as the extreme of both, so the first NaN wins.
fn acc_before(want_max: bool, a: Acc, b: Acc) -> bool {
    if (is_nan(a)) {
        return !is_nan(b);
    }
    if (is_nan(b)) {
        return false;
    }
    return select((a < b), (a > b), want_max);
}
