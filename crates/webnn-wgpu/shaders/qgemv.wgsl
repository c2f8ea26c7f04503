// Quantized gemv (row frame): y = x · Wᵀ where W [n, k] is dequantized from 4- or 8-bit
// integers q with a float scale and a zero point per block of elements along k, plus
// (HAS_OFFSET) a float per block added after scaling (GGUF Q4_1's minimum):
//   W[j, i] = scale[j, i / block] * (q[j, i] - zero[j, i / block]) + offset[j, i / block].
// The weight is never expanded: per block, sum(x * q) and sum(x) give
//   scale * (sum(x * q) - zero * sum(x)) + offset * sum(x).
// Weights are read a u32 word (8 int4/uint4 or 4 int8/uint8 values) at a time; blocks hold
// whole words (the lowering checks). A row of the frame is four rows of x against one weight
// row (output column); its LANES invocations split the blocks.
// Uses the Matmul block (matmul_params.wgsl); this kernel has no C, so c_m holds the block
// size and c_n the blocks per weight row. Inputs: a = x, b = q, c = scale, d = zero point,
// e = offset (the scale again without HAS_OFFSET).
override HAS_OFFSET: bool = false;
// Whether the zero points are read (false: all zero).
override HAS_ZERO: bool = true;
// The weight's bits per value (4 or 8) and whether they are signed.
override W_BITS: u32 = 4u;
override W_SIGNED: bool = false;

// RMSNorm of x here (`webnn_core::fusion::RmsNorm`, a fused pattern): x_i * w_i (w the norm
// weight, `load_nw`) takes x_i's place, and each row's sum is scaled by
// 1 / sqrt(sum(x²) / k + eps) at the end (M.beta holds eps: this kernel has no C).
override NORM: bool = false;

// Rows of x per frame row: the weight words are read once for four rows of x (prefill).
const XR: u32 = 4u;
// With one row of x, output columns per frame row: 1, or 4 to read x once for four weight
// rows (CPU adapters, where x's loads cost as much as the arithmetic).
override COLS: u32 = 1u;

fn row_count() -> u32 {
    if (M.m == 1u) {
        return (M.n + COLS - 1u) / COLS;
    }
    return ((M.m + XR - 1u) / XR) * M.n;
}

// One block's contribution for x row m, from sum(x * q) and sum(x).
fn block_part(s: u32, xq: f32, xs: f32) -> f32 {
    var q = xq;
    if (HAS_ZERO) {
        q -= f32(load_d(s)) * xs;
    }
    var part = load_c(s) * q;
    if (HAS_OFFSET) {
        part += load_e(s) * xs;
    }
    return part;
}

// The four bytes of a word as floats, signed when W_SIGNED (8-bit weights).
fn bytes4(w: u32) -> vec4<f32> {
    let u = vec4<u32>(w & 255u, (w >> 8u) & 255u, (w >> 16u) & 255u, w >> 24u);
    let v = vec4<f32>(u);
    if (W_SIGNED) {
        return v - 256.0 * vec4<f32>(u >= vec4<u32>(128u));
    }
    return v;
}

// The even (0, 2, 4, 6) or odd (1, 3, 5, 7) nibbles of a word (4-bit weights) as floats.
fn nibbles4(w: u32) -> vec4<f32> {
    let m = w & 0x0f0f0f0fu;
    let u = vec4<u32>(m & 255u, (m >> 8u) & 255u, (m >> 16u) & 255u, m >> 24u);
    let v = vec4<f32>(u);
    if (W_SIGNED) {
        return v - 16.0 * vec4<f32>(u >= vec4<u32>(8u));
    }
    return v;
}

fn x4(i: u32, step: u32) -> vec4<f32> {
    return vec4<f32>(load_a(i), load_a(i + step), load_a(i + 2u * step), load_a(i + 3u * step));
}

// The norm weight's elements i, i + step, i + 2 step, i + 3 step.
fn nw4(i: u32, step: u32) -> vec4<f32> {
    return vec4<f32>(load_nw(i), load_nw(i + step), load_nw(i + 2u * step), load_nw(i + 3u * step));
}

// NORM's scale of a row from its sum of squares.
fn inv_rms(squares: f32) -> f32 {
    return 1.0 / sqrt(squares / f32(M.k) + M.beta);
}

// A weight word's values as floats, decoded once for every row of x that uses them: the
// even and odd nibbles (4 bits), or the four bytes in `lo` (8 bits).
struct WordValues {
    lo: vec4<f32>,
    hi: vec4<f32>,
}

