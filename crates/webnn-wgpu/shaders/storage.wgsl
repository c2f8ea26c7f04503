// How each data type is stored in u32 words and converted. The typed preamble of a kernel
// (src/storage.rs) binds InT/OutT and in_*/out_* to the functions of its types here.
//
// decode_T(lo, hi, i): element i from its word (lo) and, for 64-bit types, the next word (hi).
// encode_T(v): the element's bits in the low bits of .x (and .y for 64-bit types).
// Compute domains: float32 and float16 compute in f32; int32/int8/int4 in i32 (sign-extended);
// uint32/uint8/uint4 in u32; int64/uint64 in vec2<u32>.

fn decode_f32(lo: u32, hi: u32, i: u32) -> f32 {
    return bitcast<f32>(lo);
}
fn encode_f32(v: f32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(v), 0u);
}

fn decode_f16(lo: u32, hi: u32, i: u32) -> f32 {
    return f16_bits_to_f32((lo >> ((i & 1u) * 16u)) & 0xffffu);
}
fn encode_f16(v: f32) -> vec2<u32> {
    return vec2<u32>(f32_to_f16_bits(v), 0u);
}

fn decode_i32(lo: u32, hi: u32, i: u32) -> i32 {
    return bitcast<i32>(lo);
}
fn encode_i32(v: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(v), 0u);
}

fn decode_u32(lo: u32, hi: u32, i: u32) -> u32 {
    return lo;
}
fn encode_u32(v: u32) -> vec2<u32> {
    return vec2<u32>(v, 0u);
}

fn decode_x64(lo: u32, hi: u32, i: u32) -> vec2<u32> {
    return vec2<u32>(lo, hi);
}
fn encode_x64(v: vec2<u32>) -> vec2<u32> {
    return v;
}

fn decode_i8(lo: u32, hi: u32, i: u32) -> i32 {
    return extractBits(bitcast<i32>(lo), (i & 3u) * 8u, 8u);
}
fn encode_i8(v: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(v) & 0xffu, 0u);
}

fn decode_u8(lo: u32, hi: u32, i: u32) -> u32 {
    return extractBits(lo, (i & 3u) * 8u, 8u);
}
fn encode_u8(v: u32) -> vec2<u32> {
    return vec2<u32>(v & 0xffu, 0u);
}

// int4/uint4: element 2k in the low nibble of byte k, so element i is nibble i % 8 of its word.
fn decode_i4(lo: u32, hi: u32, i: u32) -> i32 {
    return extractBits(bitcast<i32>(lo), (i & 7u) * 4u, 4u);
}
fn encode_i4(v: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(v) & 0xfu, 0u);
}

fn decode_u4(lo: u32, hi: u32, i: u32) -> u32 {
    return extractBits(lo, (i & 7u) * 4u, 4u);
}
fn encode_u4(v: u32) -> vec2<u32> {
    return vec2<u32>(v & 0xfu, 0u);
}

// Casts go through one of two canonical forms: an f32 for float sources, and the 64-bit two's
// complement bits (with the source's signedness) for integer sources.
fn float_to_float(x: f32) -> f32 {
    return x;
}
// Unused: a float source converts with out_from_float.
fn float_to_int(x: f32) -> vec2<u32> {
    return ZERO64;
}
fn sint_to_float(x: i32) -> f32 {
    return f32(x);
}
fn sint_to_int(x: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0));
}
fn uint_to_float(x: u32) -> f32 {
    return f32(x);
}
fn uint_to_int(x: u32) -> vec2<u32> {
    return vec2<u32>(x, 0u);
}
fn s64_to_float(x: vec2<u32>) -> f32 {
    return s64_to_f32(x);
}
fn u64_to_float(x: vec2<u32>) -> f32 {
    return u64_to_f32(x);
}
fn x64_to_int(x: vec2<u32>) -> vec2<u32> {
    return x;
}

// From a float: float types keep the value (the float16 encoder rounds it); integer types
// truncate toward zero and saturate, NaN giving 0.
fn f32_from_float(x: f32) -> f32 {
    return x;
}
fn i32_from_float(x: f32) -> i32 {
    return sat_i32(x);
}
fn u32_from_float(x: f32) -> u32 {
    return sat_u32(x);
}
fn i64_from_float(x: f32) -> vec2<u32> {
    return f32_to_s64(x);
}
fn u64_from_float(x: f32) -> vec2<u32> {
    return f32_to_u64(x);
}
fn i8_from_float(x: f32) -> i32 {
    return sat_small(x, -128.0, 127.0);
}
fn u8_from_float(x: f32) -> u32 {
    return u32(sat_small(x, 0.0, 255.0));
}
fn i4_from_float(x: f32) -> i32 {
    return sat_small(x, -8.0, 7.0);
}
fn u4_from_float(x: f32) -> u32 {
    return u32(sat_small(x, 0.0, 15.0));
}

// From integer bits: integer types keep the low bits (the encoder masks sub-word types), float
// types take the nearest value.
fn float_from_int(v: vec2<u32>, signed: bool) -> f32 {
    if (signed) {
        return s64_to_f32(v);
    }
    return u64_to_f32(v);
}
fn sint_from_int(v: vec2<u32>, signed: bool) -> i32 {
    return bitcast<i32>(v.x);
}
fn uint_from_int(v: vec2<u32>, signed: bool) -> u32 {
    return v.x;
}
fn x64_from_int(v: vec2<u32>, signed: bool) -> vec2<u32> {
    return v;
}
