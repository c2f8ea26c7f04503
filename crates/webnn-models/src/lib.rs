//! Reference networks built with the WebNN graph builder.
//!
//! - MobileNetV2 with weights from a seeded generator (no model files): the real
//!   architecture and size, for speed and backend-against-backend checks, not accuracy.
//! - A BERT-style transformer encoder with seeded weights (the second architecture the ONNX
//!   Runtime Web tests hand to WebNN).
//! - A toy decoder (random weights) whose KV caches are updated in place (flexible inputs).
//! - EfficientNet-Lite0 with its trained ImageNet weights, read from the files
//!   `scripts/models.sh` converts, in NCHW or NHWC.

mod attention;
mod decoder;
mod efficientnet;
mod encoder;
mod flexible;
mod mobilenet;
mod qdq;
mod quantized;
mod rng;
mod style;

pub use attention::{attention, AttentionShape};
pub use decoder::{greedy, toy_decoder, DecoderConfig, StepInputs};
pub use efficientnet::{
    efficientnet_dir, efficientnet_lite0, imagenet_labels, preprocess, same_padding, sample_rgb,
    top_k, Block, EfficientNetWeights, ModelError, EFFICIENTNET_INPUT, EFFICIENTNET_SAMPLES,
    EFFICIENTNET_SIZE,
};
pub use encoder::{bert_encoder, encoder_sample, EncoderConfig, ENCODER_INPUTS};
pub use flexible::{flexible_batch_probe, flexible_probe, probe_values};
pub use mobilenet::{mobilenet_v2, sample_image, MOBILENET_INPUT};
pub use qdq::qdq;
pub use quantized::QuantizedLinear;
pub use rng::Rng;
pub use style::{style_transfer, STYLE_INPUT};
pub use webnn_core::ops::InputLayout;
