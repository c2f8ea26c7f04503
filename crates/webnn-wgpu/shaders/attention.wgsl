// Attention for decode steps and short prompts (a fused pattern, `webnn_core::fusion::Attention`,
// not a WebNN op) on the row frame with LANES = 64. A frame row is one query position of up
// to four query heads of one kv head's group: grouped-query attention's heads share the keys
// and values, so each key and value element is loaded once for the four (vec4 over the heads).
// The keys and values are read where the cache keeps them: key t of kv head h at
// t * R.outer_strides[1].x + h * R.outer_strides[1].y, which is [total, kv_heads * head_dim]
// (token-major) or [kv_heads, total, head_dim] (head-major, an imported GroupQueryAttention's).
// Keys come CHUNK at a time with a running maximum and sum (online softmax) that rescale the
// partial outputs, so no score row is kept and the cache length is unbounded. Per chunk:
//   1. lane l scores keys l, l + 64, l + 128, l + 192 (mask ? q·k * scale : masked), keeps
//      the scores in registers and their maximum in workgroup memory;
//   2. eight lanes fold eight maxima each, every lane the eight results (a maximum's bits do
//      not depend on the order, so all lanes get the same); every lane rescales its running
//      sum and outputs, and exponentiates its own keys' scores into workgroup memory;
//   3. head_dim / 4 lanes share each key (four output dimensions each, head_dim / 4 apart, so
//      neighbouring lanes read neighbouring values), LANES / (head_dim / 4) keys at a time;
//      their partial outputs are folded at the end (head_dim a multiple of 4, up to 256).
// SPLIT (decode steps over long caches, flash-decoding): a frame row also names a
// block of R.outer_shape[0].y keys, R.outer_shape[0].x blocks per query position, so a decode
// step's few rows still fill the device; it writes each head's block maximum, sum and
// unnormalised weighted values (head_dim + 2 floats at (query row * blocks + block) *
// (head_dim + 2)) for attention_merge.wgsl to combine.
// Rows block: rows, len = total; i = (seq, head_dim, group, kv_heads); f = (scale, masked);
// outer_shape[0] = (blocks, keys per block, quads of query heads per kv head);
// outer_strides[0] = q's and the output's layout (`q_at`, `out_at`); outer_strides[1] = the
// caches' strides of a key and of a kv head.
// Inputs: a = q [kv_heads, group, seq, head_dim] (or token-major), b = keys, c = values,
// d = mask [seq, total].
override SPLIT: bool = false;
// Phase 1 reads q where input a lies rather than from a staged copy: on CPU adapters, where a
// is a uniform binding (ABinding in src/kernel/mod.rs), cheaper to load than workgroup memory.
override Q_DIRECT: bool = false;
const CHUNK: u32 = 256u;
var<workgroup> q4: array<vec4<f32>, 256>;
var<workgroup> probs: array<vec4<f32>, CHUNK>;
var<workgroup> lane_tops: array<vec4<f32>, 64>;
var<workgroup> eighth_tops: array<vec4<f32>, 8>;

// Where element d of query row `row` (head * seq + position) lies in q and in the output:
// R.outer_strides[0] holds the strides of a head and of a position in q, then in the output.
// Head-major ([heads, seq, head_dim], the pattern's own shape) or token-major ([seq, heads,
// head_dim], the projections' layout, when the transposes around the attention are skipped:
// `webnn_core::fusion::TokenLayout`).
fn q_at(row: u32, d: u32) -> u32 {
    let seq = R.i.x;
    return (row / seq) * R.outer_strides[0].x + (row % seq) * R.outer_strides[0].y + d;
}

fn out_at(row: u32, d: u32) -> u32 {
    let seq = R.i.x;
    return (row / seq) * R.outer_strides[0].z + (row % seq) * R.outer_strides[0].w + d;
}

// Elements i..i + 4 of the keys.
fn key4(i: u32) -> vec4<f32> {
    return vec4<f32>(load_b(i), load_b(i + 1u), load_b(i + 2u), load_b(i + 3u));
}

// Phase 3's four output dimensions (`dl` apart from `first`) of key t of the chunk from c0.
fn value4(t: u32, c0: u32, width: u32, first: u32, dl: u32) -> vec4<f32> {
    let at = (c0 + t) * width + first;
    return vec4<f32>(load_c(at), load_c(at + dl), load_c(at + 2u * dl), load_c(at + 3u * dl));
}

fn exp4(x: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(exp_f(x.x), exp_f(x.y), exp_f(x.z), exp_f(x.w));
}

