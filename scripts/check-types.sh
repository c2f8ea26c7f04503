#!/usr/bin/env bash
# Type-checks the npm package's TypeScript declarations: the strict sample program against
# them (TypeScript 5 with @webgpu/types, and TypeScript 6 whose lib.dom has WebGPU), a worker
# sample against lib.webworker, then the IDL coverage test. Installs the pinned tools with
# `npm ci` only when pkg-js/node_modules is missing or was installed from another
# package-lock.json; needs nothing from the network but the npm registry.
set -euo pipefail
cd "$(dirname "$0")/../pkg-js"

command -v node >/dev/null && command -v npm >/dev/null || { echo "node (18 or later) and npm are required"; exit 1; }
[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 18 ] || { echo "node 18 or later is required"; exit 1; }

# The lockfile's hash, kept next to what `npm ci` installed from it.
stamp=node_modules/.lock-sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[check-types] npm ci (pkg-js)"
  npm ci --prefer-offline --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

echo "[check-types] tsc --noEmit (TypeScript $(node -p 'require("typescript/package.json").version') + @webgpu/types)"
node_modules/.bin/tsc --noEmit -p tsconfig.json
echo "[check-types] tsc --noEmit (TypeScript $(node -p 'require("typescript-6/package.json").version'), lib.dom's WebGPU, NodeNext resolution)"
node node_modules/typescript-6/bin/tsc --noEmit -p tsconfig.dom-webgpu.json
echo "[check-types] tsc --noEmit (worker sample, lib.webworker)"
node_modules/.bin/tsc --noEmit -p tsconfig.worker.json
echo "[check-types] IDL coverage of types/webnn.d.ts"
node test/idl-coverage.mjs
