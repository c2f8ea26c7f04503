// EfficientNet-Lite0 through the WebNN API, as a page would write it: fetch the weights,
// build the graph with MLGraphBuilder, compute, show the five most probable classes.
// Query parameters (?device=cpu&layout=nhwc&sample=coffee&auto) preselect and run; the
// result is left in window.demoResult for scripts/demo.sh.

const MODEL = '../models/efficientnet-lite0/';
const $ = (id) => document.getElementById(id);
const SIZE = 224;

async function fetchWithProgress(url, onProgress) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} (run scripts/models.sh)`);
  const total = Number(response.headers.get('Content-Length')) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    if (total) onProgress(received / total);
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes.buffer;
}

// TensorFlow "SAME" padding of one axis: [before, after].
function samePadding(n, kernel, stride) {
  const out = Math.ceil(n / stride);
  const total = Math.max((out - 1) * stride + kernel - n, 0);
  return [Math.floor(total / 2), total - Math.floor(total / 2)];
}

// OIHW float32 data with its axes reordered: output axis i is OIHW axis perm[i].
function permute(data, shape, perm) {
  const strides = [shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1];
  const dims = perm.map((a) => shape[a]);
  const out = new Float32Array(data.length);
  let k = 0;
  for (let a = 0; a < dims[0]; a++)
    for (let b = 0; b < dims[1]; b++)
      for (let c = 0; c < dims[2]; c++)
        for (let d = 0; d < dims[3]; d++) {
          const idx = [a, b, c, d];
          let src = 0;
          for (let i = 0; i < 4; i++) src += idx[i] * strides[perm[i]];
          out[k++] = data[src];
        }
  return { data: out, shape: dims };
}

function buildGraph(builder, manifest, weights, layout) {
  const tensor = (name) => {
    const t = manifest.tensors[name];
    const n = t.shape.reduce((a, b) => a * b, 1);
    return { data: new Float32Array(weights, t.offset, n), shape: t.shape };
  };
  const constant = ({ data, shape }) => builder.constant({ dataType: 'float32', shape }, data);
  const nhwc = layout === 'nhwc';
  let size = SIZE;
  const conv = (x, name, stride, linear) => {
    const w = tensor(`${name}.weight`);
    const inChannels = x.shape[nhwc ? 3 : 1];
    const depthwise = w.shape[1] === 1 && w.shape[0] === inChannels && inChannels > 1;
    let filter = w;
    let filterLayout = 'oihw';
    if (nhwc) {
      filterLayout = depthwise ? 'ihwo' : 'ohwi';
      filter = permute(w.data, w.shape, depthwise ? [1, 2, 3, 0] : [0, 2, 3, 1]);
    }
    const [before, after] = samePadding(size, w.shape[2], stride);
    size = Math.ceil(size / stride);
    const y = builder.conv2d(x, constant(filter), {
      padding: [before, after, before, after],
      strides: [stride, stride],
      groups: depthwise ? inChannels : 1,
      inputLayout: layout,
      filterLayout,
      bias: constant(tensor(`${name}.bias`)),
      label: name,
    });
    return linear ? y : builder.clamp(y, { minValue: 0, maxValue: 6, label: `${name}.relu6` });
  };
  const shape = nhwc ? [1, SIZE, SIZE, 3] : [1, 3, SIZE, SIZE];
  const input = builder.input('input', { dataType: 'float32', shape });
  let x = conv(input, '_conv_stem', 2, false);
  manifest.blocks.forEach((b, i) => {
    const p = `_blocks.${i}`;
    let y = x;
    if (b.expand !== 1) y = conv(y, `${p}._expand_conv`, 1, false);
    y = conv(y, `${p}._depthwise_conv`, b.stride, false);
    y = conv(y, `${p}._project_conv`, 1, true);
    x = b.stride === 1 && b.in === b.out ? builder.add(x, y, { label: `${p}.add` }) : y;
  });
  x = conv(x, '_conv_head', 1, false);
  const pooled = builder.averagePool2d(x, { layout });
  const fc = tensor('_fc.weight');
  const flat = builder.reshape(pooled, [1, fc.shape[1]]);
  const logits = builder.gemm(flat, constant(fc), { c: constant(tensor('_fc.bias')), bTranspose: true });
  return { probabilities: builder.softmax(logits, 1) };
}

// The picture's centred square of 7/8 of the shorter side scaled to 224x224 (the ImageNet
// evaluation crop), as (x - 127) / 128 in the layout's order.
function pixels(image, crop, layout) {
  const ctx = $('canvas').getContext('2d');
  const side = crop ? crop[2] : (Math.min(image.width, image.height) * 7) / 8;
  const x0 = crop ? crop[0] : (image.width - side) / 2;
  const y0 = crop ? crop[1] : (image.height - side) / 2;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image, x0, y0, side, side, 0, 0, SIZE, SIZE);
  const rgba = ctx.getImageData(0, 0, SIZE, SIZE).data;
  const out = new Float32Array(3 * SIZE * SIZE);
  for (let p = 0; p < SIZE * SIZE; p++) {
    for (let c = 0; c < 3; c++) {
      const v = (rgba[p * 4 + c] - 127) / 128;
      out[layout === 'nhwc' ? p * 3 + c : c * SIZE * SIZE + p] = v;
    }
  }
  return out;
}

let loaded = null;
async function load() {
  if (loaded) return loaded;
  $('status').textContent = 'loading the weights…';
  const manifest = await (await fetch(MODEL + 'manifest.json')).json();
  const labels = await (await fetch(MODEL + 'labels.json')).json();
  const weights = await fetchWithProgress(MODEL + manifest.weights, (f) => ($('progress').value = f));
  $('progress').value = 1;
  $('status').textContent = '';
  loaded = { manifest, labels, weights };
  return loaded;
}

async function image() {
  const file = $('file').files[0];
  const img = new Image();
  img.src = file ? URL.createObjectURL(file) : MODEL + loaded.manifest.samples[$('sample').value].png;
  await img.decode();
  return { img, crop: file ? null : loaded.manifest.samples[$('sample').value].crop };
}

async function classify() {
  const device = $('device').value;
  const layout = $('layout').value;
  $('status').textContent = '';
  const { manifest, labels, weights } = await load();
  const { img, crop } = await image();
  // 'gpu' names the WebGPU backend outright: the page shows the WGSL path even where the only
  // adapter is a software one (there `deviceType: 'gpu'` alone runs on the CPU).
  const context = await navigator.ml.createContext(device === 'gpu' ? { deviceType: 'gpu', backend: 'webgpu' } : { deviceType: device });
  const t0 = performance.now();
  const builder = new MLGraphBuilder(context);
  const outputs = buildGraph(builder, manifest, weights, layout);
  const graph = await builder.build(outputs);
  const buildMs = performance.now() - t0;
  const input = await context.createTensor({ dataType: 'float32', shape: layout === 'nhwc' ? [1, SIZE, SIZE, 3] : [1, 3, SIZE, SIZE], writable: true });
  const output = await context.createTensor({ dataType: 'float32', shape: [1, 1000], readable: true });
  const data = pixels(img, crop, layout);
  // The first run includes one-time work (the wasm engine's optimising tier, buffers), so
  // the figure is the median of the runs after it: about a second of them, so that a fast
  // backend's figure is not one noisy sample, and at least one (a software WebGPU adapter
  // takes seconds per run).
  const times = [];
  let probabilities;
  const start = performance.now();
  while (times.length < 2 || (times.length < 21 && performance.now() - start < 1000)) {
    const t = performance.now();
    context.writeTensor(input, data);
    context.dispatch(graph, { input }, { probabilities: output });
    probabilities = new Float32Array(await context.readTensor(output));
    times.push(performance.now() - t);
  }
  const later = times.slice(1).sort((a, b) => a - b);
  const inferenceMs = later[later.length >> 1];
  const top5 = [...probabilities].map((p, i) => [i, p]).sort((a, b) => b[1] - a[1]).slice(0, 5)
    .map(([i, p]) => ({ label: labels[i], probability: p }));
  $('top5').innerHTML = '<tr><th>class</th><th>probability</th><th></th></tr>' + top5.map((t) =>
    `<tr><td>${t.label}</td><td>${t.probability.toFixed(3)}</td><td><div class="bar" style="width:${Math.round(t.probability * 200)}px"></div></td></tr>`).join('');
  $('timing').textContent = `${context.backend === 'webgpu' ? 'WebGPU' : 'CPU'} (${layout.toUpperCase()}, ${context.deviceName}): build ${buildMs.toFixed(0)} ms, ` +
    `inference ${inferenceMs.toFixed(1)} ms (median of ${later.length} runs; first run ${times[0].toFixed(0)} ms)`;
  window.demoResult = { device, backend: context.backend, deviceName: context.deviceName, accelerated: context.accelerated, layout, buildMs, inferenceMs, runs: times.length, firstRunMs: times[0], top5 };
  graph.destroy();
  context.destroy();
}

const params = new URLSearchParams(location.search);
for (const k of ['device', 'layout', 'sample']) if (params.has(k)) $(k).value = params.get(k);
$('run').onclick = () => classify().catch(showError);
function showError(e) {
  $('status').innerHTML = `<span class="err">${e.name}: ${e.message}</span>`;
  window.demoResult = { error: `${e.name}: ${e.message}` };
}
if (params.has('auto')) classify().catch(showError);
