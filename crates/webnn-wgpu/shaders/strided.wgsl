// strided: out[i] = a[P.base + coordinates of i . a_strides]: transpose, expand, slice,
// reverse, split and plain copies. One type in and out, so values pass through unchanged.
fn compute(i: u32) -> OutT {
    return load_a(strided_offsets(i).x);
}
