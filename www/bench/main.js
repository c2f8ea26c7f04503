// The CPU benchmark: MobileNetV2 on this polyfill's CPU context against ONNX Runtime Web's
// wasm backend, in one page at one thread count, in alternating blocks of runs so both see
// the same machine. The result is left in window.benchResult for `webnn-www bench`.
//
// Thread counts: ONNX Runtime Web reads ort.env.wasm.numThreads once, when its wasm starts,
// and the polyfill starts its workers once, at install; so one page load measures one count.

import { install } from '/pkg/webnn.mjs';
import { sampleInput } from '../shared/sample.js';
import { median, timedBlocks } from '../shared/timing.js';

const MODEL = '../models/mobilenetv2/';
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const threads = Number(params.get('threads') ?? 1);
const runs = Number(params.get('runs') ?? 30);
$('threads').value = threads;
$('runs').value = runs;

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} (run scripts/bench-web.sh, which writes the model files)`);
  return r.arrayBuffer();
}

// MobileNetV2 as webnn_models::mobilenet_v2 builds it, reading the constants in the order
// that builder created them (each conv: filter, then bias; then the classifier).
function buildMobileNetV2(builder, manifest, weights) {
  let next = 0;
  const constant = (shape) => {
    const c = manifest.constants[next++];
    if (!c || c.shape.join() !== shape.join()) {
      throw new Error(`constant ${next - 1}: expected shape [${shape}], the file has [${c?.shape}]`);
    }
    const n = shape.reduce((a, b) => a * b, 1);
    return builder.constant({ dataType: 'float32', shape }, new Float32Array(weights, c.offset, n));
  };
  let convs = 0;
  const conv = (x, out, k, stride, groups, linear) => {
    const inCh = x.shape[1];
    const filter = constant([out, inCh / groups, k, k]);
    const bias = constant([out]);
    convs++;
    const pad = Math.floor(k / 2);
    const y = builder.conv2d(x, filter, {
      padding: [pad, pad, pad, pad], strides: [stride, stride], groups, bias, label: `conv${convs}`,
    });
    return linear ? y : builder.clamp(y, { minValue: 0, maxValue: 6, label: `relu6_${convs}` });
  };
  const stages = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1]];
  const input = builder.input(manifest.input.name, { dataType: 'float32', shape: manifest.input.shape });
  let x = conv(input, 32, 3, 2, 1, false);
  for (const [t, c, n, s] of stages) {
    for (let i = 0; i < n; i++) {
      const inCh = x.shape[1];
      const stride = i === 0 ? s : 1;
      let y = x;
      if (t !== 1) y = conv(y, inCh * t, 1, 1, 1, false);
      y = conv(y, inCh * t, 3, stride, inCh * t, false);
      y = conv(y, c, 1, 1, 1, true);
      x = stride === 1 && inCh === c ? builder.add(x, y) : y;
    }
  }
  x = conv(x, 1280, 1, 1, 1, false);
  const flat = builder.reshape(builder.averagePool2d(x), [1, 1280]);
  const logits = builder.gemm(flat, constant([1000, 1280]), { c: constant([1000]), bTranspose: true, label: 'fc' });
  if (next !== manifest.constants.length) throw new Error('the model file has constants this page did not use');
  return { logits, probabilities: builder.softmax(logits, 1) };
}

const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const argMax = (a) => a.reduce((best, x, i) => (x > a[best] ? i : best), 0);

async function webnnRunner(manifest, weights, input) {
  const t0 = performance.now();
  const context = await navigator.ml.createContext({ deviceType: 'cpu' });
  const builder = new MLGraphBuilder(context);
  const outputs = buildMobileNetV2(builder, manifest, weights);
  const graph = await builder.build(outputs);
  const buildMs = performance.now() - t0;
  const tensor = (op, readable, writable) =>
    context.createTensor({ dataType: 'float32', shape: op.shape, readable, writable });
  const inT = await context.createTensor({ dataType: 'float32', shape: manifest.input.shape, writable: true });
  const logitsT = await tensor(outputs.logits, true, false);
  const probT = await tensor(outputs.probabilities, true, false);
  const run = async () => {
    context.writeTensor(inT, input);
    context.dispatch(graph, { [manifest.input.name]: inT }, { logits: logitsT, probabilities: probT });
    return {
      logits: new Float32Array(await context.readTensor(logitsT)),
      probabilities: new Float32Array(await context.readTensor(probT)),
    };
  };
  return { run, buildMs, device: `${context.backend ?? '?'}: ${context.deviceName ?? '?'}` };
}

async function ortRunner(manifest, model, input) {
  const ort = await import('/ort/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = '/ort/';
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
  const buildMs = performance.now() - t0;
  const feeds = () => ({ [manifest.input.onnxName]: new ort.Tensor('float32', input, manifest.input.shape) });
  const onnx = Object.fromEntries(manifest.outputs.map((o) => [o.name, o.onnxName]));
  const run = async () => {
    const r = await session.run(feeds());
    return { logits: r[onnx.logits].data, probabilities: r[onnx.probabilities].data };
  };
  return { run, buildMs, device: `onnxruntime-web ${ort.env.versions?.web ?? ''} wasm` };
}

function show(result) {
  const rows = [['', 'build', 'median', 'min', 'device']].concat(result.runners.map((r) => [
    r.name, `${r.buildMs.toFixed(0)} ms`, `${r.medianMs.toFixed(2)} ms`, `${r.minMs.toFixed(2)} ms`, r.device,
  ]));
  rows.push(['ratio webnn-rs / ORT Web', '', result.ratio.toFixed(3), '', '']);
  $('results').innerHTML = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('');
}

async function bench() {
  $('status').textContent = 'loading…';
  const manifest = await (await fetch(MODEL + 'manifest.json')).json();
  const [weights, model] = await Promise.all([fetchBytes(MODEL + manifest.weights), fetchBytes(MODEL + 'model.onnx')]);
  const input = sampleInput(manifest.input.shape.reduce((a, b) => a * b, 1));
  const runners = [
    { name: 'webnn-rs', ...(await webnnRunner(manifest, weights, input)) },
    { name: 'onnxruntime-web', ...(await ortRunner(manifest, new Uint8Array(model), input)) },
  ];
  const outputs = [];
  for (const r of runners) {
    outputs.push(await r.run()); // warm-up, and the outputs compared below
  }
  await timedBlocks(runners, runs, (done, total) => { $('progress').value = done / total; });
  for (const r of runners) {
    r.medianMs = median(r.times);
    r.minMs = Math.min(...r.times);
    delete r.run;
  }
  const [a, b] = outputs;
  const result = {
    threads, runs, crossOriginIsolated, runners,
    cpuWorkers: await navigator.ml[Symbol.for('webnn-rs.testing')]('cpu-workers'),
    ratio: runners[0].medianMs / runners[1].medianMs,
    logitsMaxDiff: maxAbsDiff(a.logits, b.logits),
    probabilitiesMaxDiff: maxAbsDiff(a.probabilities, b.probabilities),
    top1: [argMax(a.probabilities), argMax(b.probabilities)],
  };
  show(result);
  $('status').textContent = `max |Δ| logits ${result.logitsMaxDiff.toExponential(2)}`;
  return result;
}

await install({ threads });
$('run').onclick = () => {
  location.search = `?threads=${$('threads').value}&runs=${$('runs').value}&auto`;
};
if (params.has('auto')) {
  bench().then((r) => (window.benchResult = r), (e) => {
    $('status').textContent = String(e);
    window.benchResult = { error: String(e.stack ?? e) };
  });
}
