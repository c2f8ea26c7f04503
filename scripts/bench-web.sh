#!/usr/bin/env bash
# The browser CPU benchmark: MobileNetV2 on the polyfill's CPU context against ONNX Runtime
# Web's wasm backend in headless Chromium, at 1 and 2 threads, printing a table.
#   bench-web.sh [--runs N] [--threads 1,2]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh all >/dev/null
bash scripts/build-web.sh
# The model files: the network as webnn-onnx exports it (for ONNX Runtime Web) and its
# constants for the page's MLGraphBuilder code, into www/models/mobilenetv2 (git-ignored).
cargo run -q --release -p webnn-onnx --example mobilenet_files -- www/models/mobilenetv2
cargo run -q --release -p webnn-www -- bench "$@"
