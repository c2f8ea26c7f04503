// Element stores at any index, for kernels whose invocations do not own whole output words
// (scatters, concat parts, reductions, matrix products). Packed types (float16, int8, uint8,
// int4, uint4) change only their own bits with atomics, so neighbours that other invocations
// write in the same word are kept.

@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;

fn store_elem(e: u32, v: OutT) {
    let bits = out_encode(v);
    if (OUT_WIDE) {
        atomicStore(&dst[2u * e], bits.x);
        atomicStore(&dst[2u * e + 1u], bits.y);
        return;
    }
    if (OUT_PER_WORD == 1u) {
        atomicStore(&dst[e], bits.x);
        return;
    }
    let shift = (e % OUT_PER_WORD) * OUT_BITS;
    // OUT_BITS < 32 here; the shift is written so that it stays valid when it is 32.
    let mask = (0xffffffffu >> (32u - OUT_BITS)) << shift;
    atomicAnd(&dst[e / OUT_PER_WORD], ~mask);
    atomicOr(&dst[e / OUT_PER_WORD], (bits.x << shift) & mask);
}
