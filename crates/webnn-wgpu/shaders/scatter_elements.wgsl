// scatterElements (scatter frame): the output already holds the input; update u (b) goes to
// its own coordinates . a_strides (the output's, 0 on the axis) plus its index (a, resolved
// into 0..P.i.y) times the axis stride P.i.x. Updates to one element land in no set order.
fn run_unit(u: u32) {
    let k = resolve_index(ix_to_int(load_a(u)), IX_SIGNED, P.i.y);
    store_elem(strided_offsets(u).x + k * P.i.x, load_b(u));
}
