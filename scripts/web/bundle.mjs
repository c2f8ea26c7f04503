// Writes the polyfill's two entry points into pkg-js/dist next to the wasm-bindgen output:
// webnn.mjs (ES module exporting install) and webnn-polyfill.js (a classic script that
// installs itself). The builder's operation list comes from the wasm module itself.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'pkg-js/dist');
const glue = await import(pathToFileURL(path.join(dist, 'webnn_web.js')));
glue.initSync({ module: readFileSync(path.join(dist, 'webnn_web_bg.wasm')) });
// The wasm builds present (the demo builds only simd128): the loader picks among these.
const shipped = ['webnn_web_mt', 'webnn_web_relaxed', 'webnn_web'].filter((stem) =>
  existsSync(path.join(dist, `${stem}_bg.wasm`)) && existsSync(path.join(dist, `${stem}.js`)));
const ops = `const OP_METHODS = ${glue.opMethods()};\nconst SHIPPED = ${JSON.stringify(shipped)};\n`;
// The polyfill's parts, one scope in this order (each file's header says what it holds).
const PARTS = ['base.js', 'tensors.js', 'context.js', 'builder.js', 'ml.js', 'loader.js'];
const polyfill = PARTS.map((f) => readFileSync(path.join(root, 'pkg-js/src', f), 'utf8')).join('\n');

const esm = `${ops}${polyfill}
const BASE = new URL('./', import.meta.url);

/** Installs navigator.ml and the WebNN interfaces (see types/index.d.ts). */
export async function install(options = {}) {
  return installWebNN(globalThis, (n) => loadWasm(n, BASE, options), options);
}

export { ML, MLContext, MLGraph, MLGraphBuilder, MLOperand, MLTensor };
`;

const classic = `(function () {
'use strict';
${ops}${polyfill}
// The wasm sits next to this script; a worker that loads it with importScripts can name the
// folder in self.WEBNN_POLYFILL_BASE. <script data-force> installs over a native WebNN;
// <script data-threads="N"> (or self.WEBNN_POLYFILL_THREADS) sets the CPU thread count
// (default: one per core, at most 4); <script data-build="simd128"> (or
// self.WEBNN_POLYFILL_BUILD) names the wasm build instead of the fastest usable one.
const script = typeof document !== 'undefined' ? document.currentScript : null;
const base = new URL(self.WEBNN_POLYFILL_BASE ?? (script ? script.src : self.location.href), self.location.href);
const force = script ? script.hasAttribute('data-force') : Boolean(self.WEBNN_POLYFILL_FORCE);
const threads = script?.dataset.threads ?? self.WEBNN_POLYFILL_THREADS;
const build = script?.dataset.build ?? self.WEBNN_POLYFILL_BUILD ?? 'auto';
installWebNN(self, (n) => loadWasm(n, base, { threads, build }), { force });
})();
`;

writeFileSync(path.join(dist, 'webnn.mjs'), esm);
writeFileSync(path.join(dist, 'webnn-polyfill.js'), classic);
console.log(`bundled ${JSON.parse(glue.opMethods()).length} builder operations and the builds ${shipped.join(', ')} into pkg-js/dist`);
