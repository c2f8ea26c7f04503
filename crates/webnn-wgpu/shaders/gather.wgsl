// gather and gatherElements: a is the data, b the indices. The strides give, per output
// element, a's offset without the gathered axis and the offset of its index in b; the index
// (resolved into 0..P.i.y, the axis size) times P.i.x (the axis stride) completes a's offset.
fn compute(i: u32) -> OutT {
    let o = strided_offsets(i);
    let k = resolve_index(ix_to_int(load_b(o.y)), IX_SIGNED, P.i.y);
    return load_a(o.x + k * P.i.x);
}