// Element d of the query rows of the quad's first `heads` heads (zero for the others), the
// head j's row at (row0 + j * seq) * hd.
fn query(d: u32, row0: u32, seq: u32, hd: u32, heads: u32) -> vec4<f32> {
    if (!Q_DIRECT) {
        return q4[d];
    }
    let j = vec4<u32>(0u, 1u, 2u, 3u);
    // Heads past the last read the last; their element is zeroed.
    let row = row0 + min(j, vec4<u32>(max(heads, 1u) - 1u)) * seq;
    let v = vec4<f32>(load_a(q_at(row.x, d)), load_a(q_at(row.y, d)), load_a(q_at(row.z, d)), load_a(q_at(row.w, d)));
    return select(vec4<f32>(0.0), v, j < vec4<u32>(heads));
}

fn run_row(frame_row: u32, slot: u32, lane: u32, live: bool) {
    let seq = R.i.x;
    let hd = R.i.y;
    let group = R.i.z;
    // The caches' strides of a key and of a kv head.
    let width = R.outer_strides[1].x;
    let head_stride = R.outer_strides[1].y;
    let blocks = R.outer_shape[0].x;
    var rest = frame_row;
    var start = 0u;
    var end = R.len;
    // The keys a frame row may cover, from uniforms only: barriers sit in the chunk loop.
    var span = R.len;
    if (SPLIT) {
        span = R.outer_shape[0].y;
        start = (rest % blocks) * span;
        end = min(start + span, R.len);
        rest = rest / blocks;
    }
    let s = rest % seq;
    rest = rest / seq;
    let first = (rest % R.outer_shape[0].z) * 4u;
    let h = rest / R.outer_shape[0].z;
    var heads = 0u;
    if (live) {
        heads = min(4u, group - first);
    } else {
        end = start;
    }
    // Query row of the quad's head j: (h * group + first + j) * seq + s.
    let row0 = (h * group + first) * seq + s;
    for (var d = lane; d < hd && !Q_DIRECT; d += LANES) {
        var v = vec4<f32>(0.0);
        for (var j = 0u; j < heads; j++) {
            v[j] = load_a(q_at(row0 + j * seq, d));
        }
        q4[d] = v;
    }
    // The lowest f32, as bits: the decimal form rounds past f32 for some WGSL compilers (Tint).
    let lowest = vec4<f32>(bitcast<f32>(0xff7fffffu));
    var top = lowest;
    // This lane's share of the sums (its keys), folded over the lanes at the end.
    var sum = vec4<f32>(0.0);
    // Phase 3's split of the lanes: `dl` lanes of four output dimensions each per key phase.
    let dl = hd / 4u;
    let phases = LANES / dl;
    let kp = lane / dl;
    let dq = lane % dl;
    // Output dimensions dq, dq + dl, dq + 2 dl, dq + 3 dl (vec4 over the heads) of this lane's
    // keys: neighbouring lanes read neighbouring values (on CPU adapters, whose SIMD lanes are
    // invocations, a contiguous load rather than a gather).
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    for (var k0 = 0u; k0 < span; k0 += CHUNK) {
        let c0 = start + k0;
        var n = 0u;
        if (c0 < end) {
            n = min(CHUNK, end - c0);
        }
        workgroupBarrier();
        // 1. Keys past the chunk read its last one and are not kept.
        let keys = vec4<u32>(lane, lane + 64u, lane + 128u, lane + 192u);
        let at = (c0 + min(keys, vec4<u32>(max(n, 1u) - 1u))) * width + h * head_stride;
        var d0 = vec4<f32>(0.0);
        var d1 = vec4<f32>(0.0);
        var d2 = vec4<f32>(0.0);
        var d3 = vec4<f32>(0.0);
        if (lane < n) {
            // Four dimensions of the four keys loaded before any is used (head_dim is a
            // multiple of 4; fixed components, as an indexed vector may live in memory): on
            // GPUs each iteration otherwise waits for memory once. The sums keep the order of
            // one dimension at a time.
            for (var d = 0u; d < hd; d += 4u) {
                let kx = key4(at.x + d);
                let ky = key4(at.y + d);
                let kz = key4(at.z + d);
                let kw = key4(at.w + d);
                let q0 = query(d, row0, seq, hd, heads);
                let q1 = query(d + 1u, row0, seq, hd, heads);
                let q2 = query(d + 2u, row0, seq, hd, heads);
                let q3 = query(d + 3u, row0, seq, hd, heads);
                d0 += q0 * kx.x;
                d0 += q1 * kx.y;
                d0 += q2 * kx.z;
                d0 += q3 * kx.w;
                d1 += q0 * ky.x;
                d1 += q1 * ky.y;
                d1 += q2 * ky.z;
                d1 += q3 * ky.w;
                d2 += q0 * kz.x;
                d2 += q1 * kz.y;
                d2 += q2 * kz.z;
                d2 += q3 * kz.w;
                d3 += q0 * kw.x;
                d3 += q1 * kw.y;
                d3 += q2 * kw.z;
                d3 += q3 * kw.w;
            }
        }
        var dots = array<vec4<f32>, 4>(d0, d1, d2, d3);
        var chunk_top = lowest;
        for (var j = 0u; j < 4u; j++) {
            let key = keys[j];
            if (key < n) {
                var score = vec4<f32>(R.f.y);
                if (load_d(s * R.len + c0 + key) != 0u) {
                    score = dots[j] * R.f.x;
                }
                // Kept in registers until phase 2 exponentiates it.
                dots[j] = score;
                chunk_top = max(chunk_top, score);
            }
        }
        lane_tops[lane] = chunk_top;
        workgroupBarrier();
        // 2. The maxima in two levels: 8 lanes fold 8 each, then every lane the 8 (fewer
        // workgroup loads than every lane folding all 64; a maximum's bits do not depend on
        // the order).
        if (lane < 8u) {
            var m = lane_tops[8u * lane];
            for (var l = 1u; l < 8u; l++) {
                m = max(m, lane_tops[8u * lane + l]);
            }
            eighth_tops[lane] = m;
        }
        workgroupBarrier();
        var next = top;
        for (var l = 0u; l < 8u; l++) {
            next = max(next, eighth_tops[l]);
        }
        let rescale = exp4(top - next);
        top = next;
        sum *= rescale;
        acc0 *= rescale;
        acc1 *= rescale;
        acc2 *= rescale;
        acc3 *= rescale;
        for (var j = 0u; j < 4u; j++) {
            let key = keys[j];
            if (key < n) {
                let p = exp4(dots[j] - top);
                probs[key] = p;
                sum += p;
            }
        }
        workgroupBarrier();
        // 3. Each probability loaded serves four dimensions of four heads.
        if (kp < phases) {
            // Two keys' values loaded before either is used (as in phase 1), summed in key
            // order.
            var t = kp;
            for (; t + phases < n; t += 2u * phases) {
                let v0 = value4(t, c0, width, h * head_stride + dq, dl);
                let v1 = value4(t + phases, c0, width, h * head_stride + dq, dl);
                let p0 = probs[t];
                let p1 = probs[t + phases];
                acc0 += p0 * v0.x;
                acc1 += p0 * v0.y;
                acc2 += p0 * v0.z;
                acc3 += p0 * v0.w;
                acc0 += p1 * v1.x;
                acc1 += p1 * v1.y;
                acc2 += p1 * v1.z;
                acc3 += p1 * v1.w;
            }
            if (t < n) {
                let v = value4(t, c0, width, h * head_stride + dq, dl);
                let p = probs[t];
                acc0 += p * v.x;
                acc1 += p * v.y;
                acc2 += p * v.z;
                acc3 += p * v.w;
            }
        }
    }
    // The lanes' sums, folded by every lane in the same order, and the key phases' outputs,
    // folded by the first phase's lanes in phase order (`probs`, CHUNK = 4 * LANES vec4s,
    // holds each lane's four).
    workgroupBarrier();
    lane_tops[lane] = sum;
    probs[4u * lane] = acc0;
    probs[4u * lane + 1u] = acc1;
    probs[4u * lane + 2u] = acc2;
    probs[4u * lane + 3u] = acc3;
    workgroupBarrier();
    var all = vec4<f32>(0.0);
    for (var l = 0u; l < LANES; l++) {
        all += lane_tops[l];
    }
    if (lane < dl) {
        var out = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
        for (var p = 1u; p < phases; p++) {
            for (var k = 0u; k < 4u; k++) {
                out[k] += probs[4u * (p * dl + lane) + k];
            }
        }
        for (var j = 0u; j < heads; j++) {
            let row = row0 + j * seq;
            let at = (row * blocks + frame_row % blocks) * (hd + 2u);
            if (SPLIT && lane == 0u) {
                store_elem(at, top[j]);
                store_elem(at + 1u, all[j]);
            }
            for (var k = 0u; k < 4u; k++) {
                let d = lane + dl * k;
                if (SPLIT) {
                    store_elem(at + 2u + d, out[k][j]);
                } else {
                    store_elem(out_at(row, d), out[k][j] / all[j]);
                }
            }
        }
    }
    workgroupBarrier();
}
