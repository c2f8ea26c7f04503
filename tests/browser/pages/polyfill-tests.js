// The polyfill's own tests, in a page as users meet it. The driver (webnn-www's polyfill test)
// passes the IDL's interfaces and collects `window.polyfillResults`.

const results = [];
const log = document.getElementById('log');
const tests = [];
// `needs` names what the browser must have for the test to mean anything (one or a list):
// 'webgpu' (an adapter), 'threads' (the threads build: a cross-origin-isolated page, two
// cores and relaxed SIMD) or 'gc' (a garbage collection on request). Where it lacks it, the test is reported as skipped with the reason; the
// driver fails any skip in Chromium, which has both.
const test = (name, fn, needs) => tests.push({ name, fn, needs });

// f32x4.relaxed_madd in the smallest module: whether this engine has relaxed SIMD.
const RELAXED_SIMD = Uint8Array.from(
  atob('AGFzbQEAAAABBAFgAAADAgEACj4BPAD9DAAAAAAAAAAAAAAAAAAAAAD9DAAAAAAAAAAAAAAAAAAAAAD9DAAAAAAAAAAAAAAAAAAAAAD9hQIaCw=='),
  (c) => c.charCodeAt(0),
);

async function missing(needs) {
  if (needs === 'webgpu') {
    const adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
    return adapter ? null : 'this browser has no WebGPU adapter';
  }
  if (needs === 'gc') {
    // Dropped wrappers are freed by finalizers after a garbage collection; without a way to
    // ask for one (Chromium's --expose-gc) memory measured is the engine's timing, not ours.
    return typeof globalThis.gc === 'function' ? null : 'this browser cannot be asked for a garbage collection (gc())';
  }
  if (needs === 'threads') {
    if (!crossOriginIsolated) return 'the page is not cross-origin isolated';
    if ((navigator.hardwareConcurrency || 1) < 2) return 'one core';
    return WebAssembly.validate(RELAXED_SIMD) ? null : 'this browser has no relaxed SIMD, which the threads build needs';
  }
  return null;
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

// `fn` must throw (or reject with) an exception named `name`.
async function throwsNamed(name, fn, what) {
  let threw = null;
  try {
    await fn();
  } catch (e) {
    threw = e;
  }
  assert(threw, `${what}: expected ${name}, nothing was thrown`);
  assert(threw.name === name, `${what}: expected ${name}, got ${threw.name}: ${threw.message}`);
  assert(name === 'TypeError' ? threw instanceof TypeError : threw instanceof DOMException, `${what}: ${name} of the wrong class`);
  return threw;
}

async function smallGraph(ctx) {
  const b = new MLGraphBuilder(ctx);
  const x = b.input('x', { dataType: 'float32', shape: [2, 2] });
  const graph = await b.build({ y: b.relu(b.sub(x, b.constant('float32', 1))) });
  const input = await ctx.createTensor({ dataType: 'float32', shape: [2, 2], writable: true });
  const output = await ctx.createTensor({ dataType: 'float32', shape: [2, 2], readable: true });
  return { graph, input, output };
}

async function runSmall(ctx) {
  const { graph, input, output } = await smallGraph(ctx);
  ctx.writeTensor(input, new Float32Array([0, 1, 2, 3]));
  ctx.dispatch(graph, { x: input }, { y: output });
  const y = Array.from(new Float32Array(await ctx.readTensor(output)));
  assert(JSON.stringify(y) === '[0,0,1,2]', `relu(x - 1) gave ${y}`);
  return { graph, input, output };
}

const contexts = { cpu: { deviceType: 'cpu' }, webgpu: { backend: 'webgpu' } };

test('installs where the browser has no WebNN, as a native implementation would', async () => {
  assert('ml' in navigator, "'ml' in navigator");
  assert(navigator.ml === navigator.ml, 'navigator.ml is the same object');
  assert(navigator.ml instanceof ML, 'navigator.ml instanceof ML');
  for (const name of ['ML', 'MLContext', 'MLGraph', 'MLGraphBuilder', 'MLOperand', 'MLTensor']) {
    assert(typeof globalThis[name] === 'function', `typeof ${name}`);
    assert(!Object.getOwnPropertyDescriptor(globalThis, name).enumerable, `${name} is not enumerable`);
    assert(Object.prototype.toString.call(globalThis[name].prototype) === `[object ${name}]`, `${name} toStringTag`);
  }
});

test('the IDL surface: every operation and attribute, with arity, promises and readonly', async (idl) => {
  const missing = [];
  for (const [iface, { ops, attrs }] of Object.entries(idl.interfaces)) {
    const proto = globalThis[iface]?.prototype;
    if (!proto) {
      missing.push(`${iface} (interface)`);
      continue;
    }
    for (const [name, length] of ops) {
      const f = proto[name];
      if (typeof f !== 'function') missing.push(`${iface}.${name}()`);
      else if (f.length !== length) missing.push(`${iface}.${name}.length is ${f.length}, the IDL says ${length}`);
    }
    for (const [name, readonly] of attrs) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d || typeof d.get !== 'function') missing.push(`${iface}.${name} (getter)`);
      else if (readonly && d.set) missing.push(`${iface}.${name} has a setter`);
    }
  }
  assert(missing.length === 0, missing.join('; '));
});

// The members of dictionary `name` with those it inherits.
function members(idl, name) {
  const d = idl.dictionaries[name];
  return d ? [...members(idl, d.parent), ...d.members.map(([m]) => m)] : [];
}

