//! The WPT harness of `webnn-wpt`, compiled to wasm and run in a page against the WebNN
//! JavaScript objects found there (`navigator.ml`, `MLGraphBuilder`...): the polyfill's, or a
//! browser's own. Cases and comparisons are the native harness's; only the session differs:
//! every builder call, tensor and dispatch goes through the page's JavaScript API.

mod js;
mod session;

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use webnn_wpt::report::Suite;
use webnn_wpt::{conformance, validation, CaseResult};

pub use session::JsSession;

/// Runs the selected WPT files on a context created with `options` (an `MLContextOptions`
/// object) and resolves to the results as the harness's JSON report. `files` is
/// `{conformance: [[name, text]...], validation: [...]}`; `filter` keeps the cases whose key
/// contains it; `progress(done)` is called after each file.
#[wasm_bindgen]
pub async fn run(
    options: JsValue,
    files: JsValue,
    filter: Option<String>,
    progress: Option<js_sys::Function>,
) -> Result<String, JsValue> {
    let mut session = JsSession::open(&options).await?;
    let selected = |key: &str| filter.as_deref().is_none_or(|f| key.contains(f));
    let mut results: Vec<CaseResult> = Vec::new();
    let mut done = 0u32;
    for suite in [Suite::Conformance, Suite::Validation] {
        let list: Array = Reflect::get(&files, &suite.name().into())?.dyn_into()?;
        for entry in list.iter() {
            let entry: Array = entry.dyn_into()?;
            let name = entry.get(0).as_string().unwrap_or_default();
            let text = entry.get(1).as_string().unwrap_or_default();
            let mut push = |r: CaseResult| results.push(r);
            match suite {
                Suite::Conformance => conformance::run_file_in(&mut session, &name, &text, &selected, &mut push).await,
                Suite::Validation => validation::run_file_in(&mut session, &name, &text, &selected, &mut push),
            }
            done += 1;
            if let Some(p) = &progress {
                let _ = p.call2(&JsValue::NULL, &done.into(), &results.len().into());
            }
        }
    }
    session.close();
    Ok(webnn_wpt::to_json(&session.backend_name(), &results))
}
