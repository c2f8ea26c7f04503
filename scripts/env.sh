# Sourced by the scripts: one cargo target directory outside the clone, reused across runs.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/webnn-rs/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export PATH="$HOME/.cargo/bin:$PATH"
