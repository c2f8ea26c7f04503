// Part of the polyfill's one scope: scripts/web/bundle.mjs concatenates the files named in
// PARTS there, in order, so each sees the names the earlier ones declare.
// MLOperand, MLTensor and MLGraph.

class MLOperand {
  #pair;
  #builder;
  #dataType;
  #shape;

  constructor(token, builder, info) {
    if (token !== INTERNAL) throw illegalConstructor();
    this.#builder = builder;
    this.#pair = [info[0], info[1]];
    this.#dataType = info[2];
    this.#shape = Object.freeze(info[3]);
  }

  get dataType() {
    if (!(#dataType in this)) throw new TypeError('Illegal invocation');
    return this.#dataType;
  }

  get shape() {
    if (!(#shape in this)) throw new TypeError('Illegal invocation');
    return this.#shape;
  }

  static {
    operandPair = (v) => (#pair in v ? v.#pair : null);
    operandOf = (v) => (v !== null && typeof v === 'object' && #pair in v ? v : null);
  }
}

class MLTensor {
  #inst;
  #raw;
  #context;
  #shape;

  // WebGPU interop (the MLTensor explainer's exportToGPU): the GPUBuffer behind a tensor
  // created with exportableToGPU on a context that runs on the page's own GPUDevice, and
  // whether the page holds it now (exported until it calls the buffer's destroy()).
  #gpuBuffer = null;
  #exported = false;

  // The descriptor, read once: the getters then never call into wasm (whose instance may
  // have been retired after a trap).
  #info;

  constructor(token, context, inst, raw, gpuBuffer = null) {
    if (token !== INTERNAL) throw illegalConstructor();
    this.#inst = inst;
    this.#raw = raw;
    this.#context = context;
    this.#gpuBuffer = gpuBuffer;
    this.#info = inst.call(() => ({
      dataType: raw.dataType(),
      readable: raw.readable(),
      writable: raw.writable(),
      constant: raw.constant(),
    }));
    this.#shape = Object.freeze(inst.call(() => JSON.parse(raw.shape())));
  }

  #self() {
    if (!(#raw in this)) throw new TypeError('Illegal invocation');
    return this;
  }

  get dataType() {
    return this.#self().#info.dataType;
  }
  get shape() {
    return this.#self().#shape;
  }
  get readable() {
    return this.#self().#info.readable;
  }
  get writable() {
    return this.#self().#info.writable;
  }
  get constant() {
    return this.#self().#info.constant;
  }
  get exportableToGPU() {
    return this.#self().#gpuBuffer !== null;
  }

  destroy() {
    const t = this.#self();
    t.#inst.quiet(() => t.#raw.destroy());
  }

  static {
    tensorOf = (v) => (v !== null && typeof v === 'object' && #raw in v ? { inst: v.#inst, raw: v.#raw, context: v.#context, exported: v.#exported } : null);
    // Hands the tensor's own buffer to the page; its destroy() gives it back (the buffer
    // lives on: it is the tensor's storage).
    exportTensor = (v) => {
      if (v.#gpuBuffer === null) {
        throw new TypeError('exportToGPU: the tensor was not created with exportableToGPU');
      }
      if (!v.#exported) {
        v.#exported = true;
        const buffer = v.#gpuBuffer;
        Object.defineProperty(buffer, 'destroy', {
          configurable: true,
          writable: true,
          value: function destroy() {
            delete buffer.destroy;
            v.#exported = false;
          },
        });
      }
      return v.#gpuBuffer;
    };
  }
}

class MLGraph {
  #inst;
  #raw;
  #context;

  constructor(token, context, inst, raw) {
    if (token !== INTERNAL) throw illegalConstructor();
    this.#inst = inst;
    this.#raw = raw;
    this.#context = context;
  }

  destroy() {
    if (!(#raw in this)) throw new TypeError('Illegal invocation');
    this.#inst.quiet(() => this.#raw.destroy());
  }

  static {
    graphOf = (v) => (v !== null && typeof v === 'object' && #raw in v ? { inst: v.#inst, raw: v.#raw, context: v.#context } : null);
  }
}
