// 64-bit integers as vec2<u32> (x = low word, y = high word), two's complement for int64.
// WGSL has no 64-bit integers; these give the exact wrapping results of the cpu backend.

const ZERO64: vec2<u32> = vec2<u32>(0u, 0u);

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn neg64(a: vec2<u32>) -> vec2<u32> {
    return sub64(ZERO64, a);
}

fn is_neg64(a: vec2<u32>) -> bool {
    return (a.y & 0x80000000u) != 0u;
}

fn is_zero64(a: vec2<u32>) -> bool {
    return a.x == 0u && a.y == 0u;
}

fn eq64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x == b.x && a.y == b.y;
}

fn lt_u64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn lt_s64(a: vec2<u32>, b: vec2<u32>) -> bool {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    return ah < bh || (ah == bh && a.x < b.x);
}

// The full 64-bit product of two 32-bit words, from 16-bit halves.
fn mul_wide32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// The low 64 bits of the product (the same for signed and unsigned operands).
fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = mul_wide32(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

// Unsigned quotient by shift-and-subtract; division by zero gives 0 as on the cpu backend.
fn div_u64(n: vec2<u32>, d: vec2<u32>) -> vec2<u32> {
    if (is_zero64(d)) {
        return ZERO64;
    }
    var q = ZERO64;
    var r = ZERO64;
    // Shift amounts stay below 32: WGSL leaves larger ones undefined.
    for (var k = 63u; ; k -= 1u) {
        let sh = k & 31u;
        let bit = (select(n.x, n.y, k >= 32u) >> sh) & 1u;
        // A bit shifted out of r (possible when d >= 2^63) means r exceeds d.
        let carry = (r.y >> 31u) != 0u;
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if (carry || !lt_u64(r, d)) {
            r = sub64(r, d);
            if (k >= 32u) {
                q.y |= 1u << sh;
            } else {
                q.x |= 1u << sh;
            }
        }
        if (k == 0u) {
            break;
        }
    }
    return q;
}

fn abs64(a: vec2<u32>) -> vec2<u32> {
    return select(a, neg64(a), is_neg64(a));
}

// Signed quotient truncated toward zero (MIN / -1 wraps to MIN, as the cpu backend's wrap).
fn div_s64(n: vec2<u32>, d: vec2<u32>) -> vec2<u32> {
    let q = div_u64(abs64(n), abs64(d));
    return select(q, neg64(q), is_neg64(n) != is_neg64(d));
}

// x^y wrapping modulo 2^64 by squaring. For int64 a negative exponent truncates 1/x^|y|
// toward zero: 1 for x = 1, ±1 for x = -1, 0 otherwise (the cpu backend's rule).
fn pow64(x: vec2<u32>, y: vec2<u32>, signed: bool) -> vec2<u32> {
    if (signed && is_neg64(y)) {
        if (eq64(x, vec2<u32>(1u, 0u))) {
            return x;
        }
        if (eq64(x, vec2<u32>(0xffffffffu, 0xffffffffu))) {
            return select(vec2<u32>(1u, 0u), x, (y.x & 1u) == 1u);
        }
        return ZERO64;
    }
    var result = vec2<u32>(1u, 0u);
    var base = x;
    var e = y;
    loop {
        if (is_zero64(e)) {
            break;
        }
        if ((e.x & 1u) == 1u) {
            result = mul64(result, base);
        }
        base = mul64(base, base);
        e = vec2<u32>((e.x >> 1u) | (e.y << 31u), e.y >> 1u);
    }
    return result;
}

// The float32 nearest to an unsigned 64-bit value (ties to even).
fn u64_to_f32(v: vec2<u32>) -> f32 {
    if (v.y == 0u) {
        return f32(v.x);
    }
    let lz = countLeadingZeros(v.y);
    // The top 32 bits after normalising, and whether anything below them is set.
    let top = (v.y << lz) | ((v.x >> (31u - lz)) >> 1u);
    let below = v.x << lz;
    var m = top >> 8u;
    let rest = top & 0xffu;
    if (rest > 0x80u || (rest == 0x80u && (below != 0u || (m & 1u) == 1u))) {
        m += 1u;
    }
    return ldexp(f32(m), i32(40u - lz));
}

fn s64_to_f32(v: vec2<u32>) -> f32 {
    if (is_neg64(v)) {
        return -u64_to_f32(neg64(v));
    }
    return u64_to_f32(v);
}

// |x| truncated to an integer below 2^64, as two words; both word values are exact floats.
fn trunc_to_u64(t: f32) -> vec2<u32> {
    let hi = floor(t * 2.3283064365386963e-10);
    return vec2<u32>(u32(t - hi * 4294967296.0), u32(hi));
}

// Float to int64: truncation toward zero, saturating, NaN giving 0.
fn f32_to_s64(x: f32) -> vec2<u32> {
    if (is_nan(x)) {
        return ZERO64;
    }
    let t = trunc(abs(x));
    if (t >= 9223372036854775808.0) {
        return select(vec2<u32>(0xffffffffu, 0x7fffffffu), vec2<u32>(0u, 0x80000000u), x < 0.0);
    }
    let m = trunc_to_u64(t);
    return select(m, neg64(m), x < 0.0);
}

fn f32_to_u64(x: f32) -> vec2<u32> {
    if (is_nan(x) || x <= 0.0) {
        return ZERO64;
    }
    let t = trunc(x);
    if (t >= 18446744073709551616.0) {
        return vec2<u32>(0xffffffffu, 0xffffffffu);
    }
    return trunc_to_u64(t);
}

// An index value (64-bit two's complement bits, `signed` for int32/int64 sources) into a
// dimension of size n: negative values count from the end, then the result is clamped into
// 0..n, as on the cpu backend (the spec leaves out-of-range indices to the implementation).
fn resolve_index(v: vec2<u32>, signed: bool, n: u32) -> u32 {
    if (signed && is_neg64(v)) {
        let m = neg64(v);
        if (m.y != 0u || m.x >= n) {
            return 0u;
        }
        return n - m.x;
    }
    if (v.y != 0u || v.x >= n) {
        return n - 1u;
    }
    return v.x;
}
