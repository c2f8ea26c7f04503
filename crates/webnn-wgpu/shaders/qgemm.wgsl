// Quantized matrix product for prompts (gemm frame): y = x · Wᵀ with W [n, k] dequantized
// from 4- or 8-bit integers q, a float scale and zero point per block of elements along k
// and (HAS_OFFSET) a float per block added after scaling (GGUF Q4_1's minimum):
//   W[j, i] = scale[j, i / block] * (q[j, i] - zero[j, i / block]) + offset[j, i / block].
// The frame stages tiles of x and of W through workgroup memory and reuses each staged
// weight for every row of the tile, where qgemv.wgsl reads the weights again for every four
// rows. Weight element i of the row-major [n, k] values sits in word i / (32 / W_BITS) at
// bit (i % (32 / W_BITS)) * W_BITS, as qgemv.wgsl reads it. Uses the Matmul block
// (matmul_params.wgsl) like qgemv.wgsl: c_m holds the block size and c_n the blocks per
// weight row. Inputs: a = x, b = q, c = scale, d = zero point (where they may be nonzero),
// e = offset (bound only with HAS_OFFSET), then those of `ProductIo`.
override HAS_OFFSET: bool = false;
// The weight's bits per value (4 or 8) and whether they are signed.
override W_BITS: u32 = 4u;
override W_SIGNED: bool = false;

fn gemm_setup(z: u32) {}

fn lhs(m: u32, k: u32) -> f32 {
    return load_a(m * M.a_m + k * M.a_k);
}

// W[n, k], dequantized.
fn rhs(k: u32, n: u32) -> f32 {
    let per_word = 32u / W_BITS;
    let i = n * M.k + k;
    let q = (b[i / per_word] >> ((i % per_word) * W_BITS)) & ((1u << W_BITS) - 1u);
    var v = f32(q);
    if (W_SIGNED && q >= (1u << (W_BITS - 1u))) {
        v -= f32(1u << W_BITS);
    }
    let s = n * M.c_n + k / M.c_m;
    var w = load_c(s) * (v - f32(load_d(s)));
    if (HAS_OFFSET) {
        w += load_e(s);
    }
    return w;
}

// Rotary embedding of the pairs (n, n + 1) and (n + 2, n + 3) where the module takes it
// over (`rope_pair`, generated: identity otherwise).
fn row_values(m: u32, n: u32, v: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(rope_pair(m, n, v.xy), rope_pair(m, n + 2u, v.zw));
}

fn epilogue(m: u32, n: u32, acc: f32) {
    finish_product(0u, m, n, acc);
}
