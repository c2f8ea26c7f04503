// Element stores at any index for packed output types (float16, int8, uint8, int4, uint4):
// several elements share a word that different invocations may write, so each store
// changes only its own bits, with atomics.

@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;

fn store_elem(e: u32, v: OutT) {
    let bits = out_encode(v);
    let shift = (e % OUT_PER_WORD) * OUT_BITS;
    // OUT_BITS < 32 for packed types; the shift is written so that it stays valid at 32.
    let mask = (0xffffffffu >> (32u - OUT_BITS)) << shift;
    atomicAnd(&dst[e / OUT_PER_WORD], ~mask);
    atomicOr(&dst[e / OUT_PER_WORD], (bits.x << shift) & mask);
}
