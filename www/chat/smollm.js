// SmolLM2 (Llama architecture) as a WebNN graph, built here with MLGraphBuilder from
// primitive ops, as a framework without fused operators has to: blockwise dequantizeLinear
// feeding gemm, RMSNorm from pow/reduceMean/add/sqrt/div/mul, rotary embedding from
// slice/mul/sub/add/concat, grouped-query attention from matmul/where/softmax over key/value
// caches updated in place by scatterND, the SiLU-gated MLP from sigmoid and mul. The same
// graph as crates/webnn-llm/src/model.rs (the native examples and tests), op for op, so the
// backends fuse the same patterns. One graph serves the prompt and every decode step: its
// inputs have flexible sizes ({name, maxSize}, the polyfill's extension).

// `file`: an opened model file (webnn-llm-web's ModelFile), `config` its hyperparameters and
// `config.cache` the caches' type: 'float32', or 'float16' (as llama.cpp keeps them: new
// rows cast down before scatterND stores them, cached rows cast up after the slice).
export function buildDecoder(builder, file, config) {
  const b = builder;
  const f32 = (shape) => ({ dataType: 'float32', shape });
  const seq = { name: 'seq', maxSize: config.maxSeq };
  const total = { name: 'total', maxSize: config.capacity };
  const picked = { name: 'picked', maxSize: config.maxSeq };
  const { headDim: hd, kvDim: kvd, kvHeads, heads, dim } = config;
  const cache = config.cache ?? 'float32';
  const narrow = (x) => (cache === 'float32' ? x : b.cast(x, cache));
  const widen = (x) => (cache === 'float32' ? x : b.cast(x, 'float32'));
  const half = hd / 2;
  const group = heads / kvHeads;

  const tokens = b.input('tokens', { dataType: 'int32', shape: [seq] });
  const positions = b.input('positions', { dataType: 'int32', shape: [seq, 1] });
  const mask = b.input('mask', { dataType: 'uint8', shape: [seq, total] });
  const last = b.input('last', { dataType: 'int32', shape: [picked] });

  const floats = (name, shape) => b.constant(f32(shape), file.floats(name));
  // x · Wᵀ for a Q4_1 weight: dequantizeLinear(q, d, 0) + m per block of 32.
  const linear = (x, name) => {
    const w = file.q4_1(name);
    const blocks = w.cols / 32;
    const q = b.constant({ dataType: 'uint4', shape: [w.rows, w.cols] }, w.q);
    const scale = b.constant(f32([w.rows, blocks]), w.scale);
    const zero = b.constant({ dataType: 'uint4', shape: [w.rows, blocks] }, new Uint8Array(Math.ceil(w.rows * blocks / 2)));
    const min = b.constant(f32([w.rows, blocks, 1]), w.min);
    let m = b.dequantizeLinear(q, scale, zero);
    m = b.reshape(m, [w.rows, blocks, 32]);
    m = b.reshape(b.add(m, min), [w.rows, w.cols]);
    return b.gemm(x, m, { bTranspose: true });
  };
  const two = b.constant('float32', 2);
  const eps = b.constant('float32', config.eps);
  const rmsNorm = (x, name) => {
    const w = floats(name, [dim]);
    const mean = b.reduceMean(b.pow(x, two), { axes: [1], keepDimensions: true });
    return b.mul(b.div(x, b.sqrt(b.add(mean, eps))), w);
  };
  // Rotary embedding on adjacent pairs of x [seq, heads * hd].
  const rope = (x, n, cos, sin) => {
    const r = b.reshape(x, [seq, n, half, 2]);
    const even = b.slice(r, [0, 0, 0, 0], [seq, n, half, 1]);
    const odd = b.slice(r, [0, 0, 0, 1], [seq, n, half, 1]);
    const first = b.sub(b.mul(even, cos), b.mul(odd, sin));
    const second = b.add(b.mul(even, sin), b.mul(odd, cos));
    return b.reshape(b.concat([first, second], 3), [seq, n * hd]);
  };

  // Embedding: the tokens' int8 rows and scales gathered, then dequantized.
  const embd = file.q8_0('token_embd.weight');
  const eBlocks = embd.cols / 32;
  const eq = b.constant({ dataType: 'int8', shape: [embd.rows, embd.cols] }, new Int8Array(embd.q.buffer));
  const ed = b.constant(f32([embd.rows, eBlocks]), embd.scale);
  const ez = b.constant({ dataType: 'int8', shape: [embd.rows, eBlocks] }, new Int8Array(embd.rows * eBlocks));
  let x = b.dequantizeLinear(b.gather(eq, tokens), b.gather(ed, tokens), b.gather(ez, tokens));

  const [cosTable, sinTable] = file.ropeTables(config.capacity);
  const flat = b.reshape(positions, [seq]);
  const table = (t) => b.reshape(b.gather(b.constant(f32([config.capacity, half]), t), flat), [seq, 1, half, 1]);
  const cos = table(cosTable);
  const sin = table(sinTable);

  const scale = b.constant('float32', 1 / Math.sqrt(hd));
  const masked = b.constant('float32', -1e30);
  const outputs = {};
  for (let l = 0; l < config.layers; l++) {
    const p = (s) => `blk.${l}.${s}.weight`;
    const kIn = b.input(`k${l}`, { dataType: cache, shape: [config.capacity, kvd] });
    const vIn = b.input(`v${l}`, { dataType: cache, shape: [config.capacity, kvd] });
    const h = rmsNorm(x, p('attn_norm'));
    const q = rope(linear(h, p('attn_q')), heads, cos, sin);
    const k = rope(linear(h, p('attn_k')), kvHeads, cos, sin);
    const v = linear(h, p('attn_v'));
    const kAll = b.scatterND(kIn, positions, narrow(k));
    const vAll = b.scatterND(vIn, positions, narrow(v));
    outputs[`k${l}_out`] = kAll;
    outputs[`v${l}_out`] = vAll;
    const keys = widen(b.slice(kAll, [0, 0], [total, kvd]));
    const values = widen(b.slice(vAll, [0, 0], [total, kvd]));
    // q [seq, kvHeads, group, hd] -> [kvHeads, group, seq, hd]; keys -> [kvHeads, 1, hd, total].
    const qh = b.transpose(b.reshape(q, [seq, kvHeads, group, hd]), { permutation: [1, 2, 0, 3] });
    const kh = b.transpose(b.reshape(keys, [total, kvHeads, 1, hd]), { permutation: [1, 2, 3, 0] });
    const vh = b.transpose(b.reshape(values, [total, kvHeads, 1, hd]), { permutation: [1, 2, 0, 3] });
    const scores = b.where(mask, b.mul(b.matmul(qh, kh), scale), masked);
    let attn = b.matmul(b.softmax(scores, 3), vh);
    attn = b.reshape(b.transpose(attn, { permutation: [2, 0, 1, 3] }), [seq, dim]);
    x = b.add(x, linear(attn, p('attn_output')));

    const h2 = rmsNorm(x, p('ffn_norm'));
    const gate = linear(h2, p('ffn_gate'));
    const up = linear(h2, p('ffn_up'));
    const act = b.mul(b.mul(gate, b.sigmoid(gate)), up);
    x = b.add(x, linear(act, p('ffn_down')));
  }
  const y = rmsNorm(b.gather(x, last), 'output_norm.weight');
  // The head is the embedding (tied), dequantized whole.
  const logits = b.gemm(y, b.dequantizeLinear(eq, ed, ez), { bTranspose: true });
  const next = b.argMax(logits, 1, { outputDataType: 'int32' });
  return { logits, next, ...outputs };
}

