//! WPT harness.
