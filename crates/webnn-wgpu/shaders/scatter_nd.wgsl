// scatterND (scatter frame): the output already holds the input; update u (b) is element
// u % P.i.y of the slice that the coordinate tuple u / P.i.y of the indices (a, P.i.x
// coordinates each) addresses. Coordinate q is resolved into 0..P.dims[q] and strided by
// P.lo[q].
fn run_unit(u: u32) {
    let tuple = u / P.i.y;
    var offset = u % P.i.y;
    for (var q = 0u; q < P.i.x; q += 1u) {
        let c = resolve_index(ix_to_int(load_a(tuple * P.i.x + q)), IX_SIGNED, dim_at(q));
        offset += c * lo_at(q);
    }
    store_elem(offset, load_b(u));
}
