// Unary ops on float32/float16 values (computed in f32; a float16 output rounds once when it
// is stored). Needs math.wgsl. Options come from P.f: alpha, beta or the clamp bounds.

fn unary_op(x: f32) -> f32 {
    if (OP == OP_ABS) {
        return from_bits(bitcast<u32>(x) & 0x7fffffffu);
    }
    if (OP == OP_CEIL) {
        return ceil(x);
    }
    if (OP == OP_COS) {
        return cos_f(x);
    }
    if (OP == OP_ERF) {
        return erf_f(x);
    }
    if (OP == OP_EXP) {
        return exp_f(x);
    }
    if (OP == OP_FLOOR) {
        return floor(x);
    }
    if (OP == OP_LOG) {
        return log_f(x);
    }
    if (OP == OP_NEG) {
        return from_bits(bitcast<u32>(x) ^ 0x80000000u);
    }
    if (OP == OP_RECIPROCAL) {
        return 1.0 / x;
    }
    if (OP == OP_ROUND_EVEN) {
        // WGSL's round() rounds halfway cases to even.
        return round(x);
    }
    if (OP == OP_SIN) {
        return sin_f(x);
    }
    if (OP == OP_SIGN) {
        // NaN and -0 give +0, as the cpu backend.
        return select(select(0.0, -1.0, x < 0.0), 1.0, x > 0.0);
    }
    if (OP == OP_SQRT) {
        return sqrt(x);
    }
    if (OP == OP_TAN) {
        return tan_f(x);
    }
    if (OP == OP_RELU) {
        // NaN stays NaN.
        return select(x, 0.0, x < 0.0);
    }
    if (OP == OP_SIGMOID) {
        return sigmoid_f(x);
    }
    if (OP == OP_TANH) {
        return tanh_f(x);
    }
    if (OP == OP_GELU) {
        return gelu_f(x);
    }
    if (OP == OP_HARD_SWISH) {
        return x * clamp_f(x + 3.0, 0.0, 6.0) / 6.0;
    }
    if (OP == OP_SOFTPLUS) {
        if (is_nan(x)) {
            return x;
        }
        return max(x, 0.0) + log1p_f(exp_f(-abs(x)));
    }
    if (OP == OP_SOFTSIGN) {
        return x / (1.0 + abs(x));
    }
    if (OP == OP_ELU) {
        return select(P.f.x * expm1_f(x), x, x > 0.0);
    }
    if (OP == OP_HARD_SIGMOID) {
        return clamp_f(mul_add_f(P.f.x, x, P.f.y), 0.0, 1.0);
    }
    if (OP == OP_LEAKY_RELU) {
        return select(x, P.f.x * x, x < 0.0);
    }
    if (OP == OP_LINEAR) {
        return mul_add_f(P.f.x, x, P.f.y);
    }
    if (OP == OP_CLAMP) {
        return clamp_f(x, P.f.x, P.f.y);
    }
    return x;
}

fn unary_test(x: f32) -> bool {
    if (OP == OP_IS_NAN) {
        return is_nan(x);
    }
    return is_inf(x);
}
