//! Local web tooling with no dependencies beyond the standard library: a static file server
//! for the demo pages and tests (`serve`), and a WebDriver client for Debian's headless
//! Chromium and Firefox ESR (`Browser`).

pub mod serve;
pub mod webdriver;

pub use serve::{Mount, Server};
pub use webdriver::{Browser, Engine};

use std::path::PathBuf;

/// The workspace root: `$WEBNN_ROOT` (scripts/env.sh sets it), else where this crate was
/// compiled (`crates/webnn-www`). The variable matters when clones share one target
/// directory: cargo may reuse a binary compiled in another clone, whose compile-time path
/// would serve that clone's files.
pub fn workspace_root() -> PathBuf {
    match std::env::var_os("WEBNN_ROOT") {
        Some(root) => PathBuf::from(root),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."),
    }
    .canonicalize()
    .unwrap_or_else(|_| ".".into())
}