fn word_values(word: u32) -> WordValues {
    if (W_BITS == 4u) {
        return WordValues(nibbles4(word), nibbles4(word >> 4u));
    }
    return WordValues(bytes4(word), vec4<f32>(0.0));
}

// The single row of x's values against a word whose elements start at i (a multiple of 4),
// paired as word_values pairs the weights: even and odd elements (4 bits), or the four
// elements in `lo` (8 bits). Read a quad at a time (`load_a4`: from a uniform binding on
// CPU adapters, see ABinding in src/kernel/mod.rs).
fn x_word(i: u32) -> WordValues {
    let j = i / 4u;
    if (W_BITS == 4u) {
        let q0 = load_a4(j);
        let q1 = load_a4(j + 1u);
        return WordValues(vec4<f32>(q0.x, q0.z, q1.x, q1.z), vec4<f32>(q0.y, q0.w, q1.y, q1.w));
    }
    return WordValues(load_a4(j), vec4<f32>(0.0));
}

// The row of x's values for a word (`x_word`), times the norm weight's with NORM, and the
// sum of their squares before (0 without NORM).
struct XWord {
    v: WordValues,
    squares: f32,
}

fn x_normed(i: u32) -> XWord {
    let x = x_word(i);
    if (!NORM) {
        return XWord(x, 0.0);
    }
    var w = WordValues(nw4(i, 1u), vec4<f32>(0.0));
    if (W_BITS == 4u) {
        w = WordValues(nw4(i, 2u), nw4(i + 1u, 2u));
    }
    return XWord(WordValues(x.lo * w.lo, x.hi * w.hi), dot(x.lo, x.lo) + dot(x.hi, x.hi));
}

// One word's share of a block for the row of x starting at `r`, whose values for the word
// start at `r + i`: sum(x * q), x summed into four lanes, and (NORM) the squares of x.
struct WordPart {
    xq: f32,
    xs: vec4<f32>,
    squares: f32,
}

fn word_part(v: WordValues, r: u32, i: u32) -> WordPart {
    if (W_BITS == 4u) {
        var xe = x4(r + i, 2u);
        var xo = x4(r + i + 1u, 2u);
        var squares = 0.0;
        if (NORM) {
            squares = dot(xe, xe) + dot(xo, xo);
            xe *= nw4(i, 2u);
            xo *= nw4(i + 1u, 2u);
        }
        return WordPart(dot(xe, v.lo) + dot(xo, v.hi), xe + xo, squares);
    }
    var xv = x4(r + i, 1u);
    var squares = 0.0;
    if (NORM) {
        squares = dot(xv, xv);
        xv *= nw4(i, 1u);
    }
    return WordPart(dot(xv, v.lo), xv, squares);
}

// A block's running sums for the single row of x: sum(x * q), x in four lanes, and (NORM)
// the squares of x.
struct SinglePart {
    xq: f32,
    xs: vec4<f32>,
    squares: f32,
}

// `part` after the word `word` whose elements start at i.
fn single_word(part: SinglePart, i: u32, word: u32) -> SinglePart {
    let xn = x_normed(i);
    let v = word_values(word);
    let x = xn.v;
    return SinglePart(part.xq + (dot(x.lo, v.lo) + dot(x.hi, v.hi)), part.xs + (x.lo + x.hi), part.squares + xn.squares);
}

// One row of x (decode steps): a word of weights at a time as vec4 dot products.
fn run_single(n: u32, slot: u32, lane: u32, live: bool) {
    var acc = 0.0;
    var squares = 0.0;
    if (live) {
        let per_word = 32u / W_BITS;
        let block = M.c_m;
        let blocks = M.c_n;
        for (var bk = lane; bk < blocks; bk += LANES) {
            let at = bk * block;
            let word0 = (n * M.k + at) / per_word;
            var part = SinglePart(0.0, vec4<f32>(0.0), squares);
            let words = block / per_word;
            var w = 0u;
            // Blocks of a multiple of four words (GGUF's 32-element blocks) load four words
            // before using any: on GPUs each word otherwise waits for memory once. Fixed
            // names, as an indexed vector may live in memory.
            if (words % 4u == 0u) {
                for (; w < words; w += 4u) {
                    let q0 = b[word0 + w];
                    let q1 = b[word0 + w + 1u];
                    let q2 = b[word0 + w + 2u];
                    let q3 = b[word0 + w + 3u];
                    part = single_word(part, at + w * per_word, q0);
                    part = single_word(part, at + (w + 1u) * per_word, q1);
                    part = single_word(part, at + (w + 2u) * per_word, q2);
                    part = single_word(part, at + (w + 3u) * per_word, q3);
                }
            }
            for (; w < words; w++) {
                part = single_word(part, at + w * per_word, b[word0 + w]);
            }
            squares = part.squares;
            acc += block_part(n * blocks + bk, part.xq, dot(part.xs, vec4<f32>(1.0)));
        }
    }
    acc = lanes_reduce(OP_REDUCE_SUM, acc, slot, lane);
    if (NORM) {
        acc *= inv_rms(lanes_reduce(OP_REDUCE_SUM, squares, slot, lane));
    }
    if (live && lane == 0u) {
        finish_product(0u, 0u, n, acc);
    }
}