test('every member of every options dictionary is read, and absent ones take the defaults', async (idl) => {
  const ctx = await navigator.ml.createContext({ deviceType: 'cpu' });
  const b = new MLGraphBuilder(ctx);
  const x = b.input('x', { dataType: 'float32', shape: [1, 2, 3, 4] });
  const unread = [];
  let dictionaries = 0;
  for (const [method, , , params] of idl.interfaces.MLGraphBuilder.ops) {
    const last = params.at(-1);
    if (!last || last[0] !== 'options' || !idl.dictionaries[last[1]] || typeof b[method] !== 'function') continue;
    dictionaries += 1;
    const want = members(idl, last[1]);
    const read = new Set();
    // A dictionary that reports each member as present and records which ones are read.
    const probe = new Proxy({}, {
      ownKeys: () => want,
      getOwnPropertyDescriptor: () => ({ value: undefined, enumerable: true, configurable: true }),
      get: (_, k) => {
        read.add(k);
        return undefined;
      },
    });
    const args = params.slice(0, -1).map(([, ty]) => (ty === 'MLOperand' ? x : ty.startsWith('sequence') ? [] : 0));
    try {
      b[method](...args, probe);
    } catch {
      // Only the reading matters here; the dummy arguments may well be invalid.
    }
    for (const m of want) if (!read.has(m)) unread.push(`${last[1]}.${m} (${method})`);
  }
  assert(dictionaries > 40, `${dictionaries} options dictionaries checked`);
  assert(unread.length === 0, `not read: ${unread.join(', ')}`);
  // Defaults: leaving members out equals passing the IDL defaults.
  const img = b.input('img', { dataType: 'float32', shape: [1, 2, 5, 5] });
  const f = b.constant({ dataType: 'float32', shape: [2, 2, 3, 3] }, new Float32Array(36));
  const implicit = b.conv2d(img, f);
  const explicit = b.conv2d(img, f, { groups: 1, inputLayout: 'nchw', filterLayout: 'oihw', label: '' });
  assert(implicit.shape.join() === explicit.shape.join() && implicit.shape.join() === '1,2,3,3', 'conv2d defaults');
  const t = await ctx.createTensor({ dataType: 'float32', shape: [1] });
  assert(t.readable === false && t.writable === false && t.constant === false, 'MLTensorDescriptor defaults');
  const dflt = await navigator.ml.createContext({});
  const expl = await navigator.ml.createContext({ powerPreference: 'default', accelerated: true });
  assert(dflt.backend === expl.backend && dflt.accelerated === expl.accelerated, 'MLContextOptions defaults');
});

test('promise-returning operations reject instead of throwing', async (idl) => {
  const ctx = await navigator.ml.createContext({ deviceType: 'cpu' });
  const b = new MLGraphBuilder(ctx);
  const calls = {
    'ML.createContext': () => navigator.ml.createContext(42),
    'MLContext.createTensor': () => ctx.createTensor({ dataType: 'bogus', shape: [1] }),
    'MLContext.createConstantTensor': () => ctx.createConstantTensor({ dataType: 'float32', shape: [1] }, 5),
    'MLContext.readTensor': () => ctx.readTensor({}),
    'MLGraphBuilder.build': () => b.build({ y: 3 }),
  };
  for (const [iface, { ops }] of Object.entries(idl.interfaces)) {
    for (const [name, , promise] of ops) {
      const call = calls[`${iface}.${name}`];
      if (!promise) continue;
      assert(call, `no rejection check for ${iface}.${name}`);
      let p;
      try {
        p = call();
      } catch (e) {
        throw new Error(`${iface}.${name} threw synchronously: ${e}`);
      }
      assert(p instanceof Promise, `${iface}.${name} returned no promise`);
      await throwsNamed('TypeError', () => p, `${iface}.${name}`);
    }
  }
  ctx.destroy();
});

test('interfaces without constructors throw, MLGraphBuilder constructs', async () => {
  for (const name of ['ML', 'MLContext', 'MLGraph', 'MLOperand', 'MLTensor']) {
    await throwsNamed('TypeError', () => new globalThis[name](), `new ${name}()`);
  }
  await throwsNamed('TypeError', () => MLGraphBuilder({}), 'MLGraphBuilder() without new');
  await throwsNamed('TypeError', () => new MLGraphBuilder({}), 'new MLGraphBuilder({})');
  const ctx = await navigator.ml.createContext();
  const b = new MLGraphBuilder(ctx);
  assert(b instanceof MLGraphBuilder, 'instanceof');
  const x = b.input('x', { dataType: 'float16', shape: [2, 3] });
  assert(x instanceof MLOperand && x.dataType === 'float16' && x.shape.join() === '2,3', 'MLOperand attributes');
  await throwsNamed('TypeError', () => Object.getOwnPropertyDescriptor(MLOperand.prototype, 'shape').get.call({}), 'brand check');
});

test('context choice: a software adapter runs accelerated contexts on the CPU, deviceType is a hint, backend overrides', async () => {
  const adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
  const requestDevice = globalThis.GPUAdapter?.prototype.requestDevice;
  const software = !adapter || adapter.info.isFallbackAdapter;
  const ctx = await navigator.ml.createContext();
  assert(ctx.backend === (software ? 'cpu' : 'webgpu'), `default context on ${ctx.backend}, adapter software: ${software}`);
  assert(ctx.accelerated === !software, 'accelerated says where it runs');
  const cpu = await navigator.ml.createContext({ accelerated: false });
  assert(cpu.backend === 'cpu' && cpu.accelerated === false, 'accelerated: false');
  if (adapter) {
    const hinted = await navigator.ml.createContext({ deviceType: 'gpu' });
    assert(hinted.backend === (software ? 'cpu' : 'webgpu'), `deviceType gpu on ${hinted.backend}, adapter software: ${software}`);
    assert(hinted.accelerated === !software, 'accelerated says where deviceType gpu runs');
    const npu = await navigator.ml.createContext({ deviceType: 'npu', powerPreference: 'low-power' });
    assert(npu.backend === hinted.backend, 'deviceType npu is the gpu hint');
    const gpu = await navigator.ml.createContext({ backend: 'webgpu' });
    assert(gpu.backend === 'webgpu' && gpu.accelerated === !software, 'backend webgpu, named outright');
    await throwsNamed('TypeError', () => navigator.ml.createContext({ backend: 'tpu' }), 'unknown backend');
    const device = await adapter.requestDevice();
    const onDevice = await navigator.ml.createContext(device);
    assert(onDevice.backend === 'webgpu', 'the GPUDevice overload');
    await runSmall(onDevice);
    // It runs on that very device: once the page destroys it, the context's work fails.
    device.destroy();
    await throwsNamed('OperationError', () => runSmall(onDevice), 'work on the destroyed page device');
    assert(GPUAdapter.prototype.requestDevice === requestDevice, 'GPUAdapter.prototype.requestDevice is restored');
  }
});

