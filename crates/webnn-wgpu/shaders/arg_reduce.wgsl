// argMin / argMax (MAX_WANTED): output element `row` is the position along the row of its
// first extreme element (a NaN counts as extreme), as int32 or int64.
override MAX_WANTED: bool = true;

var<workgroup> best_value: array<Acc, 64>;
var<workgroup> best_index: array<u32, 64>;

fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    let base = row_base(row);
    // Each lane's candidate: its first extreme element, or none (index 0xffffffff).
    var value = acc_identity(OP_REDUCE_SUM);
    var index = 0xffffffffu;
    if (live) {
        // Four elements loaded before any is compared (a GPU's lane otherwise waits for
        // memory once per element: a 49,152-wide row took 200 us), compared in order.
        var k = lane;
        for (; k + 3u * LANES < R.len; k += 4u * LANES) {
            let x0 = load_a(base + elem_offset(k));
            let x1 = load_a(base + elem_offset(k + LANES));
            let x2 = load_a(base + elem_offset(k + 2u * LANES));
            let x3 = load_a(base + elem_offset(k + 3u * LANES));
            if (index == 0xffffffffu || acc_before(MAX_WANTED, x0, value)) {
                value = x0;
                index = k;
            }
            if (acc_before(MAX_WANTED, x1, value)) {
                value = x1;
                index = k + LANES;
            }
            if (acc_before(MAX_WANTED, x2, value)) {
                value = x2;
                index = k + 2u * LANES;
            }
            if (acc_before(MAX_WANTED, x3, value)) {
                value = x3;
                index = k + 3u * LANES;
            }
        }
        for (; k < R.len; k += LANES) {
            let x = load_a(base + elem_offset(k));
            if (index == 0xffffffffu || acc_before(MAX_WANTED, x, value)) {
                value = x;
                index = k;
            }
        }
    }
    let at = slot * LANES + lane;
    best_value[at] = value;
    best_index[at] = index;
    workgroupBarrier();
    var s = LANES / 2u;
    loop {
        if (s == 0u) {
            break;
        }
        if (lane < s) {
            let i2 = best_index[at + s];
            let i1 = best_index[at];
            let v1 = best_value[at];
            let v2 = best_value[at + s];
            // The other candidate wins if it is more extreme, or as extreme and earlier.
            let take = i2 != 0xffffffffu && (i1 == 0xffffffffu || acc_before(MAX_WANTED, v2, v1)
                || (!acc_before(MAX_WANTED, v1, v2) && i2 < i1));
            if (take) {
                best_value[at] = v2;
                best_index[at] = i2;
            }
        }
        workgroupBarrier();
        s = s / 2u;
    }
    let winner = best_index[slot * LANES];
    if (live && lane == 0u) {
        store_elem(row, out_from_int(vec2<u32>(winner, 0u), false));
    }
}
