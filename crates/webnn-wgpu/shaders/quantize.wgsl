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
    // f32_to_s64 saturates infinities to the int64 range, far outside every output range.
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
