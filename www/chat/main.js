// The chat page: downloads the GGUF (with progress), opens it with webnn-llm-web (file reader
// and tokenizer), builds the decoder through the polyfill's MLGraphBuilder (smollm.js), and
// streams greedy tokens. `auto` runs the prompt from the address and leaves the result in
// window.chatResult for `webnn-www chat`, which compares it with the native decoder's.
// `?cache=f16` keeps the key/value caches in float16 (float32 by default).

import { install } from '/pkg/webnn.mjs';
import init, { ModelFile } from './pkg/webnn_llm_web.js';
import { Session } from './smollm.js';

const MODEL = '/llm/SmolLM2-135M-Instruct.Q4_1.gguf';
const CAPACITY = 512;
const MAX_SEQ = 64;
// Decode steps dispatched ahead of the token the page reads (?lag=N; 0: read each token
// before the next step).
const LAG = Number(new URLSearchParams(location.search).get('lag') ?? 4);
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const device = params.get('device') ?? 'cpu';
const CACHES = { f32: 'float32', f16: 'float16' };
const cache = CACHES[params.get('cache') ?? 'f32'];
$('device').value = device;
$('device').onchange = () => {
  params.set('device', $('device').value);
  location.search = params.toString();
};
if (params.has('prompt')) $('prompt').value = params.get('prompt');
if (params.has('tokens')) $('tokens').value = params.get('tokens');
const status = (text) => { $('status').textContent = text; };

async function download(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} (scripts/llm-setup.sh installs the model; webnn-www serves it)`);
  const size = Number(r.headers.get('content-length')) || 0;
  const bytes = new Uint8Array(size);
  const parts = [];
  let got = 0;
  const reader = r.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (got + value.length <= size) bytes.set(value, got);
    else parts.push(value);
    got += value.length;
    $('progress').value = size ? got / size : 0;
    status(`downloading the model: ${(got / 1e6).toFixed(1)} of ${(size / 1e6).toFixed(1)} MB`);
  }
  if (got === size) return bytes;
  // No or wrong length header: join what came.
  const all = new Uint8Array(got);
  let at = 0;
  for (const p of [bytes.subarray(0, Math.min(size, got)), ...parts]) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

async function load() {
  if (!cache) throw new TypeError(`?cache takes f32 or f16, not ${params.get('cache')}`);
  // ?threads=N and ?build=simd128|relaxed-simd|threads pick the CPU threads and wasm build
  // (default: the fastest usable build, one thread per core).
  await install({ threads: params.has('threads') ? Number(params.get('threads')) : undefined, build: params.get('build') ?? undefined });
  await init();
  const bytes = await download(MODEL);
  status('building the graph…');
  const t0 = performance.now();
  const file = new ModelFile(bytes);
  const config = { ...JSON.parse(file.config(CAPACITY, MAX_SEQ)), cache };
  const tokenizer = file.tokenizer();
  // 'gpu' names the WebGPU backend outright: the page shows the WGSL path even where the only
  // adapter is a software one (there `deviceType: 'gpu'` alone runs on the CPU).
  const context = await navigator.ml.createContext(device === 'gpu' ? { deviceType: 'gpu', backend: 'webgpu' } : { deviceType: device });
  const session = await Session.create(context, file, config);
  file.free();
  const buildMs = performance.now() - t0;
  status(`ready: ${context.deviceName ?? device}, ${config.layers} layers, ${cache} caches, graph built in ${(buildMs / 1e3).toFixed(1)} s`);
  return { tokenizer, session, context, buildMs };
}

async function answer({ tokenizer, session, context }, question, limit) {
  session.past = 0;
  const prompt = Array.from(tokenizer.encode(tokenizer.chatPrompt(question)));
  $('answer').textContent = '';
  const t0 = performance.now();
  let ttftMs = 0;
  let t1 = 0;
  const tokens = [];
  // The tokens stay on the device between steps (Session.generate); the page reads each a
  // few steps late and shows it.
  for await (const next of session.generate(prompt, limit, LAG)) {
    if (tokens.length === 0) {
      ttftMs = performance.now() - t0;
      t1 = performance.now();
    }
    tokens.push(next);
    if (next === tokenizer.eos) break;
    $('answer').textContent += tokenizer.push(next);
    // Let the page paint the text.
    await new Promise((r) => setTimeout(r, 0));
  }
  $('answer').textContent += tokenizer.finish();
  const decodeS = (performance.now() - t1) / 1e3;
  // Tokens after the first, over the time after it.
  const tokensPerSecond = (tokens.length - 1) / decodeS;
  $('stats').textContent = `${context.deviceName ?? device}: first token after ${ttftMs.toFixed(0)} ms (${prompt.length}-token prompt), ` +
    `${tokens.length} tokens at ${tokensPerSecond.toFixed(1)} tokens/s`;
  return { prompt, tokens, text: tokenizer.decode(tokens), ttftMs, tokensPerSecond };
}

try {
  const model = await load();
  $('send').disabled = false;
  $('send').onclick = async () => {
    $('send').disabled = true;
    try {
      await answer(model, $('prompt').value, Number($('tokens').value));
    } catch (e) {
      status(`${e.name}: ${e.message}`);
    }
    $('send').disabled = false;
  };
  if (params.has('auto')) {
    const r = await answer(model, $('prompt').value, Number($('tokens').value));
    window.chatResult = { ...r, device: model.context.deviceName ?? device, cache, buildMs: model.buildMs };
  }
} catch (e) {
  status(`${e.name}: ${e.message}`);
  window.chatResult = { error: `${e.name}: ${e.message}` };
}
