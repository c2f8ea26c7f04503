//! webnn-py: the `webnn` Python package's extension module. It converts Python values into
//! calls on the `webnn` facade (the same object model the browser binding uses) and holds no
//! rule of its own: builder arguments go through `webnn-idl` as the page's do, validation is
//! webnn-core's, lifetimes and dispatch checks are the facade's.
//!
//! The facade's objects are single-threaded (`Rc`), so every class here is `unsendable`: an
//! object is used on the thread that made it, and PyO3 raises on any other. The GIL is
//! released while a graph compiles, runs or is read back ([`detached`]).

mod arrays;
mod builder;
mod context;
mod errors;
mod llm;
mod values;

use pyo3::prelude::*;

/// Runs `f` with the GIL released. The closure's values are the facade's single-threaded
/// handles, which is sound here: they belong to `unsendable` objects, which PyO3 lets no
/// other thread touch, and this thread runs `f` to completion before it takes the GIL back.
pub(crate) fn detached<T, F: FnOnce() -> T>(py: Python<'_>, f: F) -> T {
    struct Sendable<X>(X);
    // SAFETY: see above; the value crosses no thread, only the GIL is released around it.
    unsafe impl<X> Send for Sendable<X> {}
    impl<X> Sendable<X> {
        fn into_inner(self) -> X {
            self.0
        }
    }
    let f = Sendable(f);
    py.detach(move || Sendable((f.into_inner())())).into_inner()
}

#[pymodule]
fn _webnn(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<context::Ml>()?;
    m.add_class::<context::MlContext>()?;
    m.add_class::<context::MlGraph>()?;
    m.add_class::<context::MlTensor>()?;
    m.add_class::<builder::MlGraphBuilder>()?;
    m.add_class::<builder::MlOperand>()?;
    m.add_function(wrap_pyfunction!(builder::op_signatures, m)?)?;
    m.add_function(wrap_pyfunction!(builder::snake_case, m)?)?;
    m.add_submodule(&llm::module(m.py())?)?;
    Ok(())
}
