// gatherND: a is the data, b the indices, whose last dimension holds P.i.x coordinates. The
// strides give a's offset within the addressed slice and the offset of the coordinate tuple
// in b; coordinate q (resolved into 0..P.dims[q]) moves a's offset by P.lo[q].
fn compute(i: u32) -> OutT {
    let o = strided_offsets(i);
    var offset = o.x;
    for (var q = 0u; q < P.i.x; q += 1u) {
        let c = resolve_index(ix_to_int(load_b(o.y + q)), IX_SIGNED, dim_at(q));
        offset += c * lo_at(q);
    }
    return load_a(offset);
}
