// The second pass of a split decode step's attention (attention.wgsl with SPLIT): per query
// row, its blocks' maxima, sums and unnormalised weighted values rescaled to the row's
// maximum and summed, then divided by the row's sum. Row frame, each lane a few of the
// row's output dimensions (every lane recomputes the row's maximum and sum: a handful of
// blocks). Rows block: rows (query rows), i = (blocks per row, head_dim, seq);
// outer_strides[0].zw = the output's layout (as attention.wgsl's `out_at`).
// Input: a = the partials, head_dim + 2 floats per (row, block).
fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    if (!live) {
        return;
    }
    let blocks = R.i.x;
    let hd = R.i.y;
    let stride = hd + 2u;
    let first = row * blocks;
    var top = bitcast<f32>(0xff7fffffu);
    for (var b = 0u; b < blocks; b++) {
        top = max(top, load_a((first + b) * stride));
    }
    var sum = 0.0;
    for (var b = 0u; b < blocks; b++) {
        let at = (first + b) * stride;
        sum += load_a(at + 1u) * exp_f(load_a(at) - top);
    }
    for (var d = lane; d < hd; d += LANES) {
        var acc = 0.0;
        for (var b = 0u; b < blocks; b++) {
            let at = (first + b) * stride;
            acc += load_a(at + 2u + d) * exp_f(load_a(at) - top);
        }
        let seq = R.i.z;
        store_elem((row / seq) * R.outer_strides[0].z + (row % seq) * R.outer_strides[0].w + d, acc / sum);
    }
}
