// dequantizeLinear: a is the quantized input, b the float scale (the output's type), c the zero
// point (the input's type), read blockwise as in quantize.wgsl. (x - zeroPoint) is exact in 64
// bits, then rounds once to f32 before the product.
fn block_offset(i: u32) -> u32 {
    var rem = i;
    var o = 0u;
    var d = P.rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = shape_at(d);
        o += (rem % size) / dim_at(d) * b_stride(d);
        rem = rem / size;
    }
    return o;
}

fn compute(i: u32) -> OutT {
    let s = block_offset(i);
    let diff = sub64(in_to_int(load_a(i)), in_to_int(load_c(s)));
    return s64_to_f32(diff) * load_b(s);
}