test('exportToGPU: an MLTensor handed to the page\'s WebGPU as its own GPUBuffer, and given back', async () => {
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter.requestDevice();
  const ctx = await navigator.ml.createContext(device);
  const desc = { dataType: 'float32', shape: [4] };
  const x = await ctx.createTensor({ ...desc, writable: true, exportableToGPU: true });
  const y = await ctx.createTensor({ ...desc, readable: true });
  assert(x.exportableToGPU === true && y.exportableToGPU === false, 'MLTensor.exportableToGPU');
  const b = new MLGraphBuilder(ctx);
  const graph = await b.build({ y: b.mul(b.input('x', desc), b.constant('float32', 10)) });
  ctx.writeTensor(x, new Float32Array([1, 2, 3, 4]));
  const buffer = await ctx.exportToGPU(x);
  assert(buffer instanceof GPUBuffer && buffer.size >= 16, 'a GPUBuffer of the tensor\'s size');
  assert((buffer.usage & GPUBufferUsage.STORAGE) && (buffer.usage & GPUBufferUsage.COPY_SRC) && (buffer.usage & GPUBufferUsage.COPY_DST), 'STORAGE | COPY_SRC | COPY_DST');
  await throwsNamed('InvalidStateError', () => ctx.dispatch(graph, { x }, { y }), 'dispatch while the page holds the tensor');
  await throwsNamed('InvalidStateError', () => ctx.exportToGPU(x), 'a second export before the first is given back');
  // The page's own compute pass adds 1 to each element, in the tensor's storage.
  const module = device.createShaderModule({
    code: '@group(0) @binding(0) var<storage, read_write> t: array<f32>;\n' +
      '@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) i: vec3u) { t[i.x] = t[i.x] + 1.0; }',
  });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer } }] });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(1);
  pass.end();
  device.queue.submit([encoder.finish()]);
  buffer.destroy(); // gives it back
  ctx.dispatch(graph, { x }, { y });
  const out = Array.from(new Float32Array(await ctx.readTensor(y)));
  assert(out.join() === '20,30,40,50', `WebNN sees the page's writes without a copy: ${out}`);
  const again = await ctx.exportToGPU(x);
  assert(again === buffer, 'the same buffer each time: the tensor\'s storage');
  again.destroy();
  const chromiumForm = await ctx.createExportableTensor(desc, device);
  assert(chromiumForm.exportableToGPU, 'createExportableTensor(descriptor, device)');
  await throwsNamed('TypeError', () => ctx.exportToGPU(y), 'a tensor created without exportableToGPU');
  const cpu = await navigator.ml.createContext({ deviceType: 'cpu' });
  await throwsNamed('TypeError', () => cpu.createTensor({ ...desc, exportableToGPU: true }), 'exportableToGPU on a context not created from a GPUDevice');
  const other = await (await navigator.gpu.requestAdapter()).requestDevice(); // an adapter gives one device
  await throwsNamed('NotSupportedError', () => ctx.createExportableTensor(desc, other), 'a device the context does not run on');
  await throwsNamed('TypeError', () => ctx.createExportableTensor(desc, {}), 'not a GPUDevice');
}, 'webgpu');

