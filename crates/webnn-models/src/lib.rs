//! Reference networks built with the WebNN graph builder. Weights come from a seeded
//! generator (no model files): the graphs have the real architectures and sizes, so they
//! measure speed and check backends against each other, not accuracy on images.

mod mobilenet;
mod rng;

pub use mobilenet::{mobilenet_v2, sample_image, MOBILENET_INPUT};
pub use rng::Rng;
