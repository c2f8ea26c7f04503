// copy (scatter frame, uint32 words): word u of the output is word P.base + u of the input.
fn run_unit(u: u32) {
    store_elem(u, load_a(P.base + u));
}
