// The uniform block of row kernels over an input's axes (mirrored by `Rows` in
// src/params.rs). The kept ("outer") axes enumerate the rows, the folded ("inner") axes the
// elements of a row, both row-major in their listed order, through the input's strides.
struct Rows {
    rows: u32,
    // Elements per row.
    len: u32,
    outer_rank: u32,
    inner_rank: u32,
    outer_shape: array<vec4<u32>, 2>,
    outer_strides: array<vec4<u32>, 2>,
    inner_shape: array<vec4<u32>, 2>,
    inner_strides: array<vec4<u32>, 2>,
    // Body options: epsilon ...
    f: vec4<f32>,
    // ... flags and sizes.
    i: vec4<u32>,
}

@group(0) @binding(0) var<uniform> R: Rows;

fn row_count() -> u32 {
    return R.rows;
}

// The input offset of row r's first element.
fn row_base(r: u32) -> u32 {
    var rem = r;
    var o = 0u;
    var d = R.outer_rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = R.outer_shape[d >> 2u][d & 3u];
        o += (rem % size) * R.outer_strides[d >> 2u][d & 3u];
        rem = rem / size;
    }
    return o;
}

// The offset of element k of a row from the row's first element.
fn elem_offset(k: u32) -> u32 {
    if (R.inner_rank == 1u) {
        return k * R.inner_strides[0].x;
    }
    var rem = k;
    var o = 0u;
    var d = R.inner_rank;
    loop {
        if (d == 0u) {
            break;
        }
        d -= 1u;
        let size = R.inner_shape[d >> 2u][d & 3u];
        o += (rem % size) * R.inner_strides[d >> 2u][d & 3u];
        rem = rem / size;
    }
    return o;
}
