// Attention for prompts (a fused pattern, `webnn_core::fusion::Attention`, not a WebNN op):
// flash attention on the row frame with LANES = 64, where a frame row is a tile of TR = 16
// query rows of one kv head (its group's query heads share the keys and values). The tile's
// queries are staged once; the keys and values pass through workgroup memory TC = 16 at a
// time, each staged key and value read by all 16 rows, and a running maximum and sum
// (online softmax) rescale the partial outputs as blocks arrive, so no score row is kept.
// attention.wgsl takes decode steps (a workgroup per query position and quad of query heads). Head
// dims up to 64.
// Invocation t works on tile row t / 4: it scores keys 4 * (t % 4) .. + 4 of each block and
// accumulates output dimensions t % 4, t % 4 + 4, ... (16 of them).
// Rows block: rows = tiles, len = total; i = (seq, head_dim, group, kv_heads);
// f = (scale, masked); outer_strides[0] = q's and the output's layout (`q_at`, `out_at`).
// Inputs: a = q [kv_heads, group, seq, head_dim] (or token-major), b = keys, c = values
// ([total, kv_heads * head_dim] or [kv_heads, total, head_dim], where the cache keeps them:
// outer_strides[1] = their strides of a key and of a kv head), d = mask [seq, total].
const TR: u32 = 16u;
const TC: u32 = 16u;
const HD: u32 = 64u;
var<workgroup> q_tile: array<f32, 1024>;
var<workgroup> k_tile: array<f32, 1024>;
var<workgroup> v_tile: array<f32, 1024>;
var<workgroup> scores: array<f32, 256>;

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

// Element e of a staged block of keys and values from key j0 (zero past the keys, the head
// dim, or in a tile that is not a real one).
fn kv_elem(e: u32, j0: u32, live: bool, width: u32, h: u32, hd: u32) -> vec2<f32> {
    let t = j0 + e / HD;
    let d = e % HD;
    if (live && t < R.len && d < hd) {
        let at = t * width + h * R.outer_strides[1].y + d;
        return vec2<f32>(load_b(at), load_c(at));
    }
    return vec2<f32>(0.0);
}

// Component c of v, chosen without indexing (an indexed vector may live in memory).
fn component(v: vec4<bool>, c: u32) -> bool {
    return (c == 0u && v.x) || (c == 1u && v.y) || (c == 2u && v.z) || (c == 3u && v.w);
}

fn run_row(tile: u32, slot: u32, lane: u32, live: bool) {
    let seq = R.i.x;
    let hd = R.i.y;
    // The caches' strides of a key (and, in kv_elem, of a kv head): token-major or head-major.
    let width = R.outer_strides[1].x;
    let total = R.len;
    let per_head = R.i.z * seq;
    let tiles = (per_head + TR - 1u) / TR;
    let h = tile / tiles;
    let r0 = (tile % tiles) * TR;
    // This invocation's tile row, and whether it is a query row (and the tile a real one).
    let r = lane / 4u;
    let part = lane % 4u;
    let row_ok = live && r0 + r < per_head;
    let row = h * per_head + r0 + r;
    let s = (r0 + r) % seq;
    for (var e = lane; e < TR * HD; e += LANES) {
        let rr = e / HD;
        let d = e % HD;
        var v = 0.0;
        if (live && r0 + rr < per_head && d < hd) {
            v = load_a(q_at(h * per_head + r0 + rr, d));
        }
        q_tile[e] = v;
    }
    // The lowest f32, as bits: the decimal form rounds past f32 for some WGSL compilers (Tint).
    var top = bitcast<f32>(0xff7fffffu);
    var sum = 0.0;
    var acc: array<f32, 16>;
    for (var i = 0u; i < 16u; i++) {
        acc[i] = 0.0;
    }
    for (var j0 = 0u; j0 < total; j0 += TC) {
        workgroupBarrier();
        // Four keys' and values' elements loaded before any is stored: on GPUs the staging
        // loop otherwise waits for memory once per element (TC * HD / LANES = 16 times).
        for (var e = lane; e < TC * HD; e += 4u * LANES) {
            let kv0 = kv_elem(e, j0, live, width, h, hd);
            let kv1 = kv_elem(e + LANES, j0, live, width, h, hd);
            let kv2 = kv_elem(e + 2u * LANES, j0, live, width, h, hd);
            let kv3 = kv_elem(e + 3u * LANES, j0, live, width, h, hd);
            k_tile[e] = kv0.x;
            v_tile[e] = kv0.y;
            k_tile[e + LANES] = kv1.x;
            v_tile[e + LANES] = kv1.y;
            k_tile[e + 2u * LANES] = kv2.x;
            v_tile[e + 2u * LANES] = kv2.y;
            k_tile[e + 3u * LANES] = kv3.x;
            v_tile[e + 3u * LANES] = kv3.y;
        }
        // The mask of this invocation's four keys, loaded together.
        var keep = vec4<bool>(false);
        if (row_ok) {
            let m = s * total + j0 + part * 4u;
            let last = s * total + total - 1u;
            keep = vec4<bool>(load_d(min(m, last)) != 0u, load_d(min(m + 1u, last)) != 0u,
                              load_d(min(m + 2u, last)) != 0u, load_d(min(m + 3u, last)) != 0u);
        }
        workgroupBarrier();
        for (var c = 0u; c < 4u; c++) {
            let key = part * 4u + c;
            var score = R.f.y;
            if (row_ok && j0 + key < total && component(keep, c)) {
                var dot = 0.0;
                for (var d = 0u; d < hd; d++) {
                    dot += q_tile[r * HD + d] * k_tile[key * HD + d];
                }
                score = dot * R.f.x;
            }
            scores[r * TC + key] = score;
        }
        workgroupBarrier();
        // Keys past the total take no share (the masked value would, in a fully masked row).
        let n = min(TC, total - j0);
        var block_top = top;
        for (var j = 0u; j < n; j++) {
            block_top = max(block_top, scores[r * TC + j]);
        }
        let rescale = exp_f(top - block_top);
        sum *= rescale;
        for (var i = 0u; i < 16u; i++) {
            acc[i] *= rescale;
        }
        for (var j = 0u; j < n; j++) {
            let p = exp_f(scores[r * TC + j] - block_top);
            sum += p;
            for (var i = 0u; i < 16u; i++) {
                acc[i] += p * v_tile[j * HD + part + 4u * i];
            }
        }
        top = block_top;
    }
    if (row_ok) {
        for (var i = 0u; i < 16u; i++) {
            let d = part + 4u * i;
            if (d < hd) {
                store_elem(out_at(row, d), acc[i] / sum);
            }
        }
    }
}
