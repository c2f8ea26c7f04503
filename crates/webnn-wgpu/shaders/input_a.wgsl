// Input a, decoded through the input type's preamble.
@group(0) @binding(2) var<storage, read> a: array<u32>;

fn load_a(i: u32) -> InT {
    let w = in_word(i);
    var hi = 0u;
    if (IN_WIDE) {
        hi = a[w + 1u];
    }
    return in_decode(a[w], hi, i);
}
