// cumulativeSum along each row (LANES = 64): chunks of 64 elements are scanned in workgroup
// memory and carried over. R.i.x = 1 for an exclusive sum, R.i.y = 1 to sum from the row's
// end. Input and output share a layout.
var<workgroup> scan: array<Acc, 64>;

fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    let base = row_base(row);
    let exclusive = R.i.x == 1u;
    let reversed = R.i.y == 1u;
    let zero = acc_identity(OP_REDUCE_SUM);
    var carry = zero;
    let chunks = (R.len + 63u) / 64u;
    for (var c = 0u; c < chunks; c += 1u) {
        let k = c * 64u + lane;
        let inside = live && k < R.len;
        let at = base + elem_offset(select(k, R.len - 1u - k, reversed));
        var x = zero;
        if (inside) {
            x = load_a(at);
        }
        scan[lane] = x;
        workgroupBarrier();
        for (var s = 1u; s < 64u; s *= 2u) {
            var v = scan[lane];
            if (lane >= s) {
                v = acc_combine(OP_REDUCE_SUM, scan[lane - s], v);
            }
            workgroupBarrier();
            scan[lane] = v;
            workgroupBarrier();
        }
        var before = carry;
        if (lane > 0u) {
            before = acc_combine(OP_REDUCE_SUM, carry, scan[lane - 1u]);
        }
        if (inside) {
            let v = select(acc_combine(OP_REDUCE_SUM, carry, scan[lane]), before, exclusive);
            store_elem(at, acc_finish(OP_REDUCE_SUM, v, zero, 1u));
        }
        carry = acc_combine(OP_REDUCE_SUM, carry, scan[63]);
        workgroupBarrier();
    }
}
