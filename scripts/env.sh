# Sourced by the scripts: one cargo target directory outside the clone, reused across runs.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/webnn-rs/target}"
# This clone: binaries read the repository's files from here, not from the path they were
# compiled at (cargo reuses a binary built in another clone with the same sources).
WEBNN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export WEBNN_ROOT
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export PATH="$HOME/.cargo/bin:$PATH"
# Mesa's Vulkan drivers want a runtime directory; a private one keeps them quiet.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}/webnn-rs-runtime-$(id -u)}"
mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
# npm-installed build tools (binaryen's wasm-opt), outside the clone like the target directory.
export WEBNN_TOOLS="${WEBNN_TOOLS:-$HOME/.cache/webnn-rs/tools}"
# ONNX Runtime's shared library for webnn-ort; setup.sh links the wheel's library here.
export WEBNN_ORT_DIR="${WEBNN_ORT_DIR:-$HOME/.cache/webnn-rs/ort}"
export ORT_DYLIB_PATH="${ORT_DYLIB_PATH:-$WEBNN_ORT_DIR/libonnxruntime.so}"
