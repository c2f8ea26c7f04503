// The WebNN interface objects a page sees. They are shaped as WebIDL shapes native ones
// (prototypes carrying the methods and getters, illegal constructors, brand checks, promises
// that reject rather than throw) and hand every call to the wasm module (crates/webnn-web),
// which converts the arguments with the spec's rules and runs the graphs. The build prepends
// `OP_METHODS` (the builder operations and their lengths, from the op table and the IDL).

const OPERAND_KEY = '\u0000operand';
const BIGINT_KEY = '\u0000bigint';
const MAX_SEQUENCE = 1 << 16;
// Lets the polyfill construct objects whose interfaces have no public constructor.
const INTERNAL = Symbol('webnn-polyfill internal');

function illegalConstructor() {
  return new TypeError('Illegal constructor');
}

function operationError(message) {
  return new DOMException(message, 'OperationError');
}

// One loaded wasm instance. A Rust panic traps the instance and may leave its state
// half-changed, so it is retired: its objects report a lost context, the next
// createContext loads a fresh instance, and the page keeps working.
class Instance {
  constructor(mod) {
    this.mod = mod;
    this.retired = false;
    this.contexts = new Set();
  }

  // Runs a wasm call; a trap becomes an OperationError and retires the instance.
  call(fn) {
    if (this.retired) throw operationError('the context was lost after an internal error');
    try {
      return fn(this.mod);
    } catch (e) {
      throw this.fix(e);
    }
  }

  // Runs a wasm call that must not throw (the destroy methods): nothing on a retired
  // instance, and a trap retires the instance (its contexts report `lost`) without throwing.
  quiet(fn) {
    if (this.retired) return;
    try {
      fn(this.mod);
    } catch (e) {
      this.fix(e);
    }
  }

  async callAsync(fn) {
    if (this.retired) throw operationError('the context was lost after an internal error');
    try {
      return await fn(this.mod);
    } catch (e) {
      throw this.fix(e);
    }
  }

  fix(e) {
    if (e instanceof WebAssembly.RuntimeError) {
      this.retired = true;
      for (const w of this.mod.workers ?? []) w.terminate();
      for (const lose of this.contexts) lose('an internal error stopped the polyfill: ' + e.message);
      this.contexts.clear();
      return operationError('internal error (' + e.message + '); the polyfill recovers on the next createContext');
    }
    return e;
  }
}

// WebIDL-style conversion of an argument into JSON for the wasm side: numbers that JSON
// cannot hold and BigInts become the strings webnn-idl reads back, operands become marked
// pairs, sequences (arrays, typed arrays, iterables) become arrays, dictionaries become
// objects of their enumerable members (inherited ones included, undefined ones left out).
function wire(v, operandPair, depth = 0) {
  // WebIDL reads only declared members, and no WebNN argument nests deeper than a sequence
  // in a dictionary; this walk reads every member, so it drops what lies deeper (a cyclic
  // member, say), which a conversion would have ignored.
  if (depth > 8) return undefined;
  switch (typeof v) {
    case 'number':
      if (Number.isNaN(v)) return 'NaN';
      if (v === Infinity) return 'Infinity';
      if (v === -Infinity) return '-Infinity';
      if (Object.is(v, -0)) return '-0';
      return v;
    case 'bigint':
      // Marked, so a BigInt where a number is expected is the TypeError WebIDL throws.
      return { [BIGINT_KEY]: v.toString() };
    case 'string':
    case 'boolean':
      return v;
    case 'undefined':
      return undefined;
    case 'symbol':
      throw new TypeError('a Symbol cannot be converted');
    default:
      break;
  }
  if (v === null) return null;
  const pair = operandPair(v);
  if (pair) return { [OPERAND_KEY]: pair };
  if (Array.isArray(v) || ArrayBuffer.isView(v) || typeof v[Symbol.iterator] === 'function') {
    // Checked before copying: no WebNN argument takes a long sequence (a shape's rank, a
    // concat's inputs), and copying a huge one into JSON would exhaust the wasm memory.
    if (typeof v.length === 'number' && v.length > MAX_SEQUENCE) {
      throw new TypeError(`a sequence of ${v.length} entries is longer than any WebNN argument takes (${MAX_SEQUENCE})`);
    }
    return Array.from(v, (x) => {
      const w = wire(x, operandPair, depth + 1);
      return w === undefined ? null : w;
    });
  }
  const out = {};
  for (const k in v) {
    if (k === OPERAND_KEY) continue;
    const w = wire(v[k], operandPair, depth + 1);
    if (w !== undefined) out[k] = w;
  }
  return out;
}

