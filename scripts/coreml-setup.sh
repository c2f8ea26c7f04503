#!/usr/bin/env bash
# Installs the pinned coremltools (PyPI) into a cache outside the clone, for webnn-coreml's
# check: its MIL protobuf loader type-checks the converted programs (coremltools runs no
# model on Linux, but loads and type-checks them), and the aarch64-apple-darwin target that
# the Core ML executor is compile-checked for. Quick when both are there.
set -euo pipefail
# The macOS target's standard library, to compile-check the Core ML executor (macos-run).
if ! rustup target list --installed 2>/dev/null | grep -qx aarch64-apple-darwin; then
  rustup target add aarch64-apple-darwin
fi
COREMLTOOLS_VERSION=9.0
# numpy 2 breaks coremltools 9.0's constant folding of reductions (keepdims=numpy.bool).
NUMPY_VERSION=1.26.4
dir="${WEBNN_COREML_DIR:-$HOME/.cache/webnn-rs/coreml}"
if [ "$(cat "$dir/version" 2>/dev/null)" = "$COREMLTOOLS_VERSION+numpy$NUMPY_VERSION" ] && [ -d "$dir/site/coremltools" ]; then
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-pip >/dev/null
fi
echo "[setup] installing coremltools $COREMLTOOLS_VERSION into $dir/site"
rm -rf "$dir/site"
mkdir -p "$dir"
python3 -m pip install -q --disable-pip-version-check --target "$dir/site" \
  "coremltools==$COREMLTOOLS_VERSION" "numpy==$NUMPY_VERSION" 2>&1 | grep -v "as the 'root' user" || true
PYTHONPATH="$dir/site" python3 -c "import coremltools.converters.mil.frontend.milproto" 2>/dev/null \
  || { echo "coremltools $COREMLTOOLS_VERSION did not install into $dir/site"; exit 1; }
echo "$COREMLTOOLS_VERSION+numpy$NUMPY_VERSION" > "$dir/version"
