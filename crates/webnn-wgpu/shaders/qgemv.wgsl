// Quantized gemv (row frame): y = x · Wᵀ where W [n, k] is dequantized from 4- or 8-bit
// integers q with a float scale and a zero point per block of elements along k, plus
// (HAS_OFFSET) a float per block added after scaling (GGUF Q4_1's minimum):
//   W[j, i] = scale[j, i / block] * (q[j, i] - zero[j, i / block]) + offset[j, i / block].
// The weight is never expanded: per block, sum(x * q) and sum(x) give
//   scale * (sum(x * q) - zero * sum(x)) + offset * sum(x).
// Weights are read a u32 word (8 int4/uint4 or 4 int8/uint8 values) at a time; blocks hold
// whole words (the lowering checks). A row of the frame is one row of x against one or four
// weight rows (output columns), or four rows of x against four weight rows (with PAIR, below:
// one row of each weight set, or two of each against four rows of x); its LANES invocations
// split the blocks.
// Uses the Matmul block (matmul_params.wgsl); this kernel has no C, so c_m holds the block
// size and c_n the blocks per weight row. Inputs: a = x, b = q, c = scale, d = zero point
// (bound only where they may be nonzero), e = offset (bound only with HAS_OFFSET).
// With PAIR (generated, src/kernel/source.rs) a second weight set of the same shape and
// formats (pair_word, load_pair_c/d/e: a gated MLP's gate projection, b being its up
// projection) is computed beside the first from the same loads of x, and output j is
// y_j * silu(gate_j): one kernel for the MLP's first half.
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

// Rows of x per frame row with several rows (prompts): the weight words are read once for
// four rows of x.
const XR: u32 = 4u;
// With one row of x, output columns per frame row: 1, or 4 to read x once for four weight
// rows (CPU adapters, where x's loads cost as much as the arithmetic; and rotary pairs).
// Several rows of x always run four rows against four weight rows (`run_block`).
override COLS: u32 = 1u;

// Output columns per frame row with several rows of x: four weight rows, which with PAIR
// are two of each set.
fn block_cols() -> u32 {
    if (PAIR) {
        return 2u;
    }
    return 4u;
}

fn row_count() -> u32 {
    if (M.m == 1u && PAIR) {
        return M.n;
    }
    if (M.m == 1u) {
        return (M.n + COLS - 1u) / COLS;
    }
    return ((M.m + XR - 1u) / XR) * ((M.n + block_cols() - 1u) / block_cols());
}

// One block's contribution for x row m, from sum(x * q) and sum(x) (`block_part4`'s first
// lane; compilers drop the others).
fn block_part(s: u32, xq: f32, xs: f32) -> f32 {
    return block_part4(s, vec4<f32>(xq), vec4<f32>(xs)).x;
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
    let w = norm_word(i);
    return XWord(WordValues(x.lo * w.lo, x.hi * w.hi), dot(x.lo, x.lo) + dot(x.hi, x.hi));
}

// The norm weight's values for the word whose elements start at i, paired as word_values
// pairs the weights (NORM; ones otherwise): loaded once per word for every row of x.
fn norm_word(i: u32) -> WordValues {
    if (!NORM) {
        return WordValues(vec4<f32>(1.0), vec4<f32>(1.0));
    }
    if (W_BITS == 4u) {
        return WordValues(nw4(i, 2u), nw4(i + 1u, 2u));
    }
    return WordValues(nw4(i, 1u), vec4<f32>(0.0));
}

// Row r's (its first element's index) values of x for the word whose elements start at i,
// paired as word_values pairs the weights; with NORM times the norm weight's (`nw`, from
// norm_word), and the sum of their squares before (0 without NORM).
fn x_row(r: u32, i: u32, nw: WordValues) -> XWord {
    if (W_BITS == 4u) {
        let xe = x4(r + i, 2u);
        let xo = x4(r + i + 1u, 2u);
        if (!NORM) {
            return XWord(WordValues(xe, xo), 0.0);
        }
        return XWord(WordValues(xe * nw.lo, xo * nw.hi), dot(xe, xe) + dot(xo, xo));
    }
    let xv = x4(r + i, 1u);
    if (!NORM) {
        return XWord(WordValues(xv, vec4<f32>(0.0)), 0.0);
    }
    return XWord(WordValues(xv * nw.lo, vec4<f32>(0.0)), dot(xv, xv));
}

// sum(x * q) over a word: x's values against the word's, paired alike.
fn word_dot(x: WordValues, v: WordValues) -> f32 {
    return dot(x.lo, v.lo) + dot(x.hi, v.hi);
}

