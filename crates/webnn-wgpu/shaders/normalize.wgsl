// layerNormalization and instanceNormalization over each row: (x - mean) / sqrt(variance +
// epsilon) * scale + bias, with the population mean and variance in two passes. R.f.x is
// epsilon (cast to the input's type). Scale (b) and bias (c), when HAS_SCALE / HAS_BIAS, are
// indexed by the element's position in the row (layerNormalization, R.i.x = 0) or by the
// row's channel, row % R.i.x (instanceNormalization).
override HAS_SCALE: bool = false;
override HAS_BIAS: bool = false;
// RMSNorm (a fused pattern, not a WebNN op): x / sqrt(mean(x²) + epsilon) * scale, the mean
// taken as 0 and the first pass skipped.
override RMS: bool = false;

fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    let base = row_base(row);
    let n = f32(R.len);
    var s = 0.0;
    if (live && !RMS) {
        for (var k = lane; k < R.len; k += LANES) {
            s += load_a(base + elem_offset(k));
        }
    }
    let mean = lanes_reduce(OP_REDUCE_SUM, s, slot, lane) / n;
    var q = 0.0;
    if (live) {
        for (var k = lane; k < R.len; k += LANES) {
            let d = load_a(base + elem_offset(k)) - mean;
            q += d * d;
        }
    }
    let inv_std = 1.0 / sqrt(lanes_reduce(OP_REDUCE_SUM, q, slot, lane) / n + R.f.x);
    if (live) {
        for (var k = lane; k < R.len; k += LANES) {
            let at = base + elem_offset(k);
            let p = select(k, row % max(R.i.x, 1u), R.i.x != 0u);
            var y = (load_a(at) - mean) * inv_std;
            if (HAS_SCALE) {
                y = y * load_b(p);
            }
            if (HAS_BIAS) {
                y = y + load_c(p);
            }
            store_elem(at, y);
        }
    }
}
