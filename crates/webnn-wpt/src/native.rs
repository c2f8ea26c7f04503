//! Native helpers: the WPT files and the expected-failures lists read from disk.

use crate::{Expectations, Sources};
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root: `$WEBNN_ROOT` (scripts/env.sh sets it; clones sharing a target
/// directory may run a binary compiled in another clone), else where this crate was compiled.
fn workspace_root() -> PathBuf {
    std::env::var_os("WEBNN_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// `tests/wpt` of this workspace.
pub fn default_wpt_dir() -> PathBuf {
    workspace_root().join("tests/wpt")
}

/// `crates/webnn-wpt/expected/<backend>.txt`.
pub fn default_expected_path(backend: &str) -> PathBuf {
    workspace_root().join("crates/webnn-wpt/expected").join(format!("{backend}.txt"))
}

/// The JSON files of both suites, read into memory.
#[derive(Clone, Debug, Default)]
pub struct OwnedSources {
    pub conformance: Vec<(String, String)>,
    pub validation: Vec<(String, String)>,
}

impl OwnedSources {
    pub fn as_sources(&self) -> Sources<'_> {
        fn refs(v: &[(String, String)]) -> Vec<(&str, &str)> {
            v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
        }
        Sources { conformance: refs(&self.conformance), validation: refs(&self.validation) }
    }
}

/// Reads `<dir>/conformance/*.json` and `<dir>/validation/*.json` (not `_index.json`), sorted
/// by name.
pub fn load_dir(dir: &Path) -> Result<OwnedSources, String> {
    Ok(OwnedSources {
        conformance: load_suite(&dir.join("conformance"))?,
        validation: load_suite(&dir.join("validation"))?,
    })
}

fn load_suite(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().and_then(|e| e.to_str()) != Some("json") || stem.starts_with('_') {
            continue;
        }
        let text = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        files.push((stem.to_owned(), text));
    }
    files.sort();
    Ok(files)
}

/// Reads an expected-failures file; a missing file is an empty list.
pub fn read_expectations(path: &Path) -> Result<Expectations, String> {
    match fs::read_to_string(path) {
        Ok(text) => Expectations::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Expectations::default()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}
