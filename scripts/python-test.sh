#!/usr/bin/env bash
# The Python package (crates/webnn-py): built into the project's virtual environment with
# maturin (a debug build sharing the cargo target directory with the native tests, so only
# the extension module itself compiles), then its pytest suite: the API, and WPT's
# conformance vectors through it on the cpu, reference and wgpu backends.
#   python-test.sh          set up (quick when done), build, test
#   python-test.sh --setup  only the virtual environment: maturin, numpy, pytest, mypy (PyPI)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/env.sh"
venv="${WEBNN_PYTHON_VENV:-$HOME/.cache/webnn-rs/python}"
log() { printf '[python] %s\n' "$*"; }

if ! "$venv/bin/python" -c 'import maturin, numpy, pytest, mypy' 2>/dev/null; then
  log "creating $venv (maturin, numpy, pytest, mypy from PyPI)"
  if ! python3 -m venv "$venv" 2>/dev/null; then
    sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9,<2" "numpy>=1.21" pytest mypy
fi
[ "${1:-}" = --setup ] && exit 0

export VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH"
cd "$root/crates/webnn-py"
maturin develop -q
python -m pytest -q -s -rs tests/
