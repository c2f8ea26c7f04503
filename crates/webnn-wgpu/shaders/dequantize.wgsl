// dequantizeLinear: a is the quantized input, b the float scale (the output's type), c the
// zero point (the input's type), both read blockwise (params.wgsl's block_offset).
// (x - zeroPoint) is exact in 64 bits, then rounds once to f32 before the product.
fn compute(i: u32) -> OutT {
    let s = block_offset(i);
    let diff = sub64(in_to_int(load_a(i)), in_to_int(load_c(s)));
    return s64_to_f32(diff) * load_b(s);
}
