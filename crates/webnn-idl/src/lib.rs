//! webnn-idl: `MLGraphBuilder` calls from dynamic argument values, converted the way WebIDL
//! converts JavaScript values (`[EnforceRange]` integers, enums, dictionaries with the spec's
//! defaults, sequences). The WPT harness feeds it the JSON test data and the browser binding
//! feeds it the page's arguments, so both go through one mapping onto the typed builder.

pub mod args;
pub mod calls;
pub mod emit;
pub mod limits;
mod legacy;
pub mod options;
pub mod signatures;

pub use args::{Args, Marked, Operands, OPERAND_KEY};
pub use calls::{call, CallError};
pub use signatures::{op_signature, op_signatures, Param, Signature};
