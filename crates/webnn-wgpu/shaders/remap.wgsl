// remap: pad and tile. Per output dimension d, the source coordinate is the output coordinate
// minus the leading padding P.lo[d], brought into 0..P.dims[d] (the input's size) by MODE:
// constant padding reads the value P.j.xy (stored as an element is) outside the input, edge
// clamps, reflection mirrors without repeating the edge, tile wraps around.
const REMAP_CONSTANT: u32 = 0u;
const REMAP_EDGE: u32 = 1u;
const REMAP_REFLECTION: u32 = 2u;
const REMAP_TILE: u32 = 3u;
override MODE: u32 = 0u;

fn source_coordinate(c: u32, d: u32) -> i32 {
    let n = i32(dim_at(d));
    if (MODE == REMAP_TILE) {
        return i32(c % dim_at(d));
    }
    let x = i32(c) - i32(lo_at(d));
    if (x >= 0 && x < n) {
        return x;
    }
    if (MODE == REMAP_CONSTANT) {
        return -1;
    }
    if (MODE == REMAP_EDGE || n == 1) {
        return clamp(x, 0, n - 1);
    }
    let period = 2 * (n - 1);
    let m = ((x % period) + period) % period;
    return select(period - m, m, m < n);
}

fn compute(i: u32) -> OutT {
    var rem = i;
    var offset = 0u;
    var d = P.rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = shape_at(d);
        let x = source_coordinate(rem % size, d);
        rem = rem / size;
        if (x < 0) {
            return in_decode(P.j.x, P.j.y, 0u);
        }
        offset += u32(x) * a_stride(d);
    }
    return load_a(offset);
}
