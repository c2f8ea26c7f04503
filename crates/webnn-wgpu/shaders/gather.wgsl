// gather: out[i] = a[offset of i through the strides of a] (transpose; later slice, expand...).
// Input and output have one type, so values pass through unchanged.
fn compute(i: u32) -> OutT {
    return load_a(strided_offsets(i).x);
}
