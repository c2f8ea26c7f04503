// softmax over each row: exp(x - max) / sum(exp(x - max)). Input and output share a layout.
fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    let base = row_base(row);
    var m = acc_identity(OP_REDUCE_MAX);
    if (live) {
        for (var k = lane; k < R.len; k += LANES) {
            m = acc_combine(OP_REDUCE_MAX, m, load_a(base + elem_offset(k)));
        }
    }
    m = lanes_reduce(OP_REDUCE_MAX, m, slot, lane);
    var s = 0.0;
    if (live) {
        for (var k = lane; k < R.len; k += LANES) {
            s += exp_f(load_a(base + elem_offset(k)) - m);
        }
    }
    s = lanes_reduce(OP_REDUCE_SUM, s, slot, lane);
    if (live) {
        for (var k = lane; k < R.len; k += LANES) {
            let at = base + elem_offset(k);
            store_elem(at, exp_f(load_a(at) - m) / s);
        }
    }
}