test('WebIDL conversion: enums, [EnforceRange], sequences, dictionaries with defaults', async () => {
  await throwsNamed('TypeError', () => navigator.ml.createContext({ powerPreference: 'fastest' }), 'unknown enum');
  const ctx = await navigator.ml.createContext({ deviceType: 'cpu' });
  const b = new MLGraphBuilder(ctx);
  const x = b.input('x', { dataType: 'float32', shape: [2, 3] });
  await throwsNamed('TypeError', () => b.input('y', { dataType: 'float64', shape: [1] }), 'unknown data type');
  await throwsNamed('TypeError', () => b.softmax(x, -1), '[EnforceRange] axis -1');
  await throwsNamed('TypeError', () => b.softmax(x, 2 ** 32), '[EnforceRange] axis 2^32');
  await throwsNamed('TypeError', () => b.transpose(x, { permutation: 5 }), 'a number for a sequence');
  await throwsNamed('TypeError', () => b.relu(), 'missing required argument');
  await throwsNamed('TypeError', () => b.relu(x, 7), 'a number for a dictionary');
  const cyclic = { label: 'c' };
  cyclic.self = cyclic;
  assert(b.relu(x, cyclic) instanceof MLOperand, 'a cyclic member is ignored, as WebIDL ignores unknown members');
  const label = await throwsNamed('TypeError', () => b.softmax(x, 9, { label: 'my-softmax' }), 'label in the message');
  assert(label.message.includes('[my-softmax]'), `the message names the label: ${label.message}`);
  // Sequences from any iterable, legacy `dimensions`, dictionary defaults.
  const t = b.transpose(x, { permutation: new Uint32Array([1, 0]) });
  assert(t.shape.join() === '3,2', 'typed array as a sequence');
  const legacy = b.input('z', { dataType: 'float32', dimensions: [4] });
  assert(legacy.shape.join() === '4', 'legacy dimensions member');
  const s = b.split(x, 3, { axis: 1 });
  assert(Array.isArray(s) && s.length === 3 && s[0].shape.join() === '2,1', 'sequence<MLOperand> result');
  const conv = b.conv2d(b.input('img', { dataType: 'float32', shape: [1, 1, 5, 5] }), b.constant({ dataType: 'float32', shape: [1, 1, 3, 3] }, new Float32Array(9)));
  assert(conv.shape.join() === '1,1,3,3', 'conv2d defaults');
  // Members the spec dropped that frameworks still pass: autoPad, usage.
  const padded = b.conv2d(b.input('img2', { dataType: 'float32', shape: [1, 1, 5, 5] }),
    b.constant({ dataType: 'float32', shape: [1, 1, 3, 3] }, new Float32Array(9)), { autoPad: 'same-upper', strides: [2, 2] });
  assert(padded.shape.join() === '1,1,3,3', `legacy autoPad: ${padded.shape}`);
  const pooled = b.maxPool2d(b.input('img3', { dataType: 'float32', shape: [1, 2, 6, 6] }), { windowDimensions: [3, 3], autoPad: 'same-lower' });
  assert(pooled.shape.join() === '1,2,6,6', `legacy autoPad on a pool: ${pooled.shape}`);
  const legacyTensor = await ctx.createTensor({ dataType: 'float32', shape: [1], usage: 2 | 4 });
  assert(legacyTensor.readable && legacyTensor.writable, 'legacy usage flags');
  const limits = ctx.opSupportLimits();
  for (const op of ['conv2d', 'add', 'gru', 'softmax', 'dequantizeLinear']) {
    const entry = limits[op];
    assert(entry, `opSupportLimits().${op}`);
    for (const [slot, l] of Object.entries(entry)) {
      assert(Array.isArray(l.dataTypes) && typeof l.rankRange?.min === 'number', `${op}.${slot} limits`);
    }
  }
});

test('typed arrays: BigInt64Array, Uint16Array for float16, SharedArrayBuffer views, detached buffers', async () => {
  const ctx = await navigator.ml.createContext({ deviceType: 'cpu' });
  const b = new MLGraphBuilder(ctx);
  const big = b.constant({ dataType: 'int64', shape: [2] }, new BigInt64Array([2n ** 40n, -3n]));
  const half = b.constant({ dataType: 'float16', shape: [2] }, new Uint16Array([0x3c00, 0x4000]));
  assert(typeof SharedArrayBuffer === 'function' && crossOriginIsolated, 'the page is cross-origin isolated');
  const shared = new Float32Array(new SharedArrayBuffer(8));
  shared.set([5, 6]);
  const s = b.constant({ dataType: 'float32', shape: [2] }, shared);
  await throwsNamed('TypeError', () => b.constant({ dataType: 'float32', shape: [2] }, new Int32Array(2)), 'wrong element type');
  const gone = new Float32Array(2);
  gone.buffer.transfer();
  await throwsNamed('TypeError', () => b.constant({ dataType: 'float32', shape: [2] }, gone), 'detached buffer');
  const graph = await b.build({ big: b.add(big, big), half: b.cast(half, 'float32'), s: b.identity(s) });
  const outs = {};
  for (const [name, dataType] of [['big', 'int64'], ['half', 'float32'], ['s', 'float32']]) {
    outs[name] = await ctx.createTensor({ dataType, shape: [2], readable: true });
  }
  ctx.dispatch(graph, {}, outs);
  const big2 = new BigInt64Array(await ctx.readTensor(outs.big));
  assert(big2[0] === 2n ** 41n && big2[1] === -6n, `int64: ${big2}`);
  const h = new Float32Array(await ctx.readTensor(outs.half));
  assert(h[0] === 1 && h[1] === 2, `float16 from Uint16Array: ${h}`);
  const into = new Float32Array(new SharedArrayBuffer(8));
  await ctx.readTensor(outs.s, into);
  assert(into[0] === 5 && into[1] === 6, 'readTensor into a SharedArrayBuffer view');
});

