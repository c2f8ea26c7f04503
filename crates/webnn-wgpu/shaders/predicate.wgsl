// predicate: out[i] = unary_test(a[i]) as uint8 0/1 (isNaN, isInfinite, logicalNot).
fn compute(i: u32) -> OutT {
    return select(0u, 1u, unary_test(load_a(i)));
}