function json(v) {
  return JSON.stringify(wire(v, operandPair) ?? null);
}

// The bytes of an AllowSharedBufferSource and the name of its type ('Float32Array',
// 'ArrayBuffer', ...), which decides the data types it may carry.
function bufferSource(v, what) {
  if (ArrayBuffer.isView(v)) {
    if (v.buffer.detached) throw new TypeError(what + ': the buffer is detached');
    const name = v instanceof DataView ? 'DataView' : v[Symbol.toStringTag];
    return { bytes: new Uint8Array(v.buffer, v.byteOffset, v.byteLength), view: name };
  }
  const shared = typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer;
  if (v instanceof ArrayBuffer || shared) {
    if (v.detached) throw new TypeError(what + ': the buffer is detached');
    return { bytes: new Uint8Array(v), view: shared ? 'SharedArrayBuffer' : 'ArrayBuffer' };
  }
  throw new TypeError(what + ': not an ArrayBuffer, SharedArrayBuffer or ArrayBufferView');
}

function requireArgs(args, n, what) {
  if (args.length < n) {
    throw new TypeError(`${what}: ${n} argument(s) required, but only ${args.length} present`);
  }
}

// A record<USVString, T>: own enumerable string keys.
function recordEntries(v, what) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
    throw new TypeError(what + ' is not an object');
  }
  return Object.keys(v).map((k) => [k, v[k]]);
}

let operandPair = () => null;
let operandOf = () => null;
let tensorOf = () => null;
let graphOf = () => null;
let contextOf = () => null;
let exportTensor = () => null;

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

class MLGraphBuilder {
  #inst;
  #raw;
  #context;

  constructor(context) {
    if (!new.target) throw new TypeError("Constructor MLGraphBuilder requires 'new'");
    requireArgs(arguments, 1, 'MLGraphBuilder');
    const c = contextOf(context);
    if (!c) throw new TypeError('MLGraphBuilder: the argument is not an MLContext');
    this.#inst = c.inst;
    this.#context = context;
    this.#raw = c.inst.call((mod) => new mod.WebBuilder(c.raw));
  }

  #self() {
    if (!(#raw in this)) throw new TypeError('Illegal invocation');
    return this;
  }

  #operands(infoJson) {
    return JSON.parse(infoJson).map((info) => new MLOperand(INTERNAL, this, info));
  }

  input(name, descriptor) {
    const b = this.#self();
    requireArgs(arguments, 2, 'input');
    const n = String(name);
    return b.#operands(b.#inst.call(() => b.#raw.input(n, json(descriptor))))[0];
  }

