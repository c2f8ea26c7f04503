// The fuzzer's page (crates/webnn-fuzz/src/page.rs drives it): each case arrives as a
// program of MLGraphBuilder calls (webnn_idl::emit) with two sets of input values. The page
// builds it through navigator.ml and runs it as a storm: write A, dispatch, read every output
// (not awaited), write B, dispatch, read again, so each read must return what the dispatch
// before it computed. Every fourth case then destroys its first output tensor while its reads
// may still be pending: those must settle with the results or an InvalidStateError, never hang.
// The fuzzer compares the results with the reference interpreter's.

import { install } from '/pkg/webnn.mjs';
import { buildCalls } from '/pkg/webnn-onnx.mjs';

const params = new URLSearchParams(location.search);
const device = params.get('device') ?? 'cpu';
const unhandled = [];
addEventListener('unhandledrejection', (e) => unhandled.push(String(e.reason?.stack ?? e.reason)));

const ARRAYS = {
  float32: Float32Array, float16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array,
  int4: Uint8Array, uint4: Uint8Array,
};
const fromB64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
function toB64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
// A view of the descriptor's type over the bytes (what pages pass to writeTensor).
const view = (dataType, bytes) => {
  const A = ARRAYS[dataType];
  const copy = bytes.slice();
  return new A(copy.buffer, 0, copy.byteLength / A.BYTES_PER_ELEMENT);
};
const failure = (e) => ({ error: `${e?.name ?? 'Error'}: ${e?.message ?? e}` });

async function runCase(context, c, index) {
  let built;
  try {
    built = await buildCalls(context, c.program, fromB64(c.constants));
  } catch (e) {
    return { stage: 'build', ...failure(e) };
  }
  const { graph, named } = built;
  const tensors = [];
  try {
    const inputs = {};
    for (const f of c.feeds) {
      inputs[f.name] = await context.createTensor({ dataType: f.dataType, shape: f.shape, writable: true });
      tensors.push(inputs[f.name]);
    }
    const outputs = {};
    for (const [name, op] of Object.entries(named)) {
      outputs[name] = await context.createTensor({ dataType: op.dataType, shape: op.shape, readable: true });
      tensors.push(outputs[name]);
    }
    const round = (key) => {
      for (const f of c.feeds) context.writeTensor(inputs[f.name], view(f.dataType, fromB64(f[key])));
      context.dispatch(graph, inputs, outputs);
      return Object.entries(outputs).map(([name, t]) => context.readTensor(t).then(
        (b) => [name, toB64(new Uint8Array(b))],
        (e) => [name, failure(e)],
      ));
    };
    const a = round('a');
    const b = round('b');
    let destroyed = null;
    if (index % 4 === 3) {
      destroyed = Object.keys(outputs)[0];
      outputs[destroyed].destroy();
    }
    const settle = async (reads) => Object.fromEntries(await Promise.all(reads));
    return { a: await settle(a), b: await settle(b), destroyed };
  } catch (e) {
    return { stage: 'run', ...failure(e) };
  } finally {
    for (const t of tensors) t.destroy();
    graph.destroy();
  }
}

async function start() {
  await install({ build: params.get('build') ?? 'auto' });
  const options = device === 'webgpu' ? { backend: 'webgpu' } : { deviceType: 'cpu' };
  const context = await navigator.ml.createContext(options);
  window.fuzzBatch = async (cases, first) => {
    const results = [];
    for (let i = 0; i < cases.length; i++) results.push(await runCase(context, cases[i], first + i));
    // The polyfill's wasm memory after the batch (its testing hook; a native WebNN has none).
    const hook = navigator.ml[Symbol.for('webnn-rs.testing')];
    const memory = typeof hook === 'function' ? await hook.call(navigator.ml, 'memory') : null;
    return { results, unhandled: unhandled.splice(0), memory };
  };
  document.getElementById('status').textContent = `ready: ${context.backend} (${context.deviceName})`;
  return { backend: context.backend, deviceName: context.deviceName };
}

start().then((r) => (window.fuzzReady = r), (e) => (window.fuzzReady = { error: String(e.stack ?? e) }));
