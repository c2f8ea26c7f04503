// quantizeLinear: a is the float input, b the scale (same type), c the zero point (the
// output's type), both read blockwise (params.wgsl's block_offset).
// q = roundEven(x / scale) (0 for NaN), and q + zeroPoint saturates to the output's range,
// P.j.xy (lowest) to P.j.zw (highest) as int64 words.
fn compute(i: u32) -> OutT {
    let s = block_offset(i);
    var q = round(load_a(i) / load_b(s));
    if (is_nan(q)) {
        q = 0.0;
    }
    // Held to +-2^40 first: beyond every output range (uint32 at most) even after adding a
    // zero point, and far from int64's ends, where adding the zero point would wrap
    // (x / scale = +inf with zero point 4294967295 gave 0).
    q = clamp(q, -1099511627776.0, 1099511627776.0);
    var v = add64(f32_to_s64(q), out_to_int(load_c(s)));
    let lowest = P.j.xy;
    let highest = P.j.zw;
    if (lt_s64(v, lowest)) {
        v = lowest;
    }
    if (lt_s64(highest, v)) {
        v = highest;
    }
    return out_from_int(v, true);
}
