// Part of the polyfill's one scope: scripts/web/bundle.mjs concatenates the files named in
// PARTS there, in order, so each sees the names the earlier ones declare.
// ML (navigator.ml) and its contexts on the page's GPUDevice, the test hooks, the wasm
// instance loader and installWebNN.

let mlLoader = () => null;

// wgpu opens its device with GPUAdapter.requestDevice; while `create` opens one, that call
// answers with the page's device instead (wgpu then reads the device's own features and
// limits). Context creations queue, so no other caller sees the substitution.
let deviceQueue = Promise.resolve();
function onDevice(device, create) {
  const run = async () => {
    const proto = GPUAdapter.prototype;
    const original = proto.requestDevice;
    proto.requestDevice = function requestDevice() {
      proto.requestDevice = original;
      return Promise.resolve(device);
    };
    try {
      return await create();
    } finally {
      proto.requestDevice = original;
    }
  };
  const result = deviceQueue.then(run, run);
  deviceQueue = result.catch(() => {});
  return result;
}

class ML {
  #load;

  static {
    mlLoader = (ml) => ml.#load;
  }

  constructor(token, load) {
    if (token !== INTERNAL) throw illegalConstructor();
    this.#load = load;
  }

  // createContext(options) and createContext(gpuDevice): the context runs on the page's
  // own device, so its tensors and work share the page's GPU queue.
  async createContext(...args) {
    if (!(#load in this)) throw new TypeError('Illegal invocation');
    const options = args[0];
    const device = typeof GPUDevice !== 'undefined' && options instanceof GPUDevice ? options : null;
    if (!device && options !== undefined && options !== null && typeof options !== 'object') {
      throw new TypeError('createContext: options is not a dictionary');
    }
    const inst = await this.#load();
    const create = () => inst.callAsync((mod) => mod.createContext(json(device ? { backend: 'webgpu' } : options ?? {})));
    const raw = device ? await onDevice(device, create) : await create();
    return new MLContext(INTERNAL, inst, raw, device);
  }
}

// Test hooks, out of the way of pages under a registered symbol: 'panic' provokes a Rust
// panic in the current wasm instance; 'memory' reports its linear memory's size in bytes;
// 'cpu-workers' the CPU workers started and those serving the pool now.
Object.defineProperty(ML.prototype, Symbol.for('webnn-rs.testing'), {
  async value(what) {
    const inst = await mlLoader(this)();
    if (what === 'panic') return inst.call((mod) => mod.__panicForTest());
    if (what === 'memory') return inst.mod.memory.buffer.byteLength;
    if (what === 'cpu-workers') return { started: inst.mod.workers.length, serving: inst.mod.cpuWorkersPresent() };
    throw new TypeError(`unknown test hook '${what}'`);
  },
});

const INTERFACES = { ML, MLContext, MLGraph, MLGraphBuilder, MLOperand, MLTensor };

for (const [name, cls] of Object.entries(INTERFACES)) {
  Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: name, configurable: true });
}

// Returns a loader that instantiates the wasm module once, and again after a trap retired
// the previous instance. `importGlue(n)` imports the wasm-bindgen glue afresh for the n-th
// instance (a new module record, so a new memory) and resolves to its initialised exports.
function instanceLoader(importGlue) {
  let current = null;
  let count = 0;
  const fresh = () => {
    count += 1;
    const p = importGlue(count).then((mod) => new Instance(mod));
    p.catch(() => {
      if (current === p) current = null;
    });
    return p;
  };
  return async () => {
    current ??= fresh();
    let inst = await current;
    if (inst.retired) {
      current = fresh();
      inst = await current;
    }
    return inst;
  };
}

// Installs navigator.ml and the interface objects where the browser has no WebNN (or always,
// with force: true) and returns navigator.ml.
function installWebNN(global, importGlue, { force = false } = {}) {
  const nav = global.navigator;
  if (nav && 'ml' in nav && !force) return nav.ml;
  const ml = new ML(INTERNAL, instanceLoader(importGlue));
  for (const [name, cls] of Object.entries(INTERFACES)) {
    Object.defineProperty(global, name, { value: cls, writable: true, enumerable: false, configurable: true });
  }
  const navProto = nav ? Object.getPrototypeOf(nav) : null;
  if (navProto) {
    Object.defineProperty(navProto, 'ml', { get: () => ml, enumerable: true, configurable: true });
  }
  return ml;
}