  // constant(descriptor, buffer), constant(dataType, value), constant(tensor): overloads
  // resolved as WebIDL does, by argument count and the first argument's type.
  constant(first, ...rest) {
    const args = [...arguments];
    const b = this.#self();
    requireArgs(args, 1, 'constant');
    if (args.length === 1) {
      const t = tensorOf(args[0]);
      if (!t) throw new TypeError('constant: the argument is not an MLTensor');
      if (t.inst !== b.#inst) throw new TypeError('constant: the tensor belongs to another context');
      return b.#operands(b.#inst.call(() => b.#raw.constantTensor(t.raw)))[0];
    }
    if (typeof args[0] === 'string') {
      return b.#operands(b.#inst.call(() => b.#raw.constantScalar(json(args[0]), json(args[1]))))[0];
    }
    const { bytes, view } = bufferSource(args[1], 'constant');
    return b.#operands(b.#inst.call(() => b.#raw.constant(json(args[0]), bytes, view)))[0];
  }

  async build(outputs) {
    const b = this.#self();
    requireArgs(arguments, 1, 'build');
    const named = {};
    for (const [name, o] of recordEntries(outputs, 'build: outputs')) {
      if (!operandOf(o)) throw new TypeError(`build: outputs['${name}'] is not an MLOperand`);
      named[name] = o;
    }
    const raw = await b.#inst.callAsync(() => b.#raw.build(json(named)));
    return new MLGraph(INTERNAL, b.#context, b.#inst, raw);
  }

  static {
    // Every operation of the op table, as a method of the prototype with the IDL's length.
    for (const [method, length, fewest, sequence] of OP_METHODS) {
      const fn = {
        [method](...args) {
          const b = this.#self();
          requireArgs(args, fewest, method);
          const given = [];
          args.forEach((a, i) => {
            const w = wire(a, operandPair);
            if (w !== undefined) given.push([i, w]);
          });
          const out = b.#operands(b.#inst.call(() => b.#raw.op(method, JSON.stringify(given))));
          return sequence ? out : out[0];
        },
      }[method];
      Object.defineProperty(fn, 'length', { value: length });
      Object.defineProperty(MLGraphBuilder.prototype, method, {
        value: fn,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }
}

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

// The smallest modules using what the faster builds need: f32x4.relaxed_madd (relaxed SIMD),
// and that plus a shared memory (threads). WebAssembly.validate on them tells whether the
// browser could load a build, without fetching it.
const probe = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const RELAXED_PROBE = probe(
  'AGFzbQEAAAABBAFgAAADAgEACj4BPAD9DAAAAAAAAAAAAAAAAAAAAAD9DAAAAAAAAAAAAAAAAAAAAAD9DAAAAAAAAAAAAAAAAAAAAAD9hQIaCw==',
);
const THREADS_PROBE = probe(
  'AGFzbQEAAAABBAFgAAADAgEABQQBAwEBCj4BPAD9DAAAAAAAAAAAAAAAAAAAAAD9DAAAAAAAAAAAAAAAAAAAAAD9DAAAAAAAAAAAAAAAAAAAAAD9hQIaCw==',
);

// The wasm builds, fastest first: [name, file stem]; only those the bundle ships (the
// build prepends `SHIPPED`, the stems it found in pkg-js/dist: the demo builds simd128 alone).
const BUILDS = [
  ['threads', 'webnn_web_mt'],
  ['relaxed-simd', 'webnn_web_relaxed'],
  ['simd128', 'webnn_web'],
].filter(([, stem]) => SHIPPED.includes(stem));

// The CPU thread count a page gets when it names none: one per core, at most 4 (MobileNet-
// sized ops stop scaling beyond that, and every worker spins between ops).
function defaultThreads(global) {
  return Math.min(4, global.navigator?.hardwareConcurrency || 1);
}

// Whether a build can run here. The threads build needs a cross-origin-isolated document
// (SharedArrayBuffer; a window, since workers start more workers poorly) and both features;
// it is also the relaxed-SIMD build, so it serves one thread too.
function buildUsable(global, name) {
  switch (name) {
    case 'threads':
      return (
        global.crossOriginIsolated === true &&
        typeof global.document !== 'undefined' &&
        typeof SharedArrayBuffer === 'function' &&
        WebAssembly.validate(THREADS_PROBE)
      );
    case 'relaxed-simd':
      return WebAssembly.validate(RELAXED_PROBE);
    default:
      return true;
  }
}

// A CPU worker: the threads build's glue and module on the page's shared memory, then the
// pool's worker loop, which returns only when the page goes (or at once if none is needed).
const CPU_WORKER = `self.onmessage = async ({ data }) => {
  try {
    const glue = await import(data.glue);
    await glue.default({ module_or_path: data.module, memory: data.memory });
    self.postMessage('ready');
    glue.cpuWorker();
  } catch (e) {
    self.postMessage('failed: ' + e);
  }
};`;

// Starts one CPU worker; `ready` settles when it serves the pool (true) or failed (false).
function startCpuWorker(glueUrl, module, memory) {
  const url = URL.createObjectURL(new Blob([CPU_WORKER], { type: 'text/javascript' }));
  const worker = new Worker(url, { type: 'module', name: 'webnn-cpu' });
  const ready = new Promise((resolve) => {
    worker.onmessage = ({ data }) => {
      URL.revokeObjectURL(url);
      // A worker that failed leaves its share to the caller: slower, never wrong.
      if (data !== 'ready') console.warn('webnn polyfill: a CPU worker did not start:', data);
      resolve(data === 'ready');
    };
    worker.onerror = (e) => {
      console.warn('webnn polyfill: a CPU worker did not start:', e.message);
      resolve(false);
    };
  });
  worker.postMessage({ glue: glueUrl, module, memory });
  return { worker, ready };
}

// Loads the n-th wasm instance from `base` (the folder of the glue and the .wasm files): the
// fastest build this page can run, or the one named by `build` ('threads', 'relaxed-simd',
// 'simd128'; an unusable one is an error), or the module at `wasmUrl` (with the simd128
// glue). The threads build starts its CPU workers. Each instance imports its glue afresh (a
// new module record, so a new memory) and resolves to the glue's exports plus `memory` and
// `workers`.
async function loadWasm(n, base, { threads, wasmUrl, build = 'auto' } = {}) {
  const global = globalThis;
  const wanted = Math.max(1, Math.floor(Number(threads ?? defaultThreads(global))) || 1);
  let choice = BUILDS.find(([name]) => build === 'auto' ? buildUsable(global, name) : name === build);
  if (wasmUrl) choice = BUILDS.find(([name]) => name === 'simd128');
  if (!choice) throw new TypeError(`unknown polyfill build '${build}' (threads, relaxed-simd, simd128)`);
  if (!wasmUrl && !buildUsable(global, choice[0])) {
    throw new TypeError(`the ${choice[0]} build cannot run in this page`);
  }
  const [name, stem] = choice;
  const glueUrl = new URL(`${stem}.js?instance=${n}`, base).href;
  if (name !== 'threads') {
    const glue = await import(glueUrl);
    const exports = await glue.default({ module_or_path: wasmUrl ?? new URL(`${stem}_bg.wasm`, base) });
    return Object.assign({}, glue, { memory: exports.memory, workers: [] });
  }
  const [glue, module] = await Promise.all([
    import(glueUrl),
    WebAssembly.compileStreaming(fetch(new URL(`${stem}_bg.wasm`, base))),
  ]);
  // The glue creates the shared memory (at the module's minimum size); workers get it.
  const { memory } = await glue.default({ module_or_path: module });
  const count = glue.cpuThreads(wanted);
  const started = Array.from({ length: count - 1 }, () => startCpuWorker(glueUrl, module, memory));
  // Wait for the workers here, while the page's event loop runs: a worker starts through
  // tasks of the thread that created it, so a page that dispatches in a loop of promise
  // continuations (no task in between) would otherwise keep its workers from ever starting.
  // A worker that has not started in 10 s is left to join later.
  const timeout = new Promise((resolve) => setTimeout(resolve, 10_000));
  await Promise.race([Promise.all(started.map((w) => w.ready)), timeout]);
  return Object.assign({}, glue, { memory, workers: started.map((w) => w.worker) });
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
