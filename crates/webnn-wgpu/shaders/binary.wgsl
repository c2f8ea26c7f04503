// binary: out[i] = binary_op(a[ia], b[ib]) with numpy broadcasting through the strides.
fn compute(i: u32) -> OutT {
    let o = operand_offsets(i);
    return binary_op(load_a(o.x), load_b(o.y));
}
