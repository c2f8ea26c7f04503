// The SiLU-gated product of a gated MLP (a fused pattern, `webnn_core::fusion::SiluGate`, not a
// WebNN op): out = g * sigmoid(g) * u, with a = g and b = u of the output's shape.
fn compute(i: u32) -> OutT {
    let g = load_a(i);
    return g * sigmoid_f(g) * load_b(i);
}
