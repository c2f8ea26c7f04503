#!/usr/bin/env bash
# Every test: unit and integration tests (WPT conformance + validation on the cpu backend and
# on the wgpu backend over Mesa's lavapipe, every op and type against the cpu backend,
# MobileNetV2 on both), then in headless Chromium: the WPT suites on the cpu backend compiled
# to wasm32, the wgpu backend on the page's WebGPU against the cpu backend, and the polyfill
# (navigator.ml) driven through its JavaScript objects by the WPT suites and its own tests;
# the polyfill in headless Firefox too; ONNX Runtime Web's WebNN execution provider on it;
# ONNX files through loadOnnx against ONNX Runtime Web.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
# Each section prints the minutes since the start, so a slow one shows in CI's log.
start=$SECONDS
section() { printf '== %s [%d:%02d]\n' "$*" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }
section "setup"
bash scripts/setup.sh all
section "models and the polyfill"
bash scripts/models.sh          # EfficientNet-Lite0 weights, labels and samples into www/models/
bash scripts/build-web.sh --harness   # the polyfill (pkg-js/dist) and the in-page WPT harness

section "native tests"
# One build serves every native suite: the facade with every backend compiled in (ONNX
# Runtime, CoreML's converter) and SmolLM2 on ONNX Runtime (its known answer, parity with
# llama.cpp) beside the other backends. Left out: the crates that only run in a page (they
# have no native tests; build-web.sh built each for wasm32 above, with the macros they need),
# and webnn-bindgen (the demo's glue generator, unused where wasm-bindgen-cli is installed,
# as setup.sh does here). Compiling them natively cost about 1.5 minutes of a cold run.
native_only=(--exclude webnn-browser-tests --exclude webnn-web --exclude webnn-llm-web
  --exclude webnn-onnx-web --exclude webnn-wpt-js --exclude webnn-bindgen)
cargo test --workspace "${native_only[@]}" --features webnn/ort,webnn/coreml,webnn-llm/ort
# The binaries that build made, run as they are: `cargo run -p` of one package would build
# its dependencies again with that package's features alone.
bin="$CARGO_TARGET_DIR/debug"
cargo check -q -p webnn-coreml --features macos-run --target aarch64-apple-darwin   # the Core ML executor
cargo check -q -p webnn-gemm -p webnn-fast --target aarch64-apple-darwin   # the NEON kernels (aarch64)
"$bin/webnn-wpt" --backend fast --coverage   # WPT on the fast CPU backend (webnn-fast), and which cases run on its own kernels
# The ONNX tool from the shell on a package's model (its outputs are checked by onnx_import.rs).
onnx_models="${WEBNN_ONNX_DIR:-$HOME/.cache/webnn-rs/onnx}"
"$bin/webnn-onnx" inspect "$onnx_models/magika/models/standard_v3_3/model.onnx" --dims unk__214=1 | tail -n 1
"$bin/webnn-onnx" run "$onnx_models/rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx" --dims x=1x3x48x192

section "the Python package: its API, and WPT's conformance vectors through it on cpu, reference and wgpu"
bash scripts/python-test.sh

section "browser tests (wasm32 in headless Chromium)"
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=1200
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
cargo test -p webnn-browser-tests --target wasm32-unknown-unknown --release --test wpt_cpu --test wgpu_webgpu --test web_binding -- --nocapture
section "the GEMM microkernels, the quantized row kernels and the style transfer network (every step on a fast kernel, and where its time goes) in Chromium, in each wasm build: simd128, and the threads build's relaxed SIMD"
cargo test -p webnn-gemm --target wasm32-unknown-unknown --release --test correctness
cargo test -p webnn-fast --target wasm32-unknown-unknown --release --test quantized --test profile -- --nocapture
source scripts/wasm-threads.sh
threads_cargo test -p webnn-gemm --release --test correctness
threads_cargo test -p webnn-fast --release --test quantized --test profile
section "the polyfill in headless Chromium: WPT through its JavaScript objects, CPU (each wasm build: threads, relaxed-simd, simd128) and WebGPU contexts"
"$bin/webnn-wpt" --backend browser-cpu
WEBNN_WPT_BUILD=relaxed-simd "$bin/webnn-wpt" --backend browser-cpu
WEBNN_WPT_BUILD=simd128 "$bin/webnn-wpt" --backend browser-cpu
"$bin/webnn-wpt" --backend browser-webgpu

