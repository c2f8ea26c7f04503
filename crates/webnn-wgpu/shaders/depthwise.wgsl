// depthwise conv2d: groups = input channels = output channels, any layout through strides.
// Workgroup (x, y, z) computes the 8-row, 32-column output tile at columns 32x, rows 8y of
// plane z (batch * channels + channel): it stages the input patch those outputs read in
// workgroup memory (zero outside the input), then each invocation computes four neighbouring
// outputs of a row from there, reading each filter tap once for the four. Bias (HAS_BIAS)
// and a fused clamp (HAS_CLAMP) end it. Inputs: a the input, b the filter, c the bias.
struct Depthwise {
    channels: u32,
    kh: u32,
    kw: u32,
    // Patch rows and columns: (8 - 1 or 32 - 1) * stride + (k - 1) * dilation + 1 (at most
    // PATCH elements).
    patch_h: u32,
    patch_w: u32,
    oh: u32,
    ow: u32,
    ih: u32,
    iw: u32,
    stride_h: u32,
    stride_w: u32,
    dilation_h: u32,
    dilation_w: u32,
    pad_top: u32,
    pad_left: u32,
    // Batch * channels (the dispatch's z).
    planes: u32,
    clamp_low: f32,
    clamp_high: f32,
    pad1: u32,
    pad2: u32,
    // Strides of the input and the output (batch, channel, row, column) and of the filter
    // (channel, unused, row, column).
    in_strides: vec4<u32>,
    filter_strides: vec4<u32>,
    out_strides: vec4<u32>,
}

@group(0) @binding(0) var<uniform> D: Depthwise;
override HAS_BIAS: bool = false;
override HAS_CLAMP: bool = false;

const PATCH: u32 = 2048u;
var<workgroup> staged: array<f32, 2048>;

// Workgroup (x, y) takes tile y * (workgroups in x) + x of the tiles of all planes, so any
// size fits the dispatch limits (65535 workgroups per dimension).
@compute @workgroup_size(8, 8, 1)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let tiles_w = (D.ow + 31u) / 32u;
    let per_plane = ((D.oh + 7u) / 8u) * tiles_w;
    let l = group.y * groups.x + group.x;
    if (l >= per_plane * D.planes) {
        return;
    }
    let r = l % per_plane;
    tile(l / per_plane, r / tiles_w, r % tiles_w, local, t);
}

// The 8x32 output tile (ty, tx) of plane z.
fn tile(z: u32, ty: u32, tx: u32, local: vec3<u32>, t: u32) {
    let c = z % D.channels;
    let n = z / D.channels;
    let top = i32(ty * 8u * D.stride_h) - i32(D.pad_top);
    let left = i32(tx * 32u * D.stride_w) - i32(D.pad_left);
    let s = D.in_strides;
    let base = n * s.x + c * s.y;
    let size = D.patch_h * D.patch_w;
    for (var e = t; e < size; e += 64u) {
        let iy = top + i32(e / D.patch_w);
        let ix = left + i32(e % D.patch_w);
        var v = 0.0;
        if (iy >= 0 && iy < i32(D.ih) && ix >= 0 && ix < i32(D.iw)) {
            v = load_a(base + u32(iy) * s.z + u32(ix) * s.w);
        }
        staged[e] = v;
    }
    workgroupBarrier();
    let oy = ty * 8u + local.y;
    let ox = tx * 32u + local.x * 4u;
    if (oy < D.oh && ox < D.ow) {
        convolve(n, c, oy, ox, local);
    }
}

// Four outputs of row oy from column ox.
fn convolve(n: u32, c: u32, oy: u32, ox: u32, local: vec3<u32>) {
    let f = D.filter_strides;
    let step = D.stride_w;
    var acc = vec4<f32>();
    for (var ky = 0u; ky < D.kh; ky += 1u) {
        let row = (local.y * D.stride_h + ky * D.dilation_h) * D.patch_w + local.x * 4u * step;
        for (var kx = 0u; kx < D.kw; kx += 1u) {
            let w = load_b(c * f.x + ky * f.z + kx * f.w);
            let at = row + kx * D.dilation_w;
            acc += w * vec4<f32>(staged[at], staged[at + step], staged[at + 2u * step], staged[at + 3u * step]);
        }
    }
    if (HAS_BIAS) {
        acc += vec4<f32>(load_c(c));
    }
    if (HAS_CLAMP) {
        acc = min(max(acc, vec4<f32>(D.clamp_low)), vec4<f32>(D.clamp_high));
    }
    let o = D.out_strides;
    let at = n * o.x + c * o.y + oy * o.z;
    for (var j = 0u; j < 4u; j += 1u) {
        if (ox + j < D.ow) {
            store_elem(at + (ox + j) * o.w, acc[j]);
        }
    }
}
