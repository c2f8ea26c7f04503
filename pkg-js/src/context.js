// Part of the polyfill's one scope: scripts/web/bundle.mjs concatenates the files named in
// PARTS there, in order, so each sees the names the earlier ones declare.
// MLContext: tensors, dispatch, reads and writes, and the WebGPU interop.

class MLContext {
  #inst;
  #raw;
  #lost;
  #loseNow;
  // The page's GPUDevice, for a context created from one (createContext(gpuDevice)).
  #device;

  // What the context runs on, read once: the getters then never call into wasm (whose
  // instance may have been retired after a trap).
  #info;

  constructor(token, inst, raw, device = null) {
    if (token !== INTERNAL) throw illegalConstructor();
    this.#inst = inst;
    this.#raw = raw;
    this.#device = device;
    this.#info = inst.call(() => ({ accelerated: raw.accelerated(), backend: raw.backend(), deviceName: raw.deviceName() }));
    this.#lost = new Promise((resolve) => {
      this.#loseNow = (message) => resolve({ message });
    });
    inst.contexts.add(this.#loseNow);
  }

  #self() {
    if (!(#raw in this)) throw new TypeError('Illegal invocation');
    return this;
  }

  // A tensor or graph argument: one of this polyfill's, from the same wasm instance. A
  // tensor the page holds as a GPUBuffer (exportToGPU) is not WebNN's to use until returned.
  #own(v, of, what) {
    const x = of(v);
    if (!x) throw new TypeError(`${what} is not an ${of === tensorOf ? 'MLTensor' : 'MLGraph'}`);
    if (x.inst !== this.#inst) throw new TypeError(`${what} belongs to another context`);
    if (x.exported) {
      throw new DOMException(`${what} is exported to WebGPU (exportToGPU): destroy() the GPUBuffer to return it`, 'InvalidStateError');
    }
    return x;
  }

  get accelerated() {
    return this.#self().#info.accelerated;
  }

  get lost() {
    return this.#self().#lost;
  }

  // Extension: which backend the context runs on ('webgpu' or 'cpu').
  get backend() {
    return this.#self().#info.backend;
  }

  // Extension: what runs it, e.g. 'fast cpu (simd128, 1 thread)' or the WebGPU adapter's name.
  get deviceName() {
    return this.#self().#info.deviceName;
  }

  opSupportLimits() {
    const c = this.#self();
    return c.#inst.call(() => JSON.parse(c.#raw.opSupportLimits()));
  }

  dispatch(graph, inputs, outputs) {
    const c = this.#self();
    requireArgs(arguments, 3, 'dispatch');
    const g = c.#own(graph, graphOf, 'graph');
    c.#inst.call((mod) => {
      const b = new mod.WebBindings();
      try {
        for (const [name, t] of recordEntries(inputs, 'inputs')) b.input(name, c.#own(t, tensorOf, `inputs['${name}']`).raw);
        for (const [name, t] of recordEntries(outputs, 'outputs')) b.output(name, c.#own(t, tensorOf, `outputs['${name}']`).raw);
        c.#raw.dispatch(g.raw, b);
      } finally {
        // After a trap the bindings may still be borrowed on the Rust side: freeing them
        // would throw and hide the trap, which must reach `call` to retire the instance.
        try {
          b.free();
        } catch {
          // The instance is being retired; its memory goes with it.
        }
      }
    });
  }

  async createTensor(descriptor) {
    const c = this.#self();
    requireArgs(arguments, 1, 'createTensor');
    // Chromium's former usage flag WEBGPU_INTEROP (1) asked for the same.
    if (descriptor?.exportableToGPU || (Number(descriptor?.usage) & 1)) {
      return c.#createExportable(descriptor, c.#device, 'createTensor');
    }
    const raw = c.#inst.call(() => c.#raw.createTensor(json(descriptor)));
    return new MLTensor(INTERNAL, c, c.#inst, raw);
  }

  // Chromium's form of an exportable tensor: createExportableTensor(descriptor, gpuDevice).
  async createExportableTensor(descriptor, device) {
    const c = this.#self();
    requireArgs(arguments, 2, 'createExportableTensor');
    if (typeof GPUDevice === 'undefined' || !(device instanceof GPUDevice)) {
      throw new TypeError('createExportableTensor: the second argument is not a GPUDevice');
    }
    return c.#createExportable(descriptor, device, 'createExportableTensor');
  }

  // A tensor whose storage is a GPUBuffer of the page's device, exported without a copy.
  // That needs the context on that very device (createContext(gpuDevice)); exporting from
  // another device or the CPU takes a copy out and back, not implemented yet.
  #createExportable(descriptor, device, what) {
    if (!device) {
      throw new TypeError(`${what}: exportableToGPU needs a context created from a GPUDevice (createContext(gpuDevice))`);
    }
    if (device !== this.#device) {
      throw new DOMException(`${what}: the context runs on another device; exporting across devices (a copy) is not implemented`, 'NotSupportedError');
    }
    // wgpu creates the tensor's buffer with the device's createBuffer during the call;
    // an own property on the device catches it (the glue looks the method up on the object),
    // calling whatever createBuffer was in effect, and is then put back as it was.
    const created = [];
    const own = Object.getOwnPropertyDescriptor(device, 'createBuffer');
    const inner = device.createBuffer;
    Object.defineProperty(device, 'createBuffer', {
      configurable: true,
      writable: true,
      value: function createBuffer(d) {
        const b = inner.call(this, d);
        created.push(b);
        return b;
      },
    });
    let raw;
    try {
      raw = this.#inst.call(() => this.#raw.createTensor(json({ ...descriptor, exportableToGPU: undefined })));
    } finally {
      if (own) Object.defineProperty(device, 'createBuffer', own);
      else delete device.createBuffer;
    }
    const buffer = created.findLast((b) => b.label === 'webnn tensor');
    if (!buffer) {
      this.#inst.quiet(() => raw.destroy());
      throw new DOMException(`${what}: the tensor has no GPUBuffer of its own on this device`, 'NotSupportedError');
    }
    return new MLTensor(INTERNAL, this, this.#inst, raw, buffer);
  }

  // The tensor's own GPUBuffer (STORAGE | COPY_SRC | COPY_DST, the tensor's bytes packed
  // as WebNN lays them out, rounded up to 4): no copy, and none needed to wait for, since
  // WebNN's work and the page's share the device's queue. The page gives it back with the
  // buffer's destroy(); until then WebNN calls that use the tensor throw InvalidStateError.
  async exportToGPU(tensor) {
    const c = this.#self();
    requireArgs(arguments, 1, 'exportToGPU');
    c.#own(tensor, tensorOf, 'exportToGPU: tensor');
    return exportTensor(tensor);
  }

  async createConstantTensor(descriptor, inputData) {
    const c = this.#self();
    requireArgs(arguments, 2, 'createConstantTensor');
    const { bytes, view } = bufferSource(inputData, 'createConstantTensor');
    const raw = c.#inst.call(() => c.#raw.createConstantTensor(json(descriptor), bytes, view));
    return new MLTensor(INTERNAL, c, c.#inst, raw);
  }

  async readTensor(tensor, ...rest) {
    const c = this.#self();
    requireArgs(arguments, 1, 'readTensor');
    const t = c.#own(tensor, tensorOf, 'tensor');
    const out = rest.length > 0 ? bufferSource(rest[0], 'readTensor') : null;
    if (out) c.#inst.call(() => t.raw.checkBuffer(out.bytes.byteLength, out.view));
    const bytes = await c.#inst.callAsync(() => c.#raw.readTensor(t.raw));
    if (!out) return bytes.buffer;
    out.bytes.set(bytes);
    return undefined;
  }

  writeTensor(tensor, inputData) {
    const c = this.#self();
    requireArgs(arguments, 2, 'writeTensor');
    const t = c.#own(tensor, tensorOf, 'tensor');
    const { bytes, view } = bufferSource(inputData, 'writeTensor');
    c.#inst.call(() => c.#raw.writeTensor(t.raw, bytes, view));
  }

  destroy() {
    const c = this.#self();
    c.#inst.quiet(() => c.#raw.destroy());
    c.#inst.contexts.delete(c.#loseNow);
    c.#loseNow('the context was destroyed');
  }

  static {
    contextOf = (v) => (v !== null && typeof v === 'object' && #raw in v ? { inst: v.#inst, raw: v.#raw } : null);
  }
}
