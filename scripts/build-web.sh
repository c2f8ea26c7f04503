#!/usr/bin/env bash
# Builds the browser polyfill into pkg-js/dist: crates/webnn-web for wasm32, wasm-bindgen's
# ES module glue, wasm-opt, and the two entry scripts (scripts/web/bundle.mjs); and the chat
# page's module (crates/webnn-llm-web) into www/chat/pkg, and loadOnnx's module
# (crates/webnn-onnx-web, pkg-js/src/onnx.mjs) beside the polyfill.
#   build-web.sh             the three wasm builds (threads, relaxed-simd, simd128)
#   build-web.sh --demo      the simd128 build alone, which every browser with WebGPU loads
#   build-web.sh --harness   the three, and the WPT harness page's module (tests)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
mode="${1:-all}"
dist=pkg-js/dist
mkdir -p "$dist"
log() { printf '[build-web] %s\n' "$*"; }
# binaryen's wasm-opt from npm (setup.sh installs it; Debian's cannot parse relaxed SIMD's
# final opcodes). It is binaryen compiled to wasm, one thread, 1.5 minutes per polyfill build
# on a 2-core machine: `opt FILE [flags]` optimises FILE into FILE.opt in the background,
# beside the next cargo build and the other files' passes, and `opt_wait` waits for each and
# only then moves it over FILE, so a pass left from a run that stopped early can never
# replace a newer build's file (and the exit trap stops such passes).
# `build-web.sh --harness` with the builds already made took 3:55 this way where one pass at
# a time took 5:17 (two at a time: 4:53; passes side by side take more CPU time each); from
# an empty target directory, with the relaxed build below sharing it, 11:13 where 12:17.
opt_jobs=()
trap 'for job in ${opt_jobs[@]+"${opt_jobs[@]}"}; do kill "${job%%:*}" 2>/dev/null || true; done' EXIT
opt() {
  local file="$1"
  shift
  "$WEBNN_TOOLS/node_modules/.bin/wasm-opt" -O3 --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd \
    "$@" "$file" -o "$file.opt" &
  opt_jobs+=("$!:$file")
}
opt_wait() {
  local job
  for job in ${opt_jobs[@]+"${opt_jobs[@]}"}; do
    if ! wait "${job%%:*}"; then
      log "wasm-opt failed on ${job#*:}"
      exit 1
    fi
    mv "${job#*:}.opt" "${job#*:}"
  done
  opt_jobs=()
}

# wasm-bindgen's glue: the pinned CLI where setup installed it (the test command needs its
# test runner), else webnn-bindgen, the same library with the CLI's options, built here.
pinned="$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$pinned" ]; then
  bindgen() { wasm-bindgen --target web "$@"; }
else
  log "building webnn-bindgen (wasm-bindgen $pinned's glue generator)"
  cargo build -q --release -p webnn-bindgen
  bindgen() { "$CARGO_TARGET_DIR/release/webnn-bindgen" "$@"; }
fi

# The build every browser loads: SIMD (.cargo/config.toml builds every wasm with simd128,
# the fast CPU backend's kernels), one thread.
log "webnn-web, simd128"
cargo build -q -p webnn-web --target wasm32-unknown-unknown --release
bindgen --out-dir "$dist" --out-name webnn_web \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_web.wasm"
opt "$dist/webnn_web_bg.wasm"

if [ "$mode" = --demo ]; then
  # Builds left from an earlier full build would no longer match this one's glue.
  rm -f "$dist"/webnn_web_mt* "$dist"/webnn_web_relaxed*
else
  # The relaxed-SIMD build (fused multiply-add in the GEMM and vector kernels, one thread),
  # for pages that cannot load the threads build in a browser that has relaxed SIMD
  # (Chromium). In the simd128 build's target directory: cargo keeps its dependencies built
  # with different RUSTFLAGS side by side there, and the two share their host crates (proc
  # macros, build scripts: 40 s of a cold build). webnn-web itself (its cdylib has no hash
  # in its name) is compiled again at each switch, in seconds, so webnn_web.wasm is the last
  # build's: bindgen reads it at once. (The threads build cannot share it: see
  # wasm-threads.sh.) Target directories from before this keep a wasm-relaxed folder.
  rm -rf "$CARGO_TARGET_DIR/wasm-relaxed"
  log "webnn-web, relaxed-simd"
  RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" cargo build -q -p webnn-web \
    --target wasm32-unknown-unknown --release
  bindgen --out-dir "$dist" --out-name webnn_web_relaxed \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_web.wasm"
  opt "$dist/webnn_web_relaxed_bg.wasm" --enable-relaxed-simd

  # The threads build, which a cross-origin-isolated page whose browser validates it loads
  # instead: shared memory, atomics and relaxed SIMD (fused multiply-add in the GEMM kernels).
  log "webnn-web, threads"
  source scripts/wasm-threads.sh
  threads_cargo build -q -p webnn-web --release
  bindgen --out-dir "$dist" --out-name webnn_web_mt \
    "$CARGO_TARGET_DIR/wasm-threads/wasm32-unknown-unknown/release/webnn_web.wasm"
  opt "$dist/webnn_web_mt_bg.wasm" --enable-threads --enable-relaxed-simd
fi

node scripts/web/bundle.mjs

# The chat page's own module (www/chat): the model file reader and the tokenizer.
log "webnn-llm-web (the chat page's module)"
cargo build -q -p webnn-llm-web --target wasm32-unknown-unknown --release
bindgen --out-dir www/chat/pkg --out-name webnn_llm_web \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_llm_web.wasm"
opt "www/chat/pkg/webnn_llm_web_bg.wasm"

# loadOnnx's module (pkg-js/src/onnx.mjs) and its wasm (crates/webnn-onnx-web): the ONNX
# importer without any backend, loaded only by pages that import webnn-onnx.mjs. The demo
# pages do not.
if [ "$mode" != --demo ]; then
  log "webnn-onnx-web (loadOnnx)"
  cargo build -q -p webnn-onnx-web --target wasm32-unknown-unknown --release
  bindgen --out-dir "$dist" --out-name webnn_onnx_web \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_onnx_web.wasm"
  opt "$dist/webnn_onnx_web_bg.wasm"
  cp pkg-js/src/onnx.mjs "$dist/webnn-onnx.mjs"
fi

# --harness: also the WPT harness that drives the polyfill in a page (webnn-wpt-js), kept
# in the target directory since it is only for tests.
if [ "$mode" = --harness ]; then
  log "webnn-wpt-js (the WPT harness page's module)"
  cargo build -q -p webnn-wpt-js --target wasm32-unknown-unknown --release
  bindgen --out-dir "$CARGO_TARGET_DIR/webnn-wpt-js" --out-name webnn_wpt_js \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_wpt_js.wasm"
fi

# Every wasm-opt pass started above.
opt_wait