// A block's running sums for one row of x against four weight rows: sum(x * q) per row, x in
// four lanes, and (NORM) the squares of x.
struct Single4Part {
    xq: vec4<f32>,
    xs: vec4<f32>,
    squares: f32,
}

// `part` after the four rows' words `q` (fixed components: an indexed vector may live in
// memory) whose elements start at i.
fn single4_word(part: Single4Part, i: u32, q: vec4<u32>) -> Single4Part {
    let xn = x_normed(i);
    let x = xn.v;
    let v0 = word_values(q.x);
    let v1 = word_values(q.y);
    let v2 = word_values(q.z);
    let v3 = word_values(q.w);
    let xq = vec4<f32>(dot(x.lo, v0.lo) + dot(x.hi, v0.hi), dot(x.lo, v1.lo) + dot(x.hi, v1.hi),
                       dot(x.lo, v2.lo) + dot(x.hi, v2.hi), dot(x.lo, v3.lo) + dot(x.hi, v3.hi));
    return Single4Part(part.xq + xq, part.xs + (x.lo + x.hi), part.squares + xn.squares);
}

// One row of x against four weight rows from n0 (COLS = 4): x is loaded once per word for
// all four, and its block sums are shared. Columns past the last repeat it, never stored.
fn run_single4(n0: u32, slot: u32, lane: u32, live: bool) {
    var acc = vec4<f32>(0.0);
    var squares = 0.0;
    if (live) {
        let per_word = 32u / W_BITS;
        let block = M.c_m;
        let blocks = M.c_n;
        let last = M.n - 1u;
        let n = vec4<u32>(n0, min(n0 + 1u, last), min(n0 + 2u, last), min(n0 + 3u, last));
        for (var bk = lane; bk < blocks; bk += LANES) {
            let at = bk * block;
            let word0 = (n * M.k + at) / per_word;
            var part = Single4Part(vec4<f32>(0.0), vec4<f32>(0.0), squares);
            let words = block / per_word;
            var w = 0u;
            // As run_single: two words of each of the four rows loaded before any is used.
            if (words % 2u == 0u) {
                for (; w < words; w += 2u) {
                    let q0 = vec4<u32>(b[word0.x + w], b[word0.y + w], b[word0.z + w], b[word0.w + w]);
                    let q1 = vec4<u32>(b[word0.x + w + 1u], b[word0.y + w + 1u], b[word0.z + w + 1u], b[word0.w + w + 1u]);
                    part = single4_word(part, at + w * per_word, q0);
                    part = single4_word(part, at + (w + 1u) * per_word, q1);
                }
            }
            for (; w < words; w++) {
                let q = vec4<u32>(b[word0.x + w], b[word0.y + w], b[word0.z + w], b[word0.w + w]);
                part = single4_word(part, at + w * per_word, q);
            }
            squares = part.squares;
            let xq = part.xq;
            let sx = dot(part.xs, vec4<f32>(1.0));
            let s = n * blocks + bk;
            acc += vec4<f32>(block_part(s.x, xq.x, sx), block_part(s.y, xq.y, sx),
                             block_part(s.z, xq.z, sx), block_part(s.w, xq.w, sx));
        }
    }
    acc.x = lanes_reduce(OP_REDUCE_SUM, acc.x, slot, lane);
    acc.y = lanes_reduce(OP_REDUCE_SUM, acc.y, slot, lane);
    acc.z = lanes_reduce(OP_REDUCE_SUM, acc.z, slot, lane);
    acc.w = lanes_reduce(OP_REDUCE_SUM, acc.w, slot, lane);
    if (NORM) {
        acc *= inv_rms(lanes_reduce(OP_REDUCE_SUM, squares, slot, lane));
    }
    // Rotary embedding of the pairs (n0, n0 + 1) and (n0 + 2, n0 + 3) where the module
    // takes it over (`rope_pair`, generated; the lowering gives those products four columns
    // per group and a multiple of four in all).
    acc = vec4<f32>(rope_pair(0u, n0, acc.xy), rope_pair(0u, n0 + 2u, acc.zw));
    if (live && lane == 0u) {
        finish_product(0u, 0u, n0, acc.x);
        if (n0 + 1u < M.n) {
            finish_product(0u, 0u, n0 + 1u, acc.y);
        }
        if (n0 + 2u < M.n) {
            finish_product(0u, 0u, n0 + 2u, acc.z);
        }
        if (n0 + 3u < M.n) {
            finish_product(0u, 0u, n0 + 3u, acc.w);
        }
    }
}

fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    let n = row % M.n;
    // Uniform control flow: M.m is the same for the whole dispatch.
    if (M.m == 1u) {
        if (COLS == 4u) {
            run_single4(row * 4u, slot, lane, live);
        } else {
            run_single(n, slot, lane, live);
        }
        return;
    }
    let m0 = (row / M.n) * XR;
    // Rows past the last one read the last row again; their sums are never stored. That
    // keeps the loads free of branches.
    let last = M.m - 1u;
    let r0 = min(m0, last) * M.a_m;
    let r1 = min(m0 + 1u, last) * M.a_m;
    let r2 = min(m0 + 2u, last) * M.a_m;
    let r3 = min(m0 + 3u, last) * M.a_m;
    // Named accumulators (indexed arrays may be placed in memory).
    var acc0 = 0.0;
    var acc1 = 0.0;
    var acc2 = 0.0;
    var acc3 = 0.0;
    var sq = vec4<f32>(0.0);
    if (live) {
        let per_word = 32u / W_BITS;
        let block = M.c_m;
        let blocks = M.c_n;
        for (var bk = lane; bk < blocks; bk += LANES) {
            let at = bk * block;
            let word0 = (n * M.k + at) / per_word;
            var q0 = 0.0;
            var q1 = 0.0;
            var q2 = 0.0;
            var q3 = 0.0;
            var s0 = vec4<f32>(0.0);
            var s1 = vec4<f32>(0.0);
            var s2 = vec4<f32>(0.0);
            var s3 = vec4<f32>(0.0);
            // A word's values are decoded once and used for all four rows.
            for (var w = 0u; w < block / per_word; w++) {
                let v = word_values(b[word0 + w]);
                let i = at + w * per_word;
                var p = word_part(v, r0, i);
                q0 += p.xq;
                s0 += p.xs;
                sq.x += p.squares;
                p = word_part(v, r1, i);
                q1 += p.xq;
                s1 += p.xs;
                sq.y += p.squares;
                p = word_part(v, r2, i);
                q2 += p.xq;
                s2 += p.xs;
                sq.z += p.squares;
                p = word_part(v, r3, i);
                q3 += p.xq;
                s3 += p.xs;
                sq.w += p.squares;
            }
            let s = n * blocks + bk;
            let one = vec4<f32>(1.0);
            acc0 += block_part(s, q0, dot(s0, one));
            acc1 += block_part(s, q1, dot(s1, one));
            acc2 += block_part(s, q2, dot(s2, one));
            acc3 += block_part(s, q3, dot(s3, one));
        }
    }
    acc0 = lanes_reduce(OP_REDUCE_SUM, acc0, slot, lane);
    acc1 = lanes_reduce(OP_REDUCE_SUM, acc1, slot, lane);
    acc2 = lanes_reduce(OP_REDUCE_SUM, acc2, slot, lane);
    acc3 = lanes_reduce(OP_REDUCE_SUM, acc3, slot, lane);
    if (NORM) {
        acc0 *= inv_rms(lanes_reduce(OP_REDUCE_SUM, sq.x, slot, lane));
        acc1 *= inv_rms(lanes_reduce(OP_REDUCE_SUM, sq.y, slot, lane));
        acc2 *= inv_rms(lanes_reduce(OP_REDUCE_SUM, sq.z, slot, lane));
        acc3 *= inv_rms(lanes_reduce(OP_REDUCE_SUM, sq.w, slot, lane));
    }
    if (live && lane == 0u) {
        finish_product(0u, m0, n, acc0);
        if (m0 + 1u < M.m) {
            finish_product(0u, m0 + 1u, n, acc1);
        }
        if (m0 + 2u < M.m) {
            finish_product(0u, m0 + 2u, n, acc2);
        }
        if (m0 + 3u < M.m) {
            finish_product(0u, m0 + 3u, n, acc3);
        }
    }
}