// A decoding session: the graph, its key/value caches (tensors bound in place to their
// scatterND outputs, never read back), and the position reached. The tensors a step binds
// are made once and reused: a decode step creates nothing.
export class Session {
  static async create(context, file, config) {
    const builder = new MLGraphBuilder(context);
    const graph = await builder.build(buildDecoder(builder, file, config));
    const s = new Session(context, graph, config);
    for (let l = 0; l < config.layers; l++) {
      for (const kind of ['k', 'v']) {
        const desc = { dataType: config.cache ?? 'float32', shape: [config.capacity, config.kvDim], readable: true, writable: true };
        s.caches.push([`${kind}${l}`, await context.createTensor(desc)]);
      }
    }
    return s;
  }

  constructor(context, graph, config) {
    this.context = context;
    this.graph = graph;
    this.config = config;
    this.caches = [];
    this.past = 0;
    this.tensors = new Map();
  }

  // The tensor `name` of this type and shape, made on first use; `data` written when given.
  async #tensor(name, dataType, shape, data) {
    const key = `${name} ${shape}`;
    let t = this.tensors.get(key);
    if (!t) {
      t = await this.context.createTensor({ dataType, shape, writable: true, readable: true });
      this.tensors.set(key, t);
    }
    if (data) this.context.writeTensor(t, data);
    return t;
  }

  // Submits `seq` tokens (in the int32 tensor `tokens`) after those in the caches, their
  // last one's greedy next token going to `next`; nothing is read.
  async #submit(tokens, seq, next) {
    const past = this.past;
    const total = past + seq;
    if (total > this.config.capacity) throw new RangeError(`the context would hold ${total} tokens, the caches ${this.config.capacity}`);
    const mask = new Uint8Array(seq * total);
    for (let i = 0; i < seq; i++) mask.fill(1, i * total, i * total + past + i + 1);
    const inputs = {
      tokens,
      positions: await this.#tensor('positions', 'int32', [seq, 1], Int32Array.from({ length: seq }, (_, i) => past + i)),
      mask: await this.#tensor('mask', 'uint8', [seq, total], mask),
      last: await this.#tensor('last', 'int32', [1], Int32Array.of(seq - 1)),
    };
    const outputs = { logits: await this.#tensor('logits', 'float32', [1, this.config.vocab]), next };
    for (const [name, t] of this.caches) {
      inputs[name] = t;
      outputs[`${name}_out`] = t;
    }
    this.context.dispatch(this.graph, inputs, outputs);
    this.past = total;
    // A decode step's mask is kept for its length; a prompt chunk's need not be.
    if (seq > 1) this.tensors.delete(`mask ${[seq, total]}`);
  }

  // Feeds `tokens` after those in the caches (in chunks of at most maxSeq) and returns the
  // greedy next token, chosen in the graph (argMax): only its 4 bytes are read back.
  async next(tokens) {
    const next = await this.#tensor('next', 'int32', [1]);
    for (let at = 0; at < tokens.length; at += this.config.maxSeq) {
      const chunk = tokens.slice(at, at + this.config.maxSeq);
      await this.#submit(await this.#tensor('tokens', 'int32', [chunk.length], Int32Array.from(chunk)), chunk.length, next);
    }
    return new Int32Array(await this.context.readTensor(next))[0];
  }

  // Greedy generation with the tokens kept on the device, through WebNN's own calls: each
  // decode step's tokens input is the previous step's argMax output (two tensors in turn),
  // and each token is read `lag` steps after its step was dispatched (readTensor takes the
  // data as of its call), so the device never waits for the page. Yields up to `limit`
  // tokens as their reads resolve; a consumer that stops at an end token leaves the
  // steps dispatched after it in the caches (`past` counts them).
  async *generate(prompt, limit, lag = 4) {
    const ring = [await this.#tensor('token ring', 'int32', [1]), await this.#tensor('token ring 2', 'int32', [1])];
    for (let at = 0; at < prompt.length; at += this.config.maxSeq) {
      const chunk = prompt.slice(at, at + this.config.maxSeq);
      const last = at + this.config.maxSeq >= prompt.length;
      const next = last ? ring[0] : await this.#tensor('next', 'int32', [1]);
      await this.#submit(await this.#tensor('tokens', 'int32', [chunk.length], Int32Array.from(chunk)), chunk.length, next);
    }
    const reads = [this.context.readTensor(ring[0])];
    for (let submitted = 1; reads.length > 0; ) {
      if (submitted < limit && this.past < this.config.capacity) {
        const output = ring[submitted % 2];
        await this.#submit(ring[(submitted + 1) % 2], 1, output);
        reads.push(this.context.readTensor(output));
        submitted += 1;
        if (reads.length <= lag) continue;
      }
      yield new Int32Array(await reads.shift())[0];
    }
  }
}
