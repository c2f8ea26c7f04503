// compare: out[i] = binary_test(a[ia], b[ib]) as uint8 0/1 (comparisons and logical ops).
fn compute(i: u32) -> OutT {
    let o = operand_offsets(i);
    return select(0u, 1u, binary_test(load_a(o.x), load_b(o.y)));
}
