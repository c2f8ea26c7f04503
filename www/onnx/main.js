// loadOnnx against ONNX Runtime Web on the same ONNX files, at one thread count per page
// load (both runtimes fix their thread count when their wasm starts). For each runtime:
// bytes downloaded (its scripts and wasm, then each model file), time to the first result
// (loading the runtime, fetching the model, building the session or graph, one run), the
// steady-state latency (median of runs in alternating blocks) and the largest difference
// between the two runtimes' outputs. The result is left in window.onnxResult for
// `webnn-www onnx`.
//
// Both runtimes are imported dynamically, the polyfill first, so each cold start is timed;
// ONNX Runtime then starts in a browser whose caches the polyfill warmed (not its files).

import { sampleInput } from '../shared/sample.js';
import { median, timedBlocks } from '../shared/timing.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const threads = Number(params.get('threads') ?? 1);
const runs = Number(params.get('runs') ?? 20);
$('threads').value = threads;
$('runs').value = runs;

// Models written by this project's ONNX exporter (scripts/test.sh writes them) and models
// from packages (scripts/onnx-setup.sh: PP-OCR's, and the `onnx` package's full-size test
// networks with generated weights), each with the input shapes the page gives it and how
// closely the two runtimes' outputs must agree (relative to the largest output).
const MODELS = [
  { name: 'mobilenetv2', url: '../models/mobilenetv2/model.onnx', manifest: '../models/mobilenetv2/manifest.json' },
  // float16 outputs: the runtimes round differently inside (ONNX Runtime casts to float32
  // around its kernels), so they agree within a few float16 ULPs of the largest output.
  { name: 'mobilenetv2-f16', url: '../models/mobilenetv2-f16/model.onnx', tolerance: 1e-2 },
  // ONNX Runtime's static quantizer over the float32 file (scripts/quantize-onnx.py): both
  // runtimes compute its float32 graph to within float32 rounding, but a sum that lands on the
  // other side of a quantization step moves by a whole step (the output's is about 0.06) and
  // carries on through the layers after it, so they agree within a few steps of the logits.
  { name: 'mobilenetv2-qdq', url: '../models/mobilenetv2-qdq/model.onnx', tolerance: 0.05 },
  // EfficientNet-Lite0 with its ImageNet weights, and the samples' style transfer network at
  // 256 x 256 (seeded weights), with their normalizations as ONNX's own ops (the example
  // page_exports of webnn-onnx).
  { name: 'efficientnet-lite0', url: '../models/efficientnet-lite0-onnx/model.onnx' },
  { name: 'style transfer 256', url: '../models/style-transfer/model.onnx' },
  { name: 'resnet50 (onnx light)', url: '/onnx-models/onnx/backend/test/data/light/light_resnet50.onnx' },
  { name: 'squeezenet (onnx light)', url: '/onnx-models/onnx/backend/test/data/light/light_squeezenet.onnx' },
  { name: 'encoder', url: '../models/encoder/model.onnx', manifest: '../models/encoder/manifest.json' },
  { name: 'ppocr-det', url: '/onnx-models/rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx', shapes: { x: [1, 3, 160, 160] } },
  { name: 'ppocr-cls', url: '/onnx-models/rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx', shapes: { x: [1, 3, 48, 192] } },
];

const unhandled = [];
addEventListener('unhandledrejection', (e) => unhandled.push(String(e.reason?.stack ?? e.reason)));

const size = (shape) => shape.reduce((a, b) => a * b, 1);

// float16 as its bits (a Uint16Array, which both runtimes take): rounded to nearest even
// through a Float32Array view, subnormals and overflow included.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function toHalf(x) {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let m = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    if (rest > half || (rest === half && (m & 1))) m++;
    return sign | m;
  }
  let m = mant >>> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (m & 1))) m++;
  return sign + (e << 10) + m;
}
function fromHalf(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}
/** An output's values as numbers, float16 bits decoded. */
const numbers = (data, dataType) => (dataType === 'float16' && data instanceof Uint16Array ? Array.from(data, fromHalf) : Array.from(data, Number));
const ARRAYS = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, float16: Uint16Array, uint8: Uint8Array };