test('argument conversion: view element types, BigInts, restricted doubles, long sequences, messages', async () => {
  const ctx = await navigator.ml.createContext({ deviceType: 'cpu' });
  const t = await ctx.createTensor({ dataType: 'float32', shape: [2], readable: true, writable: true });
  // "Validate buffer with descriptor": the element type must fit; a Uint8Array fits any.
  await throwsNamed('TypeError', () => ctx.writeTensor(t, new BigUint64Array(1)), 'writeTensor with a BigUint64Array');
  await throwsNamed('TypeError', () => ctx.writeTensor(t, new Int32Array(2)), 'writeTensor with an Int32Array');
  ctx.writeTensor(t, new Uint8Array(new Float32Array([1.5, -2]).buffer));
  await throwsNamed('TypeError', () => ctx.readTensor(t, new Int32Array(2)), 'readTensor into an Int32Array');
  const bytes = new Uint8Array(8);
  await ctx.readTensor(t, bytes);
  const back = new Float32Array(bytes.buffer);
  assert(back[0] === 1.5 && back[1] === -2, `readTensor into a Uint8Array: ${back}`);
  const b = new MLGraphBuilder(ctx);
  // WebIDL's ToNumber throws for a BigInt: no dimension or double takes one; MLNumber does.
  await throwsNamed('TypeError', () => b.input('x', { dataType: 'float32', shape: [3n] }), 'a BigInt dimension');
  const x = b.input('x', { dataType: 'float32', shape: [2] });
  await throwsNamed('TypeError', () => b.elu(x, { alpha: 1n }), 'a BigInt for a double');
  for (const bad of [NaN, Infinity]) {
    await throwsNamed('TypeError', () => b.elu(x, { alpha: bad }), `elu alpha ${bad}`);
    await throwsNamed('TypeError', () => b.gemm(b.reshape(x, [1, 2]), b.reshape(x, [2, 1]), { alpha: bad }), `gemm alpha ${bad}`);
    await throwsNamed('TypeError', () => b.layerNormalization(x, { epsilon: bad }), `epsilon ${bad}`);
  }
  const clamped = b.clamp(x, { minValue: -1n, maxValue: 1 });
  const big = b.constant('int64', 2n ** 40n);
  assert(big.dataType === 'int64', 'constant(int64, BigInt)');
  // A long sequence fails before it is copied, not after (a 1e7-entry shape took seconds).
  const long = new Array(1e7).fill(1);
  const started = performance.now();
  await throwsNamed('TypeError', () => b.reshape(x, long), 'a 1e7-entry newShape');
  assert(performance.now() - started < 500, `the long sequence took ${performance.now() - started} ms to reject`);
  // Messages name the op and rule; no empty label brackets.
  const e = await throwsNamed('TypeError', () => b.reshape(x, [3]), 'a reshape of the wrong size');
  assert(!e.message.startsWith('[]') && e.message.startsWith('reshape'), `message: ${e.message}`);
  const graph = await b.build({ y: clamped });
  const out = await ctx.createTensor({ dataType: 'float32', shape: [2], readable: true });
  ctx.dispatch(graph, { x: t }, { y: out });
  const y = new Float32Array(await ctx.readTensor(out));
  assert(y[0] === 1 && y[1] === -1, `clamp with a BigInt minValue: ${y}`);
});

for (const [kind, options] of Object.entries(contexts)) {
  test(`error paths on the ${kind} context, and the polyfill keeps working`, async () => {
    const ctx = await navigator.ml.createContext(options);
    const other = await navigator.ml.createContext(options);
    const { graph, input, output } = await runSmall(ctx);
    const foreign = await smallGraph(other);
    await throwsNamed('TypeError', () => ctx.dispatch(graph, { x: input }, { y: input }), 'a tensor bound twice');
    await throwsNamed('TypeError', () => ctx.dispatch(foreign.graph, { x: input }, { y: output }), 'a graph of another context');
    await throwsNamed('TypeError', () => ctx.dispatch(graph, { x: foreign.input }, { y: output }), 'a tensor of another context');
    await throwsNamed('TypeError', () => ctx.dispatch(graph, { nope: input }, { y: output }), 'a wrong input name');
    await throwsNamed('TypeError', () => ctx.writeTensor(output, new Float32Array(4)), 'writing a tensor not writable');
    await throwsNamed('TypeError', () => ctx.readTensor(input), 'reading a tensor not readable');
    await throwsNamed('TypeError', () => ctx.writeTensor(input, new Float32Array(3)), 'wrong byte length');
    const dead = await ctx.createTensor({ dataType: 'float32', shape: [2, 2], writable: true });
    dead.destroy();
    await throwsNamed('TypeError', () => ctx.dispatch(graph, { x: dead }, { y: output }), 'a destroyed tensor');
    const g2 = (await smallGraph(ctx)).graph;
    g2.destroy();
    await throwsNamed('InvalidStateError', () => ctx.dispatch(g2, { x: input }, { y: output }), 'a destroyed graph');
    const b = new MLGraphBuilder(ctx);
    const x = b.input('x', { dataType: 'float32', shape: [1] });
    await b.build({ y: b.abs(x) });
    await throwsNamed('InvalidStateError', () => b.abs(x), 'a builder after build()');
    await runSmall(ctx);
    other.destroy();
    const info = await other.lost;
    assert(typeof info.message === 'string', 'lost resolves with a message');
    await throwsNamed('InvalidStateError', () => new MLGraphBuilder(other), 'a builder on a destroyed context');
    await throwsNamed('InvalidStateError', () => other.createTensor({ dataType: 'float32', shape: [1] }), 'createTensor on a destroyed context');
    await throwsNamed('InvalidStateError', () => other.dispatch(foreign.graph, { x: foreign.input }, { y: foreign.output }), 'dispatch on a destroyed context');
    await runSmall(ctx);
    ctx.destroy();
  }, kind === 'webgpu' ? 'webgpu' : undefined);
}

for (const [kind, options] of Object.entries(contexts)) {
  test(`order on the ${kind} context: a read sees the work before it, destroy rejects reads in flight, builds in flight`, async () => {
    const ctx = await navigator.ml.createContext(options);
    const build = () => {
      const b = new MLGraphBuilder(ctx);
      const x = b.input('x', { dataType: 'float32', shape: [2] });
      return b.build({ y: b.add(x, x) });
    };
    // Two builds in flight at once (on WebGPU their error scopes interleave).
    const [g, g2] = await Promise.all([build(), build()]);
    const x = await ctx.createTensor({ dataType: 'float32', shape: [2], writable: true });
    const y = await ctx.createTensor({ dataType: 'float32', shape: [2], readable: true });
    const values = async (p) => JSON.stringify(Array.from(new Float32Array(await p)));
    ctx.writeTensor(x, new Float32Array([1, 10]));
    ctx.dispatch(g, { x }, { y });
    const first = ctx.readTensor(y);
    ctx.writeTensor(x, new Float32Array([2, 20]));
    ctx.dispatch(g2, { x }, { y });
    const second = ctx.readTensor(y);
    ctx.writeTensor(x, new Float32Array([3, 30]));
    ctx.dispatch(g, { x }, { y });
    assert((await values(second)) === '[4,40]', `the second read: ${await values(second)}`);
    assert((await values(first)) === '[2,20]', `the first read: ${await values(first)}`);
    assert((await values(ctx.readTensor(y))) === '[6,60]', 'a read after the last dispatch');
    const z = await ctx.createTensor({ dataType: 'float32', shape: [2], readable: true });
    ctx.dispatch(g, { x }, { y: z });
    const reads = [ctx.readTensor(z), ctx.readTensor(z)];
    z.destroy();
    for (const r of reads) await throwsNamed('InvalidStateError', () => r, 'a read in flight when its tensor is destroyed');
    await throwsNamed('TypeError', () => ctx.readTensor(z), 'reading a destroyed tensor');
    ctx.destroy();
  }, kind === 'webgpu' ? 'webgpu' : undefined);
}

