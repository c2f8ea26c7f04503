// Part of the polyfill's one scope: scripts/web/bundle.mjs concatenates the files named in
// PARTS there, in order, so each sees the names the earlier ones declare.
// Loading the wasm: which build this browser can run (feature probes), the CPU workers
// of the threads build, and loadWasm.

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
