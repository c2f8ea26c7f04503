// The tiled matrix-product frame of matmul, gemm, conv2d and convTranspose2d: a workgroup of
// 8 x ROWS invocations computes one (8 * ROWS) x 64 output tile of one product, each
// invocation an 8x8 block, accumulating in f32 over K in steps of 16 staged through workgroup
// memory as vec4s (four rows of A, or four columns of B). Each step of the inner loop reads
// four vec4s for 64 multiply-adds; the accumulators are named registers (an indexed array
// would live in memory on some compilers). The body defines the product's sizes and product
// count, `gemm_setup(z)` (per-product state), `lhs(m, k)`, `rhs(k, n)` (0 outside the
// product is handled here), `row_values(m, n, v)` (four outputs before their epilogue) and
// `epilogue(m, n, acc)`.

// Invocation rows of the workgroup (2, 4 or 8): tiles are 8 * ROWS outputs tall, so products
// with few rows (early 1x1 convolutions) waste less of them.
override ROWS: u32 = 8u;
const TILE_N: u32 = 64u;
const TILE_K: u32 = 16u;

// [k][m / 4] and [k][n / 4].
var<workgroup> tile_a: array<vec4<f32>, 256>;
var<workgroup> tile_b: array<vec4<f32>, 256>;

fn lhs_or_zero(m: u32, k: u32) -> f32 {
    if (m < gemm_m() && k < gemm_k()) {
        return lhs(m, k);
    }
    return 0.0;
}

fn rhs_or_zero(k: u32, n: u32) -> f32 {
    if (k < gemm_k() && n < gemm_n()) {
        return rhs(k, n);
    }
    return 0.0;
}

// Four outputs of one row, from column n (a multiple of 4), through the body's
// `row_values` (the quantized product's rotary embedding of pairs; identity elsewhere).
fn store_row(m: u32, n: u32, u: vec4<f32>) {
    if (m >= gemm_m()) {
        return;
    }
    let v = row_values(m, n, u);
    let cols = gemm_n();
    if (n < cols) {
        epilogue(m, n, v.x);
    }
    if (n + 1u < cols) {
        epilogue(m, n + 1u, v.y);
    }
    if (n + 2u < cols) {
        epilogue(m, n + 2u, v.z);
    }
    if (n + 3u < cols) {
        epilogue(m, n + 3u, v.w);
    }
}

// Workgroup (x, y) takes tile y * (workgroups in x) + x of the tiles of all products, so a
// product of any size fits the dispatch limits (65535 workgroups per dimension).
@compute @workgroup_size(8, ROWS, 1)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let tile_m = 8u * ROWS;
    let tiles_m = (gemm_m() + tile_m - 1u) / tile_m;
    let tiles_n = (gemm_n() + TILE_N - 1u) / TILE_N;
    let per_product = tiles_m * tiles_n;
    let l = group.y * groups.x + group.x;
    if (l >= per_product * gemm_products()) {
        return;
    }
    let r = l % per_product;
    tile(l / per_product, (r / tiles_n) * tile_m, (r % tiles_n) * TILE_N, local, t);
}

// Output tile (m0, n0) of product z.
fn tile(z: u32, m0: u32, n0: u32, local: vec3<u32>, t: u32) {
    gemm_setup(z);
    let depth = gemm_k();
    var r0a = vec4<f32>();
    var r0b = vec4<f32>();
    var r1a = vec4<f32>();
    var r1b = vec4<f32>();
    var r2a = vec4<f32>();
    var r2b = vec4<f32>();
    var r3a = vec4<f32>();
    var r3b = vec4<f32>();
    var r4a = vec4<f32>();
    var r4b = vec4<f32>();
    var r5a = vec4<f32>();
    var r5b = vec4<f32>();
    var r6a = vec4<f32>();
    var r6b = vec4<f32>();
    var r7a = vec4<f32>();
    var r7b = vec4<f32>();
    let threads = 8u * ROWS;
    // vec4s per k in the A tile.
    let a_row = 2u * ROWS;
    for (var k0 = 0u; k0 < depth; k0 += TILE_K) {
        // 32 * ROWS vec4s of A, four per invocation: consecutive invocations take
        // consecutive k.
        for (var r = 0u; r < 4u; r += 1u) {
            let e = t + threads * r;
            let ak = e % TILE_K;
            let am = (e / TILE_K) * 4u;
            tile_a[ak * a_row + am / 4u] = vec4<f32>(
                lhs_or_zero(m0 + am, k0 + ak),
                lhs_or_zero(m0 + am + 1u, k0 + ak),
                lhs_or_zero(m0 + am + 2u, k0 + ak),
                lhs_or_zero(m0 + am + 3u, k0 + ak),
            );
        }
        // 256 vec4s of B: consecutive invocations take consecutive column groups.
        for (var e = t; e < 256u; e += threads) {
            let bk = e / 16u;
            let bn = (e % 16u) * 4u;
            tile_b[bk * 16u + bn / 4u] = vec4<f32>(
                rhs_or_zero(k0 + bk, n0 + bn),
                rhs_or_zero(k0 + bk, n0 + bn + 1u),
                rhs_or_zero(k0 + bk, n0 + bn + 2u),
                rhs_or_zero(k0 + bk, n0 + bn + 3u),
            );
        }
        workgroupBarrier();
        for (var k = 0u; k < TILE_K; k += 1u) {
            let a0 = tile_a[k * a_row + local.y * 2u];
            let a1 = tile_a[k * a_row + local.y * 2u + 1u];
            let b0 = tile_b[k * 16u + local.x * 2u];
            let b1 = tile_b[k * 16u + local.x * 2u + 1u];
            r0a += a0.x * b0;
            r0b += a0.x * b1;
            r1a += a0.y * b0;
            r1b += a0.y * b1;
            r2a += a0.z * b0;
            r2b += a0.z * b1;
            r3a += a0.w * b0;
            r3b += a0.w * b1;
            r4a += a1.x * b0;
            r4b += a1.x * b1;
            r5a += a1.y * b0;
            r5b += a1.y * b1;
            r6a += a1.z * b0;
            r6b += a1.z * b1;
            r7a += a1.w * b0;
            r7b += a1.w * b1;
        }
        workgroupBarrier();
    }
    // Rows 8 * local.y + i, columns 8 * local.x + j.
    let m = m0 + local.y * 8u;
    let n = n0 + local.x * 8u;
    store_row(m + 0u, n, r0a);
    store_row(m + 0u, n + 4u, r0b);
    store_row(m + 1u, n, r1a);
    store_row(m + 1u, n + 4u, r1b);
    store_row(m + 2u, n, r2a);
    store_row(m + 2u, n + 4u, r2b);
    store_row(m + 3u, n, r3a);
    store_row(m + 3u, n + 4u, r3b);
    store_row(m + 4u, n, r4a);
    store_row(m + 4u, n + 4u, r4b);
    store_row(m + 5u, n, r5a);
    store_row(m + 5u, n + 4u, r5b);
    store_row(m + 6u, n, r6a);
    store_row(m + 6u, n + 4u, r6b);
    store_row(m + 7u, n, r7a);
    store_row(m + 7u, n + 4u, r7b);
}
