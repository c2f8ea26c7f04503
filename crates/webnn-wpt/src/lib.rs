//! webnn-wpt: runs the W3C web-platform-tests WebNN vectors (extracted as JSON in
//! `tests/wpt/`, see its README) on any `webnn_core::Backend`.
//!
//! * conformance: each case's graph is built through `GraphBuilder` from the JS method names
//!   and positional arguments, compiled, dispatched, and compared with WPT's tolerances;
//! * validation: each table row is one builder call that must succeed with the given output
//!   descriptors or throw a TypeError.
//!
//! The library has no threads, clocks or file access in its core path, so it also runs on
//! wasm32 (with the `embed` feature providing the JSON files); `native` reads them from disk.

#[cfg(not(target_arch = "wasm32"))]
pub mod browser;
pub mod compare;
pub mod conformance;
#[cfg(not(target_arch = "wasm32"))]
pub mod coverage;
pub mod data;
#[cfg(feature = "embed")]
pub mod embedded;
pub mod expected;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod report;
pub mod session;

/// The JSON-to-builder mapping lives in `webnn-idl`, shared with the browser binding.
pub use webnn_idl::{args, calls as ops_json};
pub mod validation;

pub use expected::{evaluate, Expectations, Outcome};
pub use report::{case_key, to_json, CaseResult, Status, Suite};

use webnn_core::Backend;

/// The case name a result gets when a whole file cannot be read.
pub const LOAD_CASE: &str = "(load)";

/// Which cases a run covers.
#[derive(Clone, Debug)]
pub struct Selection {
    pub conformance: bool,
    pub validation: bool,
    /// Only cases whose key (`<suite>/<file>/<name>`) contains this substring.
    pub filter: Option<String>,
}

impl Default for Selection {
    fn default() -> Self {
        Selection { conformance: true, validation: true, filter: None }
    }
}

impl Selection {
    /// Whether the run covers the case with this key.
    pub fn selects(&self, key: &str) -> bool {
        let suite_ok = (self.conformance && key.starts_with("conformance/"))
            || (self.validation && key.starts_with("validation/"));
        suite_ok && self.filter.as_deref().is_none_or(|f| key.contains(f))
    }
}

/// The WPT files of both suites: `(file name without extension, JSON text)`.
#[derive(Clone, Debug, Default)]
pub struct Sources<'a> {
    pub conformance: Vec<(&'a str, &'a str)>,
    pub validation: Vec<(&'a str, &'a str)>,
}

/// Runs the selected cases on `backend`, in file order; `on_result` sees each result as it
/// is produced (for progress output).
pub fn run(
    backend: &dyn Backend,
    sources: &Sources,
    selection: &Selection,
    on_result: &mut dyn FnMut(&CaseResult),
) -> Vec<CaseResult> {
    let mut results = Vec::new();
    let selected = |key: &str| selection.selects(key);
    let mut push = |r: CaseResult| {
        on_result(&r);
        results.push(r);
    };
    if selection.conformance {
        for (file, json) in &sources.conformance {
            conformance::run_file(backend, file, json, &selected, &mut push);
        }
    }
    if selection.validation {
        for (file, json) in &sources.validation {
            validation::run_file(backend, file, json, &selected, &mut push);
        }
    }
    results
}

/// Awaits `f`, turning a panic into an error message where unwinding is available.
pub(crate) async fn guarded_async<T>(f: impl std::future::Future<Output = T>) -> Result<T, String> {
    #[cfg(panic = "unwind")]
    {
        use std::future::Future;
        use std::pin::Pin;
        use std::task::{Context, Poll};
        struct Catch<F>(F);
        impl<F: Future> Future for Catch<F> {
            type Output = Result<F::Output, String>;
            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                // SAFETY: the inner future is never moved out of the pinned wrapper.
                let inner = unsafe { self.map_unchecked_mut(|c| &mut c.0) };
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx))) {
                    Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
                    Ok(Poll::Pending) => Poll::Pending,
                    Err(payload) => Poll::Ready(Err(format!("panicked: {}", panic_message(&*payload)))),
                }
            }
        }
        Catch(f).await
    }
    #[cfg(not(panic = "unwind"))]
    {
        Ok(f.await)
    }
}

#[cfg(panic = "unwind")]
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown payload".into())
}

/// Runs `f`, turning a panic (in a backend or the builder) into an error result where
/// unwinding is available.
pub(crate) fn guarded(f: impl FnOnce() -> (Status, String)) -> (Status, String) {
    #[cfg(panic = "unwind")]
    {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown payload".into());
                (Status::Error, format!("panicked: {msg}"))
            }
        }
    }
    #[cfg(not(panic = "unwind"))]
    {
        f()
    }
}
