//! webnn-py: the `webnn` Python package's extension module. It converts Python values into
//! calls on the `webnn` facade (the same object model the browser binding uses) and holds no
//! rule of its own: builder arguments go through `webnn-idl` as the page's do, validation is
//! webnn-core's, lifetimes and dispatch checks are the facade's.
//!
//! The facade's objects are single-threaded (`Rc`): each is held in an [`Owned`], used on
//! the thread that made it, and an `InvalidStateError` elsewhere. The GIL is released while
//! a graph compiles, runs or is read back ([`detached`]).

mod arrays;
mod builder;
mod context;
mod errors;
mod llm;
mod values;

use pyo3::prelude::*;

/// Runs `f` with the GIL released. The closure's values are the facade's single-threaded
/// handles, which is sound here: they come out of [`Owned`]s of this thread, which no other
/// thread reaches, and this thread runs `f` to completion before it takes the GIL back.
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

/// A single-threaded facade object inside a Python object, which Python may hand to any
/// thread: only the thread that made it reaches the value ([`Owned::get`]); elsewhere the
/// call raises `InvalidStateError`, and a drop on another thread leaks the value rather than
/// touch its reference counts there.
pub(crate) struct Owned<T> {
    thread: std::thread::ThreadId,
    what: &'static str,
    value: std::mem::ManuallyDrop<T>,
}

// SAFETY: the value is only reached, and dropped, on the thread recorded at creation.
unsafe impl<T> Send for Owned<T> {}
unsafe impl<T> Sync for Owned<T> {}

impl<T> Owned<T> {
    pub fn new(what: &'static str, value: T) -> Owned<T> {
        Owned { thread: std::thread::current().id(), what, value: std::mem::ManuallyDrop::new(value) }
    }

    fn check(&self) -> PyResult<()> {
        if std::thread::current().id() == self.thread {
            return Ok(());
        }
        Err(errors::to_py(webnn_core::Error::invalid_state(format!(
            "this {} belongs to the thread that created it (WebNN objects are single-threaded: make one per thread)",
            self.what
        ))))
    }

    pub fn get(&self) -> PyResult<&T> {
        self.check()?;
        Ok(&self.value)
    }

    pub fn get_mut(&mut self) -> PyResult<&mut T> {
        self.check()?;
        Ok(&mut self.value)
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        if std::thread::current().id() == self.thread {
            // SAFETY: dropped once, here, on the owning thread.
            unsafe { std::mem::ManuallyDrop::drop(&mut self.value) }
        }
    }
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
