//! Kernels, one module per op family.

pub mod conv;
pub mod elementwise;
pub mod gather;
pub mod matmul;
pub mod normalization;
pub mod pool;
pub mod quantization;
pub mod recurrent;
pub mod reduction;
pub mod shape;