for (const [kind, options] of Object.entries(contexts)) {
  test(`flexible inputs (extension): one graph at several sizes on the ${kind} context`, async () => {
    const ctx = await navigator.ml.createContext(options);
    assert(ctx.opSupportLimits().flexibleInputs === true, 'opSupportLimits().flexibleInputs');
    const b = new MLGraphBuilder(ctx);
    const seq = { name: 'seq', maxSize: 8 };
    const x = b.input('x', { dataType: 'float32', shape: [seq, 2] });
    assert(x.shape[0].name === 'seq' && x.shape[0].maxSize === 8 && x.shape[1] === 2, 'MLOperand.shape reports the bound');
    const r = b.reshape(b.relu(x), [seq, 2, 1]);
    const graph = await b.build({ r });
    for (const rows of [1, 3, 8, 3]) {
      const input = await ctx.createTensor({ dataType: 'float32', shape: [rows, 2], writable: true });
      const output = await ctx.createTensor({ dataType: 'float32', shape: [rows, 2, 1], readable: true });
      ctx.writeTensor(input, Float32Array.from({ length: rows * 2 }, (_, k) => k - 2));
      ctx.dispatch(graph, { x: input }, { r: output });
      const got = Array.from(new Float32Array(await ctx.readTensor(output)));
      const want = Array.from({ length: rows * 2 }, (_, k) => Math.max(k - 2, 0));
      assert(got.join() === want.join(), `${rows} rows: ${got}`);
    }
    const nine = await ctx.createTensor({ dataType: 'float32', shape: [9, 2], writable: true });
    const out = await ctx.createTensor({ dataType: 'float32', shape: [9, 2, 1], readable: true });
    const e = await throwsNamed('TypeError', () => ctx.dispatch(graph, { x: nine }, { r: out }), 'above maxSize');
    assert(e.message.includes("'x'") && e.message.includes("'seq'"), `the error names the input and the dimension: ${e.message}`);
    const three = await ctx.createTensor({ dataType: 'float32', shape: [3, 2], writable: true });
    await throwsNamed('TypeError', () => ctx.dispatch(graph, { x: three }, { r: out }), 'an output of the wrong size');
    await throwsNamed('TypeError', () => b.input('y', { dataType: 'float32', shape: [{ name: '', maxSize: 4 }] }), 'an unnamed dynamic dimension');
  }, kind === 'webgpu' ? 'webgpu' : undefined);
}

