//! Browser end-to-end tests live in `tests/`; they run only on wasm32 under
//! wasm-bindgen-test-runner (see scripts/test.sh).
