//! `webnn-wpt`: runs the WPT WebNN suites on a backend.
//!
//! ```text
//! cargo run --release -p webnn-wpt -- --backend cpu [--json FILE] [--filter SUBSTR]
//!     [--suite conformance|validation] [--wpt DIR] [--expected FILE] [--verbose] [--list-failing]
//! ```
//! Prints every failing case with its message (those listed in `expected/<backend>.txt` with
//! their reason), every listed case that passed, and ends with the wall time and
//! `N passed, N failed, N skipped`. Exits 0 iff every selected case not listed passes and every
//! listed one fails; 2 on usage errors.

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {
    // No file system or process arguments there: the browser harness drives the library.
}
