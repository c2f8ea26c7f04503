//! webnn-core: the WebNN spec model. Data types, descriptors with static or bounded-dynamic
//! dimensions, the op table, the graph IR, the builder with validation and shape inference,
//! and `opSupportLimits()`. Backends receive graphs this crate has validated.

pub mod backend;
pub mod builder;
mod device;
mod builder_ops;
pub mod dtype;
pub mod error;
pub mod graph;
pub mod limits;
pub mod memory;
pub mod ops;
pub mod passes;
pub mod patterns;
pub mod fusion;
pub mod shape;
mod validate;

pub use backend::{
    Backend, Bound, DeviceInfo, DeviceTensor, Executable, GraphStats, HostTensor, InPlace, LocalFuture,
    Pending, ReadFuture,
};
pub use builder::GraphBuilder;
pub use dtype::{check_view_type, DataType, DataTypeSet, ViewType};
pub use error::{Error, ErrorKind, Result};
pub use graph::{Graph, Node, Operand, Source};
pub use limits::{op_support_limits, Capabilities, OpSupportLimits};
pub use ops::{Op, OpKind};
pub use shape::{Dim, DimBindings, OperandDescriptor};
