// Input b, of the same type as input a.
@group(0) @binding(3) var<storage, read> b: array<u32>;

fn load_b(i: u32) -> InT {
    let w = in_word(i);
    var hi = 0u;
    if (IN_WIDE) {
        hi = b[w + 1u];
    }
    return in_decode(b[w], hi, i);
}

// Whether a and b need strided (broadcast) indexing; false when both have the output's shape.
override BROADCAST: bool = true;

fn operand_offsets(i: u32) -> vec2<u32> {
    if (BROADCAST) {
        return strided_offsets(i);
    }
    return vec2<u32>(i, i);
}
