// ONNX Runtime Web's WebNN execution provider on this polyfill: each model runs once through
// `executionProviders: ['webnn']` (which builds an MLGraph with the polyfill's
// MLGraphBuilder) and once through ONNX Runtime Web's wasm execution provider, on the same
// inputs. The page counts the builder's op calls while the WebNN session is created, so the
// caller can tell that every node went to WebNN (no CPU fallback). The result is left in
// window.ortWebnnResult for `webnn-www ort-webnn`.

import { install } from '/pkg/webnn.mjs';
import { sampleInput } from '../shared/sample.js';
import { median, timedBlocks } from '../shared/timing.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const device = params.get('device') ?? 'cpu';
const runs = Number(params.get('runs') ?? 10);
const MODELS = ['mobilenetv2', 'encoder'];

// Promise rejections nobody handled, from the polyfill or ONNX Runtime: the test fails on any.
const unhandled = [];
addEventListener('unhandledrejection', (e) => unhandled.push(String(e.reason?.stack ?? e.reason)));

await install({ threads: 1 });

// Counts MLGraphBuilder's op calls and builds; installed once, read per session.
// Also times them: the builder's calls (ops and constants) and build() apart, so a slow
// session creation can be told from ONNX Runtime's own work.
const calls = {};
let builds = 0;
let builderMs = 0;
let buildMs = 0;
for (const name of Object.getOwnPropertyNames(MLGraphBuilder.prototype)) {
  const original = MLGraphBuilder.prototype[name];
  if (name === 'constructor' || typeof original !== 'function') continue;
  MLGraphBuilder.prototype[name] = function (...args) {
    if (name === 'build') builds++;
    else if (name !== 'input' && name !== 'constant') calls[name] = (calls[name] ?? 0) + 1;
    const t = performance.now();
    const r = original.apply(this, args);
    if (name !== 'build') builderMs += performance.now() - t;
    else r.finally(() => (buildMs += performance.now() - t)).catch(() => {});
    return r;
  };
}
const takeCounts = () => {
  const r = { builds, ops: { ...calls }, builderMs, buildMs };
  builds = builderMs = buildMs = 0;
  for (const k of Object.keys(calls)) delete calls[k];
  return r;
};

