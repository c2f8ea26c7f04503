// averagePool2d, l2Pool2d and maxPool2d (row frame): row r is output element r, its row the
// window's in-bounds input elements, folded by OP (mean, l2 or max). Average divides by the
// number of in-bounds elements; a window entirely in the padding gives 0 (average, l2) or the
// lowest value (max).
struct Pool {
    rows: u32,
    // Window elements (kh * kw).
    len: u32,
    kh: u32,
    kw: u32,
    // Output sizes and whether the layout is NHWC (else NCHW).
    oh: u32,
    ow: u32,
    channels: u32,
    nhwc: u32,
    ih: u32,
    iw: u32,
    stride_h: u32,
    stride_w: u32,
    dilation_h: u32,
    dilation_w: u32,
    pad_top: u32,
    pad_left: u32,
    // Input strides of the batch, channel, row and column.
    sn: u32,
    sc: u32,
    sh: u32,
    sw: u32,
}

@group(0) @binding(0) var<uniform> Q: Pool;

fn row_count() -> u32 {
    return Q.rows;
}

// How many of `count` taps at start + k * step (k < count) fall inside 0..limit.
fn taps_inside(start: i32, step: u32, count: u32, limit: u32) -> u32 {
    var n = 0u;
    for (var k = 0u; k < count; k += 1u) {
        let p = start + i32(k * step);
        if (p >= 0 && p < i32(limit)) {
            n += 1u;
        }
    }
    return n;
}

fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    var c: u32;
    var t: u32;
    if (Q.nhwc == 1u) {
        c = row % Q.channels;
        t = row / Q.channels;
    }
    let ox = select(row, t, Q.nhwc == 1u) % Q.ow;
    let rest = select(row, t, Q.nhwc == 1u) / Q.ow;
    let oy = rest % Q.oh;
    if (Q.nhwc != 1u) {
        c = (rest / Q.oh) % Q.channels;
    }
    let n = select(rest / Q.oh / Q.channels, rest / Q.oh, Q.nhwc == 1u);
    let top = i32(oy * Q.stride_h) - i32(Q.pad_top);
    let left = i32(ox * Q.stride_w) - i32(Q.pad_left);
    let base = n * Q.sn + c * Q.sc;
    var acc = acc_identity(OP);
    if (live) {
        for (var k = lane; k < Q.len; k += LANES) {
            let iy = top + i32((k / Q.kw) * Q.dilation_h);
            let ix = left + i32((k % Q.kw) * Q.dilation_w);
            if (iy >= 0 && iy < i32(Q.ih) && ix >= 0 && ix < i32(Q.iw)) {
                let x = load_a(base + u32(iy) * Q.sh + u32(ix) * Q.sw);
                acc = acc_combine(OP, acc, acc_map(OP, x, acc_identity(OP_REDUCE_SUM)));
            }
        }
    }
    acc = lanes_reduce(OP, acc, slot, lane);
    if (live && lane == 0u) {
        let count = taps_inside(top, Q.dilation_h, Q.kh, Q.ih) * taps_inside(left, Q.dilation_w, Q.kw, Q.iw);
        store_elem(row, acc_finish(OP, acc, acc_identity(OP_REDUCE_SUM), count));
    }
}