for (const [kind, options] of Object.entries(contexts)) {
  test(`flexible inputs (extension): validation rules, derived dimensions and in-place updates on the ${kind} context`, async () => {
    const ctx = await navigator.ml.createContext(options);
    const f32 = (shape) => ({ dataType: 'float32', shape });
    const tensor = (dataType, shape, data) => ctx.createTensor({ dataType, shape, readable: true, writable: true }).then((t) => {
      if (data) ctx.writeTensor(t, data);
      return t;
    });
    const read = async (t) => Array.from(new Float32Array(await ctx.readTensor(t)));
    let b = new MLGraphBuilder(ctx);
    await throwsNamed('TypeError', () => b.input('bad', f32([{ name: 'past+1', maxSize: 4 }])), 'a name with +');
    b.input('a', f32([{ name: 'seq', maxSize: 8 }]));
    const e = await throwsNamed('TypeError', () => b.input('b', f32([{ name: 'seq', maxSize: 4 }])), 'one name, two bounds');
    assert(e.message.includes("'seq'"), e.message);
    const cache = b.input('cache', f32([16, 2]));
    const total = { name: 'total', maxSize: 16 };
    await throwsNamed('TypeError', () => b.slice(cache, [0, 0], [total, 2]), 'a slice naming an undeclared dimension');

    // Derived dimensions: concat along a dynamic axis gives past+1.
    b = new MLGraphBuilder(ctx);
    const past = b.input('past', f32([{ name: 'past', maxSize: 7 }, 2]));
    const row = b.input('row', f32([1, 2]));
    const grown = b.concat([past, row], 0);
    assert(grown.shape[0].name === 'past+1' && grown.shape[0].maxSize === 8, `concat shape ${JSON.stringify(grown.shape)}`);
    const g1 = await b.build({ grown });
    const p3 = await tensor('float32', [3, 2], Float32Array.of(1, 2, 3, 4, 5, 6));
    const r = await tensor('float32', [1, 2], Float32Array.of(7, 8));
    const out4 = await tensor('float32', [4, 2]);
    ctx.dispatch(g1, { past: p3, row: r }, { grown: out4 });
    assert((await read(out4)).join() === '1,2,3,4,5,6,7,8', 'past+1 rows');
    await throwsNamed('TypeError', () => ctx.dispatch(g1, { past: p3, row: r }, { grown: p3 }), 'an output of size past, not past+1');
    const p8 = await tensor('float32', [8, 2]);
    await throwsNamed('TypeError', () => ctx.dispatch(g1, { past: p8, row: r }, { grown: out4 }), 'past above its maxSize');

    // Names agree across inputs.
    b = new MLGraphBuilder(ctx);
    const n = { name: 'n', maxSize: 4 };
    const x = b.input('x', f32([n, 2]));
    const y = b.input('y', f32([n, 2]));
    const g2 = await b.build({ s: b.add(x, y) });
    const two = await tensor('float32', [2, 2]);
    const three = await tensor('float32', [3, 2]);
    const sOut = await tensor('float32', [2, 2]);
    const e2 = await throwsNamed('TypeError', () => ctx.dispatch(g2, { x: two, y: three }, { s: sOut }), 'n is 2 for x and 3 for y');
    assert(e2.message.includes("'y'") && e2.message.includes("'n'"), e2.message);

    // In place: the cache is its own update's output; a slice with a dynamic size reads it.
    b = new MLGraphBuilder(ctx);
    const kv = b.input('kv', f32([8, 2]));
    const at = b.input('at', { dataType: 'int32', shape: [n, 1] });
    const rows = b.input('rows', f32([n, 2]));
    const mask = b.input('mask', { dataType: 'uint8', shape: [{ name: 'total', maxSize: 8 }] });
    const updated = b.scatterND(kv, at, rows);
    const view = b.slice(updated, [0, 0], [{ name: 'total', maxSize: 8 }, 2]);
    assert(view.shape[0].name === 'total', `slice shape ${JSON.stringify(view.shape)}`);
    const g3 = await b.build({ updated, sum: b.reduceSum(view, { axes: [0] }) });
    const kvT = await tensor('float32', [8, 2]);
    const sum = await tensor('float32', [2]);
    for (let step = 0; step < 3; step++) {
      const atT = await tensor('int32', [1, 1], Int32Array.of(step));
      const rowT = await tensor('float32', [1, 2], Float32Array.of(step + 1, 10 * (step + 1)));
      const maskT = await tensor('uint8', [step + 1], new Uint8Array(step + 1));
      ctx.dispatch(g3, { kv: kvT, at: atT, rows: rowT, mask: maskT }, { updated: kvT, sum });
    }
    assert((await read(kvT)).join() === '1,10,2,20,3,30,0,0,0,0,0,0,0,0,0,0', `cache after 3 steps: ${await read(kvT)}`);
    assert((await read(sum)).join() === '6,60', `sum of the first 3 rows: ${await read(sum)}`);
    // Any other sharing stays a TypeError: a graph that reads the cache elsewhere too.
    b = new MLGraphBuilder(ctx);
    const kv2 = b.input('kv', f32([8, 2]));
    const g4 = await b.build({ updated: b.scatterND(kv2, b.input('at', { dataType: 'int32', shape: [1, 1] }), b.input('rows', f32([1, 2]))), copy: b.relu(kv2) });
    const at1 = await tensor('int32', [1, 1], Int32Array.of(0));
    const row1 = await tensor('float32', [1, 2]);
    const copy = await tensor('float32', [8, 2]);
    await throwsNamed('TypeError', () => ctx.dispatch(g4, { kv: kvT, at: at1, rows: row1 }, { updated: kvT, copy }), 'the cache is read by another op');
    ctx.dispatch(g4, { kv: kvT, at: at1, rows: row1 }, { updated: await tensor('float32', [8, 2]), copy });
    assert((await read(copy)).join() === '1,10,2,20,3,30,0,0,0,0,0,0,0,0,0,0', 'a separate output tensor still works');
  }, kind === 'webgpu' ? 'webgpu' : undefined);
}

