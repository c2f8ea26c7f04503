#!/usr/bin/env bash
# Builds the browser polyfill into pkg-js/dist: crates/webnn-web for wasm32, the pinned
# wasm-bindgen (ES module glue), wasm-opt, and the two entry scripts (scripts/web/bundle.mjs);
# and the chat page's module (crates/webnn-llm-web) into www/chat/pkg.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
dist=pkg-js/dist
mkdir -p "$dist"
# binaryen's wasm-opt from npm (setup.sh installs it; Debian's is too old for reference types).
opt() {
  "$WEBNN_TOOLS/node_modules/.bin/wasm-opt" -O3 --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd "$@"
}

# The build every browser loads: SIMD (.cargo/config.toml builds every wasm with simd128,
# the fast CPU backend's kernels), one thread.
cargo build -q -p webnn-web --target wasm32-unknown-unknown --release
wasm-bindgen --target web --out-dir "$dist" --out-name webnn_web \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_web.wasm"
opt "$dist/webnn_web_bg.wasm" -o "$dist/webnn_web_bg.wasm"

# The relaxed-SIMD build (fused multiply-add in the GEMM and vector kernels, one thread), for
# pages that cannot load the threads build in a browser that has relaxed SIMD (Chromium).
RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" cargo build -q -p webnn-web \
  --target wasm32-unknown-unknown --release --target-dir "$CARGO_TARGET_DIR/wasm-relaxed"
wasm-bindgen --target web --out-dir "$dist" --out-name webnn_web_relaxed \
  "$CARGO_TARGET_DIR/wasm-relaxed/wasm32-unknown-unknown/release/webnn_web.wasm"
opt --enable-relaxed-simd "$dist/webnn_web_relaxed_bg.wasm" -o "$dist/webnn_web_relaxed_bg.wasm"

# The threads build, which a cross-origin-isolated page whose browser validates it loads
# instead: shared memory, atomics and relaxed SIMD (fused multiply-add in the GEMM kernels).
source scripts/wasm-threads.sh
threads_cargo build -q -p webnn-web --release
wasm-bindgen --target web --out-dir "$dist" --out-name webnn_web_mt \
  "$CARGO_TARGET_DIR/wasm-threads/wasm32-unknown-unknown/release/webnn_web.wasm"
opt --enable-threads --enable-relaxed-simd "$dist/webnn_web_mt_bg.wasm" -o "$dist/webnn_web_mt_bg.wasm"

node scripts/web/bundle.mjs

# The chat page's own module (www/chat): the model file reader and the tokenizer.
cargo build -q -p webnn-llm-web --target wasm32-unknown-unknown --release
wasm-bindgen --target web --out-dir www/chat/pkg --out-name webnn_llm_web \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_llm_web.wasm"
opt "www/chat/pkg/webnn_llm_web_bg.wasm" -o "www/chat/pkg/webnn_llm_web_bg.wasm"

# --harness: also the WPT harness that drives the polyfill in a page (webnn-wpt-js), kept
# in the target directory since it is only for tests.
if [ "${1:-}" = --harness ]; then
  cargo build -q -p webnn-wpt-js --target wasm32-unknown-unknown --release
  wasm-bindgen --target web --out-dir "$CARGO_TARGET_DIR/webnn-wpt-js" --out-name webnn_wpt_js \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/webnn_wpt_js.wasm"
fi
