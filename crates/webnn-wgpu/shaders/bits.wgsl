// Float bit manipulation. WGSL lets implementations assume no NaN or infinity and leaves the
// rounding of f32 -> f16 conversions open, so special values are tested and float16 is
// converted on the bit patterns, which gives the same results on every adapter.

fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

// A float from its bits. A function call is not a const-expression, so a NaN or an infinity
// made here is not a shader-creation error.
fn from_bits(b: u32) -> f32 {
    return bitcast<f32>(b);
}

fn f32_nan() -> f32 {
    return from_bits(0x7fc00000u);
}

// +Infinity, or -Infinity when `negative`.
fn f32_inf(negative: bool) -> f32 {
    return from_bits(select(0x7f800000u, 0xff800000u, negative));
}

// The float16 bit pattern nearest to x (ties to even); overflow gives infinity, NaN stays NaN.
fn f32_to_f16_bits(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let e = (b >> 23u) & 0xffu;
    let m = b & 0x7fffffu;
    if (e == 0xffu) {
        // Infinity, or NaN with its top payload bits and the quiet bit.
        return sign | 0x7c00u | select(0u, 0x200u | (m >> 13u), m != 0u);
    }
    let he = i32(e) - 112;
    if (he >= 31) {
        return sign | 0x7c00u;
    }
    if (he <= 0) {
        // A float16 subnormal (or zero): the significand with its implicit bit, shifted to
        // units of 2^-24, rounded to nearest even.
        if (he < -10) {
            return sign;
        }
        let mant = m | 0x800000u;
        let shift = u32(14 - he);
        var h = mant >> shift;
        let rest = mant & ((1u << shift) - 1u);
        let half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (h & 1u) == 1u)) {
            h += 1u;
        }
        return sign | h;
    }
    var h = (u32(he) << 10u) | (m >> 13u);
    let rest = m & 0x1fffu;
    // A carry out of the significand increments the exponent, up to infinity: still right.
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) == 1u)) {
        h += 1u;
    }
    return sign | h;
}

// The float32 value of a float16 bit pattern (exact).
fn f16_bits_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0x1fu) {
        return from_bits(sign | 0x7f800000u | (m << 13u));
    }
    if (e == 0u) {
        // m * 2^-24, exact in float32.
        return from_bits(sign | bitcast<u32>(f32(m) * 5.9604644775390625e-8));
    }
    return from_bits(sign | ((e + 112u) << 23u) | (m << 13u));
}

// Float to integer conversions: truncation toward zero, saturating at the type's range, NaN
// giving 0 (the cast rule of the cpu backend). Range tops such as 2^31 - 1 are not floats, so
// the tests compare against the first value past the range.
fn sat_i32(x: f32) -> i32 {
    if (is_nan(x)) {
        return 0;
    }
    if (x >= 2147483648.0) {
        return 2147483647;
    }
    if (x < -2147483648.0) {
        return bitcast<i32>(0x80000000u);
    }
    return i32(x);
}

fn sat_u32(x: f32) -> u32 {
    if (is_nan(x) || x <= 0.0) {
        return 0u;
    }
    if (x >= 4294967296.0) {
        return 0xffffffffu;
    }
    return u32(x);
}

// For ranges inside i32 (int8, uint8, int4, uint4), whose bounds are exact floats.
fn sat_small(x: f32, lo: f32, hi: f32) -> i32 {
    if (is_nan(x)) {
        return 0;
    }
    return i32(min(max(trunc(x), lo), hi));
}
