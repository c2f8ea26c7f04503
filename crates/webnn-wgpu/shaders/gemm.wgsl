// The tiled matrix-product frame of matmul, gemm, conv2d and convTranspose2d: workgroup
// (x, y, z) computes the 64x64 output tile (columns x, rows y) of product z, each of its
// 16x16 invocations a 4x4 block, accumulating in f32 over K in steps of 16 staged through
// workgroup memory. The body defines the product's sizes, `gemm_setup(z)` (per-product state),
// `lhs(m, k)`, `rhs(k, n)` (0 outside the product is handled here) and `epilogue(m, n, acc)`.

const TILE_M: u32 = 64u;
const TILE_N: u32 = 64u;
const TILE_K: u32 = 16u;

// [k][m] and [k][n]: the inner loop reads four consecutive m (n) of one k.
var<workgroup> tile_a: array<f32, 1024>;
var<workgroup> tile_b: array<f32, 1024>;

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let m0 = group.y * TILE_M;
    let n0 = group.x * TILE_N;
    gemm_setup(group.z);
    let rows = gemm_m();
    let cols = gemm_n();
    let depth = gemm_k();
    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < depth; k0 += TILE_K) {
        // 1024 elements of each tile, four per invocation; consecutive invocations read
        // consecutive k of A and consecutive n of B.
        for (var r = 0u; r < 4u; r += 1u) {
            let e = t + 256u * r;
            let am = m0 + e / TILE_K;
            let ak = k0 + e % TILE_K;
            var a = 0.0;
            if (am < rows && ak < depth) {
                a = lhs(am, ak);
            }
            tile_a[(e % TILE_K) * TILE_M + e / TILE_K] = a;
            let bk = k0 + e / TILE_N;
            let bn = n0 + e % TILE_N;
            var b = 0.0;
            if (bk < depth && bn < cols) {
                b = rhs(bk, bn);
            }
            tile_b[e] = b;
        }
        workgroupBarrier();
        for (var k = 0u; k < TILE_K; k += 1u) {
            let a = vec4<f32>(
                tile_a[k * TILE_M + local.y * 4u],
                tile_a[k * TILE_M + local.y * 4u + 1u],
                tile_a[k * TILE_M + local.y * 4u + 2u],
                tile_a[k * TILE_M + local.y * 4u + 3u],
            );
            let b = vec4<f32>(
                tile_b[k * TILE_N + local.x * 4u],
                tile_b[k * TILE_N + local.x * 4u + 1u],
                tile_b[k * TILE_N + local.x * 4u + 2u],
                tile_b[k * TILE_N + local.x * 4u + 3u],
            );
            acc[0] += a.x * b;
            acc[1] += a.y * b;
            acc[2] += a.z * b;
            acc[3] += a.w * b;
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i += 1u) {
        let m = m0 + local.y * 4u + i;
        for (var j = 0u; j < 4u; j += 1u) {
            let n = n0 + local.x * 4u + j;
            if (m < rows && n < cols) {
                epilogue(m, n, acc[i][j]);
            }
        }
    }
}
