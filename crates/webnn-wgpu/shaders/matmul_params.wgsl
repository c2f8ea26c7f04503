// The uniform block of matmul and gemv (mirrored by `MatmulParams` in src/params.rs).
struct Matmul {
    m: u32,
    n: u32,
    k: u32,
    batch_rank: u32,
    // Strides of a along m and k, and of b along k and n.
    a_m: u32,
    a_k: u32,
    b_k: u32,
    b_n: u32,
    c_m: u32,
    c_n: u32,
    // Products in the batch (the dispatch's z).
    batches: u32,
    pad1: u32,
    alpha: f32,
    beta: f32,
    clamp_low: f32,
    clamp_high: f32,
    batch_shape: array<vec4<u32>, 2>,
    a_batch: array<vec4<u32>, 2>,
    b_batch: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> M: Matmul;
override HAS_C: bool = false;
override HAS_CLAMP: bool = false;

// Offsets of product z in a and b, from its coordinates in the batch shape.
fn batch_offsets(z: u32) -> vec2<u32> {
    var rem = z;
    var o = vec2<u32>(0u, 0u);
    var d = M.batch_rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = M.batch_shape[d >> 2u][d & 3u];
        let c = rem % size;
        rem = rem / size;
        o += c * vec2<u32>(M.a_batch[d >> 2u][d & 3u], M.b_batch[d >> 2u][d & 3u]);
    }
    return o;
}

// alpha * acc + beta * c, clamped: output element (m, n) of product z.
fn finish_product(z: u32, m: u32, n: u32, acc: f32) {
    var v = acc * M.alpha;
    if (HAS_C) {
        v += M.beta * load_c(m * M.c_m + n * M.c_n);
    }
    if (HAS_CLAMP) {
        v = min(max(v, M.clamp_low), M.clamp_high);
    }
    // The module's epilogue op (`tail`, generated: identity, or an op with input f), stored
    // in the product's row or the row a scatter's index names (`out_row`, generated).
    let i = (z * M.m + m) * M.n + n;
    store_elem(out_row(z, m) * M.n + n, tail(i, v));
}

// The gemm frame's sizes (gemm.wgsl) for the bodies on this block: matmul and gemm
// (matmul.wgsl), the quantized product (qgemm.wgsl).
fn gemm_m() -> u32 {
    return M.m;
}
fn gemm_n() -> u32 {
    return M.n;
}
fn gemm_k() -> u32 {
    return M.k;
}
fn gemm_products() -> u32 {
    return M.batches;
}