// One block's contribution for four rows of x (components) against one weight row, from
// sum(x * q) and sum(x): its block's parameters loaded once.
fn block_part4(s: u32, xq: vec4<f32>, xs: vec4<f32>) -> vec4<f32> {
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

// block_part4 for the pair's weight set (PAIR).
fn pair_part4(s: u32, xq: vec4<f32>, xs: vec4<f32>) -> vec4<f32> {
    var q = xq;
    if (HAS_ZERO) {
        q -= f32(load_pair_d(s)) * xs;
    }
    var part = load_pair_c(s) * q;
    if (HAS_OFFSET) {
        part += load_pair_e(s) * xs;
    }
    return part;
}

// The output of a pair's two products: the first times the SiLU of the second (the gate).
fn gated(v: f32, gate: f32) -> f32 {
    return v * (gate * sigmoid_f(gate));
}

// A block's running sums for the single row of x: sum(x * q) for the weight (x) and, with
// PAIR, for the pair's (y); x in four lanes; and (NORM) the squares of x.
struct SinglePart {
    xq: vec2<f32>,
    xs: vec4<f32>,
    squares: f32,
}

// Word i of the pair's weight (PAIR; never read otherwise).
fn pair_word_if(i: u32) -> u32 {
    if (PAIR) {
        return pair_word(i);
    }
    return 0u;
}

// `part` after the words `q` (x: the weight's, y: the pair's with PAIR) whose elements start
// at i.
fn single_word(part: SinglePart, i: u32, q: vec2<u32>) -> SinglePart {
    let xn = x_normed(i);
    let x = xn.v;
    var xq = vec2<f32>(word_dot(x, word_values(q.x)), 0.0);
    if (PAIR) {
        xq.y = word_dot(x, word_values(q.y));
    }
    return SinglePart(part.xq + xq, part.xs + (x.lo + x.hi), part.squares + xn.squares);
}

// One row of x (decode steps): a word of weights at a time as vec4 dot products; with PAIR
// weight row n of both sets from the same loads of x, stored as `gated`.
fn run_single(n: u32, slot: u32, lane: u32, live: bool) {
    var acc = vec2<f32>(0.0);
    var squares = 0.0;
    if (live) {
        let per_word = 32u / W_BITS;
        let block = M.c_m;
        let blocks = M.c_n;
        for (var bk = lane; bk < blocks; bk += LANES) {
            let at = bk * block;
            let word0 = (n * M.k + at) / per_word;
            var part = SinglePart(vec2<f32>(0.0), vec4<f32>(0.0), squares);
            let words = block / per_word;
            var w = 0u;
            // Blocks of a multiple of four words (GGUF's 32-element blocks) load four words
            // (of each set) before using any: on GPUs each word otherwise waits for memory
            // once. Fixed names, as an indexed vector may live in memory.
            if (words % 4u == 0u) {
                for (; w < words; w += 4u) {
                    let q0 = vec2<u32>(b[word0 + w], pair_word_if(word0 + w));
                    let q1 = vec2<u32>(b[word0 + w + 1u], pair_word_if(word0 + w + 1u));
                    let q2 = vec2<u32>(b[word0 + w + 2u], pair_word_if(word0 + w + 2u));
                    let q3 = vec2<u32>(b[word0 + w + 3u], pair_word_if(word0 + w + 3u));
                    part = single_word(part, at + w * per_word, q0);
                    part = single_word(part, at + (w + 1u) * per_word, q1);
                    part = single_word(part, at + (w + 2u) * per_word, q2);
                    part = single_word(part, at + (w + 3u) * per_word, q3);
                }
            }
            for (; w < words; w++) {
                part = single_word(part, at + w * per_word, vec2<u32>(b[word0 + w], pair_word_if(word0 + w)));
            }
            squares = part.squares;
            let sx = dot(part.xs, vec4<f32>(1.0));
            let s = n * blocks + bk;
            acc.x += block_part(s, part.xq.x, sx);
            if (PAIR) {
                acc.y += pair_part4(s, vec4<f32>(part.xq.y), vec4<f32>(sx)).x;
            }
        }
    }
    acc.x = lanes_reduce(OP_REDUCE_SUM, acc.x, slot, lane);
    if (PAIR) {
        acc.y = lanes_reduce(OP_REDUCE_SUM, acc.y, slot, lane);
    }
    if (NORM) {
        acc *= inv_rms(lanes_reduce(OP_REDUCE_SUM, squares, slot, lane));
    }
    var y = acc.x;
    if (PAIR) {
        y = gated(acc.x, acc.y);
    }
    if (live && lane == 0u) {
        finish_product(0u, 0u, n, y);
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

// Word i of weight row `c` (0 to 3) of a frame row: the pair's for rows 1 and 3 with PAIR
// (c is a constant at every call).
fn block_word(c: u32, i: u32) -> u32 {
    if (PAIR && (c & 1u) == 1u) {
        return pair_word(i);
    }
    return b[i];
}

// block_part4 of weight row `c` of a frame row (as block_word).
fn block_row_part4(c: u32, s: u32, xq: vec4<f32>, xs: vec4<f32>) -> vec4<f32> {
    if (PAIR && (c & 1u) == 1u) {
        return pair_part4(s, xq, xs);
    }
    return block_part4(s, xq, xs);
}

// Four rows of x from m0 against the four weight rows from n (several rows of x: prompts);
// with PAIR, weight rows n and n + 1 of each set (n, the pair's n, n + 1, the pair's n + 1).
// Each word of the weight rows is decoded once for the four rows of x, and each row's values
// of x are loaded once for the four weight rows. Rows past the last read the last row again
// and columns past the last the last column, never stored: the loads need no branches.
fn run_block(frame_row: u32, slot: u32, lane: u32, live: bool) {
    let groups = (M.n + block_cols() - 1u) / block_cols();
    let n = (frame_row % groups) * block_cols();
    var rows = vec4<u32>(n, n + 1u, n + 2u, n + 3u);
    if (PAIR) {
        rows = vec4<u32>(n, n, n + 1u, n + 1u);
    }
    let cols = min(rows, vec4<u32>(M.n - 1u));
    let m0 = (frame_row / groups) * XR;
    let last = M.m - 1u;
    let r = min(vec4<u32>(m0, m0 + 1u, m0 + 2u, m0 + 3u), vec4<u32>(last)) * M.a_m;
    // Per weight row (a to d), the sums of the four rows of x (components); and (NORM) the
    // squares of x per row.
    var acc_a = vec4<f32>(0.0);
    var acc_b = vec4<f32>(0.0);
    var acc_c = vec4<f32>(0.0);
    var acc_d = vec4<f32>(0.0);
    var sq = vec4<f32>(0.0);
    if (live) {
        let per_word = 32u / W_BITS;
        let block = M.c_m;
        let blocks = M.c_n;
        let one = vec4<f32>(1.0);
        for (var bk = lane; bk < blocks; bk += LANES) {
            let at = bk * block;
            let word0 = (cols * M.k + at) / per_word;
            var qa = vec4<f32>(0.0);
            var qb = vec4<f32>(0.0);
            var qc = vec4<f32>(0.0);
            var qd = vec4<f32>(0.0);
            var xs = vec4<f32>(0.0);
            for (var w = 0u; w < block / per_word; w++) {
                // Fixed names: an indexed vector may live in memory.
                let va = word_values(block_word(0u, word0.x + w));
                let vb = word_values(block_word(1u, word0.y + w));
                let vc = word_values(block_word(2u, word0.z + w));
                let vd = word_values(block_word(3u, word0.w + w));
                let i = at + w * per_word;
                let nw = norm_word(i);
                let x0 = x_row(r.x, i, nw);
                let x1 = x_row(r.y, i, nw);
                let x2 = x_row(r.z, i, nw);
                let x3 = x_row(r.w, i, nw);
                qa += vec4<f32>(word_dot(x0.v, va), word_dot(x1.v, va), word_dot(x2.v, va), word_dot(x3.v, va));
                qb += vec4<f32>(word_dot(x0.v, vb), word_dot(x1.v, vb), word_dot(x2.v, vb), word_dot(x3.v, vb));
                qc += vec4<f32>(word_dot(x0.v, vc), word_dot(x1.v, vc), word_dot(x2.v, vc), word_dot(x3.v, vc));
                qd += vec4<f32>(word_dot(x0.v, vd), word_dot(x1.v, vd), word_dot(x2.v, vd), word_dot(x3.v, vd));
                xs += vec4<f32>(dot(x0.v.lo + x0.v.hi, one), dot(x1.v.lo + x1.v.hi, one),
                                dot(x2.v.lo + x2.v.hi, one), dot(x3.v.lo + x3.v.hi, one));
                sq += vec4<f32>(x0.squares, x1.squares, x2.squares, x3.squares);
            }
            let s = cols * blocks + bk;
            acc_a += block_row_part4(0u, s.x, qa, xs);
            acc_b += block_row_part4(1u, s.y, qb, xs);
            acc_c += block_row_part4(2u, s.z, qc, xs);
            acc_d += block_row_part4(3u, s.w, qd, xs);
        }
    }
    acc_a = lanes_reduce4(acc_a, slot, lane);
    acc_b = lanes_reduce4(acc_b, slot, lane);
    acc_c = lanes_reduce4(acc_c, slot, lane);
    acc_d = lanes_reduce4(acc_d, slot, lane);
    if (NORM) {
        let q = lanes_reduce4(sq, slot, lane);
        let scale = vec4<f32>(inv_rms(q.x), inv_rms(q.y), inv_rms(q.z), inv_rms(q.w));
        acc_a *= scale;
        acc_b *= scale;
        acc_c *= scale;
        acc_d *= scale;
    }
    if (live && lane == 0u && PAIR) {
        store_pair_row(m0, n, vec4<f32>(acc_a.x, acc_b.x, acc_c.x, acc_d.x));
        store_pair_row(m0 + 1u, n, vec4<f32>(acc_a.y, acc_b.y, acc_c.y, acc_d.y));
        store_pair_row(m0 + 2u, n, vec4<f32>(acc_a.z, acc_b.z, acc_c.z, acc_d.z));
        store_pair_row(m0 + 3u, n, vec4<f32>(acc_a.w, acc_b.w, acc_c.w, acc_d.w));
    } else if (live && lane == 0u) {
        store_block_row(min(m0, last), m0, n, vec4<f32>(acc_a.x, acc_b.x, acc_c.x, acc_d.x));
        store_block_row(min(m0 + 1u, last), m0 + 1u, n, vec4<f32>(acc_a.y, acc_b.y, acc_c.y, acc_d.y));
        store_block_row(min(m0 + 2u, last), m0 + 2u, n, vec4<f32>(acc_a.z, acc_b.z, acc_c.z, acc_d.z));
        store_block_row(min(m0 + 3u, last), m0 + 3u, n, vec4<f32>(acc_a.w, acc_b.w, acc_c.w, acc_d.w));
    }
}

// The lanes' sums of four values.
fn lanes_reduce4(v: vec4<f32>, slot: u32, lane: u32) -> vec4<f32> {
    return vec4<f32>(lanes_reduce(OP_REDUCE_SUM, v.x, slot, lane), lanes_reduce(OP_REDUCE_SUM, v.y, slot, lane),
                     lanes_reduce(OP_REDUCE_SUM, v.z, slot, lane), lanes_reduce(OP_REDUCE_SUM, v.w, slot, lane));
}

// Outputs (m, n) to (m, n + 3) of `run_block` after the rotary embedding of their pairs
// (`rope_pair`, generated: identity otherwise), read at row `read`: m, or the last row for
// rows past it, which are not stored.
fn store_block_row(read: u32, m: u32, n: u32, v: vec4<f32>) {
    if (m >= M.m) {
        return;
    }
    let y = vec4<f32>(rope_pair(read, n, v.xy), rope_pair(read, n + 2u, v.zw));
    finish_product(0u, m, n, y.x);
    if (n + 1u < M.n) {
        finish_product(0u, m, n + 1u, y.y);
    }
    if (n + 2u < M.n) {
        finish_product(0u, m, n + 2u, y.z);
    }
    if (n + 3u < M.n) {
        finish_product(0u, m, n + 3u, y.w);
    }
}

// Outputs (m, n) and (m, n + 1) of `run_block` with PAIR from the frame row's four sums
// (n, the pair's n, n + 1, the pair's n + 1).
fn store_pair_row(m: u32, n: u32, v: vec4<f32>) {
    if (m >= M.m) {
        return;
    }
    finish_product(0u, m, n, gated(v.x, v.y));
    if (n + 1u < M.n) {
        finish_product(0u, m, n + 1u, gated(v.z, v.w));
    }
}

fn run_row(row: u32, slot: u32, lane: u32, live: bool) {
    // Uniform control flow: M.m is the same for the whole dispatch.
    if (M.m == 1u) {
        // A pair's frame rows take one column of each set (`row_count`).
        if (COLS == 4u && !PAIR) {
            run_single4(row * 4u, slot, lane, live);
        } else {
            run_single(row, slot, lane, live);
        }
        return;
    }
    run_block(row, slot, lane, live);
}
