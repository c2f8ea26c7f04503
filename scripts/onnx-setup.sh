#!/usr/bin/env bash
# Installs the ONNX models the importer's tests run, each from the PyPI package that ships it
# (nothing here wrote them): magika's content-type model, RapidOCR's PP-OCRv4 text detection
# and recognition and its direction classifier, Silero's voice activity detector, and the `onnx` package's CNN test models with
# their reference outputs. Only the .onnx files (and the reference data) are kept, in a cache
# outside the clone. Quick when they are there.
set -euo pipefail
dir="${WEBNN_ONNX_DIR:-$HOME/.cache/webnn-rs/onnx}"
PACKAGES="magika==1.0.3 rapidocr-onnxruntime==1.4.4 silero-vad==6.2.3 onnx==1.23.2"
if [ "$(cat "$dir/version" 2>/dev/null)" = "$PACKAGES" ]; then
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "[setup] installing python3-pip"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-pip unzip >/dev/null
fi
echo "[setup] installing the ONNX test models ($PACKAGES) into $dir"
rm -rf "$dir"
mkdir -p "$dir/wheels"
# The onnx wheel is platform-specific; any Linux x86-64 build holds the same test data.
python3 -m pip download -q --disable-pip-version-check --no-deps --dest "$dir/wheels" \
  --only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 $PACKAGES \
  2>&1 | grep -v "as the 'root' user" || true
python3 - "$dir" <<'PY'
import pathlib, sys, zipfile
root = pathlib.Path(sys.argv[1])
keep = ("magika/models/standard_v3_3/", "rapidocr_onnxruntime/models/", "silero_vad/data/silero_vad_op18_ifless.onnx",
        "onnx/backend/test/data/light/")
for wheel in sorted((root / "wheels").glob("*.whl")):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(keep) and not name.endswith("/"):
                z.extract(name, root)
PY
rm -rf "$dir/wheels"
for f in magika/models/standard_v3_3/model.onnx rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx \
  silero_vad/data/silero_vad_op18_ifless.onnx onnx/backend/test/data/light/light_resnet50.onnx; do
  [ -s "$dir/$f" ] || { echo "the ONNX test models did not install: $dir/$f is missing"; exit 1; }
done
echo "$PACKAGES" > "$dir/version"
