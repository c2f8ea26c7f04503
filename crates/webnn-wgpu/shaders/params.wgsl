// The uniform block of the element-wise and scatter frames (mirrored by `Params` in
// src/params.rs; tests/naga.rs compares the layouts). Per-dimension arrays hold 8 entries, the
// first `rank` used. What `dims`, `lo`, `f`, `i` and `j` hold is up to each body, which says so.
struct Params {
    // Output elements (the scatter frame: source elements).
    n: u32,
    // Work units: output words for packed types, elements otherwise.
    units: u32,
    // Rank of `shape` (<= 8).
    rank: u32,
    // Added to input a's strided offset (slice starts, reversed axes, concat parts).
    base: u32,
    // The shape the invocations walk (the output's, or the scatter frame's source).
    shape: array<vec4<u32>, 2>,
    // Element strides of inputs a, b and c per dimension of `shape` (0 where broadcast).
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
    c_strides: array<vec4<u32>, 2>,
    // Per-dimension extras: input sizes (pad, tile, resample), block sizes (quantization),
    // indexed sizes (gatherND, scatterND) ...
    dims: array<vec4<u32>, 2>,
    // ... and leading pads (pad) or indexed strides (gatherND, scatterND).
    lo: array<vec4<u32>, 2>,
    // Scalar options: floats (alpha, beta, clamp bounds, epsilon) ...
    f: vec4<f32>,
    // ... and integers (clamp bounds, 64-bit values as lo, hi word pairs, axis sizes).
    i: vec4<u32>,
    j: vec4<u32>,
}

@group(0) @binding(0) var<uniform> P: Params;

fn shape_at(d: u32) -> u32 {
    return P.shape[d >> 2u][d & 3u];
}
fn a_stride(d: u32) -> u32 {
    return P.a_strides[d >> 2u][d & 3u];
}
fn b_stride(d: u32) -> u32 {
    return P.b_strides[d >> 2u][d & 3u];
}
fn c_stride(d: u32) -> u32 {
    return P.c_strides[d >> 2u][d & 3u];
}
fn dim_at(d: u32) -> u32 {
    return P.dims[d >> 2u][d & 3u];
}
fn lo_at(d: u32) -> u32 {
    return P.lo[d >> 2u][d & 3u];
}

// The offsets in inputs a, b and c of element i of `shape`: its row-major coordinates times
// each input's strides, a starting at P.base. The sums wrap: a reversed axis has a negated
// (two's complement) stride and a base at its far end, which is right modulo 2^32.
fn strided_offsets(i: u32) -> vec3<u32> {
    var rem = i;
    var o = vec3<u32>(P.base, 0u, 0u);
    var d = P.rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = shape_at(d);
        let c = rem % size;
        rem = rem / size;
        o += c * vec3<u32>(a_stride(d), b_stride(d), c_stride(d));
    }
    return o;
}

// The offset in input b of element i of `shape` when b is broadcast blockwise: along
// dimension d, P.dims[d] consecutive elements share one of b's, at stride b_strides[d]
// (quantization scales and zero points).
fn block_offset(i: u32) -> u32 {
    var rem = i;
    var o = 0u;
    var d = P.rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = shape_at(d);
        o += (rem % size) / dim_at(d) * b_stride(d);
        rem = rem / size;
    }
    return o;
}

// Whether inputs need strided (broadcast) indexing; false when every input has `shape`.
override BROADCAST: bool = true;

fn operand_offsets(i: u32) -> vec3<u32> {
    if (BROADCAST) {
        return strided_offsets(i);
    }
    return vec3<u32>(i, i, i);
}
