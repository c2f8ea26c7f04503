// matmul and gemm (gemm frame): out[z][m][n] = alpha * sum_k a[z][m][k] b[z][k][n]
// + beta * c[m][n], optionally clamped (HAS_CLAMP: a fused relu or clamp). Transposes are
// strides; product z's offsets in a and b come from its coordinates in the broadcast batch
// shape. c (gemm's addend or a 1x1 convolution's bias, HAS_C) is broadcast through its
// strides. The output is contiguous. Uses the Matmul block of matmul_params.wgsl.
var<private> a_base: u32;
var<private> b_base: u32;
var<private> product: u32;

fn gemm_setup(z: u32) {
    let o = batch_offsets(z);
    a_base = o.x;
    b_base = o.y;
    product = z;
}

fn lhs(m: u32, k: u32) -> f32 {
    return load_a(a_base + m * M.a_m + k * M.a_k);
}

fn rhs(k: u32, n: u32) -> f32 {
    return load_b(b_base + k * M.b_k + n * M.b_n);
}

fn epilogue(m: u32, n: u32, acc: f32) {
    finish_product(product, m, n, acc);
}

fn row_values(m: u32, n: u32, v: vec4<f32>) -> vec4<f32> {
    return v;
}
