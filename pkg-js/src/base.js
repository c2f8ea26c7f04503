// The WebNN interface objects a page sees (this file and the ones after it in
// scripts/web/bundle.mjs's PARTS). They are shaped as WebIDL shapes native ones
// (prototypes carrying the methods and getters, illegal constructors, brand checks, promises
// that reject rather than throw) and hand every call to the wasm module (crates/webnn-web),
// which converts the arguments with the spec's rules and runs the graphs. The build prepends
// `OP_METHODS` (the builder operations and their lengths, from the op table and the IDL).
//
// This file: argument conversion for the wasm side (`wire`, `json`, buffer sources), the
// loaded wasm instance (`Instance`), and the accessors the interfaces share.

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