/** Bytes fetched so far whose URL passes `pick` (the server sends no compression). */
const bytesFetched = (pick) => performance.getEntriesByType('resource')
  .filter((e) => pick(new URL(e.name).pathname))
  .reduce((n, e) => n + (e.encodedBodySize || e.transferSize || 0), 0);

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status} (scripts/test.sh writes this project's models; scripts/onnx-setup.sh installs the packages')`);
  return new Uint8Array(await r.arrayBuffer());
}

/** Each input's values: the manifest's where it has them, else the deterministic sample. */
async function inputValues(m, descriptors) {
  const manifest = m.manifest ? await (await fetch(m.manifest)).json() : null;
  const given = Object.fromEntries((manifest?.inputs ?? []).map((i) => [i.onnxName, i.data]));
  return Object.fromEntries(Object.entries(descriptors).map(([name, d]) => {
    const Array_ = ARRAYS[d.dataType];
    if (!Array_) throw new Error(`${m.name}: input ${name} is ${d.dataType}, which the page does not fill`);
    const data = given[name] ?? sampleInput(size(d.shape));
    if (d.dataType === 'float16') return [name, Uint16Array.from(data, toHalf)];
    return [name, Array_ === BigInt64Array ? BigInt64Array.from(data, (x) => BigInt(Math.round(x))) : Array_.from(data)];
  }));
}

async function webnnRunner(m, loadOnnx, context) {
  const model = await fetchBytes(m.url);
  const { graph, inputs, outputs } = await loadOnnx(model, context, { shapes: m.shapes });
  const values = await inputValues(m, inputs);
  const tensors = {};
  for (const [name, d] of Object.entries(inputs)) tensors[name] = await context.createTensor({ ...d, writable: true });
  const results = {};
  for (const [name, d] of Object.entries(outputs)) results[name] = await context.createTensor({ ...d, readable: true });
  const run = async () => {
    for (const [name, t] of Object.entries(tensors)) context.writeTensor(t, values[name]);
    context.dispatch(graph, tensors, results);
    const out = {};
    for (const [name, t] of Object.entries(results)) {
      const type = outputs[name].dataType;
      out[name] = numbers(new (ARRAYS[type] ?? Float32Array)(await context.readTensor(t)), type);
    }
    return out;
  };
  return { run, inputs, values, modelBytes: model.byteLength };
}

async function ortRunner(m, ort, inputs, values) {
  const model = await fetchBytes(m.url);
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const feeds = () => Object.fromEntries(Object.entries(inputs).map(([n, d]) => [n, new ort.Tensor(d.dataType, values[n], d.shape)]));
  const run = async () => {
    const r = await session.run(feeds());
    return Object.fromEntries(Object.entries(r).map(([n, t]) => [n, numbers(t.data, t.type)]));
  };
  return { run, modelBytes: model.byteLength };
}

function show(rows) {
  const head = ['model', 'runtime', 'runtime bytes', 'model bytes', 'first result', 'steady (median)', 'max |Δ| / max |out|'];
  $('results').innerHTML = [head].concat(rows.flatMap((r) => [
    [r.model, 'loadOnnx + webnn-rs', r.webnn.runtimeBytes, r.webnn.modelBytes, `${r.webnn.firstMs.toFixed(0)} ms`, `${r.webnn.medianMs.toFixed(2)} ms`, `${r.maxDiff.toExponential(1)} / ${r.maxAbs.toFixed(2)}`],
    ['', 'onnxruntime-web wasm', r.ort.runtimeBytes, r.ort.modelBytes, `${r.ort.firstMs.toFixed(0)} ms`, `${r.ort.medianMs.toFixed(2)} ms`, ''],
  ])).map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('');
}

async function main() {
  const rows = [];
  // The polyfill: its script, the wasm build it picks, then loadOnnx's module and wasm.
  let t0 = performance.now();
  const { install } = await import('/pkg/webnn.mjs');
  await install({ threads });
  const { loadOnnx } = await import('/pkg/webnn-onnx.mjs');
  const context = await navigator.ml.createContext({ deviceType: 'cpu' });
  let webnnStart = performance.now() - t0;
  // ONNX Runtime Web's wasm build: its script now, its wasm with the first session.
  t0 = performance.now();
  const ort = await import('/ort/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = '/ort/';
  let ortStart = performance.now() - t0;
  for (const m of MODELS) {
    $('status').textContent = `${m.name}…`;
    t0 = performance.now();
    const webnn = await webnnRunner(m, loadOnnx, context);
    const first = [await webnn.run()];
    webnn.firstMs = webnnStart + performance.now() - t0;
    t0 = performance.now();
    const onnx = await ortRunner(m, ort, webnn.inputs, webnn.values);
    first.push(await onnx.run());
    onnx.firstMs = ortStart + performance.now() - t0;
    // Later models find each runtime loaded.
    webnnStart = ortStart = 0;
    await timedBlocks([webnn, onnx], runs);
    let maxDiff = 0;
    let maxAbs = 0;
    for (const [name, a] of Object.entries(first[0])) {
      const b = first[1][name];
      if (!b || b.length !== a.length) throw new Error(`${m.name}: output ${name} is missing or of another size in ONNX Runtime's results`);
      a.forEach((x, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(x - b[i]));
        maxAbs = Math.max(maxAbs, Math.abs(b[i]));
      });
    }
    const stats = (r) => ({ firstMs: r.firstMs, medianMs: median(r.times), modelBytes: r.modelBytes });
    rows.push({ model: m.name, webnn: stats(webnn), ort: stats(onnx), maxDiff, maxAbs, tolerance: m.tolerance ?? 1e-4 });
    show(rows);
  }
  for (const r of rows) {
    r.webnn.runtimeBytes = bytesFetched((p) => p.startsWith('/pkg/'));
    r.ort.runtimeBytes = bytesFetched((p) => p.startsWith('/ort/'));
  }
  show(rows);
  const files = Object.fromEntries(performance.getEntriesByType('resource')
    .map((e) => [new URL(e.name).pathname, e.encodedBodySize || e.transferSize || 0])
    .filter(([p]) => p.startsWith('/pkg/') || p.startsWith('/ort/')));
  // Bytes that are not a model: the importer's error, as the DOMException the spec names.
  const refused = await loadOnnx(new Uint8Array([8, 1, 255]), context).then(() => 'accepted', (e) => `${e.constructor.name} ${e.name}: ${e.message}`);
  $('status').textContent = 'done';
  return { threads, runs, crossOriginIsolated, backend: context.backend, ortVersion: ort.env.versions?.web, rows, files, refused, unhandled };
}

$('run').onclick = () => {
  location.search = `?threads=${$('threads').value}&runs=${$('runs').value}&auto`;
};
if (params.has('auto')) {
  main().then((r) => (window.onnxResult = r), (e) => {
    $('status').textContent = String(e);
    window.onnxResult = { error: String(e.stack ?? e), unhandled };
  });
}
