// where: out[i] = condition[ic] != 0 ? trueValue[it] : falseValue[if], all three broadcast
// through their strides (a: the uint8 condition, b and c: the values).
fn compute(i: u32) -> OutT {
    let o = operand_offsets(i);
    if (load_a(o.x) != 0u) {
        return load_b(o.y);
    }
    return load_c(o.z);
}
