#!/usr/bin/env bash
# The main job: builds the browser polyfill and the demo pages, serves www/ on localhost
# (COOP/COEP headers) and runs the image-classification demo (EfficientNet-Lite0, ImageNet
# weights) in headless Chromium on the CPU and WebGPU backends: prints the top-5 classes and
# timings and saves a screenshot to out/demo.png; then the chat page (SmolLM2-135M built with
# MLGraphBuilder) answers a question on the CPU context, checked against the native decoder.
# With a display it keeps serving for a person.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh all
bash scripts/models.sh
bash scripts/build-web.sh
cargo run -q --release -p webnn-www -- chat --device cpu --tokens 48 --prompt "What is the capital of France?"
cargo run -q --release -p webnn-www -- demo "$@"
