#!/usr/bin/env bash
# The main job: builds a small WebNN graph with the builder and runs it on the CPU backend.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh native
cargo run --release -q -p webnn-cpu --example demo "$@"
