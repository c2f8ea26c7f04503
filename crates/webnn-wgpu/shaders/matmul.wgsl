// matmul and gemm (gemm frame): out[z][m][n] = alpha * sum_k a[z][m][k] b[z][k][n]
// + beta * c[m][n]. Transposes are strides; product z's offsets in a and b come from its
// coordinates in the broadcast batch shape. c (gemm only, HAS_C) is broadcast through its
// strides. The output is contiguous.
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
    pad0: u32,
    pad1: u32,
    alpha: f32,
    beta: f32,
    pad2: u32,
    pad3: u32,
    batch_shape: array<vec4<u32>, 2>,
    a_batch: array<vec4<u32>, 2>,
    b_batch: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> M: Matmul;
override HAS_C: bool = false;

var<private> a_base: u32;
var<private> b_base: u32;
var<private> out_base: u32;

fn gemm_m() -> u32 {
    return M.m;
}
fn gemm_n() -> u32 {
    return M.n;
}
fn gemm_k() -> u32 {
    return M.k;
}

fn gemm_setup(z: u32) {
    var rem = z;
    a_base = 0u;
    b_base = 0u;
    var d = M.batch_rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = M.batch_shape[d >> 2u][d & 3u];
        let c = rem % size;
        rem = rem / size;
        a_base += c * M.a_batch[d >> 2u][d & 3u];
        b_base += c * M.b_batch[d >> 2u][d & 3u];
    }
    out_base = z * M.m * M.n;
}

fn lhs(m: u32, k: u32) -> f32 {
    return load_a(a_base + m * M.a_m + k * M.a_k);
}

fn rhs(k: u32, n: u32) -> f32 {
    return load_b(b_base + k * M.b_k + n * M.b_n);
}

fn epilogue(m: u32, n: u32, acc: f32) {
    var v = acc * M.alpha;
    if (HAS_C) {
        v += M.beta * load_c(m * M.c_m + n * M.c_n);
    }
    store_elem(out_base + m * M.n + n, v);
}
