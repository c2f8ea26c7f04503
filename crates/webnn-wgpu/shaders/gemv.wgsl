// gemv (row frame): matmul and gemm with few rows (decode steps, fully connected layers).
// Each output element is a row of the frame: its LANES invocations split the sum over k, then
// fold their partial sums in workgroup memory. Uses the Matmul block of matmul_params.wgsl.
fn row_count() -> u32 {
    return M.batches * M.m * M.n;
}

fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    let n = row % M.n;
    let m = (row / M.n) % M.m;
    let z = row / (M.n * M.m);
    var acc = 0.0;
    if (live) {
        let o = batch_offsets(z);
        let a = o.x + m * M.a_m;
        let b = o.y + n * M.b_n;
        for (var k = lane; k < M.k; k += LANES) {
            acc += load_a(a + k * M.a_k) * load_b(b + k * M.b_k);
        }
    }
    acc = lanes_reduce(OP_REDUCE_SUM, acc, slot, lane);
    if (live && lane == 0u) {
        finish_product(z, m, n, acc);
    }
}
