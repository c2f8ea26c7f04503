// reduce: output element `row` is the fold of the row (OP, a reduce code). logSumExp first
// finds the row maximum, then sums exp(x - max).
fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    let base = row_base(row);
    var shift = acc_identity(OP_REDUCE_SUM);
    if (OP == OP_REDUCE_LOG_SUM_EXP) {
        var m = acc_identity(OP_REDUCE_MAX);
        if (live) {
            for (var k = lane; k < R.len; k += LANES) {
                m = acc_combine(OP_REDUCE_MAX, m, load_a(base + elem_offset(k)));
            }
        }
        shift = lanes_reduce(OP_REDUCE_MAX, m, slot, lane);
    }
    var acc = acc_identity(OP);
    if (live) {
        for (var k = lane; k < R.len; k += LANES) {
            acc = acc_combine(OP, acc, acc_map(OP, load_a(base + elem_offset(k)), shift));
        }
    }
    acc = lanes_reduce(OP, acc, slot, lane);
    if (live && lane == 0u) {
        store_elem(row, acc_finish(OP, acc, shift, R.len));
    }
}
