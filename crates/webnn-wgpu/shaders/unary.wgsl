// unary: out[i] = unary_op(a[i]), the op chosen by OP in the domain file.
fn compute(i: u32) -> OutT {
    return unary_op(load_a(i));
}
