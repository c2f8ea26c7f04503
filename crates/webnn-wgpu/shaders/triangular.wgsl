// triangular: keeps the elements on or above (P.i.x = 1, upper) or on or below (lower) the
// diagonal P.i.y (an i32) of the last two dimensions, zero elsewhere.
fn compute(i: u32) -> OutT {
    let cols = shape_at(P.rank - 1u);
    let rows = shape_at(P.rank - 2u);
    let k = i32(i % cols) - i32((i / cols) % rows);
    let diagonal = bitcast<i32>(P.i.y);
    let keep = select(k <= diagonal, k >= diagonal, P.i.x == 1u);
    if (keep) {
        return load_a(i);
    }
    // Zero bits decode to zero in every type.
    return in_decode(0u, 0u, 0u);
}
