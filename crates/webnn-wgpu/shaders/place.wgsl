// place (scatter frame): copies input a into a region of the output, as concat does with
// each input: source element u goes to P.base + its coordinates . a_strides (the output's
// strides).
fn run_unit(u: u32) {
    store_elem(strided_offsets(u).x, load_a(u));
}
