// batchNormalization: a is the input; b, c, d and e the per-channel mean, variance, scale and
// bias (d and e only when HAS_SCALE / HAS_BIAS). The channel of element i is
// (i / P.i.x) % P.i.y; P.f.x is epsilon, already cast to the input's type.
override HAS_SCALE: bool = false;
override HAS_BIAS: bool = false;

fn compute(i: u32) -> OutT {
    let ch = (i / P.i.x) % P.i.y;
    let x = load_a(i);
    var y = (x - load_b(ch)) * (1.0 / sqrt(load_c(ch) + P.f.x));
    if (HAS_SCALE) {
        y = y * load_d(ch);
    }
    if (HAS_BIAS) {
        y = y + load_e(ch);
    }
    return y;
}
