// The frame of every element-wise kernel. A module is assembled (src/kernel.rs) from this file,
// codes.wgsl, bits.wgsl, int64.wgsl, storage.wgsl, the typed preamble of its input and output
// types (InT/OutT with their decode/encode functions), the kernel's inputs (input_a/input_b),
// an optional domain op file (+ math.wgsl) and one body defining `compute(i) -> OutT`.
//
// Every buffer is an array of u32 words: packed types (float16 two per word, int8/uint8 four,
// int4/uint4 eight) are written a whole word per invocation, so no two invocations share one.

// Threads per workgroup; set by the pipeline so that Rust's dispatch arithmetic agrees.
override WG: u32 = 64u;
// The op of the domain file this pipeline runs (codes.wgsl); kernels without ops ignore it.
override OP: u32 = 0u;

// One layout for every kernel (mirrored by `Params` in src/params.rs).
struct Params {
    // Output elements.
    n: u32,
    // Work units: output words for packed types, elements otherwise.
    units: u32,
    // Output rank (<= 8) for strided indexing.
    rank: u32,
    pad0: u32,
    // Output shape, 8 dimensions, the first `rank` used.
    shape: array<vec4<u32>, 2>,
    // Element strides of input a and b per output dimension (0 where broadcast).
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
    // Scalar options: floats (alpha, beta, clamp bounds) ...
    f: vec4<f32>,
    // ... and integers (clamp bounds; 64-bit values as lo, hi word pairs).
    i: vec4<u32>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

fn shape_at(d: u32) -> u32 {
    return P.shape[d >> 2u][d & 3u];
}

// The offsets in inputs a and b of output element i: the row-major coordinates of i times
// each input's strides.
fn strided_offsets(i: u32) -> vec2<u32> {
    var rem = i;
    var oa = 0u;
    var ob = 0u;
    var d = P.rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = shape_at(d);
        let c = rem % size;
        rem = rem / size;
        oa += c * P.a_strides[d >> 2u][d & 3u];
        ob += c * P.b_strides[d >> 2u][d & 3u];
    }
    return vec2<u32>(oa, ob);
}

// Computes and stores work unit u: one element of a 64-bit type (two words), or one word of
// OUT_PER_WORD packed elements.
fn write_unit(u: u32) {
    if (OUT_WIDE) {
        let v = out_encode(compute(u));
        dst[2u * u] = v.x;
        dst[2u * u + 1u] = v.y;
        return;
    }
    let first = u * OUT_PER_WORD;
    var word = 0u;
    for (var j = 0u; j < OUT_PER_WORD; j += 1u) {
        let i = first + j;
        if (i >= P.n) {
            break;
        }
        word |= out_encode(compute(i)).x << (j * OUT_BITS);
    }
    dst[u] = word;
}

// A grid-stride loop over the units: the dispatch may be 2-D and smaller than the work, so no
// dimension needs more than 65535 workgroups.
@compute @workgroup_size(WG)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let threads = groups.x * groups.y * WG;
    var u = (group.y * groups.x + group.x) * WG + lane;
    loop {
        if (u >= P.units) {
            break;
        }
        write_unit(u);
        // Stop before u + threads could wrap around.
        if (threads >= P.units - u) {
            break;
        }
        u += threads;
    }
}
