//! Helpers shared by the `validation_*` tests: labelled options, inputs, and checks that a build
//! failed with the right error kind and the label in its message.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use webnn_core::ops::OpOptions;
use webnn_core::{DataType, Dim, ErrorKind, GraphBuilder, Operand, OperandDescriptor, Result};

/// The label every test op gets; errors must name it.
pub const LABEL: &str = "mylabel";

/// `T { fields.., label: LABEL, ..Default::default() }` for any options struct `T`.
macro_rules! labelled {
    ($t:ident) => {
        $t { label: $crate::support::LABEL.into(), ..Default::default() }
    };
    ($t:ident { $($field:ident $(: $value:expr)?),* $(,)? }) => {{
        // The given fields may be all the struct has besides the label.
        #[allow(clippy::needless_update)]
        let options = $t { $($field $(: $value)?,)* label: $crate::support::LABEL.into(), ..Default::default() };
        options
    }};
}

/// The data type and shape of an input to create.
pub type TypedShape<'a> = (DataType, &'a [u32]);

/// `MLOperatorOptions` with the test label.
pub fn label() -> OpOptions {
    OpOptions { label: LABEL.into() }
}

/// A new input of the given static shape, named uniquely.
pub fn input(b: &mut GraphBuilder, dt: DataType, shape: &[u32]) -> Operand {
    input_dims(b, dt, dims(shape))
}

pub fn f32_in(b: &mut GraphBuilder, shape: &[u32]) -> Operand {
    input(b, DataType::Float32, shape)
}

pub fn i32_in(b: &mut GraphBuilder, shape: &[u32]) -> Operand {
    input(b, DataType::Int32, shape)
}

/// A new input whose dimensions may be dynamic.
pub fn input_dims(b: &mut GraphBuilder, dt: DataType, dims: Vec<Dim>) -> Operand {
    let name = format!("in{}", b.graph().operands.len());
    b.input(&name, OperandDescriptor::with_dims(dt, dims)).expect("valid input")
}

pub fn dims(shape: &[u32]) -> Vec<Dim> {
    shape.iter().map(|&n| Dim::Static(n)).collect()
}

pub fn dyn_dim(name: &str, max_size: u32) -> Dim {
    Dim::Dynamic { name: name.into(), max_size }
}

/// Asserts that building failed with `kind` and that the message names the op's label.
pub fn error_of<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind) {
    let err = r.expect_err("building should fail");
    assert_eq!(err.kind, kind, "{err}");
    assert!(err.to_string().contains(&format!("[{LABEL}]")), "{err}");
}

pub fn type_error<T: std::fmt::Debug>(r: Result<T>) {
    error_of(r, ErrorKind::TypeError)
}

pub fn desc(b: &GraphBuilder, o: Operand) -> OperandDescriptor {
    b.desc(o).expect("own operand").clone()
}

pub fn shape_of(b: &GraphBuilder, o: Operand) -> Vec<u32> {
    desc(b, o).static_shape().expect("static shape")
}

/// The descriptor of a build that must succeed; `r` comes first so that the build itself may
/// borrow `b` mutably in the same call.
pub fn out_desc(r: Result<Operand>, b: &GraphBuilder) -> OperandDescriptor {
    desc(b, r.expect("building should succeed"))
}

pub fn out_shape(r: Result<Operand>, b: &GraphBuilder) -> Vec<u32> {
    shape_of(b, r.expect("building should succeed"))
}
