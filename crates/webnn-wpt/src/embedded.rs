//! The WPT files and expected-failures lists compiled into the library (feature `embed`), for
//! targets without a file system such as wasm32 in a browser.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

use crate::Sources;

/// Every conformance file: `(name without extension, JSON)`.
pub fn conformance_files() -> &'static [(&'static str, &'static str)] {
    generated::CONFORMANCE
}

/// Every validation file: `(name without extension, JSON)`.
pub fn validation_files() -> &'static [(&'static str, &'static str)] {
    generated::VALIDATION
}

/// Both suites, ready for `crate::run`.
pub fn sources() -> Sources<'static> {
    Sources { conformance: conformance_files().to_vec(), validation: validation_files().to_vec() }
}

/// The text of `expected/<backend>.txt`, if there is one.
pub fn expected(backend: &str) -> Option<&'static str> {
    generated::EXPECTED.iter().find(|(name, _)| *name == backend).map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_file_is_embedded() {
        assert_eq!(super::conformance_files().len(), 91);
        assert_eq!(super::validation_files().len(), 38);
        assert!(super::conformance_files().iter().any(|(n, j)| *n == "add" && j.contains("\"cases\"")));
        assert!(super::expected("cpu").is_some());
        assert!(super::expected("no-such-backend").is_none());
    }
}