section "the polyfill in headless Firefox ESR (no WebNN, no WebGPU adapter without a GPU): WPT through its CPU context in each wasm build"
# The polyfill's own tests and the classification page ran in Firefox with the native tests.
for build in auto relaxed-simd simd128; do
  WEBNN_BROWSER=firefox WEBNN_WPT_BUILD=$build "$bin/webnn-wpt" --backend browser-cpu
done

section "the fuzzer in the page: random graphs through navigator.ml on each wasm build and on WebGPU, as storms of write, dispatch, read and destroy, against the reference"
for build in threads relaxed-simd simd128; do
  "$bin/webnn-fuzz" --page cpu --build $build --cases 2000
done
"$bin/webnn-fuzz" --page webgpu --cases 200
"$bin/webnn-fuzz" --page cpu --edges --cases 1000
"$bin/webnn-fuzz" --page webgpu --edges --cases 100
# Regressions (docs/fuzzing.md): convTranspose2d lost NaN in the relaxed-SIMD builds, and so
# did the chains' tanh; a prefix slice of a uint8 value, as an output, was overwritten on WebGPU.
for seed in 20000722 20001344 20005136; do
  "$bin/webnn-fuzz" --page cpu --build relaxed-simd --edges --seed $seed --cases 1
done
"$bin/webnn-fuzz" --page cpu --build threads --seed 626 --cases 1
"$bin/webnn-fuzz" --page cpu --build threads --edges --seed 35 --cases 1   # clamp with a NaN bound
"$bin/webnn-fuzz" --page webgpu --edges --seed 50000747 --cases 1
WEBNN_BROWSER=firefox "$bin/webnn-fuzz" --page cpu --cases 1000

section "the browser CPU benchmark page: MobileNetV2 on the polyfill and on ONNX Runtime Web agree (speed: scripts/bench-web.sh)"
"$bin/examples/mobilenet_files" www/models/mobilenetv2
"$bin/webnn-www" bench --runs 2

section "ONNX Runtime Web's WebNN execution provider on the polyfill: a CNN and a transformer encoder, equal to its wasm execution provider, every node on WebNN"
"$bin/examples/encoder_files" www/models/encoder
"$bin/webnn-www" ort-webnn --device cpu
"$bin/webnn-www" ort-webnn --device gpu   # the gpu hint on a software adapter: the CPU context
WEBNN_BROWSER=firefox "$bin/webnn-www" ort-webnn --device cpu

section "loadOnnx: ONNX files (this project's exports, PP-OCR's and the onnx package's ResNet50 and SqueezeNet) built on the polyfill, equal to ONNX Runtime Web on the same files"
"$bin/examples/mobilenet_f16" www/models/mobilenetv2-f16
"$bin/examples/page_exports" www/models   # EfficientNet-Lite0 and the style transfer network
# The QDQ form of the same MobileNetV2, by ONNX Runtime's own quantizer (the setup's copies of
# onnxruntime and onnx).
llama="${WEBNN_LLAMA_DIR:-$HOME/.cache/webnn-rs/llama}"
mkdir -p www/models/mobilenetv2-qdq
PYTHONPATH="$WEBNN_ORT_DIR/wheel:$llama/onnx-site:$llama/site" python3 scripts/quantize-onnx.py \
  www/models/mobilenetv2/model.onnx www/models/mobilenetv2-qdq/model.onnx 2> >(grep -v "^WARNING:root" >&2)
"$bin/webnn-www" onnx --threads 1,2 --runs 3
WEBNN_BROWSER=firefox "$bin/webnn-www" onnx --threads 1 --runs 3

section "the chat page: SmolLM2 built through the polyfill's MLGraphBuilder, greedy tokens equal to the native decoder's"
for cache in f32 f16; do
  "$bin/webnn-www" chat --device cpu --cache $cache --tokens 24
  "$bin/webnn-www" chat --device gpu --cache $cache --tokens 4
done

bash scripts/check-types.sh   # the npm package's TypeScript declarations
section "all tests passed"
