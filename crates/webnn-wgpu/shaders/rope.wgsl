// Rotary embedding on adjacent pairs (a fused pattern, `webnn_core::fusion::Rope`, not a WebNN
// op). The output has the input's shape [..., half, 2]; each pair (x0, x1) turns by the angle
// whose cosine (b) and sine (c) broadcast to it through their strides:
//   out[.., 0] = x0 * cos - x1 * sin,   out[.., 1] = x0 * sin + x1 * cos.
// a (the input) has the output's shape, so its offset is the element's index.
fn compute(i: u32) -> OutT {
    let o = operand_offsets(i);
    let j = i & 1u;
    let x0 = load_a(i - j);
    let x1 = load_a(i - j + 1u);
    let c = load_b(o.y);
    let s = load_c(o.z);
    if (j == 0u) {
        return x0 * c - x1 * s;
    }
    return x0 * s + x1 * c;
}
