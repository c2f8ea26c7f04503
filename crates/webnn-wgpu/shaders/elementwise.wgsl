// The element-wise frame: one output element per `compute(i)` of the body. A module is
// assembled (src/kernel/source.rs) from codes, bits, int64 and storage, the typed preambles
// of its types, generated input loaders (`load_a`, `load_b`...), params, grid, this file,
// optional domain/math files and the body.
//
// Every buffer is an array of u32 words: packed types (float16 two per word, int8/uint8 four,
// int4/uint4 eight) are written a whole word per invocation, so no two invocations share one.

@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

// Computes and stores work unit u: one element of a 64-bit type (two words), or one word of
// OUT_PER_WORD packed elements.
fn run_unit(u: u32) {
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