test('CPU threads: a cross-origin-isolated page runs CPU contexts on Web Workers sharing the wasm memory', async () => {
  const threads = Math.min(4, navigator.hardwareConcurrency || 1);
  const ctx = await navigator.ml.createContext({ deviceType: 'cpu' });
  assert(new RegExp(`relaxed-simd, ${threads} threads`).test(ctx.deviceName), `the threads build: ${ctx.deviceName}`);
  // A convolution and a matrix product big enough to be split into many tasks, against
  // plain JavaScript loops in double precision.
  let seed = 7;
  const rand = (n) => Float32Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1);
  const [c, h, w, o] = [8, 20, 20, 16];
  const x = rand(c * h * w), f = rand(o * c * 9), a = rand(64 * 96), bm = rand(96 * 80);
  const b = new MLGraphBuilder(ctx);
  const xi = b.input('x', { dataType: 'float32', shape: [1, c, h, w] });
  const ai = b.input('a', { dataType: 'float32', shape: [64, 96] });
  const conv = b.conv2d(xi, b.constant({ dataType: 'float32', shape: [o, c, 3, 3] }, f), { padding: [1, 1, 1, 1] });
  const mm = b.matmul(ai, b.constant({ dataType: 'float32', shape: [96, 80] }, bm));
  const graph = await b.build({ conv, mm });
  const hook = Symbol.for('webnn-rs.testing');
  const t = (shape, writable) => ctx.createTensor({ dataType: 'float32', shape, writable, readable: !writable });
  const [xt, at, ct, mt] = await Promise.all([t([1, c, h, w], true), t([64, 96], true), t([1, o, h, w]), t([64, 80])]);
  ctx.writeTensor(xt, x);
  ctx.writeTensor(at, a);
  let workers;
  for (let i = 0; i < 100; i++) {
    ctx.dispatch(graph, { x: xt, a: at }, { conv: ct, mm: mt });
    workers = await navigator.ml[hook]('cpu-workers');
    if (workers.serving === threads - 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert(workers.started === threads - 1 && workers.serving === threads - 1, `workers: ${JSON.stringify(workers)}`);
  const got = new Float32Array(await ctx.readTensor(ct));
  let worst = 0;
  for (let oc = 0; oc < o; oc++)
    for (let y = 0; y < h; y++)
      for (let xx = 0; xx < w; xx++) {
        let sum = 0;
        for (let ic = 0; ic < c; ic++)
          for (let ky = 0; ky < 3; ky++)
            for (let kx = 0; kx < 3; kx++) {
              const iy = y + ky - 1, ix = xx + kx - 1;
              if (iy >= 0 && iy < h && ix >= 0 && ix < w) sum += x[(ic * h + iy) * w + ix] * f[((oc * c + ic) * 3 + ky) * 3 + kx];
            }
        worst = Math.max(worst, Math.abs(sum - got[(oc * h + y) * w + xx]));
      }
  const gotMm = new Float32Array(await ctx.readTensor(mt));
  for (let i = 0; i < 64; i++)
    for (let j = 0; j < 80; j++) {
      let sum = 0;
      for (let k = 0; k < 96; k++) sum += a[i * 96 + k] * bm[k * 80 + j];
      worst = Math.max(worst, Math.abs(sum - gotMm[i * 80 + j]));
    }
  assert(worst < 1e-4, `max |error| ${worst}`);
}, 'threads');

test('a Rust panic becomes an OperationError and the polyfill recovers', async () => {
  const before = await navigator.ml.createContext({ deviceType: 'cpu' });
  await runSmall(before);
  const hook = Symbol.for('webnn-rs.testing');
  await throwsNamed('OperationError', () => navigator.ml[hook]('panic'), 'the panic');
  const info = await before.lost;
  assert(/internal error/.test(info.message), `the old context is lost: ${info.message}`);
  await throwsNamed('OperationError', () => before.createTensor({ dataType: 'float32', shape: [1] }), 'using the lost context');
  const after = await navigator.ml.createContext({ deviceType: 'cpu' });
  await runSmall(after);
});

for (const [kind, options] of Object.entries(contexts)) {
  test(`memory: 200 build, dispatch, destroy cycles on the ${kind} context leave wasm memory and GPU buffers flat`, async () => {
    const hook = Symbol.for('webnn-rs.testing');
    const ctx = await navigator.ml.createContext(options);
    const cycle = async () => {
      const { graph, input, output } = await runSmall(ctx);
      graph.destroy();
      input.destroy();
      output.destroy();
    };
    // Wrappers the page dropped are freed by finalizers after a garbage collection; the
    // driver starts Chromium with --expose-gc so the test can ask for one.
    const settle = async () => {
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 50));
    };
    // Warm-up: the allocator reaches its working set (a leak keeps growing after it).
    for (let i = 0; i < 100; i++) await cycle();
    await settle();
    // GPU buffers alive: counted by wrapping the page's WebGPU entry points.
    let liveBuffers = 0;
    let createdBuffers = 0;
    const gpu = kind === 'webgpu';
    const [create, destroy] = gpu ? [GPUDevice.prototype.createBuffer, GPUBuffer.prototype.destroy] : [];
    const gone = new WeakSet();
    if (gpu) {
      GPUDevice.prototype.createBuffer = function (...a) {
        liveBuffers += 1;
        createdBuffers += 1;
        return create.apply(this, a);
      };
      GPUBuffer.prototype.destroy = function () {
        if (!gone.has(this)) liveBuffers -= 1;
        gone.add(this);
        return destroy.call(this);
      };
    }
    const start = await navigator.ml[hook]('memory');
    // Garbage collections come between cycles in a real page; without them the wrappers
    // awaiting finalization raise the high-water mark, which is not a leak.
    for (let i = 0; i < 200; i++) {
      await cycle();
      if (i % 50 === 49) await settle();
    }
    const end = await navigator.ml[hook]('memory');
    if (gpu) {
      GPUDevice.prototype.createBuffer = create;
      GPUBuffer.prototype.destroy = destroy;
    }
    ctx.destroy();
    window.memoryFigures = { ...(window.memoryFigures || {}), [kind]: { start, end, gpuBuffersCreated: createdBuffers, gpuBuffersAlive: liveBuffers } };
    assert(end === start, `wasm memory grew from ${start} to ${end} bytes`);
    assert(!gpu || createdBuffers >= 200, `the cycles created ${createdBuffers} GPU buffers: the count missed them`);
    assert(liveBuffers === 0, `${liveBuffers} GPU buffers created in the cycles are still alive`);
  }, kind === 'webgpu' ? ['webgpu', 'gc'] : 'gc');
}

test('a dedicated Worker gets navigator.ml too', async () => {
  const worker = new Worker('/worker.js');
  const result = await new Promise((resolve, reject) => {
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => reject(new Error(e.message));
  });
  worker.terminate();
  assert(!result.error, result.error);
  assert(result.hasMl && result.builder === 'function', 'globals in the worker');
  assert(result.y.join() === '2,4,6', `worker result ${result.y}`);
});

window.runPolyfillTests = async (idl) => {
  for (const t of tests) {
    const start = performance.now();
    let skip = null;
    for (const need of [t.needs ?? []].flat()) skip ??= await missing(need);
    if (skip) {
      results.push({ name: t.name, ok: true, skipped: skip, ms: 0 });
      log.textContent += `skip ${t.name}: ${skip}\n`;
      continue;
    }
    try {
      await t.fn(idl);
      results.push({ name: t.name, ok: true, ms: performance.now() - start });
    } catch (e) {
      // Chromium's stack starts with the message, Firefox's does not.
      const stack = String(e?.stack ?? '');
      const message = stack.startsWith(String(e)) ? stack : `${e}\n${stack}`;
      results.push({ name: t.name, ok: false, message, ms: performance.now() - start });
    }
    log.textContent += `${results.at(-1).ok ? 'ok  ' : 'FAIL'} ${t.name}\n`;
  }
  window.polyfillResults = results;
};
window.testsReady = true;
