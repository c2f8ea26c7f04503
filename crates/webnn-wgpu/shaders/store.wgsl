// Element stores at any index, for kernels whose invocations do not own whole output words
// (scatters, concat parts, reductions, matrix products), when elements fill whole words
// (32- and 64-bit types): plain stores. Packed types use store_packed.wgsl instead.

@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

fn store_elem(e: u32, v: OutT) {
    let bits = out_encode(v);
    if (OUT_WIDE) {
        dst[2u * e] = bits.x;
        dst[2u * e + 1u] = bits.y;
        return;
    }
    dst[e] = bits.x;
}