async function fetchJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} (scripts/test.sh writes the model files)`);
  return r.json();
}

// The model's inputs as [onnxName, dataType, shape, values].
function inputs(manifest) {
  if (manifest.input) {
    const { onnxName, shape } = manifest.input;
    return [[onnxName, 'float32', shape, sampleInput(shape.reduce((a, b) => a * b, 1))]];
  }
  return manifest.inputs.map((i) => [i.onnxName, i.dataType, i.shape, i.dataType === 'int32' ? Int32Array.from(i.data) : Float32Array.from(i.data)]);
}

const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const argMax = (a) => a.reduce((best, x, i) => (x > a[best] ? i : best), 0);

async function runModel(ort, name) {
  const dir = `../models/${name}/`;
  const manifest = await fetchJson(dir + 'manifest.json');
  const model = new Uint8Array(await (await fetch(dir + 'model.onnx')).arrayBuffer());
  const feeds = () => Object.fromEntries(inputs(manifest).map(([n, t, shape, v]) => [n, new ort.Tensor(t, v, shape)]));
  const result = { model: name, expectedOps: manifest.ops };
  const outputs = {};
  const sessions = {};
  for (const ep of ['webnn', 'wasm']) {
    takeCounts();
    const t0 = performance.now();
    const session = await ort.InferenceSession.create(model, {
      executionProviders: [ep === 'webnn' ? { name: 'webnn', deviceType: device } : 'wasm'],
    });
    const createMs = performance.now() - t0;
    const t1 = performance.now();
    const out = await session.run(feeds());
    const runMs = performance.now() - t1;
    outputs[ep] = Object.fromEntries(manifest.outputs.map((o) => [o.name, Float32Array.from(out[o.onnxName].data)]));
    sessions[ep] = session;
    result[ep] = { createMs, runMs, ...(ep === 'webnn' ? takeCounts() : {}) };
  }
  // Steady state: the same feeds again and again, as an application's loop runs them; for a
  // small model this is mostly the fixed cost of a run (tensor writes, dispatch, reads).
  const runners = ['webnn', 'wasm'].map((ep) => ({ ep, run: () => sessions[ep].run(feeds()) }));
  await timedBlocks(runners, runs);
  for (const r of runners) result[r.ep].steadyMs = median(r.times);
  for (const s of Object.values(sessions)) await s.release();
  result.maxAbsDiff = Object.fromEntries(manifest.outputs.map((o) => [o.name, maxAbsDiff(outputs.webnn[o.name], outputs.wasm[o.name])]));
  result.maxAbs = Object.fromEntries(manifest.outputs.map((o) => [o.name, outputs.wasm[o.name].reduce((m, x) => Math.max(m, Math.abs(x)), 0)]));
  if (manifest.input) result.top1 = manifest.outputs.map((o) => [argMax(outputs.webnn[o.name]), argMax(outputs.wasm[o.name])]);
  return result;
}

// The fixed cost of one dispatch as a framework pays it: a one-op graph (add of two
// 4-element float32 tensors), its input written, dispatched, its output read back, in a loop;
// the median over blocks of 100 iterations, in microseconds per iteration.
async function dispatchCost(context) {
  const builder = new MLGraphBuilder(context);
  const desc = { dataType: 'float32', shape: [4] };
  const a = builder.input('a', desc);
  const graph = await builder.build({ y: builder.add(a, builder.constant(desc, new Float32Array([1, 2, 3, 4]))) });
  const x = await context.createTensor({ ...desc, writable: true });
  const y = await context.createTensor({ ...desc, readable: true });
  const data = new Float32Array(4);
  const blocks = [];
  for (let b = 0; b < 11; b++) {
    const t = performance.now();
    for (let i = 0; i < 100; i++) {
      data[0] = i;
      context.writeTensor(x, data);
      context.dispatch(graph, { a: x }, { y });
      const out = new Float32Array(await context.readTensor(y));
      if (out[0] !== i + 1) throw new Error(`dispatch cost loop: read ${out[0]}, expected ${i + 1}`);
    }
    blocks.push(((performance.now() - t) * 1000) / 100);
  }
  for (const t of [x, y]) t.destroy();
  graph.destroy();
  return median(blocks.slice(1));
}

function show(results) {
  const rows = [['model', 'WebNN ops built', 'session (webnn / wasm)', 'first run (webnn / wasm)', `run, median of ${runs} (webnn / wasm)`, 'max |Δ|']].concat(results.map((r) => [
    r.model,
    `${Object.values(r.webnn.ops).reduce((a, b) => a + b, 0)} in ${r.webnn.builds} graph(s)`,
    `${r.webnn.createMs.toFixed(0)} / ${r.wasm.createMs.toFixed(0)} ms`,
    `${r.webnn.runMs.toFixed(1)} / ${r.wasm.runMs.toFixed(1)} ms`,
    `${r.webnn.steadyMs.toFixed(2)} / ${r.wasm.steadyMs.toFixed(2)} ms`,
    Object.entries(r.maxAbsDiff).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(', '),
  ]));
  $('results').innerHTML = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('');
}

async function main() {
  $('status').textContent = 'loading ONNX Runtime Web…';
  // The full bundle: the WebNN execution provider lives in its JSEP build.
  const ort = await import('/ort/ort.all.min.mjs');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = '/ort/';
  const results = [];
  for (const name of MODELS) {
    $('status').textContent = `running ${name}…`;
    results.push(await runModel(ort, name));
    show(results);
  }
  $('status').textContent = 'timing one-op dispatches…';
  const context = await navigator.ml.createContext({ deviceType: device });
  const dispatchUs = await dispatchCost(context);
  $('status').textContent = `done; a one-op graph's write + dispatch + read: ${dispatchUs.toFixed(1)} µs`;
  return { device, backend: context.backend, ortVersion: ort.env.versions?.web, results, dispatchUs, unhandled };
}

$('run').onclick = () => {
  location.search = `?device=${device}&runs=${runs}&auto`;
};
if (params.has('auto')) {
  main().then((r) => (window.ortWebnnResult = r), (e) => {
    $('status').textContent = String(e);
    window.ortWebnnResult = { error: String(e.stack ?? e), unhandled };
  });
}
