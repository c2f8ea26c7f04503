// resample2d: a is the 4-D input (dims = its shape, a_strides = its strides), `shape` the
// output's. Axes P.i.x and P.i.y are resampled with half-pixel centres,
// clamp((o + 0.5) * in / out - 0.5, 0, in - 1); the other two are copied. MODE 0 takes the
// nearest input (halfway rounds down), 1 blends the two neighbours linearly; integer outputs
// round halfway away from zero.
override MODE: u32 = 0u;

// (first index, second index, weight of the second) along dimension d for output coordinate o.
fn taps(o: u32, d: u32) -> vec3<f32> {
    let n = dim_at(d);
    let out = shape_at(d);
    let last = f32(n - 1u);
    let coord = clamp((f32(o) + 0.5) * f32(n) / f32(out) - 0.5, 0.0, last);
    if (MODE == 0u) {
        let k = min(max(ceil(coord - 0.5), 0.0), last);
        return vec3<f32>(k, k, 0.0);
    }
    let x0 = min(floor(coord), last);
    let x1 = min(ceil(coord), last);
    return vec3<f32>(x0, x1, coord - x0);
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    if (t == 0.0) {
        return a;
    }
    return a * (1.0 - t) + b * t;
}

fn compute(i: u32) -> OutT {
    var rem = i;
    var coords: array<u32, 4>;
    for (var d = 3; d >= 0; d -= 1) {
        let size = shape_at(u32(d));
        coords[d] = rem % size;
        rem = rem / size;
    }
    let ya = P.i.x;
    let yb = P.i.y;
    var base = 0u;
    for (var d = 0u; d < 4u; d += 1u) {
        if (d != ya && d != yb) {
            base += min(coords[d], dim_at(d) - 1u) * a_stride(d);
        }
    }
    let ta = taps(coords[ya], ya);
    let tb = taps(coords[yb], yb);
    let sa = a_stride(ya);
    let sb = a_stride(yb);
    let a0 = u32(ta.x) * sa;
    let a1 = u32(ta.y) * sa;
    let b0 = u32(tb.x) * sb;
    let b1 = u32(tb.y) * sb;
    let at00 = in_to_float(load_a(base + a0 + b0));
    let at10 = in_to_float(load_a(base + a1 + b0));
    let at01 = in_to_float(load_a(base + a0 + b1));
    let at11 = in_to_float(load_a(base + a1 + b1));
    var v = lerp(lerp(at00, at10, ta.z), lerp(at01, at11, ta.z), tb.z);
    if (!IN_FLOAT) {
        v = sign(v) * floor(abs(v) + 0.5);
    }
    return out_from_float(v);
}
