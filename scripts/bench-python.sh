#!/usr/bin/env bash
# The Python package side by side with pywebnn (PyPI, rustnn's binding) in one run: WPT's
# conformance vectors through each one's builder, and MobileNetV2 built op by op (build and
# first run; median run), both on the CPU. Each lives in its own virtual environment (both
# install as `webnn`); this package is a release build here. Fails if this package passes
# fewer cases or runs MobileNetV2 slower.
#   bench-python.sh [--runs N]
# pywebnn ships only a source distribution: pip compiles it (rustnn, ONNX Runtime's `ort`
# bindings; it needs protoc, Debian's protobuf-compiler) in about 10 minutes on 2 cores the
# first time, which is why this is a benchmark and not part of the test command.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/env.sh"
PYWEBNN_VERSION=0.5.12
ours="${WEBNN_PYTHON_RELEASE_VENV:-$HOME/.cache/webnn-rs/python-release}"
theirs="${WEBNN_PYWEBNN_VENV:-$HOME/.cache/webnn-rs/pywebnn}"
log() { printf '[bench-python] %s\n' "$*"; }

bash "$root/scripts/models.sh" >/dev/null
# MobileNetV2's seeded weights as the browser bench has them (webnn-onnx's example writes them).
[ -f "$root/www/models/mobilenetv2/manifest.json" ] ||
  cargo run -q --release -p webnn-onnx --example mobilenet_files -- "$root/www/models/mobilenetv2"

if ! "$ours/bin/python" -c 'import maturin, numpy' 2>/dev/null; then
  python3 -m venv "$ours"
  "$ours/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9,<2" "numpy>=1.21"
fi
log "building this package (release) into $ours"
# A wheel, installed: `maturin develop` would put its library into the source tree, where
# the test environment's editable install (scripts/python-test.sh) reads it too.
wheels="$(mktemp -d)"
(cd "$root/crates/webnn-py" && VIRTUAL_ENV="$ours" PATH="$ours/bin:$PATH" maturin build -q --release -o "$wheels")
"$ours/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheels"/webnn-*.whl
rm -rf "$wheels"

if ! "$theirs/bin/python" -c 'import webnn' 2>/dev/null; then
  command -v protoc >/dev/null || {
    sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq protobuf-compiler >/dev/null
  }
  log "building pywebnn $PYWEBNN_VERSION from its source distribution (minutes)"
  python3 -m venv "$theirs"
  CARGO_TARGET_DIR="$HOME/.cache/webnn-rs/pywebnn-target" "$theirs/bin/python" -m pip install -q \
    --disable-pip-version-check "pywebnn==$PYWEBNN_VERSION" numpy
fi
# pywebnn runs its graphs on ONNX Runtime, whose library it loads from ORT_DYLIB_PATH.
mine="$("$ours/bin/python" "$root/crates/webnn-py/bench/compare.py" "$@" 2>/dev/null | tail -n 1)"
other="$("$theirs/bin/python" "$root/crates/webnn-py/bench/compare.py" "$@" 2>/dev/null | tail -n 1)"
python3 - "$mine" "$other" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("| | this package | pywebnn | ratio |")
print("|---|---|---|---|")
print(f"| WPT conformance vectors passed (of {a['wpt_cases']}) | {a['wpt_passed']} | {b['wpt_passed']} ({b['wpt_skipped']} skipped: data types its opSupportLimits() lacks) | |")
for key, what in [("mobilenet_build_and_first_run_ms", "MobileNetV2 build + first run (ms)"), ("mobilenet_run_ms", "MobileNetV2 run, median (ms)")]:
    print(f"| {what} | {a[key]} | {b[key]} | {a[key] / b[key]:.2f}x |")
ok = a["wpt_passed"] > b["wpt_passed"] and a["mobilenet_run_ms"] < b["mobilenet_run_ms"]
sys.exit(0 if ok else 1)
PY
