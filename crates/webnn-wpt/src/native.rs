//! Native helpers: the WPT files and the expected-failures lists read from disk.

use crate::{Expectations, Sources};
use std::fs;
use std::path::{Path, PathBuf};

/// `tests/wpt` of this workspace.
pub fn default_wpt_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/wpt")
}

/// `crates/webnn-wpt/expected/<backend>.txt`.
pub fn default_expected_path(backend: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("expected").join(format!("{backend}.txt"))
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
