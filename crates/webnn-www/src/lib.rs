//! Local web tooling with no dependencies beyond the standard library: a static file server
//! for the demo pages and tests (`serve`), and a WebDriver client for Debian's headless
//! Chromium (`Browser`).

pub mod serve;
pub mod webdriver;

pub use serve::{Mount, Server};
pub use webdriver::Browser;

use std::path::PathBuf;

/// The workspace root (this crate lives in `crates/webnn-www`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap_or_else(|_| ".".into())
}
