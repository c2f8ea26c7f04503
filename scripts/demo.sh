#!/usr/bin/env bash
# The main job: builds the browser polyfill and the demo pages, serves www/ on localhost
# (COOP/COEP headers) and runs the image-classification demo (EfficientNet-Lite0, ImageNet
# weights) in headless Chromium on the CPU and WebGPU backends: prints the top-5 classes and
# timings and saves a screenshot to out/demo.png; then the chat page (SmolLM2-135M built with
# MLGraphBuilder) answers a question on the CPU context, checked against the native decoder.
# With a display it keeps serving for a person.
#
# It sets up only what the demo runs (`setup.sh demo`): the downloads (Chromium, the model
# packages, wasm-opt) go on in the background while the Rust code compiles.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
start=$SECONDS
step() { printf '[demo %d:%02d] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*"; }

command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  step "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

mkdir -p out
step "setting up Chromium, wasm-opt and the models in the background (out/demo-setup.log)"
(bash scripts/setup.sh demo && bash scripts/models.sh) > out/demo-setup.log 2>&1 &
setup_pid=$!

# One package per cargo command, as build-web.sh builds them: a package set decides the
# features its dependencies are built with, so these artifacts are the ones reused there.
step "compiling the polyfill (wasm32)"
cargo build -q -p webnn-web --target wasm32-unknown-unknown --release
step "compiling the chat page's module (wasm32), the glue generator and the demo runner"
cargo build -q -p webnn-llm-web --target wasm32-unknown-unknown --release
cargo build -q --release -p webnn-bindgen
cargo build -q --release -p webnn-www

step "waiting for the setup"
if ! wait "$setup_pid"; then
  cat out/demo-setup.log
  echo "the setup failed (above)"
  exit 1
fi
grep -h '^\[' out/demo-setup.log || true

step "bundling the polyfill (pkg-js/dist)"
bash scripts/build-web.sh --demo

step "the chat page: SmolLM2 through the polyfill's CPU context, against the native decoder"
cargo run -q --release -p webnn-www -- chat --device cpu --tokens 48 --prompt "What is the capital of France?"
step "the image-classification page on the CPU and on WebGPU"
cargo run -q --release -p webnn-www -- demo "$@"
step "done"
