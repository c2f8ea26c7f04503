# Sourced by the scripts: `threads_cargo <cargo args>` runs cargo for the wasm threads build
# (shared memory, atomics, relaxed SIMD). std must be rebuilt with atomics (-Z build-std,
# through RUSTC_BOOTSTRAP on the stable toolchain with its rust-src component, which
# setup.sh adds); the linker flags make the memory shared and imported and export the
# thread-local-storage hooks wasm-bindgen's glue calls for each thread. Its own target
# directory keeps this build and the simd128 one from invalidating each other: proc-macro2's
# build script reads RUSTC_BOOTSTRAP, so in a shared directory every proc macro would be
# built again at each switch (the relaxed-SIMD build, without it, shares the simd128 one's).
threads_cargo() {
  local flags="-C target-feature=+simd128,+relaxed-simd,+atomics,+bulk-memory,+mutable-globals" a
  for a in --shared-memory --max-memory=4294967296 --import-memory --export=__wasm_init_tls \
    --export=__tls_size --export=__tls_align --export=__tls_base; do
    flags+=" -C link-arg=$a"
  done
  # rustc warns once per crate that `atomics` is an unstable target feature; that is known.
  RUSTC_BOOTSTRAP=1 RUSTFLAGS="$flags" cargo "$@" --target wasm32-unknown-unknown \
    -Z build-std=std,panic_abort --target-dir "$CARGO_TARGET_DIR/wasm-threads" \
    2> >(grep -v -e "unstable feature specified for \`-Ctarget-feature\`: \`atomics\`" \
      -e "this feature is not stably supported" -e "generated 1 warning" -e '^  |$' -e '^$' >&2)
}
