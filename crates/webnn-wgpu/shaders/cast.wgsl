// cast: float sources convert from their f32 value, integer sources from their 64-bit bits.
fn compute(i: u32) -> OutT {
    let x = load_a(i);
    if (IN_FLOAT) {
        return out_from_float(in_to_float(x));
    }
    return out_from_int(in_to_int(x), IN_SIGNED);
}
