// conv2d and convTranspose2d as implicit matrix products (gemm frame), one per group z:
// m = output channel within the group, n = (batch, output row, output column),
// k = (input channel within the group, filter row, filter column). Layouts are strides.
// conv2d reads input row oy * stride - pad + ky * dilation; convTranspose2d reads the input
// row iy with iy * stride = oy + pad - ky * dilation, when there is one. Optional bias
// (HAS_BIAS) and a fused clamp (HAS_CLAMP, for relu6-style activations) end it.
struct Conv {
    // Output channels per group, batch * oh * ow, input channels per group * kh * kw, groups.
    m: u32,
    n: u32,
    k: u32,
    groups: u32,
    kh: u32,
    kw: u32,
    oh: u32,
    ow: u32,
    ih: u32,
    iw: u32,
    // Input channels per group.
    icg: u32,
    pad0: u32,
    stride_h: u32,
    stride_w: u32,
    dilation_h: u32,
    dilation_w: u32,
    pad_top: u32,
    pad_left: u32,
    clamp_low: f32,
    clamp_high: f32,
    // Strides of the input (batch, channel, row, column), the filter (output channel, input
    // channel, row, column) and the output (batch, channel, row, column).
    in_strides: vec4<u32>,
    filter_strides: vec4<u32>,
    out_strides: vec4<u32>,
}

@group(0) @binding(0) var<uniform> C: Conv;
override TRANSPOSED: bool = false;
override HAS_BIAS: bool = false;
override HAS_CLAMP: bool = false;

var<private> group_index: u32;

fn gemm_m() -> u32 {
    return C.m;
}
fn gemm_n() -> u32 {
    return C.n;
}
fn gemm_k() -> u32 {
    return C.k;
}
fn gemm_products() -> u32 {
    return C.groups;
}

fn gemm_setup(z: u32) {
    group_index = z;
}

// (input channel within the group, filter row, filter column) of k.
fn tap(k: u32) -> vec3<u32> {
    let taps = C.kh * C.kw;
    return vec3<u32>(k / taps, (k % taps) / C.kw, k % C.kw);
}

fn lhs(m: u32, k: u32) -> f32 {
    let p = tap(k);
    var out_channel = group_index * C.m + m;
    var in_channel = p.x;
    if (TRANSPOSED) {
        // Filter [input channel][output channel within the group][row][column].
        out_channel = m;
        in_channel = group_index * C.icg + p.x;
    }
    let f = C.filter_strides;
    return load_b(out_channel * f.x + in_channel * f.y + p.y * f.z + p.z * f.w);
}

// The input coordinate that output coordinate o meets through filter tap q, or -1.
fn source(o: u32, q: u32, stride: u32, dilation: u32, pad: u32, size: u32) -> i32 {
    if (TRANSPOSED) {
        let t = i32(o + pad) - i32(q * dilation);
        if (t < 0 || t % i32(stride) != 0) {
            return -1;
        }
        let i = t / i32(stride);
        return select(-1, i, i < i32(size));
    }
    let i = i32(o * stride + q * dilation) - i32(pad);
    return select(-1, i, i >= 0 && i < i32(size));
}

fn rhs(k: u32, n: u32) -> f32 {
    let p = tap(k);
    let ox = n % C.ow;
    let oy = (n / C.ow) % C.oh;
    let batch = n / (C.ow * C.oh);
    let iy = source(oy, p.y, C.stride_h, C.dilation_h, C.pad_top, C.ih);
    let ix = source(ox, p.z, C.stride_w, C.dilation_w, C.pad_left, C.iw);
    if (iy < 0 || ix < 0) {
        return 0.0;
    }
    let s = C.in_strides;
    return load_a(batch * s.x + (group_index * C.icg + p.x) * s.y + u32(iy) * s.z + u32(ix) * s.w);
}

fn epilogue(m: u32, n: u32, acc: f32) {
    let channel = group_index * C.m + m;
    var v = acc;
    if (HAS_BIAS) {
        v += load_c(channel);
    }
    if (HAS_CLAMP) {
        v = min(max(v, C.clamp_low), C.clamp_high);
    }
    let ox = n % C.ow;
    let oy = (n / C.ow) % C.oh;
    let batch = n / (C.ow * C.oh);
    let s = C.out_strides;
    store_elem(batch * s.x + channel * s.y + oy * s.z + ox * s.w, v);
}

fn row_values(m: u32, n: u32, v: vec4<f32>) -> vec4<f32> {
    return v;
}
