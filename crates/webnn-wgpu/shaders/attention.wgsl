// Attention of one query row (a fused pattern, `webnn_core::fusion::Attention`, not a WebNN
// op) on the row frame with LANES = 64: one workgroup per row (kv head, group member, query).
// The keys and values are read where the cache keeps them, [total, kv_heads * head_dim], so
// nothing is transposed or materialised per head. Three phases:
//   1. each lane scores every 64th key: mask ? q·k * scale : masked, kept in workgroup memory;
//   2. the row's maximum and the sum of exp(score - max) (the probabilities kept in place);
//   3. each lane writes every 64th output dimension: sum_t p[t] * v[t] / sum.
// SPLIT (decode steps over long caches, flash-decoding): a frame row is (query row, block of
// R.outer_shape[0].y keys), R.outer_shape[0].x blocks per query row, so a decode step's few
// rows still fill the device. Each writes its block's maximum, sum and unnormalised
// weighted values (head_dim + 2 floats, at frame row * (head_dim + 2)) for
// attention_merge.wgsl to combine.
// Rows block: rows, len = total; i = (seq, head_dim, group, kv_heads); f = (scale, masked).
// Inputs: a = q [kv_heads, group, seq, head_dim], b = keys, c = values, d = mask [seq, total].
override SPLIT: bool = false;
const MAX_KEYS: u32 = 2048u;
var<workgroup> probs: array<f32, 2048>;

fn run_row(frame_row: u32, slot: u32, lane: u32, live: bool) {
    let seq = R.i.x;
    let hd = R.i.y;
    let width = R.i.w * hd;
    let total = R.len;
    var row = frame_row;
    var start = 0u;
    var end = total;
    if (SPLIT) {
        row = frame_row / R.outer_shape[0].x;
        start = (frame_row % R.outer_shape[0].x) * R.outer_shape[0].y;
        end = min(start + R.outer_shape[0].y, total);
    }
    let s = row % seq;
    let h = row / (R.i.z * seq);
    // The lowest f32, as bits: the decimal form rounds past f32 for some WGSL compilers (Tint).
    var top = bitcast<f32>(0xff7fffffu);
    if (live) {
        // Four of the lane's keys at a time (t, t + LANES...), so each q element is loaded
        // once for four keys; keys past the end read the last one and are not kept.
        for (var t = start + lane; t < end; t += 4u * LANES) {
            let keys = vec4<u32>(t, t + LANES, t + 2u * LANES, t + 3u * LANES);
            let at = min(keys, vec4<u32>(end - 1u)) * width + h * hd;
            var dots = vec4<f32>(0.0);
            for (var d = 0u; d < hd; d++) {
                let k = vec4<f32>(load_b(at.x + d), load_b(at.y + d), load_b(at.z + d), load_b(at.w + d));
                dots += load_a(row * hd + d) * k;
            }
            for (var j = 0u; j < 4u; j++) {
                let key = keys[j];
                if (key < end) {
                    var score = R.f.y;
                    if (load_d(s * total + key) != 0u) {
                        score = dots[j] * R.f.x;
                    }
                    probs[key - start] = score;
                    top = max(top, score);
                }
            }
        }
    }
    top = lanes_reduce(OP_REDUCE_MAX, top, slot, lane);
    var sum = 0.0;
    if (live) {
        for (var t = start + lane; t < end; t += LANES) {
            let p = exp_f(probs[t - start] - top);
            probs[t - start] = p;
            sum += p;
        }
    }
    sum = lanes_reduce(OP_REDUCE_SUM, sum, slot, lane);
    workgroupBarrier();
    if (live) {
        let at = frame_row * (hd + 2u);
        if (SPLIT && lane == 0u) {
            store_elem(at, top);
            store_elem(at + 1u, sum);
        }
        for (var d = lane; d < hd; d += LANES) {
            var acc = 0.0;
            for (var t = start; t < end; t++) {
                acc += probs[t - start] * load_c(t * width + h * hd + d);
            }
            if (SPLIT) {
                store_elem(at + 2u + d, acc);
            } else {
                store_elem(row * hd + d, acc / sum);
            }
        }
    }
    workgroupBarrier();
}
